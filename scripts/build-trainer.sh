#!/usr/bin/env bash
# Builds traindeck-trainer alone, on the node that will run it, against a LibTorch found there: the one
# inside the node's PyTorch (a CUDA LibTorch on a GPU node), with NCCL and MPI when the node has them.
# Ends with the binary's path and what it linked, from its own `self-check`.
# docs/reference/trainer.md, "GPU nodes".
#
#   scripts/build-trainer.sh [options] [-- CMAKE_ARGS...]
#
# Exit codes: 0 built and its self-check ran; 1 configure, build or self-check failed; 2 bad usage, or
# nothing to build against (no LibTorch, a CUDA LibTorch without the CUDA toolkit, --cuda or --with-mpi
# asking for what is not there).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
me=build-trainer

usage() {
  cat <<EOF
usage: scripts/build-trainer.sh [options] [-- CMAKE_ARGS...]
Builds only traindeck-trainer, against a LibTorch found on this machine, and prints what it linked
(LibTorch version, CUDA, NCCL, MPI) from the binary's self-check.

  --libtorch DIR        the LibTorch to build against: its root (DIR/share/cmake/Torch, as in
                        pytorch.org's LibTorch zip), a prefix (DIR/lib/cmake/Torch), or the folder
                        holding TorchConfig.cmake (default: \$TRAINDECK_TORCH_PREFIX, else the one of
                        the Python's torch, else the system's)
  --python PY           the Python whose torch gives the LibTorch when --libtorch is not given
                        (default: \$PYTHON, else python3)
  --build-dir DIR       build folder (default: build-trainer in the checkout)
  --build-type TYPE     CMake build type (default: Release)
  --cuda auto|on|off    auto (default): use CUDA when the LibTorch was built with it (then the CUDA
                        toolkit's nvcc is needed: CUDA_HOME, /usr/local/cuda or PATH); on: stop unless
                        it was; off: stop if it was, and leave NCCL out
  --with-mpi auto|on|off  auto (default): with MPI when it is found, else a single-process trainer;
                        on: stop unless MPI is found; off: without MPI
  --jobs N              parallel build jobs (default: the number of cores)
  --configure-only      configure the build folder and stop
  -h, --help            this text
Arguments after -- go to cmake's configure step (e.g. -DCMAKE_PREFIX_PATH=DIR).

Exit codes: 0 built (and self-check ran), 1 configure/build/self-check failed, 2 bad usage or nothing
to build against.
EOF
}

say() { echo "$me: $*"; }
bad_usage() {
  echo "$me: $*" >&2
  echo "$me: see scripts/build-trainer.sh --help" >&2
  exit 2
}
cannot() { # nothing (suitable) to build against: exit 2
  echo "$me: error: $*" >&2
  exit 2
}
failed() {
  echo "$me: error: $*" >&2
  exit 1
}

libtorch="${TRAINDECK_TORCH_PREFIX:-}"
libtorch_from=""
[ -n "$libtorch" ] && libtorch_from="TRAINDECK_TORCH_PREFIX"
python="${PYTHON:-python3}"
python_given=0
build_dir="$root/build-trainer"
build_type=Release
cuda_mode=auto
mpi_mode=auto
jobs="$(nproc 2>/dev/null || echo 2)"
configure_only=0
cmake_args=()

need_value() { if [ $# -lt 2 ] || [ -z "$2" ]; then bad_usage "$1 needs a value"; fi; }
while [ $# -gt 0 ]; do
  case "$1" in
    --libtorch) need_value "$@"; libtorch="$2"; libtorch_from="--libtorch"; shift 2 ;;
    --libtorch=*) libtorch="${1#*=}"; libtorch_from="--libtorch"; [ -n "$libtorch" ] || bad_usage "--libtorch needs a value"; shift ;;
    --python) need_value "$@"; python="$2"; python_given=1; shift 2 ;;
    --python=*) python="${1#*=}"; python_given=1; [ -n "$python" ] || bad_usage "--python needs a value"; shift ;;
    --build-dir) need_value "$@"; build_dir="$2"; shift 2 ;;
    --build-dir=*) build_dir="${1#*=}"; [ -n "$build_dir" ] || bad_usage "--build-dir needs a value"; shift ;;
    --build-type) need_value "$@"; build_type="$2"; shift 2 ;;
    --build-type=*) build_type="${1#*=}"; [ -n "$build_type" ] || bad_usage "--build-type needs a value"; shift ;;
    --cuda) need_value "$@"; cuda_mode="$2"; shift 2 ;;
    --cuda=*) cuda_mode="${1#*=}"; shift ;;
    --with-mpi) need_value "$@"; mpi_mode="$2"; shift 2 ;;
    --with-mpi=*) mpi_mode="${1#*=}"; shift ;;
    --jobs | -j) need_value "$@"; jobs="$2"; shift 2 ;;
    --jobs=*) jobs="${1#*=}"; shift ;;
    --configure-only) configure_only=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; cmake_args=("$@"); break ;;
    *) bad_usage "unknown argument '$1'" ;;
  esac
