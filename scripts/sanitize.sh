#!/usr/bin/env bash
# The backend's unit suites and the tokenizer's under AddressSanitizer + UndefinedBehaviorSanitizer (leaks included): built
# with clang in the fuzzers' build directory (one instrumented backend for both; CMakeLists.txt,
# TRAINDECK_FUZZ) and run with CTest. Any sanitizer report fails the suite that caused it. The suites
# that need an sshd, the trainer or the CLI (ssh, runs, tst_checks) are not part of this build.
#   scripts/sanitize.sh [ctest arguments...]     e.g. scripts/sanitize.sh -R tst_hostfile
# Environment: FUZZ_BUILD_DIR (default build-fuzz), TRAINDECK_JOBS.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
if ! command -v clang++ >/dev/null; then
  echo "sanitize.sh: clang++ is missing (scripts/setup-deps.sh installs it)" >&2
  exit 2
fi
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINDECK_FUZZ=ON >/dev/null
suites=$(cd "$build" && ctest -N "$@" | sed -n 's/^ *Test *#[0-9]*: //p')
if [ -z "$suites" ]; then
  echo "sanitize.sh: no suite matches: $*" >&2
  exit 2
fi
# shellcheck disable=SC2086 # one target per suite
cmake --build "$build" -j "${TRAINDECK_JOBS:-$(nproc)}" --target $suites
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$build" --output-on-failure "$@"
