#!/usr/bin/env bash
# The one test command: installs dependencies, configures, builds and runs every test with CTest, tier by
# tier (unit, integration, system; docs/contributors/testing.md), then the fuzzers and the sanitized suites, and ends
# with a table of where the time went.
#   scripts/test.sh                    everything (what CI runs)
#   scripts/test.sh --quick            the everyday loop: builds only the unit suites, runs `ctest -L unit`
#   scripts/test.sh [ctest arguments]  e.g. scripts/test.sh -R tokenizer (then without fuzzers and sanitizers)
# Environment: BUILD_DIR (default build), TRAINDECK_JOBS (build jobs, default: number of cores),
# TRAINDECK_TEST_JOBS (CTest's -j, default: number of cores; suites that run two ranks take two).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=scripts/lib/phases.sh
. "$root/scripts/lib/phases.sh"

quick=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi

build="${BUILD_DIR:-build}"
jobs="${TRAINDECK_JOBS:-$(nproc)}"
test_jobs="${TRAINDECK_TEST_JOBS:-$(nproc)}"
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
# Every object that uses a precompiled header makes ccache hash that header (140-650 MB each), hit or miss:
# the inode cache keeps each file's hash by inode, size and times, so a header is hashed once per build. A
# hit on backend/launch/launcher.cpp took 0.20-0.24 s without it (the backend's 142 MB header), 0.009 s with.
export CCACHE_INODECACHE=true
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export QT_QPA_PLATFORM=offscreen

