#!/usr/bin/env bash
# A cluster on this machine: N hosts, each a Linux network namespace with its own address, host name,
# sshd, ~/.ssh, ~/.bashrc and work directory, joined by veth pairs to a bridge that lives in a namespace of its
# own ("tb-switch"). The desktop (the root namespace) reaches the bridge through one veth pair, so it
# can be cut off (disconnect) without touching the nodes' links. Only addresses in 10.250.77.0/24, which
# exist only inside these namespaces, are ever used.
#
#   scripts/testbed.sh up [--nodes N] [--dir DIR]    (default 3 nodes; prints the cluster profile's path)
#   scripts/testbed.sh down                          removes every namespace, link, process and file it made
#   scripts/testbed.sh status [--json]
#   scripts/testbed.sh shape NODE --rate 100mbit [--delay 5ms] [--loss 0.1%]
#   scripts/testbed.sh unshape NODE
#   scripts/testbed.sh shape-pair NODE NODE --rate 100mbit
#                                                    only the traffic between these two nodes, both ways (a
#                                                    slow link between two healthy nodes; one pair per node);
#                                                    unshape of either node clears both ways
#   scripts/testbed.sh throttle NODE --cpu 60%       the node's processes together get 60 % of one CPU (a
#                                                    cgroup's CPU quota: a node that is slower per sample)
#   scripts/testbed.sh unthrottle NODE
#   scripts/testbed.sh exec NODE COMMAND...          run in the node (its network, host name and mounts)
#   scripts/testbed.sh kill NODE                     kill every process of the node (sshd included): node loss
#   scripts/testbed.sh revive NODE                   start the node's sshd again
#   scripts/testbed.sh disconnect | reconnect        take the desktop's link to the cluster down / up
#   scripts/testbed.sh mask NODE PATH | unmask NODE PATH
#                                                    hide a file on one node (replaced by a non-executable
#                                                    file), e.g. mpirun, to make a node that differs
#   scripts/testbed.sh slurm-up [--partition NAME]   Slurm on a testbed that is up: munged, slurmctld on
#                                                    tb-node1 (the login node), one slurmd per node and a
#                                                    directory DIR/shared that every node sees; prints the
#                                                    Slurm cluster profile's path (DIR/slurm-profile.json)
#   scripts/testbed.sh slurm-down                    stops them and removes their files (down does it too)
#
# NODE is tb-nodeK or K. Needs root, iproute2 (ip netns, tc), util-linux (unshare, nsenter) and
# openssh-server. Exit codes: 0 ok, 1 a step failed, 2 bad input or the machine cannot host a testbed.
set -Eeuo pipefail

readonly SUBNET_PREFIX=10.250.77
readonly DESKTOP_ADDR=$SUBNET_PREFIX.1
readonly SWITCH_NS=tb-switch
readonly DESKTOP_IF=tb-desk
readonly MAX_NODES=64

dir_default="${TRAINDECK_TESTBED_DIR:-/run/traindeck-testbed}"
state_link=/run/traindeck-testbed.current   # where the last `up` put its directory (for down/status)

die() { echo "testbed: $*" >&2; exit 1; }
usage() { echo "testbed: $*" >&2; echo "usage: scripts/testbed.sh up|down|status|shape|shape-pair|unshape|throttle|unthrottle|exec|kill|revive|disconnect|reconnect|mask|unmask (see the header of this script)" >&2; exit 2; }

testbed_dir() {
  if [ -L "$state_link" ]; then readlink "$state_link"; else echo "$dir_default"; fi
}

node_count() {
  local d; d=$(testbed_dir)
  [ -f "$d/nodes" ] && cat "$d/nodes" || echo 0
}

# tb-node2 or 2 -> tb-node2 (validated against the running testbed).
node_name() {
  local n="$1" count
  case "$n" in tb-node*) n="${n#tb-node}" ;; esac
  [[ "$n" =~ ^[0-9]+$ ]] || usage "no such node '$1' (tb-nodeK or K)"
  count=$(node_count)
  [ "$n" -ge 1 ] && [ "$n" -le "$count" ] || usage "no such node '$1' (the testbed has $count node(s))"
  echo "tb-node$n"
}

node_index() { echo "${1#tb-node}"; }
node_addr() { echo "$SUBNET_PREFIX.$((10 + $(node_index "$1")))"; }

check_machine() {
  [ "$(id -u)" -eq 0 ] || { echo "testbed: needs root (network namespaces)" >&2; exit 2; }
  local t
  for t in ip tc unshare nsenter /usr/sbin/sshd ssh-keygen; do
    command -v "$t" >/dev/null || { echo "testbed: $t is missing (scripts/setup-deps.sh installs it)" >&2; exit 2; }
  done
  # A namespace we can create and remove again, or no testbed at all.
  if ! ip netns add tb-probe 2>/dev/null; then
    echo "testbed: this machine does not allow network namespaces (ip netns add failed)" >&2; exit 2
  fi
  ip netns del tb-probe
}

