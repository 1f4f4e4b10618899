# Sourced by scripts/test.sh, fuzz.sh and sanitize.sh: one row per phase (seconds, tests passed and
# failed) in $TRAINDECK_PHASE_LOG, which scripts/test.sh prints as a table at the end. Without that
# variable (a script run alone) nothing is recorded.

# phase_record NAME SECONDS [PASSED FAILED]
phase_record() {
  [ -n "${TRAINDECK_PHASE_LOG:-}" ] || return 0
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "${3:--}" "${4:--}" >>"$TRAINDECK_PHASE_LOG"
}

# ctest_counts LOG: "PASSED FAILED" from CTest's closing line ("95% tests passed, 2 tests failed out of 40");
# "0 0" when no test ran.
ctest_counts() {
  local line total failed
  line="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$1" | tail -n 1 || true)"
  if [ -z "$line" ]; then
    echo "0 0"
    return
  fi
  failed="$(echo "$line" | sed -E 's/.* ([0-9]+) tests? failed.*/\1/')"
  total="$(echo "$line" | sed -E 's/.*out of ([0-9]+).*/\1/')"
  echo "$((total - failed)) $failed"
}

# run_ctest PHASE [ctest arguments...]: runs CTest, tees its output, records the phase; returns CTest's status.
run_ctest() {
  local phase="$1" log rc=0 start counts
  shift
  log="$(mktemp)"
  start=$(date +%s)
  ctest "$@" 2>&1 | tee "$log" || rc=$?
  counts="$(ctest_counts "$log")"
  # shellcheck disable=SC2086 # two numbers
  phase_record "$phase" "$(($(date +%s) - start))" $counts
  rm -f "$log"
  return "$rc"
}

# steps_from_flag ARG: --build-only or --no-build (scripts/test.sh builds fuzz.sh's and sanitize.sh's trees
# while the integration tier runs, and uses them after): sets do_build and do_use to 1 or 0; returns 1 (both
# left 1) when ARG is neither, so that the caller shifts only a flag it took.
# shellcheck disable=SC2034 # do_build and do_use are read by the caller
steps_from_flag() {
  do_build=1
  do_use=1
  case "${1:-}" in
  --build-only) do_use=0 ;;
  --no-build) do_build=0 ;;
  *) return 1 ;;
  esac
}