# The phase table: every phase below (and fuzz.sh, sanitize.sh) adds a row; printed however the run ends.
TRAINDECK_PHASE_LOG="$(mktemp)"
run_start=$(date +%s)
export TRAINDECK_PHASE_LOG
ccache_stats() { ccache --print-stats 2>/dev/null | awk -F'\t' '
  $1 ~ /^(direct_cache_hit|preprocessed_cache_hit)$/ { hit += $2 }
  $1 == "cache_miss" { miss += $2 }
  END { printf "%d %d\n", hit, miss }'; }
print_phases() {
  local rc=$? total_s=0 name s passed failed hits misses
  echo
  echo "test.sh: where the time went"
  echo "| phase | seconds | tests passed | tests failed |"
  echo "|---|---:|---:|---:|"
  while IFS=$'\t' read -r name s passed failed; do
    echo "| $name | $s | $passed | $failed |"
    total_s=$((total_s + s))
  done <"$TRAINDECK_PHASE_LOG"
  echo "| sum of the phases | $total_s | | |"
  echo "| wall clock | $(($(date +%s) - run_start)) | | |"
  if command -v ccache >/dev/null; then
    read -r hits misses < <(ccache_stats)
    hits=$((hits - ccache_hits0))
    misses=$((misses - ccache_misses0))
    if [ $((hits + misses)) -gt 0 ]; then
      echo "ccache: $hits hits, $misses misses ($((100 * hits / (hits + misses))) % hit rate) in this run"
    else
      echo "ccache: nothing compiled in this run"
    fi
  fi
  rm -f "$TRAINDECK_PHASE_LOG"
  exit "$rc"
}
ccache_hits0=0
ccache_misses0=0
if command -v ccache >/dev/null; then read -r ccache_hits0 ccache_misses0 < <(ccache_stats); fi
trap print_phases EXIT

timed() { # timed PHASE command...: runs the command and records its seconds
  local phase="$1" start rc=0
  shift
  start=$(date +%s)
  "$@" || rc=$?
  phase_record "$phase" "$(($(date +%s) - start))"
  return "$rc"
}

timed "set-up (dependencies)" scripts/setup-deps.sh
# setup-deps may have installed ccache just now.
if [ "$ccache_hits0$ccache_misses0" = 00 ] && command -v ccache >/dev/null; then
  read -r ccache_hits0 ccache_misses0 < <(ccache_stats)
fi
timed configure cmake --preset ci -B "$build" -DTRAINDECK_WITH_GUI=ON

if [ "$quick" = 1 ]; then
  timed "build (unit tier)" cmake --build "$build" -j "$jobs" --target tier_unit
  run_ctest "tests: unit" --test-dir "$build" --output-on-failure -j "$test_jobs" -L '^unit$' "$@"
  exit 0
fi

timed build cmake --build "$build" -j "$jobs"
if [ "$#" -gt 0 ]; then
  run_ctest "tests: $*" --test-dir "$build" --output-on-failure -j "$test_jobs" "$@"
  exit 0
fi

# Tier by tier, cheapest first, so a broken unit shows in minutes; every tier runs even when one fails.
failed_tiers=()
run_ctest "tests: unit" --test-dir "$build" --output-on-failure -j "$test_jobs" -L '^unit$' || failed_tiers+=("unit")
# A suite outside every tier would run nowhere: cmake/TrainDeckTest.cmake requires one, this checks it.
untiered="$(cd "$build" && ctest -N -LE '^(unit|integration|system)$' | sed -n 's/^ *Test *#[0-9]*: //p')"
if [ -n "$untiered" ]; then
  echo "test.sh: suites without a tier label (unit, integration, system): $untiered" >&2
  failed_tiers+=("untiered")
fi

fuzz_seconds="${TRAINDECK_FUZZ_SECONDS:-10}"
sanitize="${TRAINDECK_SANITIZE:-1}"
sanitizers="${TRAINDECK_SANITIZERS:-asan tsan}"
# Three stages share the two cores by what they wait on:
# 1. The integration tier (sshd, mpirun's start, the trainer as a process) beside the sanitizers' and the
#    fuzzers' builds at nice 19: the kernel gives the suites the CPU whenever they want it, the compilers
#    the rest. (The unit tier ran alone: tst_gui_latency times frames.)
# 2. The system tier needs none of those builds, so it starts next, beside what is left of them (with an
#    empty compiler cache they outlast the integration tier by many minutes). It computes too: alone it
#    kept 1.6 of the 2 cores busy (the testbed's ranks, Slurm's jobs).
# 3. The sanitized suites and the fuzzers run at nice 10 (the builds still left at nice 19), beside whichever
#    tier is running, so the tiers get the CPU first and they what the tiers leave while waiting; the
#    sanitizer presets scale their timeouts for that. The in-process and sshd suites of ASan, then of
#    TSan, start as soon as their build is done, beside the integration tier. Those that run the
#    sanitized trainer as ranks under mpirun or with deadlines of their own (label asan-mpi) wait for that
#    tier to end and run beside the system tier and its timed scenarios (a throttled node, node loss
#    within 60 s, link bandwidth), ASan's then TSan's; then the fuzzers.
# Output of what ran in the background follows the foreground's.
built="$(mktemp -d)" # markers: one file per finished build (asan, tsan, fuzz), "all" when the builds ended,
# "integration" when that tier did
builds_log="$(mktemp)"
(
  trap 'touch "$built/all"' EXIT
  rc=0
  if [ "$sanitize" != 0 ]; then
    for sanitizer in $sanitizers; do
      if TRAINDECK_SANITIZERS="$sanitizer" nice -n 19 scripts/sanitize.sh --build-only; then
        touch "$built/$sanitizer"
      else
        rc=1
      fi
    done
  fi
  if [ "$fuzz_seconds" != 0 ]; then
    if nice -n 19 scripts/fuzz.sh --build-only; then touch "$built/fuzz"; else rc=1; fi
  fi
  exit "$rc"
) >"$builds_log" 2>&1 &
builds_pid=$!
# marked NAME [GIVE_UP]: waits until the marker $built/NAME is there (true), or GIVE_UP is, or this script
# ended (false).
marked() {
  while [ ! -e "$built/$1" ] && { [ -z "${2:-}" ] || [ ! -e "$built/$2" ]; } && kill -0 $$ 2>/dev/null; do
    sleep 2
  done
  [ -e "$built/$1" ]
}
# built_yet NAME: waits until the build NAME is done (true) or the builds ended without it (false).
built_yet() { marked "$1" all; }

# Suites again under sanitizers: ASan + UBSan in one GCC build (the backend's, the tokenizer's and the
# trainer's suites), ThreadSanitizer in another (scripts/sanitize.sh; TRAINDECK_SANITIZE=0 skips them).
# Then the libFuzzer harnesses, a bounded time each (tests/fuzz, a clang build of their own):
# TRAINDECK_FUZZ_SECONDS per harness (default 10, 0 skips; scripts/fuzz.sh alone runs 20).
# Each failure is one line in $sanitized_failed.
sanitized_log="$(mktemp)"
sanitized_failed="$(mktemp)"
(
  # sanitized NAME [sanitize.sh's ctest arguments...]: NAME's suites, when its build is done.
  sanitized() {
    local sanitizer="$1"
    shift
    if built_yet "$sanitizer"; then
      TRAINDECK_SANITIZERS="$sanitizer" nice -n 10 scripts/sanitize.sh --no-build "$@" ||
        echo "$sanitizer suites${*:+ ($*)}" >>"$sanitized_failed"
    else
      echo "$sanitizer build" >>"$sanitized_failed"
    fi
  }
  if [ "$sanitize" != 0 ]; then
    # sanitize.sh picks each sanitizer's suites by label (asan, asan-mpi; threaded); these split them by
    # whether they run the trainer as ranks or with deadlines (asan-mpi, whichever the sanitizer).
    for sanitizer in $sanitizers; do sanitized "$sanitizer" -LE '^asan-mpi$'; done
    marked integration || exit 1
    for sanitizer in $sanitizers; do sanitized "$sanitizer" -L '^asan-mpi$'; done
  fi
  if [ "$fuzz_seconds" != 0 ]; then
    if built_yet fuzz; then
      FUZZ_SECONDS="$fuzz_seconds" nice -n 10 scripts/fuzz.sh --no-build || echo "fuzz" >>"$sanitized_failed"
    else
      echo "fuzz build" >>"$sanitized_failed"
    fi
  fi
) >"$sanitized_log" 2>&1 &
sanitized_pid=$!

run_ctest "tests: integration (beside builds, sanitizers, fuzzers)" --test-dir "$build" --output-on-failure \
  -j "$test_jobs" -L '^integration$' || failed_tiers+=("integration")
touch "$built/integration"
run_ctest "tests: system (beside builds, sanitizers, fuzzers)" --test-dir "$build" --output-on-failure \
  -j "$test_jobs" -L '^system$' || failed_tiers+=("system")

wait "$sanitized_pid" || true # each failure is in $sanitized_failed
wait "$builds_pid" || true    # each build's failure is counted there too
echo "test.sh: the sanitizers' and fuzzers' builds:"
cat "$builds_log"
echo "test.sh: the sanitized suites and the fuzzers:"
cat "$sanitized_log"
while IFS= read -r failure; do failed_tiers+=("$failure"); done <"$sanitized_failed"
rm -rf "$builds_log" "$built" "$sanitized_log" "$sanitized_failed"
if [ "${#failed_tiers[@]}" -gt 0 ]; then
  echo "test.sh: failed: ${failed_tiers[*]}" >&2
  exit 1
fi
