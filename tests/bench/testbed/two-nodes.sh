# Sourced by the testbed benchmarks: a 2-node testbed with head -> worker SSH and the trainer deployed.
# Expects $1 = BUILD_DIR (default build); sets root, build, cli, trainer, cache, tb, work, profile; the
# testbed and $work go away when the script exits.
# shellcheck source=bench_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"

cluster_up 2 /run/traindeck-testbed-bench
