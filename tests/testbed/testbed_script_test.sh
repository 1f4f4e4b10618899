#!/usr/bin/env bash
# scripts/testbed.sh touches only what is the testbed's own (Hardening 2, item 9):
# - `down` (and `slurm-down`) kill no process outside the nodes' namespaces that merely looks like
#   Slurm's (a command line starting "slurmstepd", a process named slurmstepd on the desktop), and no
#   process whose pid a stale pid file names;
# - the desktop's hosts file loses the testbed's block and nothing else, also when the block's end
#   marker was lost; the file is replaced by a rename, never truncated and rewritten;
# - `up` at 28 nodes raises the kernel's neighbour-table limits for N*N entries and `down` puts back the
#   values it found; `unshape` of either node of a `shape-pair` clears both directions.
# Needs root (the script's own rule); skips (77) while a testbed is up, which this must not take down.
#   testbed_script_test.sh SCRIPTS/testbed.sh
set -euo pipefail
testbed="$1"
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: needs root"
  exit 77
fi
if [ -e /run/traindeck-testbed.current ] || ip netns list 2>/dev/null | grep -qE '^tb-'; then
  echo "SKIP: a testbed is up (scripts/testbed.sh down first)"
  exit 77
fi

work="$(mktemp -d)"
decoys=()
decoy_names=()
decoy() { # decoy NAME: the last background process is one the testbed must not kill
  decoys+=("$!")
  decoy_names+=("$1")
  disown "$!"
}
cleanup() {
  local pid
  for pid in "${decoys[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  # A testbed this test brought up (none was up when it started) goes, also when a step failed.
  if [ -e /run/traindeck-testbed.current ]; then "$testbed" down 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Processes that are not the testbed's: one whose command line starts with "slurmstepd", one named
# slurmstepd, and three whose pids stale pid files name.
cp /bin/sleep "$work/slurmstepd"
bash -c 'exec -a slurmstepd sleep 300' &
decoy "a command line starting with slurmstepd"
"$work/slurmstepd" 300 &
decoy "a process named slurmstepd outside the nodes"
mkdir -p "$work/tb/slurm/munge"
touch "$work/tb/.traindeck-testbed"
for f in slurmd-tb-node1.pid slurmctld.pid munge/munged.pid; do
  sleep 300 &
  decoy "the pid in a stale $f"
  echo "${decoys[-1]}" >"$work/tb/slurm/$f"
done

# A hosts file with a well-formed block and a block whose end marker was lost, each followed by lines
# that are not the testbed's.
begin="# traindeck-testbed begin (scripts/testbed.sh down removes this block)"
end="# traindeck-testbed end"
cat >"$work/hosts" <<EOF
127.0.0.1 localhost
$begin
10.250.77.11 tb-node1
10.250.77.12 tb-node2
$end
192.0.2.7 after-a-whole-block
$begin
10.250.77.11 tb-node1
192.0.2.8 after-a-broken-block
192.0.2.9 last-line
EOF
inode_before="$(stat -c %i "$work/hosts")"

rc=0
TRAINDECK_TESTBED_DIR="$work/tb" TRAINDECK_TESTBED_HOSTS_FILE="$work/hosts" "$testbed" down || rc=$?
[ "$rc" -eq 0 ] || fail "testbed.sh down exited $rc"

for i in "${!decoys[@]}"; do
  if ! kill -0 "${decoys[$i]}" 2>/dev/null; then
    fail "process ${decoys[$i]} (${decoy_names[$i]}) is not the testbed's and was killed"
  fi
done

expected="127.0.0.1 localhost
192.0.2.7 after-a-whole-block
192.0.2.8 after-a-broken-block
192.0.2.9 last-line"
if [ "$(cat "$work/hosts")" != "$expected" ]; then
  fail "the hosts file should keep every line but the testbed's; it is now:"
  cat "$work/hosts"
fi
if [ "$(stat -c %i "$work/hosts")" = "$inode_before" ]; then
  fail "the hosts file was rewritten in place, not replaced by a rename"
fi
if ls -A "$work" | grep -q '^\.hosts\.traindeck'; then
  fail "a temporary hosts file was left behind"
fi
if [ "$(stat -c %a "$work/hosts")" != 644 ]; then
  fail "the hosts file's mode is $(stat -c %a "$work/hosts"), not 644"
fi
if [ -e "$work/tb" ]; then
  fail "down left the testbed's directory $work/tb"
fi

# The neighbour table's limits (one table for all namespaces) and a shaped pair, on a testbed of 28 nodes
# (the first size whose N*N entries need more than the kernel's default 1,024).
thresholds() { cat /proc/sys/net/ipv4/neigh/default/gc_thresh{1,2,3} | tr '\n' ' '; }
before="$(thresholds)"
: >"$work/hosts2"
export TRAINDECK_TESTBED_HOSTS_FILE="$work/hosts2"
if "$testbed" up --nodes 28 --dir "$work/tb28" >/dev/null 2>"$work/up.log"; then
  read -r t1 t2 t3 <<<"$(thresholds)"
  need=$(((28 + 1) * (28 + 1) + 256))
  [ "$t3" -ge "$need" ] || fail "up --nodes 28 left gc_thresh3 at $t3, below $need"
  [ "$t2" -ge $((need * 3 / 4)) ] || fail "up --nodes 28 left gc_thresh2 at $t2, below $((need * 3 / 4))"
  [ "$t1" -ge $((need / 8)) ] || fail "up --nodes 28 left gc_thresh1 at $t1, below $((need / 8))"
  "$testbed" shape-pair 3 17 --rate 100mbit 2>/dev/null || fail "shape-pair 3 17 failed"
  # (The filters read whole first: grep -q ending a pipe early would fail it under pipefail.)
  filters() { "$testbed" exec "$1" tc filter show dev eth0 2>&1 || true; }
  for k in 3 17; do
    [[ "$(filters "$k")" == *u32* ]] || fail "shape-pair left tb-node$k unshaped"
  done
  "$testbed" unshape 17 || fail "unshape 17 failed"
  for k in 3 17; do
    [[ "$(filters "$k")" != *u32* ]] || fail "unshape 17 left tb-node$k's direction of the pair shaped"
  done
else
  fail "testbed.sh up --nodes 28 failed: $(tail -3 "$work/up.log")"
fi
"$testbed" down || fail "testbed.sh down after up --nodes 28 failed"
[ "$(thresholds)" = "$before" ] || fail "down left the neighbour-table limits at $(thresholds), not $before"
unset TRAINDECK_TESTBED_HOSTS_FILE

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "PASS: testbed.sh down killed nothing that is not the testbed's and kept every other hosts line; up raised the neighbour-table limits and down put them back; unshape cleared both directions of a pair"
