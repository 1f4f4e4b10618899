#!/usr/bin/env bash
# scripts/build-trainer.sh, the build of traindeck-trainer on a (GPU) node (docs/reference/trainer.md,
# "GPU nodes"):
# - bad arguments, and nothing to build against, exit 2 with a message naming the flag or what was
#   looked for;
# - a fake pip-style CUDA PyTorch (a torch module, share/cmake/Torch, lib/libtorch_cuda.so, the
#   nvidia-cudnn wheel's files, a fake nvcc) takes the CUDA path up to CMake's configure: the CUDA
#   toolkit, TORCH_CUDA_ARCH_LIST, cuDNN and the old C++ ABI reach CMake; --cuda off refuses it;
# - a real build against Debian's python3-torch into a folder of its own, with this build's compiler
#   and flags (so ccache serves the main build's objects), and the self-check it prints: LibTorch 1.13
#   found through python3's torch, MPI, and no CUDA.
# Debian's LibTorch is CPU-only, so no CUDA LibTorch is built or linked here: that part of the script
# runs only on a GPU machine (tests/device/check-gpu.sh).
#   build_trainer_test.sh SOURCE_DIR BUILD_DIR [CMAKE_ARGS...]   (BUILD_DIR is emptied, then removed)
set -uo pipefail
root="$1"
build="$2"
shift 2
script="$root/scripts/build-trainer.sh"
work="$(mktemp -d)"
cleanup() {
  rm -rf "$work"
  [ "${TRAINDECK_KEEP_TEST_BUILD:-0}" = 1 ] || rm -rf "$build"
}
trap cleanup EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
ok() { echo "ok: $*"; }

# expect_exit CODE PATTERN ARGS...: runs the script with ARGS; its exit code must be CODE and its
# output match PATTERN (grep -E). The output stays in $out for `says`.
out=""
expect_exit() {
  local code=$1 pattern=$2 rc
  shift 2
  out="$("$script" "$@" 2>&1)"
  rc=$?
  if [ "$rc" -ne "$code" ]; then
    fail "build-trainer.sh $* exited $rc, expected $code:"$'\n'"$out"
  elif ! grep -qE -- "$pattern" <<<"$out"; then
    fail "build-trainer.sh $* (exit $rc) did not say /$pattern/:"$'\n'"$out"
  else
    ok "build-trainer.sh $* -> $rc: $(grep -E -m 1 -- "$pattern" <<<"$out")"
  fi
}
# says LINE: the last output has this exact line.
says() { grep -qxF -- "$1" <<<"$out" || fail "no line '$1' in:"$'\n'"$out"; }

# ---- usage and bad arguments ----------------------------------------------------------------------------
expect_exit 0 "--libtorch DIR" --help
expect_exit 2 "unknown argument '--bogus'" --bogus
expect_exit 2 "--cuda must be auto, on or off, not 'maybe'" --cuda maybe
expect_exit 2 "--with-mpi must be auto, on or off, not 'sometimes'" --with-mpi sometimes
expect_exit 2 "--jobs must be a positive number, not '0'" --jobs 0
expect_exit 2 "--build-dir needs a value" --build-dir
expect_exit 2 "--libtorch $work/none: no such directory" --libtorch "$work/none"
mkdir -p "$work/empty"
expect_exit 2 "no TorchConfig.cmake there \(looked for $work/empty/TorchConfig.cmake .*share/cmake/Torch/TorchConfig.cmake" \
  --libtorch "$work/empty"
expect_exit 2 "--python $work/no-python: no such program" --python "$work/no-python"

# ---- a CUDA PyTorch, faked: the script's CUDA path up to CMake ------------------------------------------
site="$work/site"
mkdir -p "$site/torch/share/cmake/Torch" "$site/torch/lib" "$site/nvidia/cudnn/lib" "$site/nvidia/cudnn/include" \
  "$work/cuda/bin"
cat >"$site/torch/__init__.py" <<'PY'
# A stand-in for a pip PyTorch built with CUDA 12.4 and the old C++ ABI (what the script asks of torch).
import os
__version__ = "2.5.1+cu124"
class utils:
    cmake_prefix_path = os.path.join(os.path.dirname(__file__), "share", "cmake")
class version:
    cuda = "12.4"
def compiled_with_cxx11_abi():
    return False
PY
echo 'set(PACKAGE_VERSION "2.5.1")' >"$site/torch/share/cmake/Torch/TorchConfigVersion.cmake"
# What reached CMake, one line each (CMake wraps a long message), then stop: nothing builds against it.
cat >"$site/torch/share/cmake/Torch/TorchConfig.cmake" <<'CMAKE'
foreach(v CUDA_HOME TORCH_CUDA_ARCH_LIST)
  message(STATUS "fake torch: ${v}=$ENV{${v}}")
endforeach()
foreach(v CMAKE_CUDA_COMPILER CMAKE_CUDA_ARCHITECTURES CUDNN_LIBRARY_PATH CUDNN_INCLUDE_PATH CMAKE_CXX_FLAGS)
  message(STATUS "fake torch: ${v}=${${v}}")