done
case "$cuda_mode" in auto | on | off) ;; *) bad_usage "--cuda must be auto, on or off, not '$cuda_mode'" ;; esac
case "$mpi_mode" in auto | on | off) ;; *) bad_usage "--with-mpi must be auto, on or off, not '$mpi_mode'" ;; esac
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || bad_usage "--jobs must be a positive number, not '$jobs'"
command -v cmake >/dev/null || cannot "cmake is not installed (CMake 3.25 or newer)"
case "$build_dir" in /*) ;; *) build_dir="$PWD/$build_dir" ;; esac

# ---- which LibTorch -------------------------------------------------------------------------------------
# config_dir DIR: sets `found` to the folder holding TorchConfig.cmake for DIR (a LibTorch root, a
# prefix, or that folder itself) and returns 0, else returns 1; every place looked at goes into `looked`.
looked=()
found=""
config_dir() {
  local c candidates=("$1" "$1/Torch" "$1/share/cmake/Torch" "$1/lib/cmake/Torch")
  for c in "$1"/lib/*/cmake/Torch; do [ -d "$c" ] && candidates+=("$c"); done
  for c in "${candidates[@]}"; do
    looked+=("$c/TorchConfig.cmake")
    if [ -f "$c/TorchConfig.cmake" ]; then
      found="$(cd "$c" && pwd)"
      return 0
    fi
  done
  return 1
}

torch_dir=""     # the folder holding TorchConfig.cmake
torch_source=""  # where it came from, in words
torch_libdir=""  # the folder holding libtorch.so (CUDA: libtorch_cuda.so beside it)
py_torch=""      # the Python torch's version, when it gave the LibTorch
py_cuda=""       # torch.version.cuda of that torch
py_abi=""        # torch.compiled_with_cxx11_abi() of that torch
py_path=""
no_torch=""
if [ -n "$libtorch" ]; then
  [ -d "$libtorch" ] || cannot "$libtorch_from $libtorch: no such directory"
  config_dir "$libtorch" || cannot "$libtorch_from $libtorch: no TorchConfig.cmake there (looked for ${looked[*]})"
  torch_dir="$found"
  torch_source="$libtorch_from $libtorch"
else
  py_path="$(command -v "$python" 2>/dev/null || true)"
  if [ -z "$py_path" ]; then
    [ "$python_given" = 1 ] && cannot "--python $python: no such program"
    looked+=("$python (not installed)")
  else
    # Version, CMake prefix, CUDA, ABI, and the folder of the libtorch the module has loaded (Debian's
    # python3-torch loads the system's /usr/lib/<arch>/libtorch*.so and ships no CMake files of its own).
    py_out="$("$py_path" - 2>&1 <<'PY'
import os, sys
try:
    import torch
except Exception as e:  # noqa: BLE001 - reported, not raised
    print("NO_TORCH", type(e).__name__ + ": " + str(e).splitlines()[0] if str(e) else type(e).__name__)
    sys.exit(0)
libdir = ""
try:
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            name = os.path.basename(path)
            if name.startswith(("libtorch_cpu.so", "libtorch.so")):
                libdir = os.path.dirname(os.path.realpath(path))
                break
except OSError:
    pass
if not libdir:
    libdir = os.path.join(os.path.dirname(torch.__file__), "lib")
