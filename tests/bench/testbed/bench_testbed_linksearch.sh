#!/usr/bin/env bash
# The link test's search for slow nodes at many testbed nodes (issue #36). For each size: TRIALS runs with
# one node drawn at random and its link shaped to 100 mbit (is it the one node named, in how many rounds
# and seconds), TRIALS runs with nothing shaped (is any node or link named), and one --all-pairs run with
# one pair of nodes slowed to 100 mbit between themselves only (`testbed.sh shape-pair`). Each run is
# `traindeck-cli check --links-only --json` (mpirun on the head, one rank per node, as a user runs it).
# Prints markdown tables. Not run by ctest; needs root and a built tree.
#   tests/bench/testbed/bench_testbed_linksearch.sh [BUILD_DIR] [SIZES] [TRIALS]   (default "8 32 64", 10)
set -euo pipefail
sizes="${2:-8 32 64}"
trials="${3:-10}"
# shellcheck source=bench_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"
dir=/run/traindeck-testbed-bench

# links JSON -> "named rounds seconds" (named: the verdicts as kind:node[-peer], comma-separated, or -)
summarise() {
  python3 -c '
import json, sys
l = json.load(open(sys.argv[1]))["links"]
if not l.get("ok"):
    print("error", 0, 0); sys.exit()
v = ",".join(x["kind"] + ":" + x["node"] + ("-" + x["peer"] if "peer" in x else "") for x in l["verdicts"]) or "-"
print(v, len(l["rounds"]), "%.1f" % (l["ms"] / 1000))' "$1"
}

results="$work/results"
: > "$results"
for n in $sizes; do
  cluster_up "$n" "$dir"
  for t in $(seq 1 "$trials"); do
    k=$((RANDOM % n + 1))
    "$tb" shape "$k" --rate 100mbit >/dev/null 2>&1
    "$cli" check --profile "$profile" --links-only --json > "$work/links.json" 2>/dev/null || true
    "$tb" unshape "$k"
    read -r named rounds secs < <(summarise "$work/links.json")
    echo "$n slow tb-node$k $named $rounds $secs" >> "$results"
  done
  for t in $(seq 1 "$trials"); do
    "$cli" check --profile "$profile" --links-only --json > "$work/links.json" 2>/dev/null || true
    read -r named rounds secs < <(summarise "$work/links.json")
    echo "$n none - $named $rounds $secs" >> "$results"
  done
  a=$((RANDOM % n + 1)); b=$(( (a + n / 2 - 1) % n + 1 ))
  "$tb" shape-pair "$a" "$b" --rate 100mbit >/dev/null 2>&1
  "$cli" check --profile "$profile" --links-only --all-pairs --json > "$work/links.json" 2>/dev/null || true
  "$tb" unshape "$a"; "$tb" unshape "$b"
  read -r named rounds secs < <(summarise "$work/links.json")
  echo "$n pair tb-node$a-tb-node$b $named $rounds $secs" >> "$results"
  "$tb" down >/dev/null 2>&1
done

python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def stats(xs):
    xs = [float(x) for x in xs]
    return "%.0f / %.0f / %.0f" % (min(xs), statistics.median(xs), max(xs)) if xs else "-"
print("| nodes | case | trials | named as expected | named wrongly | rounds (min / median / max) | seconds (min / median / max) |")
print("|---:|---|---:|---:|---:|---|---|")
for n in dict.fromkeys(r[0] for r in rows):
    for case, label in (("slow", "one node at 100 mbit (search)"), ("none", "nothing shaped (search)"),
                        ("pair", "one pair at 100 mbit (--all-pairs)")):
        rs = [r for r in rows if r[0] == n and r[1] == case]
        if not rs:
            continue
        if case == "slow":
            good = sum(1 for r in rs if r[3] == "slow_node:" + r[2])
        elif case == "none":
            good = sum(1 for r in rs if r[3] == "-")
        else:
            a, b = rs[0][2].split("-tb-")[0], "tb-" + rs[0][2].split("-tb-")[1]
            good = sum(1 for r in rs if r[3] in ("slow_link:%s-%s" % (a, b), "slow_link:%s-%s" % (b, a)))
        print("| %s | %s | %d | %d | %d | %s | %s |" % (n, label, len(rs), good, len(rs) - good,
                                                      stats(r[4] for r in rs), stats(r[5] for r in rs)))
print()
print("Every run (nodes, case, shaped, verdicts, rounds, seconds):")
for r in rows:
    print("  " + " ".join(r))
PY
