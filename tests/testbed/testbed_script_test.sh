#!/usr/bin/env bash
# scripts/testbed.sh touches only what is the testbed's own (Hardening 2, item 9):
# - `down` (and `slurm-down`) kill no process outside the nodes' namespaces that merely looks like
#   Slurm's (a command line starting "slurmstepd", a process named slurmstepd on the desktop), and no
#   process whose pid a stale pid file names;
# - the desktop's hosts file loses the testbed's block and nothing else, also when the block's end
#   marker was lost; the file is replaced by a rename, never truncated and rewritten.
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

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "PASS: testbed.sh down killed nothing that is not the testbed's and kept every other hosts line"