print("TORCH_VERSION", torch.__version__)
print("TORCH_FILE", os.path.dirname(torch.__file__))
print("CMAKE_PREFIX", torch.utils.cmake_prefix_path)
print("CUDA", torch.version.cuda or "")
print("ABI", int(torch.compiled_with_cxx11_abi()))
print("LIBDIR", libdir)
PY
    )" || py_out="NO_TORCH $py_path failed"
    field() { sed -n "s/^$1 //p" <<<"$py_out" | head -n 1; }
    if ! grep -q '^TORCH_VERSION ' <<<"$py_out"; then
      why="$(field NO_TORCH)"
      [ -n "$why" ] || why="$(tail -n 1 <<<"$py_out")"
      no_torch="$python ($py_path) has no torch: ${why:-it printed nothing}"
      looked+=("the torch of $py_path")
    else
      py_torch="$(field TORCH_VERSION)"
      py_cuda="$(field CUDA)"
      py_abi="$(field ABI)"
      prefix="$(field CMAKE_PREFIX)"
      loaded="$(field LIBDIR)"
      if config_dir "$prefix"; then
        torch_dir="$found"
        torch_source="$py_path's torch $py_torch ($(field TORCH_FILE))"
        torch_libdir="$loaded"
      elif config_dir "$loaded/cmake" || config_dir "$loaded/.."; then
        torch_dir="$found"
        # Debian: torch.utils.cmake_prefix_path names a folder that does not exist; the CMake config of
        # the same libtorch is libtorch-dev's, beside the library.
        torch_source="$py_path's torch $py_torch ($(field TORCH_FILE)); its torch.utils.cmake_prefix_path"
        torch_source+=" ($prefix) has no TorchConfig.cmake (as in Debian's python3-torch), so this is the CMake config"
        torch_source+=" of the libtorch that torch loads, in $loaded (on Debian: libtorch-dev's)"
        torch_libdir="$loaded"
      else
        cannot "$py_path's torch $py_torch ($(field TORCH_FILE)) has no CMake config: looked for ${looked[*]}." \
          "On Debian, install libtorch-dev (the C++ headers and CMake files of python3-torch's libtorch);" \
          "else pass --libtorch DIR (a LibTorch from pytorch.org)."
      fi
    fi
  fi
  if [ -z "$torch_dir" ]; then
    # No usable Python torch: the system's LibTorch (Debian's libtorch-dev: CPU only).
    for d in /usr/lib/*/cmake/Torch /usr/lib/cmake/Torch /usr/local/lib/cmake/Torch /usr/local/share/cmake/Torch \
      /usr/share/cmake/Torch; do
      looked+=("$d/TorchConfig.cmake")
      if [ -f "$d/TorchConfig.cmake" ]; then
        torch_dir="$d"
        torch_source="the system's LibTorch, as ${no_torch:-there is no $python}"
        break
      fi
    done
  fi
  [ -n "$torch_dir" ] || cannot "no LibTorch found. Looked for: ${looked[*]}." \
    "Install PyTorch for $python (pip install torch: a CUDA LibTorch on Linux) or libtorch-dev," \
    "or pass --libtorch DIR (a LibTorch from pytorch.org, unpacked)."
fi
if [ -z "$torch_libdir" ]; then
  for d in "$torch_dir/../../../lib" "$torch_dir/../.." "$torch_dir/../../.."; do
    if compgen -G "$d/libtorch.so*" >/dev/null; then
      torch_libdir="$(cd "$d" && pwd)"
      break
    fi
  done
fi
torch_version="$(sed -n 's/^set(PACKAGE_VERSION "\([^"]*\)").*/\1/p' "$torch_dir/TorchConfigVersion.cmake" 2>/dev/null | head -n 1)"
libtorch_cuda=no
if [ -n "$torch_libdir" ] && compgen -G "$torch_libdir/libtorch_cuda.so*" >/dev/null; then libtorch_cuda=yes; fi
say "LibTorch ${torch_version:-(version unknown)}: $torch_dir"
say "  from $torch_source"
say "  library folder ${torch_libdir:-(not found)}, built with CUDA: $libtorch_cuda${py_cuda:+ (CUDA $py_cuda)}"

# ---- configure arguments --------------------------------------------------------------------------------
args=(-S "$root" -B "$build_dir" -DTRAINDECK_TRAINER_ONLY=ON -DCMAKE_BUILD_TYPE="$build_type" -DTorch_DIR="$torch_dir")
if [ ! -f "$build_dir/CMakeCache.txt" ] && command -v ninja >/dev/null; then args+=(-G Ninja); fi
case "$mpi_mode" in
  off) args+=(-DTRAINDECK_WITH_MPI=OFF) ;;
  *) args+=(-DTRAINDECK_WITH_MPI=ON) ;;  # auto: the trainer-only build turns it off when MPI is not found
esac

