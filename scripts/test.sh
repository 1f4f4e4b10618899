#!/usr/bin/env bash
# The one test command: installs dependencies, configures, builds and runs every test with CTest.
#   scripts/test.sh [ctest arguments...]     e.g. scripts/test.sh -R tokenizer (then without the fuzzers)
# Environment: BUILD_DIR (default build), TRAINDECK_JOBS (default: number of cores).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/setup-deps.sh

build="${BUILD_DIR:-build}"
jobs="${TRAINDECK_JOBS:-$(nproc)}"
# ccache must accept precompiled headers; keep its cache between runs (CI runs on the same machine).
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
# Three builds share it (this one, clang's fuzz/ASan build, GCC's TSan build), with LibTorch precompiled
# headers of hundreds of MB each: with 5G ccache ran cleanups, and the next fresh clone missed objects it
# had cached before.
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"
# Paths relative to the checkout, so a fresh clone elsewhere (CI) reuses the cache.
export CCACHE_BASEDIR="$root"
# Debug info (-g) would otherwise put the working directory into every hash.
export CCACHE_NOHASHDIR=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export QT_QPA_PLATFORM=offscreen

start=$(date +%s)
cmake --preset ci -B "$build" -DTRAINDECK_WITH_GUI=ON
cmake --build "$build" -j "$jobs"
built=$(date +%s)
echo "test.sh: build took $((built - start)) s"
ctest --test-dir "$build" --output-on-failure -j "${TRAINDECK_TEST_JOBS:-1}" "$@"
tested=$(date +%s)
echo "test.sh: tests took $((tested - built)) s"
# The libFuzzer harnesses, a bounded time each (tests/fuzz, a clang build of their own), when the whole
# suite ran: TRAINDECK_FUZZ_SECONDS per harness (default 10, 0 skips; scripts/fuzz.sh alone runs 20).
if [ "$#" -eq 0 ] && [ "${TRAINDECK_FUZZ_SECONDS:-10}" != 0 ]; then
  FUZZ_SECONDS="${TRAINDECK_FUZZ_SECONDS:-10}" scripts/fuzz.sh
  echo "test.sh: fuzzing took $(( $(date +%s) - tested )) s"
fi
# Unit suites again under sanitizers: ASan + UBSan in the fuzzers' clang build (backend, tokenizer) and in a
# GCC build (the trainer's LibTorch suites), ThreadSanitizer in another GCC build (scripts/sanitize.sh;
# TRAINDECK_SANITIZE=0 skips them).
if [ "$#" -eq 0 ] && [ "${TRAINDECK_SANITIZE:-1}" != 0 ]; then
  sanitized=$(date +%s)
  scripts/sanitize.sh
  echo "test.sh: sanitized suites took $(( $(date +%s) - sanitized )) s"
fi
