# Sourced by the testbed benchmarks: the tree, the programs and a scratch directory. Expects $1 =
# BUILD_DIR (default build); sets root, build, cli, trainer, cache, tb, work; $work and any testbed go
# away when the script exits.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="${1:-$root/build}"
cli="$build/app/cli/traindeck-cli"
trainer="$build/trainer/traindeck-trainer"
cache="${TRAINDECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/traindeck}"
tb="$root/scripts/testbed.sh"
[ -x "$cli" ] && [ -x "$trainer" ] || { echo "bench: build first ($cli, $trainer)" >&2; exit 2; }
work="$(mktemp -d)"
export XDG_CONFIG_HOME="$work/config"
trap '"$tb" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