# The kernel keeps one neighbour (ARP/NDP) table for all network namespaces, 1,024 entries at most by
# default (gc_thresh3). Every node that talks to every other fills N*N entries: at 64 nodes the link
# test's all-pairs tournament overflowed it ("neighbor table overflow!" in dmesg), a connect() failed in
# Open MPI's TCP transport and the job hung. A cluster of real hosts has a table per host. `up` raises
# the limits for N nodes and keeps the old values in DIR/neigh-thresholds; `down` puts them back.
readonly NEIGH_SYSCTLS="/proc/sys/net/ipv4/neigh/default/gc_thresh1 /proc/sys/net/ipv4/neigh/default/gc_thresh2 /proc/sys/net/ipv4/neigh/default/gc_thresh3 /proc/sys/net/ipv6/neigh/default/gc_thresh1 /proc/sys/net/ipv6/neigh/default/gc_thresh2 /proc/sys/net/ipv6/neigh/default/gc_thresh3"

neigh_want() { # neigh_want KEY NEED: the value KEY should have for NEED entries
  case "$1" in *thresh1) echo $(( $2 / 8 )) ;; *thresh2) echo $(( $2 * 3 / 4 )) ;; *) echo "$2" ;; esac
}

neigh_raise() { # neigh_raise NODES DIR
  local nodes="$1" d="$2" need key cur want
  need=$(( (nodes + 1) * (nodes + 1) + 256 ))
  for key in $NEIGH_SYSCTLS; do
    cur=$(cat "$key" 2>/dev/null) || continue
    want=$(neigh_want "$key" "$need")
    [ "$cur" -lt "$want" ] || continue
    echo "$key $cur" >> "$d/neigh-thresholds"
    { echo "$want" > "$key"; } 2>/dev/null ||
      echo "testbed: could not raise $key to $want; all-pairs traffic among $nodes nodes may overflow the kernel's neighbour table" >&2
  done
}

neigh_restore() { # neigh_restore DIR
  local f="$1/neigh-thresholds" key value
  [ -f "$f" ] || return 0
  while read -r key value; do
    case "$key" in /proc/sys/net/ipv[46]/neigh/default/gc_thresh[123]) { echo "$value" > "$key"; } 2>/dev/null || true ;; esac
  done < "$f"
  rm -f "$f"
}

