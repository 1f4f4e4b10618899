#!/usr/bin/env bash
# The fused output layer + loss (--fused-loss on) against the unfused one (off) on qwen2-small: one rank,
# one thread, seq-len 128, micro-batch 4 (508 predicted tokens x 151936 vocab a step), off and on runs
# interleaved REPS times (bench_flag.sh says what each column is). Extra arguments go to every run (e.g.
# --loss-chunk N). Not run by ctest; docs/reference/trainer.md has results.
#   tests/bench/trainer/bench_fused_loss.sh [BUILD_DIR] [STEPS] [REPS] [TRAIN FLAGS...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="${1:-$root/build}"
steps="${2:-6}"
reps="${3:-3}"
shift $(($# < 3 ? $# : 3))
exec bash "$root/tests/bench/trainer/bench_flag.sh" "$build" fused-loss off,on "$steps" "$reps" "$@"
