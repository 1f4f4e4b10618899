# Generates a C++ source holding every resources/models/*.json as a string, so the trainer carries its
# presets with it to every node. Run with -DOUT=... -DDIR=...
file(GLOB files "${DIR}/*.json")
list(SORT files)
set(body "#include \"model/presets.h\"\nnamespace traindeck::model {\nstatic const PresetSource kPresets[] = {\n")
foreach(f ${files})
  get_filename_component(name "${f}" NAME_WLE)
  file(READ "${f}" text)
  string(APPEND body "    {\"${name}\", R\"json(${text})json\"},\n")
endforeach()
string(APPEND body "};\nstd::span<const PresetSource> builtinPresets() { return kPresets; }\n}\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
