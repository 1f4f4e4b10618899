#!/usr/bin/env bash
# The suites under sanitizers, in two builds of their own:
# 1. AddressSanitizer + UndefinedBehaviorSanitizer (leaks included), built with GCC (`asan` preset,
#    build-asan). Label `asan`: the in-process suites of the backend's areas that need no sshd (common,
#    metrics, analysis, cluster, launch, checks), the tokenizer's, the trainer's LibTorch suites (model,
#    safetensors, sampler, data pipeline, checkpoint, loss scaler, metrics writer, GGUF writer), the
#    backend's suites against real sshd servers (ssh session, keys, transport; node checks) and the
#    trainer CLI's suite (one sanitized trainer process at a time). Label `asan-mpi`: the suites that run
#    the sanitized traindeck-trainer as ranks under mpirun or with deadlines (stop signal, distributed,
#    stall, balance, overlap, ZeRO, NCCL fallback, telemetry; the operations layer; runs on a remote
#    head). tests/sanitizers/lsan.supp names Open MPI's own leaks. Both labels run in one CTest with -j
#    (scripts/test.sh runs them one label at a time): the suites of two ranks declare PROCESSORS 2, so
#    CTest runs them alone.
#    (The fuzzers' clang build, scripts/fuzz.sh, carries ASan + UBSan too, for the harnesses only: one
#    instrumented backend for the suites, not two.)
# 2. ThreadSanitizer: every suite labelled `threaded` (the SSH connections, the launcher, the checks'
#    node threads; the trainer's prefetch, stall inspector, overlapped allreduce and metrics writer,
#    under the real mpirun), built with GCC (`tsan` preset, build-tsan): clang's TSan runtime aborts in
#    the clone() behind Qt 6's QProcess, GCC's does not. Not here: the GUI's suites (their threads hand
#    results over through Qt's queued connections, whose locking happens inside Debian's uninstrumented
#    Qt, so every hand-over is reported) and the whole tokenizer suite (over its time limit under TSan;
#    tst_tokenizer_threads covers its worker pool instead). tests/sanitizers/tsan.supp says what is
#    suppressed.
# Any sanitizer report fails the suite that caused it.
#   scripts/sanitize.sh [--build-only|--no-build] [ctest arguments...]   e.g. scripts/sanitize.sh -R tst_launcher
#     --build-only / --no-build: one half (scripts/test.sh builds while the integration tier runs)
# Environment: ASAN_BUILD_DIR (default build-asan), TSAN_BUILD_DIR (default build-tsan), TRAINDECK_JOBS,
# TRAINDECK_SANITIZERS (default "asan tsan").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${TRAINDECK_JOBS:-$(nproc)}"
test_jobs="${TRAINDECK_TEST_JOBS:-$(nproc)}"
export QT_QPA_PLATFORM=offscreen
# shellcheck source=scripts/lib/phases.sh
. "$root/scripts/lib/phases.sh"

# suites_of BUILD [ctest arguments...]: the names of the suites CTest would run (one target each).
suites_of() {
  local build="$1"
  shift
  (cd "$build" && ctest -N "$@" | sed -n 's/^ *Test *#[0-9]*: //p')
}

if steps_from_flag "${1:-}"; then shift; fi

ran=0
for sanitizer in ${TRAINDECK_SANITIZERS:-asan tsan}; do
  case "$sanitizer" in
  asan)
    build="${ASAN_BUILD_DIR:-$root/build-asan}"
    cmake -S "$root" --preset asan -B "$build" -DTRAINDECK_WITH_GUI=OFF >/dev/null
    suites=$(suites_of "$build" -L '^asan(-mpi)?$' "$@")
    ;;
  tsan)
    build="${TSAN_BUILD_DIR:-$root/build-tsan}"
    cmake -S "$root" --preset tsan -B "$build" -DTRAINDECK_WITH_GUI=OFF >/dev/null
    suites=$(suites_of "$build" -L threaded "$@")
    ;;
  *)
    echo "sanitize.sh: unknown sanitizer '$sanitizer' in TRAINDECK_SANITIZERS (asan, tsan)" >&2
    exit 2
    ;;
  esac
  if [ -z "$suites" ]; then
    echo "sanitize.sh: $sanitizer: no suite matches: $*"
    continue
  fi
  ran=1
  if [ "$do_build" = 1 ]; then
    start=$(date +%s)
    # shellcheck disable=SC2086 # one target per suite
    cmake --build "$build" -j "$jobs" --target $suites
    echo "sanitize.sh: $sanitizer build took $(($(date +%s) - start)) s"
    phase_record "$sanitizer: build" "$(($(date +%s) - start))"
  fi
  [ "$do_use" = 1 ] || continue
  # CTest schedules -j by each suite's PROCESSORS (two for the suites that run two ranks) and RESOURCE_LOCK.
  if [ "$sanitizer" != tsan ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
    export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/tests/sanitizers/lsan.supp}"
    # ctest exits 8 when no suite of a label matches the caller's -R
    run_ctest "asan: suites${*:+ ($*)}" --test-dir "$build" --output-on-failure -j "$test_jobs" \
      -L '^asan(-mpi)?$' --no-tests=ignore "$@"
  else
    # die_after_fork=0: QProcess forks a multi-threaded process and the child only sets its process group
    # and execs. OMP_NUM_THREADS=1: LibTorch's OpenMP pool is not instrumented, so its work stays on the
    # calling thread, where TSan sees it.
    TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:die_after_fork=0:suppressions=$root/tests/sanitizers/tsan.supp}" \
      OMP_NUM_THREADS=1 run_ctest "tsan: suites${*:+ ($*)}" --test-dir "$build" --output-on-failure -j "$test_jobs" -L threaded "$@"
  fi
done
if [ "$ran" = 0 ]; then
  echo "sanitize.sh: no suite matches: $*" >&2
  exit 2
fi