if [ "$libtorch_cuda" = yes ]; then
  [ "$cuda_mode" = off ] && cannot "--cuda off, but $torch_dir is a CUDA LibTorch (libtorch_cuda.so in $torch_libdir)"
  # PyTorch's CMake config (Caffe2) enables CUDA and looks for the toolkit: nvcc is needed to configure.
  nvcc="$(command -v nvcc || true)"
  cuda=""
  for c in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda "${nvcc%/bin/nvcc}"; do
    if [ -n "$c" ] && [ -x "$c/bin/nvcc" ]; then cuda="$c"; break; fi
  done
  [ -n "$cuda" ] || cannot "$torch_dir is a CUDA LibTorch, and configuring against it needs the CUDA toolkit's nvcc:" \
    "none in CUDA_HOME, /usr/local/cuda or PATH. Install the CUDA toolkit (the version of the LibTorch:" \
    "${py_cuda:-see its name}) or set CUDA_HOME."
  toolkit="$("$cuda/bin/nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p' | head -n 1)"
  # The trainer has no CUDA kernels of its own; Caffe2's config wants an architecture list anyway (and
  # would otherwise run nvcc to find one): the GPUs here, else 9.0 (H100, H200).
  arch="${TORCH_CUDA_ARCH_LIST:-}"
  if [ -z "$arch" ] && command -v nvidia-smi >/dev/null; then
    arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | grep -E '^[0-9]+\.[0-9]+$' |
      sort -u | paste -sd ';' || true)"
  fi
  arch="${arch:-9.0}"
  export CUDA_HOME="$cuda" CUDACXX="$cuda/bin/nvcc" PATH="$cuda/bin:$PATH" TORCH_CUDA_ARCH_LIST="$arch"
  cmake_arch="$(tr ';' '\n' <<<"$arch" | sed 's/+PTX//; s/\.//' | grep -E '^[0-9]+$' | paste -sd ';')"
  args+=(-DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" -DCUDAToolkit_ROOT="$cuda" -DCUDA_TOOLKIT_ROOT_DIR="$cuda"
    -DCMAKE_CUDA_ARCHITECTURES="${cmake_arch:-90}")
  cudnn="none found (the system's, or not needed)"
  if [ -n "$py_torch" ]; then
    # cuDNN from the nvidia-cudnn wheel a pip PyTorch uses: its lib/ has only libcudnn.so.9, which
    # find_library misses, and PyTorch's exported targets may name cuDNN's.
    cudnn_lib="" cudnn_inc=""
    { read -r cudnn_lib || true; read -r cudnn_inc || true; } < <("$py_path" - <<'PY' 2>/dev/null
import glob, os, torch
sp = os.path.dirname(os.path.dirname(torch.__file__))
libs = sorted(glob.glob(os.path.join(sp, "nvidia", "**", "libcudnn.so*"), recursive=True))
hdrs = sorted(glob.glob(os.path.join(sp, "nvidia", "**", "cudnn.h"), recursive=True))
print(libs[0] if libs else "")
print(os.path.dirname(hdrs[0]) if hdrs else "")
PY
    )
    if [ -n "$cudnn_lib" ] && [ -n "$cudnn_inc" ]; then
      args+=(-DCUDNN_INCLUDE_PATH="$cudnn_inc" -DCUDNN_INCLUDE_DIR="$cudnn_inc" -DCUDNN_LIBRARY_PATH="$cudnn_lib"
        -DCUDNN_LIBRARY="$cudnn_lib")
      cudnn="$cudnn_lib"
    fi
  fi
  say "CUDA toolkit $cuda (nvcc ${toolkit:-?}), TORCH_CUDA_ARCH_LIST=$arch, cuDNN $cudnn"
else
  [ "$cuda_mode" = on ] && cannot "--cuda on, but this LibTorch is CPU-only (no libtorch_cuda.so in" \
    "${torch_libdir:-its library folder}). Pass --libtorch DIR of a CUDA LibTorch, or install PyTorch with CUDA" \
    "for $python (pip install torch)."
  [ "$cuda_mode" = off ] && args+=(-DTRAINDECK_WITH_NCCL=OFF)
fi

# PyTorch's TorchConfig puts its -D_GLIBCXX_USE_CXX11_ABI on the torch target; the trainer's libraries
# without LibTorch must agree with it (pip's PyTorch before 2.7 used the old ABI).
abi="$py_abi"
[ -n "$abi" ] || abi="$(grep -o '_GLIBCXX_USE_CXX11_ABI=[01]' "$torch_dir/TorchConfig.cmake" 2>/dev/null | head -n 1 | cut -d= -f2 || true)"
[ "$abi" = 0 ] && args+=(-DCMAKE_CXX_FLAGS=-D_GLIBCXX_USE_CXX11_ABI=0)

# ccache (the checkout's CMakeLists uses it when installed) must accept the precompiled LibTorch header;
# paths relative to the checkout let a build in another folder reuse the objects of this one's.
if command -v ccache >/dev/null; then
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
fi

