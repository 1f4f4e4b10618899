#!/usr/bin/env bash
# The testbed and the node checks at many nodes: for each size, the testbed's bring-up time and its
# sshds' memory, then `traindeck-cli check` (after install-key --head-to-workers and deploy, as a user
# would) on every node: the whole check's wall time, the slowest node's own time in that run (the sum
# of its checks' ms), one node checked alone, and how many rows the text output shows (nodes that agree
# print once). Prints a markdown table. Not run by ctest; needs root and a built tree.
#   tests/bench/testbed/bench_testbed_checks.sh [BUILD_DIR] [SIZES]     (default SIZES "8 32 64")
set -euo pipefail
sizes="${2:-8 32 64}"
# shellcheck source=bench_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"
dir=/run/traindeck-testbed-bench

now() { date +%s.%N; }
secs() { python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }

printf '| nodes | up (s) | sshd memory (MiB) | check, all nodes (s) | slowest node in it (s) | one node alone (s) | text output (lines) | down (s) |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for n in $sizes; do
  t0=$(now)
  profile_src=$("$tb" up --nodes "$n" --dir "$dir" 2>/dev/null)
  t1=$(now)
  mem=$(ps -C sshd -o rss=,args= | awk '/tb-node/ {s += $1} END {printf "%.0f", s / 1024}')
  profile="$work/profile.json"
  cp "$profile_src" "$profile"
  "$cli" install-key --profile "$profile" --key "$dir/client/id_ed25519.pub" --head-to-workers >/dev/null
  "$cli" deploy --profile "$profile" --trainer "$trainer" --dest "$dir/work/bin/traindeck-trainer" >/dev/null
  t2=$(now)
  "$cli" check --profile "$profile" --json > "$work/check.json" || true
  t3=$(now)
  slowest=$(python3 - "$work/check.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("%.1f" % (max(sum(c.get("ms", 0) for c in n["checks"]) for n in r["nodes"]) / 1000))
PY
)
  # tb-node2 alone (a worker: the head's extra check, head -> worker SSH, has no workers then).
  python3 - "$profile" "$work/one.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["nodes"] = [dict(p["nodes"][1], role="head")]
p["name"] = "one-node"
json.dump(p, open(sys.argv[2], "w"))
PY
  t4=$(now)
  "$cli" check --profile "$work/one.json" --json > /dev/null || true
  t5=$(now)
  rows=$("$cli" check --profile "$profile" 2>/dev/null | wc -l || true)
  t6=$(now)
  "$tb" down >/dev/null 2>&1
  t7=$(now)
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$(secs "$t0" "$t1")" "$mem" "$(secs "$t2" "$t3")" \
    "$slowest" "$(secs "$t4" "$t5")" "$rows" "$(secs "$t6" "$t7")"
done
