# Shared precompiled headers. Parsing the same Qt (and standard library) headers again was most of the
# compile time of a backend, GUI or test source (-ftime-report of tst_phases.cpp: 86 % parsing), and each
# build (the `ci` one, ASan's, TSan's, the fuzzers') paid it again. A host target compiles the header
# once; the targets of a group reuse it (REUSE_FROM).
#
# A precompiled header is only used where the macros its headers test are defined as they were when it
# was built (GCC: the macros it references; clang: also no macro of the header may be missing on the
# command line). So a host is a static library with only the definitions its users all have (a shared
# library would add its own <target>_EXPORTS), and CMake compiles each user with -Winvalid-pch, an error with
# TRAINDECK_WERROR: a header that stops matching its users fails the build instead of costing time unseen.

# traindeck_pch_host(NAME HEADERS header... [LIBS target...] [DEFINITIONS def...] [OPTIONS opt...])
function(traindeck_pch_host name)
  cmake_parse_arguments(P "" "" "HEADERS;LIBS;DEFINITIONS;OPTIONS" ${ARGN})
  set(source ${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp)
  file(GENERATE OUTPUT ${source}
       CONTENT "// Written by CMake (cmake/TrainDeckPch.cmake): the host of a shared precompiled header.\n")
  add_library(${name} STATIC ${source})
  target_link_libraries(${name} PRIVATE ${P_LIBS})
  target_compile_definitions(${name} PRIVATE ${P_DEFINITIONS})
  target_compile_options(${name} PRIVATE ${P_OPTIONS})
  target_precompile_headers(${name} PRIVATE ${P_HEADERS})
endfunction()

# traindeck_use_pch(TARGET HOST): TARGET's sources get HOST's precompiled header.
function(traindeck_use_pch target host)
  target_precompile_headers(${target} REUSE_FROM ${host}) # CMake adds -Winvalid-pch for GCC
endfunction()