# ---- configure, build -----------------------------------------------------------------------------------
SECONDS=0
say "configuring $build_dir"
mkdir -p "$build_dir"
configure_log="$build_dir/build-trainer-configure.log"
set +e
cmake "${args[@]}" "${cmake_args[@]}" 2>&1 | tee "$configure_log"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || failed "cmake failed (exit $rc): see the output above ($configure_log)"
mpi_built="$(sed -n 's/^-- Trainer-only build (MPI: \(ON\|OFF\)).*/\1/p' "$configure_log" | tail -n 1)"
if [ "$mpi_mode" = on ] && [ "$mpi_built" != ON ]; then
  cannot "--with-mpi on, but CMake found no MPI (install libopenmpi-dev, or --with-mpi auto|off)"
fi
if [ "$configure_only" = 1 ]; then
  say "configured $build_dir (MPI: ${mpi_built:-?}); build with: cmake --build $build_dir --target traindeck-trainer"
  exit 0
fi

say "building traindeck-trainer with $jobs jobs"
cmake --build "$build_dir" -j "$jobs" --target traindeck-trainer || failed "the build failed: see the output above"
bin="$build_dir/trainer/traindeck-trainer"
[ -x "$bin" ] || failed "the build ended without $bin"
build_seconds=$SECONDS

# ---- what it linked -------------------------------------------------------------------------------------
selfcheck="$build_dir/self-check.json"
if ! "$bin" self-check >"$selfcheck" 2>"$build_dir/self-check.err"; then
  cat "$build_dir/self-check.err" >&2
  failed "$bin self-check failed"
fi
linked_cuda=no
if ldd "$bin" 2>/dev/null | grep -q 'libtorch_cuda\.so'; then linked_cuda=yes; fi
built_type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt" | head -n 1)"
say "built $bin (${built_type:-$build_type}, $build_seconds s)"
say "self-check of that binary (the whole JSON: $selfcheck):"
summary_py="$(command -v python3 || true)"
[ -n "$py_path" ] && summary_py="$py_path"
if [ -n "$summary_py" ]; then
  "$summary_py" - "$selfcheck" "$bin" "$torch_dir" "$linked_cuda" "$me" <<'PY' || cat "$selfcheck"
import json, sys
path, binary, torch_dir, linked_cuda, me = sys.argv[1:6]
j = json.load(open(path, encoding="utf-8"))
cuda = j.get("cuda") or {}
gpus = j.get("gpus") or []
linked = linked_cuda == "yes"
if linked and cuda.get("available"):
    cuda_text = f"yes: {cuda.get('devices')} CUDA device(s) available"
elif linked:
    cuda_text = "built with CUDA (libtorch_cuda.so linked), but no CUDA device is available here"
else:
    cuda_text = "no: this LibTorch is CPU-only (no libtorch_cuda.so), so the trainer trains on the CPU"
nccl = j.get("nccl")
if j.get("nccl_communicator"):
    nccl_text = f"{nccl}, NCCL communicator built in (--comm nccl)"
elif nccl:
    nccl_text = f"not built in (libnccl {nccl} is on this machine, but not the CUDA toolkit's nccl.h)"
else:
    nccl_text = "not built in (no CUDA toolkit with nccl.h and libnccl found)"
rows = [
    ("LibTorch", f"{j.get('libtorch')} ({torch_dir})"),
    ("CUDA", cuda_text),
    ("NCCL", nccl_text),
    ("MPI", str(j.get("mpi"))),
    ("GPUs", ", ".join(g.get("name", "?") for g in gpus) if gpus else f"none visible ({j.get('gpus_error')})"),
    ("allocator", (j.get("allocator") or {}).get("name")),
]
for name, value in rows:
    print(f"  {name:<9} {value}")
print(me + ": " + json.dumps({
    "binary": binary, "libtorch": j.get("libtorch"), "torch_dir": torch_dir, "libtorch_cuda": linked,
    "cuda_available": bool(cuda.get("available")), "cuda_devices": cuda.get("devices"),
    "nccl": nccl, "nccl_communicator": bool(j.get("nccl_communicator")), "mpi": j.get("mpi"), "gpus": len(gpus)}))
if gpus and not linked:
    print(f"{me}: warning: this machine has {len(gpus)} GPU(s), but this trainer cannot use them: its LibTorch "
          "is CPU-only. Build against a CUDA LibTorch: install PyTorch with CUDA (pip install torch) or pass "
          "--libtorch DIR (docs/reference/trainer.md#gpu-nodes).")
PY
else
  cat "$selfcheck"
fi
say "put $bin on PATH on this node (or in the profile's path_prefix), or copy it to nodes like this one with:"
say "  traindeck-cli deploy --profile FILE --trainer $bin --node NAME"