endforeach()
message(FATAL_ERROR "fake TorchConfig: stop")
CMAKE
touch "$site/torch/lib/libtorch.so" "$site/torch/lib/libtorch_cuda.so" "$site/torch/lib/libc10_cuda.so" \
  "$site/nvidia/cudnn/lib/libcudnn.so.9" "$site/nvidia/cudnn/include/cudnn.h"
printf '#!/bin/sh\necho "Cuda compilation tools, release 12.4, V12.4.131"\n' >"$work/cuda/bin/nvcc"
chmod +x "$work/cuda/bin/nvcc"
fake_py="$(command -v python3)"
fake() { PYTHONPATH="$site" CUDA_HOME="$work/cuda" TORCH_CUDA_ARCH_LIST="8.0;9.0" expect_exit "$@"; }
fake 1 "fake TorchConfig: stop" --python "$fake_py" --cuda on --configure-only --build-dir "$work/fake-build"
says "build-trainer:   library folder $site/torch/lib, built with CUDA: yes (CUDA 12.4)"
says "-- fake torch: CUDA_HOME=$work/cuda"
says "-- fake torch: CMAKE_CUDA_COMPILER=$work/cuda/bin/nvcc"
says "-- fake torch: TORCH_CUDA_ARCH_LIST=8.0;9.0"
says "-- fake torch: CMAKE_CUDA_ARCHITECTURES=80;90"
says "-- fake torch: CUDNN_LIBRARY_PATH=$site/nvidia/cudnn/lib/libcudnn.so.9"
says "-- fake torch: CUDNN_INCLUDE_PATH=$site/nvidia/cudnn/include"
says "-- fake torch: CMAKE_CXX_FLAGS=-D_GLIBCXX_USE_CXX11_ABI=0"
fake 2 "--cuda off, but .* is a CUDA LibTorch" --python "$fake_py" --cuda off --build-dir "$work/fake-build"
# The same LibTorch named with --libtorch (a LibTorch zip's layout: DIR/share/cmake/Torch, DIR/lib): the
# CUDA toolkit again, the ABI from TorchConfig.cmake (the fake names none: the default ABI).
fake 1 "fake TorchConfig: stop" --libtorch "$site/torch" --cuda on --configure-only --build-dir "$work/fake-build2"
says "build-trainer:   from --libtorch $site/torch"
says "-- fake torch: CMAKE_CUDA_COMPILER=$work/cuda/bin/nvcc"
says "-- fake torch: CMAKE_CXX_FLAGS="

# ---- the real build against Debian's python3-torch ------------------------------------------------------
py=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import torch' 2>/dev/null; then
    py="$(command -v "$candidate")"
    break
  fi
done
if [ -z "$py" ]; then
  fail "no python3 here imports torch: install python3-torch (scripts/setup-deps.sh does)"
  exit 1
fi
expect_exit 2 "--cuda on, but this LibTorch is CPU-only" --python "$py" --cuda on --build-dir "$build"

rm -rf "$build"
start=$(date +%s)
log="$work/build.log"
"$script" --python "$py" --build-dir "$build" --jobs 2 -- "$@" >"$log" 2>&1
rc=$?
seconds=$(($(date +%s) - start))
grep -E '^build-trainer: |^  [A-Za-z]' "$log"
if [ "$rc" -ne 0 ]; then
  tail -n 60 "$log"
  fail "the build against $py's torch exited $rc"
else
  ok "built against $py's torch in $seconds s"
  grep -q "^build-trainer:   from $py's torch 1\.13" "$log" || fail "the LibTorch was not taken from $py's torch"
  summary="$(sed -n 's/^build-trainer: \({.*}\)$/\1/p' "$log" | tail -n 1)"
  [ -x "$build/trainer/traindeck-trainer" ] || fail "no $build/trainer/traindeck-trainer"
  [ -s "$build/self-check.json" ] || fail "no $build/self-check.json"
  # Debian's LibTorch is CPU-only: found, MPI linked, no CUDA (the CUDA path is the device check's).
  if ! python3 - "$summary" "$build" <<'PY'; then
import json, os, sys
s = json.loads(sys.argv[1])
problems = []
if not str(s.get("libtorch", "")).startswith("1.13"):
    problems.append(f"libtorch {s.get('libtorch')!r}, expected Debian's 1.13")
if not os.path.isfile(os.path.join(s.get("torch_dir", ""), "TorchConfig.cmake")):
    problems.append(f"torch_dir {s.get('torch_dir')!r} holds no TorchConfig.cmake")
if s.get("libtorch_cuda") is not False or s.get("cuda_available") is not False:
    problems.append(f"CUDA: libtorch_cuda {s.get('libtorch_cuda')}, available {s.get('cuda_available')}: expected false")
if not str(s.get("mpi", "")).startswith("Open MPI"):
    problems.append(f"mpi {s.get('mpi')!r}: expected Open MPI (found here, --with-mpi auto)")
if s.get("binary") != os.path.join(sys.argv[2], "trainer", "traindeck-trainer"):
    problems.append(f"binary {s.get('binary')!r}")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY
    fail "the self-check summary: $summary"
  else
    ok "self-check: $summary"
  fi
fi

if [ "$failures" -gt 0 ]; then
  echo "build_trainer_test: $failures failure(s)"
  exit 1
fi
echo "build_trainer_test: passed (the build took $seconds s; CUDA not exercised: Debian's LibTorch is CPU-only)"
