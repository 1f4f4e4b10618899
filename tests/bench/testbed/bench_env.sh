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

# cluster_up N DIR: a testbed of N nodes in DIR, set up as a user would: head → worker trust and the
# trainer deployed to every node. Sets profile (a copy of the testbed's profile in $work).
cluster_up() {
  local src
  src=$("$tb" up --nodes "$1" --dir "$2" 2>/dev/null)
  profile="$work/profile.json"
  cp "$src" "$profile"
  "$cli" install-key --profile "$profile" --key "$2/client/id_ed25519.pub" --head-to-workers >/dev/null
  "$cli" deploy --profile "$profile" --trainer "$trainer" --dest "$2/work/bin/traindeck-trainer" >/dev/null
}