sshd_pid() {
  local d f; d=$(testbed_dir); f="$d/$1/sshd.pid"
  [ -f "$f" ] || return 1
  local pid; pid=$(cat "$f")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

in_node() {  # in_node NODE CMD... : inside the node's network, UTS and mount namespaces (those of its sshd)
  local node="$1"; shift
  local pid
  pid=$(sshd_pid "$node") || die "$node: its sshd is not running (scripts/testbed.sh revive $node)"
  nsenter --target "$pid" --net --uts --mount -- "$@"
}

start_sshd() {
  local node="$1" d; d="$(testbed_dir)/$node"
  rm -f "$d/sshd.pid"
  mkdir -p /run/sshd && chmod 755 /run/sshd   # sshd's privilege separation directory
  # A fresh node's ~/.bashrc (Debian's skeleton): bash sources it for every command that comes over
  # SSH, and the desktop's own (on this machine: pyenv init, about a second) is not the node's.
  [ -f "$d/bashrc" ] || cp /etc/skel/.bashrc "$d/bashrc" 2>/dev/null || : > "$d/bashrc"
  # ip netns exec gives the process a mount namespace with /etc/netns/NODE/hosts as /etc/hosts; in it
  # the node gets its own host name, its own ~/.ssh, ~/.bashrc and work directory.
  ip netns exec "$node" unshare --uts -- /bin/sh -c '
      hostname "$1" && mount --bind "$2/ssh" /root/.ssh && mount --bind "$2/work" "$3" &&
      { [ ! -f /root/.bashrc ] || mount --bind "$2/bashrc" /root/.bashrc; } &&
      exec /usr/sbin/sshd -f "$2/sshd_config" -E "$2/sshd.log"
    ' sh "$node" "$d" "$(testbed_dir)/work" || die "$node: sshd did not start: $(cat "$d/sshd.log" 2>/dev/null)"
  local i pid
  for i in $(seq 1 100); do
    if pid=$(sshd_pid "$node"); then
      # A revived node keeps its CPU quota.
      local cg; cg=$(node_cgroup "$node") && [ -d "$cg" ] && cgroup_add "$cg" "$pid"
      return 0
    fi
    sleep 0.05
  done
  die "$node: sshd did not start (see $d/sshd.log)"
}

# The desktop resolves the nodes by name too: a marked block in /etc/hosts (TRAINDECK_TESTBED_HOSTS_FILE
# points a test elsewhere). Every change writes a whole new file and renames it over the old one, so no
# reader ever sees it half written; where the file is a mount point (a container's bind-mounted
# /etc/hosts), which a rename cannot replace, the new content is copied over it.
readonly HOSTS_BEGIN="# traindeck-testbed begin (scripts/testbed.sh down removes this block)"
readonly HOSTS_END="# traindeck-testbed end"
readonly HOSTS_FILE="${TRAINDECK_TESTBED_HOSTS_FILE:-/etc/hosts}"
hosts_replace() { # hosts_replace TMPFILE: TMPFILE (in the hosts file's directory) becomes the hosts file
  chmod 644 "$1"
  if ! mv -f "$1" "$HOSTS_FILE" 2>/dev/null; then
    cat "$1" >"$HOSTS_FILE"
    rm -f "$1"
  fi
}
hosts_without_block() { # the hosts file without the testbed's block
  # A block whose end marker was lost ends at its first line that is not a node's ("ADDR tb-nodeK"):
  # the lines after it are someone else's and stay.
  awk -v b="$HOSTS_BEGIN" -v e="$HOSTS_END" '
    $0 == b { skip = 1; next }
    $0 == e && skip { skip = 0; next }
    skip && NF == 2 && $2 ~ /^tb-node[0-9]+$/ { next }
    { skip = 0; print }' "$HOSTS_FILE"
}
hosts_block_remove() {
  grep -qF "$HOSTS_BEGIN" "$HOSTS_FILE" 2>/dev/null || return 0
  local tmp; tmp=$(mktemp "$(dirname "$HOSTS_FILE")/.hosts.traindeck.XXXXXX")
  hosts_without_block >"$tmp"
  hosts_replace "$tmp"
}
hosts_block_add() { # hosts_block_add NODELINES
  local tmp; tmp=$(mktemp "$(dirname "$HOSTS_FILE")/.hosts.traindeck.XXXXXX")
  { hosts_without_block; printf '%s\n%s%s\n' "$HOSTS_BEGIN" "$1" "$HOSTS_END"; } >"$tmp"
  hosts_replace "$tmp"
}

# The testbed's processes, never another's: a pid from a pid file counts only while it still names the
# process the file was written for (the pid may since have gone to something else).
pid_is() { # pid_is PID COMM: the process PID exists and its name is COMM
  [[ "$1" =~ ^[0-9]+$ ]] && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}
in_testbed_node() { # in_testbed_node PID: the process lives in one of the nodes' network namespaces
  [[ "$(ip netns identify "$1" 2>/dev/null)" =~ ^tb-node[0-9]+$ ]]
}
node_namespace_pids() { # every process in the nodes' network namespaces
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^tb-node[0-9]+$' || true); do
    ip netns pids "$ns" 2>/dev/null || true
  done
}

cmd_down() {
  local d; d=$(testbed_dir)
  cmd_slurm_down
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^(tb-node[0-9]+|tb-switch)$' || true); do
    # Every process in the namespace (sshd, sessions, mpirun, ranks), then the namespace and its links.
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
  done
  ip link del "$DESKTOP_IF" 2>/dev/null || true
  remove_node_cgroups
  rm -rf /etc/netns/tb-node* 2>/dev/null || true
  hosts_block_remove
  rmdir /etc/netns 2>/dev/null || true
  neigh_restore "$d"
  if [ -f "$d/created-root-ssh" ]; then rmdir /root/.ssh 2>/dev/null || true; fi
  if [ -d "$d" ] && [ -f "$d/.traindeck-testbed" ]; then rm -rf "$d"; fi
  rm -f "$state_link"
}

cmd_up() {
  local nodes=3 d="$dir_default"
  while [ $# -gt 0 ]; do
    case "$1" in
      --nodes) [ $# -ge 2 ] || usage "--nodes needs a value"; nodes="$2"; shift 2 ;;
      --nodes=*) nodes="${1#--nodes=}"; shift ;;
      --dir) [ $# -ge 2 ] || usage "--dir needs a value"; d="$2"; shift 2 ;;
      --dir=*) d="${1#--dir=}"; shift ;;
      *) usage "up: unknown option '$1'" ;;
    esac
  done
  [[ "$nodes" =~ ^[0-9]+$ ]] && [ "$nodes" -ge 1 ] && [ "$nodes" -le $MAX_NODES ] || usage "--nodes: expected 1..$MAX_NODES, got '$nodes'"
  case "$d" in /*) ;; *) usage "--dir must be an absolute path" ;; esac
  check_machine
  cmd_down   # a testbed left behind by a killed run
  if [ -e "$d" ] && [ ! -f "$d/.traindeck-testbed" ] && [ -n "$(ls -A "$d" 2>/dev/null)" ]; then
    usage "$d exists and is not a testbed directory; choose another --dir"
  fi
  mkdir -p "$d" && chmod 700 "$d"
  touch "$d/.traindeck-testbed"
  ln -sfn "$d" "$state_link"
  echo "$nodes" > "$d/nodes"
  trap 'echo "testbed: up failed; removing what it made" >&2; cmd_down' ERR
  if [ ! -d /root/.ssh ]; then mkdir -m 700 /root/.ssh; touch "$d/created-root-ssh"; fi
  neigh_raise "$nodes" "$d"
  mkdir -p "$d/work" "$d/client"

  # The switch and the desktop's port.
  ip netns add "$SWITCH_NS"
  ip -n "$SWITCH_NS" link set lo up
  ip -n "$SWITCH_NS" link add tb-br0 type bridge
  ip -n "$SWITCH_NS" link set tb-br0 up
  ip link add "$DESKTOP_IF" type veth peer name port-desk
  ip link set port-desk netns "$SWITCH_NS"
  ip -n "$SWITCH_NS" link set port-desk master tb-br0 up
  ip addr add "$DESKTOP_ADDR/24" dev "$DESKTOP_IF"
  ip link set "$DESKTOP_IF" up

  # Client side: the profile's own identity and known_hosts.
  ssh-keygen -q -t ed25519 -N '' -C traindeck-testbed -f "$d/client/id_ed25519"
  : > "$d/client/known_hosts"

  local hosts="127.0.0.1 localhost
::1 localhost ip6-localhost
$DESKTOP_ADDR tb-desktop"
  local k nodelines=""
  for k in $(seq 1 "$nodes"); do nodelines="$nodelines$(node_addr "tb-node$k") tb-node$k
"; done
  hosts="$hosts
$nodelines"
  hosts_block_add "$nodelines"

  for k in $(seq 1 "$nodes"); do
    local node="tb-node$k" nd="$d/tb-node$k" addr
    addr=$(node_addr "$node")
    mkdir -p "$nd/ssh" "$nd/work"
    chmod 700 "$nd/ssh"
    mkdir -p "/etc/netns/$node"
    printf '%s\n' "$hosts" > "/etc/netns/$node/hosts"
    echo "$node" > "/etc/netns/$node/hostname"
    ip netns add "$node"
    ip -n "$node" link set lo up
    ip link add "port-$k" type veth peer name eth0 netns "$node"
    ip link set "port-$k" netns "$SWITCH_NS"
    ip -n "$SWITCH_NS" link set "port-$k" master tb-br0 up
    ip -n "$node" addr add "$addr/24" dev eth0
    ip -n "$node" link set eth0 up
    ssh-keygen -q -t ed25519 -N '' -C "$node" -f "$nd/ssh_host_ed25519_key"
    cat > "$nd/sshd_config" <<EOF
ListenAddress $addr
Port 22
HostKey $nd/ssh_host_ed25519_key
PidFile $nd/sshd.pid
AuthorizedKeysFile .ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
UsePAM no
UseDNS no
StrictModes no
MaxStartups 100:30:200
MaxSessions 100
ClientAliveInterval 5
ClientAliveCountMax 3
LogLevel ERROR
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
    cat "$d/client/id_ed25519.pub" > "$nd/ssh/authorized_keys"
    chmod 600 "$nd/ssh/authorized_keys"
    echo "$node $(cut -d' ' -f1,2 "$nd/ssh_host_ed25519_key.pub")" >> "$d/client/known_hosts"
    start_sshd "$node"
  done

  # The cluster profile: tb-node1 is the head, one slot per node, MPI over the testbed's links; the
  # work directory is the same path on every node but each node's own directory.
  {
    printf '{\n  "version": 1,\n  "name": "testbed",\n'
    printf '  "known_hosts": "%s",\n' "$d/client/known_hosts"
    printf '  "workdir": "%s",\n' "$d/work"
    # Each node's own copy of the trainer, put there by `traindeck-cli deploy --dest DIR/work/bin/traindeck-trainer`.
    printf '  "path_prefix": ["%s"],\n' "$d/work/bin"
    printf '  "trainer": "%s",\n' "$d/work/bin/traindeck-trainer"
    printf '  "env": {"OMPI_MCA_btl_tcp_if_include": "eth0", "OMPI_MCA_oob_tcp_if_include": "eth0"},\n'
    printf '  "nodes": [\n'
    for k in $(seq 1 "$nodes"); do
      local role=worker; [ "$k" -eq 1 ] && role=head
      printf '    {"name": "tb-node%d", "host": "tb-node%d", "port": 22, "user": "root", "identity": "%s", "slots": 1, "role": "%s"}%s\n' \
        "$k" "$k" "$d/client/id_ed25519" "$role" "$([ "$k" -lt "$nodes" ] && echo ,)"
    done
    printf '  ]\n}\n'
  } > "$d/profile.json"
  trap - ERR
  echo "testbed: $nodes node(s) up in $d (desktop $DESKTOP_ADDR); scripts/testbed.sh down removes it" >&2
  echo "$d/profile.json"
}

# Shaping is applied to both ends of the node's link (tc shapes what leaves an interface).
cmd_shape() {
  [ $# -ge 1 ] || usage "shape: which node?"
  local node; node=$(node_name "$1"); shift
  local rate="" delay="" loss=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --rate) [ $# -ge 2 ] || usage "--rate needs a value"; rate="$2"; shift 2 ;;
      --delay) [ $# -ge 2 ] || usage "--delay needs a value"; delay="$2"; shift 2 ;;
      --loss) [ $# -ge 2 ] || usage "--loss needs a value"; loss="$2"; shift 2 ;;
      *) usage "shape: unknown option '$1'" ;;
    esac
  done
  [ -n "$rate$delay$loss" ] || usage "shape: give --rate, --delay and/or --loss"
  local bits=""
  if [ -n "$rate" ]; then
    [[ "$rate" =~ ^([0-9]+)(kbit|mbit|gbit)$ ]] || usage "--rate: expected e.g. 100mbit, 1gbit, 500kbit; got '$rate'"
    case "${BASH_REMATCH[2]}" in kbit) bits=$((BASH_REMATCH[1] * 1000)) ;; mbit) bits=$((BASH_REMATCH[1] * 1000000)) ;; gbit) bits=$((BASH_REMATCH[1] * 1000000000)) ;; esac
    [ "$bits" -gt 0 ] || usage "--rate must be more than 0"
  fi
  [ -z "$delay" ] || [[ "$delay" =~ ^[0-9]+(\.[0-9]+)?(us|ms|s)$ ]] || usage "--delay: expected e.g. 5ms; got '$delay'"
  [ -z "$loss" ] || [[ "$loss" =~ ^[0-9]+(\.[0-9]+)?%$ ]] || usage "--loss: expected e.g. 0.1%; got '$loss'"
  local k; k=$(node_index "$node")
  apply() {  # apply NETNS DEV
    tc -n "$1" qdisc del dev "$2" root 2>/dev/null || true
    if [ -n "$delay$loss" ]; then
      local args=(); [ -n "$rate" ] && args+=(rate "$rate"); [ -n "$delay" ] && args+=(delay "$delay"); [ -n "$loss" ] && args+=(loss "$loss")
      if ! tc -n "$1" qdisc add dev "$2" root netem "${args[@]}" limit 100000 2>/dev/null; then
        echo "testbed: this kernel has no netem qdisc (sch_netem): --delay and --loss cannot be applied; --rate alone uses tbf" >&2
        exit 2
      fi
    else
      # Token bucket: a burst of 1 ms at the rate (at least 16 KiB), queueing at most 100 ms. A larger
      # burst lets a message of a MiB through at the line's speed, and the link test would see that.
      local burst=$((bits / 8 / 1000)); [ "$burst" -lt 16384 ] && burst=16384
      tc -n "$1" qdisc add dev "$2" root tbf rate "$rate" burst "$burst" latency 100ms
    fi
  }
  apply "$node" eth0
  apply "$SWITCH_NS" "port-$k"
  echo "testbed: $node shaped:${rate:+ rate $rate}${delay:+ delay $delay}${loss:+ loss $loss}" >&2
}

# A slow link between two nodes that are fine with every other node: on each node's eth0 an HTB root whose
# default class is unlimited and whose second class, for packets to the other node's address, has the rate.
cmd_shape_pair() {
  [ $# -ge 2 ] || usage "shape-pair: which two nodes?"
  local a b rate=""; a=$(node_name "$1"); b=$(node_name "$2"); shift 2
  [ "$a" != "$b" ] || usage "shape-pair: two different nodes, got $a twice"
  while [ $# -gt 0 ]; do
    case "$1" in
      --rate) [ $# -ge 2 ] || usage "--rate needs a value"; rate="$2"; shift 2 ;;
      *) usage "shape-pair: unknown option '$1'" ;;
    esac
  done
  [[ "$rate" =~ ^[0-9]+(kbit|mbit|gbit)$ ]] || usage "shape-pair: --rate: expected e.g. 100mbit; got '${rate:-nothing}'"
  cmd_unshape "$a"; cmd_unshape "$b"   # one pair per node: its root qdisc holds the pair's filter
  local from to d; d=$(testbed_dir)
  for from in "$a" "$b"; do
    to=$([ "$from" = "$a" ] && echo "$b" || echo "$a")
    tc -n "$from" qdisc del dev eth0 root 2>/dev/null || true
    tc -n "$from" qdisc add dev eth0 root handle 1: htb default 10
    tc -n "$from" class add dev eth0 parent 1: classid 1:10 htb rate 100gbit quantum 65536
    tc -n "$from" class add dev eth0 parent 1: classid 1:20 htb rate "$rate" ceil "$rate" burst 16k quantum 65536
    tc -n "$from" filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst "$(node_addr "$to")/32" flowid 1:20
    echo "$to" > "$d/$from/shaped-pair"   # so that unshape of either node clears both directions
  done
  echo "testbed: $a <-> $b shaped: rate $rate" >&2
}

cmd_unshape() {
  [ $# -eq 1 ] || usage "unshape: which node?"
  local node k d partner; node=$(node_name "$1"); k=$(node_index "$node"); d=$(testbed_dir)
  tc -n "$node" qdisc del dev eth0 root 2>/dev/null || true
  tc -n "$SWITCH_NS" qdisc del dev "port-$k" root 2>/dev/null || true
  # The other end of a shaped pair slows its own direction: it goes too.
  if [ -f "$d/$node/shaped-pair" ]; then
    partner=$(cat "$d/$node/shaped-pair")
    rm -f "$d/$node/shaped-pair"
    if [ -f "$d/$partner/shaped-pair" ]; then
      tc -n "$partner" qdisc del dev eth0 root 2>/dev/null || true
      rm -f "$d/$partner/shaped-pair"
    fi
  fi
}

# A node's CPU quota: a cgroup per throttled node, holding every process of the node's namespaces; what
# they start (sessions, orted, ranks) is born in it. cgroup v2 (cpu.max) where the cpu controller is
# there, else v1's cpu hierarchy (cpu.cfs_quota_us), as in this machine's VM.
readonly CGROUP_NAME=traindeck-testbed
cgroup_root() { # the hierarchy that has the cpu controller, or nothing
  if grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then echo /sys/fs/cgroup
  elif [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then echo /sys/fs/cgroup/cpu
  fi
}
node_cgroup() { local root; root=$(cgroup_root); [ -n "$root" ] && echo "$root/$CGROUP_NAME/$1"; }
cgroup_add() { # cgroup_add DIR PID...: moves the processes (v2 and v1 both take a PID in cgroup.procs)
  local cg="$1" pid; shift
  for pid in "$@"; do echo "$pid" > "$cg/cgroup.procs" 2>/dev/null || true; done
}

cmd_throttle() {
  [ $# -ge 1 ] || usage "throttle: which node?"
  local node; node=$(node_name "$1"); shift
  local cpu=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --cpu) [ $# -ge 2 ] || usage "--cpu needs a value"; cpu="$2"; shift 2 ;;
      *) usage "throttle: unknown option '$1'" ;;
    esac
  done
  [[ "$cpu" =~ ^([0-9]+)%$ ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] && [ "${BASH_REMATCH[1]}" -le 1000 ] ||
    usage "--cpu: expected a share of one CPU from 1% to 1000%, e.g. 60%; got '$cpu'"
  local percent="${BASH_REMATCH[1]}" root cg
  root=$(cgroup_root)
  [ -n "$root" ] || { echo "testbed: this machine has no cgroup with the cpu controller (cgroup v2 cpu.max or v1 cpu)" >&2; exit 2; }
  sshd_pid "$node" >/dev/null || die "$node: its sshd is not running (scripts/testbed.sh revive $node)"
  cg=$(node_cgroup "$node")
  if [ "$root" = /sys/fs/cgroup ]; then
    grep -qw cpu "$root/cgroup.subtree_control" || echo +cpu > "$root/cgroup.subtree_control"
    mkdir -p "$root/$CGROUP_NAME"
    grep -qw cpu "$root/$CGROUP_NAME/cgroup.subtree_control" || echo +cpu > "$root/$CGROUP_NAME/cgroup.subtree_control"
    mkdir -p "$cg"
    echo "$((percent * 1000)) 100000" > "$cg/cpu.max"
  else
    mkdir -p "$cg"
    echo 100000 > "$cg/cpu.cfs_period_us"
    echo "$((percent * 1000))" > "$cg/cpu.cfs_quota_us"
  fi
  # shellcheck disable=SC2046
  cgroup_add "$cg" $(ip netns pids "$node")
}

cmd_unthrottle() {
  [ $# -eq 1 ] || usage "unthrottle: which node?"
  local node; node=$(node_name "$1")
  unthrottle_node "$node"
}

unthrottle_node() { # the node's processes back in the root cgroup, its cgroup removed
  local cg root; cg=$(node_cgroup "$1") || return 0; root=$(cgroup_root)
  [ -d "$cg" ] || return 0
  # shellcheck disable=SC2046
  cgroup_add "$root" $(cat "$cg/cgroup.procs" 2>/dev/null)
  rmdir "$cg" 2>/dev/null || true
  rmdir "$root/$CGROUP_NAME" 2>/dev/null || true
}

remove_node_cgroups() { # after the nodes' processes are gone (a killed process leaves its cgroup when reaped)
  local root; root=$(cgroup_root)
  [ -n "$root" ] && [ -d "$root/$CGROUP_NAME" ] || return 0
  local i cg
  for i in $(seq 1 50); do
    for cg in "$root/$CGROUP_NAME"/tb-node*; do [ -d "$cg" ] && rmdir "$cg" 2>/dev/null; done
    rmdir "$root/$CGROUP_NAME" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "testbed: could not remove $root/$CGROUP_NAME (processes still in it)" >&2
}

node_cpu_quota() { # the node's quota as "60%", or nothing
  local cg; cg=$(node_cgroup "$1") || return 0
  [ -d "$cg" ] || return 0
  if [ -f "$cg/cpu.max" ]; then awk '{ if ($1 != "max") printf "%d%%", $1 * 100 / $2 }' "$cg/cpu.max"
  else awk -v q="$(cat "$cg/cpu.cfs_quota_us")" '{ if (q > 0) printf "%d%%", q * 100 / $1 }' "$cg/cpu.cfs_period_us"
  fi
}

cmd_status() {
  local json=0; [ "${1:-}" = "--json" ] && json=1
  local count d; count=$(node_count); d=$(testbed_dir)
  if [ "$count" -eq 0 ] || ! ip netns list | grep -q "^$SWITCH_NS"; then
    [ $json -eq 1 ] && echo '{"up": false}' || echo "testbed: down"
    return 0
  fi
  local desk; desk=$(ip -br link show "$DESKTOP_IF" 2>/dev/null | awk '{print $2}')
  if [ $json -eq 1 ]; then
    printf '{"up": true, "dir": "%s", "profile": "%s", "desktop": {"address": "%s", "link": "%s"}, "nodes": [' "$d" "$d/profile.json" "$DESKTOP_ADDR" "${desk:-absent}"
  else
    echo "testbed: $count node(s) in $d, profile $d/profile.json; desktop $DESKTOP_ADDR (link ${desk:-absent})"
    printf '%-10s %-14s %-8s %-6s %s\n' NODE ADDRESS SSHD CPU SHAPING
  fi
  local k
  for k in $(seq 1 "$count"); do
    local node="tb-node$k" pid shaping quota
    pid=$(sshd_pid "$node" || echo "-")
    shaping=$(tc -n "$node" qdisc show dev eth0 2>/dev/null | grep -E 'tbf|netem' | sed -E 's/^qdisc ([a-z]+) [0-9a-f]+: root refcnt [0-9]+ /\1 /' || true)
    if [ $json -eq 1 ]; then
      printf '%s{"name": "%s", "address": "%s", "sshd_pid": "%s", "cpu_quota": "%s", "shaping": "%s"}' "$([ "$k" -gt 1 ] && echo ', ')" "$node" "$(node_addr "$node")" "$pid" "$(node_cpu_quota "$node")" "${shaping:-}"
    else
      quota=$(node_cpu_quota "$node")
      printf '%-10s %-14s %-8s %-6s %s\n' "$node" "$(node_addr "$node")" "$pid" "${quota:-all}" "${shaping:-none}"
    fi
  done
  [ $json -eq 1 ] && echo ']}'
  return 0
}

cmd_kill() {
  [ $# -eq 1 ] || usage "kill: which node?"
  local node; node=$(node_name "$1")
  ip netns pids "$node" | xargs -r kill -9 2>/dev/null || true
  rm -f "$(testbed_dir)/$node/sshd.pid"
}

cmd_revive() {
  [ $# -eq 1 ] || usage "revive: which node?"
  local node; node=$(node_name "$1")
  sshd_pid "$node" >/dev/null && return 0
  start_sshd "$node"
}

cmd_mask() {
  [ $# -eq 2 ] || usage "mask NODE PATH"
  local node; node=$(node_name "$1")
  local target; target=$(readlink -f "$2")
  [ -f "$target" ] || usage "mask: $2 is not a file"
  local blank; blank="$(testbed_dir)/$node/masked"
  printf '#!/bin/false\n' > "$blank"; chmod 644 "$blank"
  in_node "$node" mount --bind "$blank" "$target"
}

cmd_unmask() {
  [ $# -eq 2 ] || usage "unmask NODE PATH"
  local node; node=$(node_name "$1")
  in_node "$node" umount "$(readlink -f "$2")"
}

# Slurm (slurm-wlm): the daemons run inside the nodes' namespaces, so jobs run "on" the nodes. The
# configuration is /etc/slurm/slurm.conf (where sbatch and friends look on a real cluster), marked as
# ours; munge gets its own key and socket so that a munged of the machine is never touched.
readonly SLURM_MARK="# traindeck-testbed: scripts/testbed.sh slurm-down removes this file"
slurm_conf_is_ours() { [ -f "$1" ] && head -n1 "$1" | grep -qF "$SLURM_MARK"; }

cmd_slurm_down() {
  local d; d=$(testbed_dir)
  local s="$d/slurm" f pid
  [ -d "$s" ] || return 0
  for f in "$s"/slurmd-*.pid "$s/slurmctld.pid"; do
    [ -f "$f" ] || continue
    pid=$(cat "$f" 2>/dev/null || true)
    local daemon; daemon=$(basename "$f" .pid); daemon=${daemon%%-*}
    if pid_is "$pid" "$daemon" && in_testbed_node "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
  done
  pid=$(cat "$s/munge/munged.pid" 2>/dev/null || true)
  if pid_is "$pid" munged && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$s/munge/munge.socket"; then
    kill -9 "$pid" 2>/dev/null || true
  fi
  # Job steps outlive a killed slurmd: the nodes' slurmstepd processes and everything they started.
  # The whole tree is gathered before anything is killed (a killed parent's children go to init).
  local steps tree=""
  steps=$(for pid in $(node_namespace_pids); do if pid_is "$pid" slurmstepd; then echo "$pid"; fi; done)
  while [ -n "$steps" ]; do
    tree="$tree $steps"
    steps=$(for pid in $steps; do pgrep -P "$pid" || true; done)
  done
  # shellcheck disable=SC2086 # a list of pids
  if [ -n "$tree" ]; then kill -9 $tree 2>/dev/null || true; fi
  for f in /etc/slurm/slurm.conf /etc/slurm/cgroup.conf; do
    if slurm_conf_is_ours "$f"; then rm -f "$f"; fi
  done
  rm -rf "$s" "$d/slurm-profile.json"
}

cmd_slurm_up() {
  local partition=debug
  while [ $# -gt 0 ]; do
    case "$1" in
      --partition) [ $# -ge 2 ] || usage "--partition needs a value"; partition="$2"; shift 2 ;;
      *) usage "slurm-up: unknown option '$1'" ;;
    esac
  done
  [[ "$partition" =~ ^[A-Za-z0-9_]+$ ]] || usage "--partition: letters, digits and _ only"
  local count d; count=$(node_count); d=$(testbed_dir)
  if [ "$count" -lt 1 ] || ! ip netns list | grep -q "^$SWITCH_NS"; then
    usage "slurm-up: the testbed is down (scripts/testbed.sh up first)"
  fi
  local t
  for t in slurmctld slurmd munged sbatch scontrol sinfo; do
    command -v "$t" >/dev/null || { echo "testbed: $t is missing (scripts/setup-deps.sh installs slurm-wlm and munge)" >&2; exit 2; }
  done
  for t in /etc/slurm/slurm.conf /etc/slurm/cgroup.conf; do
    if [ -e "$t" ] && ! slurm_conf_is_ours "$t"; then
      echo "testbed: $t exists and is not the testbed's: this machine has a Slurm of its own; not touching it" >&2; exit 2
    fi
  done
  cmd_slurm_down
  local s="$d/slurm"
  trap 'echo "testbed: slurm-up failed; removing what it made" >&2; cmd_slurm_down' ERR
  mkdir -p "$s/munge" "$s/state" "$s/tmp" "$s/nodetmp" "$d/shared"
  chmod 700 "$s/munge"
  dd if=/dev/urandom bs=128 count=1 of="$s/munge/munge.key" 2>/dev/null
  chmod 400 "$s/munge/munge.key"
  munged --force --key-file="$s/munge/munge.key" --socket="$s/munge/munge.socket" --pid-file="$s/munge/munged.pid" \
    --log-file="$s/munge/munged.log" --seed-file="$s/munge/munged.seed"
  local nodelines="" k
  for k in $(seq 1 "$count"); do
    nodelines="${nodelines}NodeName=tb-node$k NodeAddr=$(node_addr "tb-node$k") CPUs=2 RealMemory=1000 State=UNKNOWN"$'\n'
  done
  mkdir -p /etc/slurm
  {
    echo "$SLURM_MARK"
    echo "ClusterName=tdtestbed"
    echo "SlurmctldHost=tb-node1($(node_addr tb-node1))"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$s/munge/munge.socket"
    echo "CredType=cred/munge"
    echo "StateSaveLocation=$s/state"
    echo "SlurmdSpoolDir=$s/spool-%n"
    echo "SlurmctldPidFile=$s/slurmctld.pid"
    echo "SlurmdPidFile=$s/slurmd-%n.pid"
    echo "SlurmctldLogFile=$s/slurmctld.log"
    echo "SlurmdLogFile=$s/slurmd-%n.log"
    echo "TmpFS=$s/nodetmp"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobCompType=jobcomp/none"
    echo "SchedulerType=sched/backfill"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"
    echo "SlurmdParameters=config_overrides"
    echo "ReturnToService=1"
    echo "SlurmctldTimeout=30"
    echo "SlurmdTimeout=30"
    echo "MessageTimeout=20"
    echo "InactiveLimit=0"
    echo "MinJobAge=3600"
    echo "KillWait=5"
    echo "OverTimeLimit=0"
    echo "MpiDefault=none"
    printf '%s' "$nodelines"
    echo "PartitionName=$partition Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } > /etc/slurm/slurm.conf
  # slurmd's cgroup plugin wants a cgroup file system; the nodes' mount namespaces have a sysfs of
  # their own without one, so each slurmd gets v1 controllers in a private mount namespace, where
  # its TmpFS (PMIx's directories) is also the node's own, as on a real cluster.
  printf '%s\nCgroupPlugin=cgroup/v1\nIgnoreSystemd=yes\n' "$SLURM_MARK" > /etc/slurm/cgroup.conf
  in_node tb-node1 slurmctld -c
  for k in $(seq 1 "$count"); do
    mkdir -p "$s/tmp/tb-node$k" "$s/spool-tb-node$k"
    in_node "tb-node$k" unshare --mount --propagation private -- /bin/sh -c '
        mount --bind "$2" "$3" &&
        mount -t tmpfs cgroup_root /sys/fs/cgroup &&
        for c in cpu cpuacct cpuset memory devices freezer pids; do
          mkdir -p /sys/fs/cgroup/$c && mount -t cgroup -o $c cgroup /sys/fs/cgroup/$c || exit 1
        done &&
        exec slurmd -N "$1"' sh "tb-node$k" "$s/tmp/tb-node$k" "$s/nodetmp"
  done
  local i idle=0
  for i in $(seq 1 120); do
    idle=$(sinfo -h -N -o '%N %T' 2>/dev/null | awk '$2=="idle"' | sort -u | wc -l)
    [ "$idle" -ge "$count" ] && break
    sleep 0.5
  done
  if [ "$idle" -lt "$count" ]; then
    echo "testbed: Slurm nodes not idle after 60 s: $(sinfo -h -N -o '%N %T' 2>&1 | tr '\n' ' ')" >&2
    false
  fi

  # The Slurm profile: tb-node1 is the login node; runs live in DIR/shared, which every node sees.
  printf '{\n  "version": 1,\n  "name": "testbed-slurm",\n' > "$d/slurm-profile.json"
  {
    printf '  "known_hosts": "%s",\n' "$d/client/known_hosts"
    printf '  "workdir": "%s",\n' "$d/shared"
    printf '  "env": {"OMPI_MCA_btl_tcp_if_include": "eth0", "OMPI_MCA_oob_tcp_if_include": "eth0"},\n'
    printf '  "nodes": [{"name": "tb-node1", "host": "tb-node1", "port": 22, "user": "root", "identity": "%s", "slots": 1, "role": "head"}],\n' "$d/client/id_ed25519"
    printf '  "slurm": {"partition": "%s", "time": "00:10:00", "nodes": 2, "tasks_per_node": 1, "cpus_per_task": 1, "ranks_via": "auto"}\n}\n' "$partition"
  } >> "$d/slurm-profile.json"
  trap - ERR
  echo "testbed: Slurm up ($count node(s), partition $partition, controller on tb-node1); scripts/testbed.sh slurm-down stops it" >&2
  echo "$d/slurm-profile.json"
}

main() {
  [ $# -ge 1 ] || usage "which command?"
  local cmd="$1"; shift
  case "$cmd" in
    up) cmd_up "$@" ;;
    down) [ "$(id -u)" -eq 0 ] || { echo "testbed: needs root" >&2; exit 2; }; cmd_down ;;
    status) cmd_status "$@" ;;
    shape) cmd_shape "$@" ;;
    throttle) cmd_throttle "$@" ;;
    unthrottle) cmd_unthrottle "$@" ;;
    unshape) cmd_unshape "$@" ;;
    shape-pair) cmd_shape_pair "$@" ;;
    exec) [ $# -ge 2 ] || usage "exec NODE COMMAND..."; local node; node=$(node_name "$1"); shift; in_node "$node" "$@" ;;
    kill) cmd_kill "$@" ;;
    revive) cmd_revive "$@" ;;
    disconnect) ip link set "$DESKTOP_IF" down ;;
    reconnect) ip link set "$DESKTOP_IF" up ;;
    mask) cmd_mask "$@" ;;
    unmask) cmd_unmask "$@" ;;
    slurm-up) [ "$(id -u)" -eq 0 ] || { echo "testbed: needs root" >&2; exit 2; }; cmd_slurm_up "$@" ;;
    slurm-down) [ "$(id -u)" -eq 0 ] || { echo "testbed: needs root" >&2; exit 2; }; cmd_slurm_down ;;
    -h|--help|help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage "unknown command '$cmd'" ;;
  esac
}

main "$@"
