# Sourced by the testbed benchmarks: a 2-node testbed with head -> worker SSH and the trainer deployed.
# Expects $1 = BUILD_DIR (default build); sets root, build, cli, trainer, cache, tb, work, profile; the
# testbed and $work go away when the script exits.
# shellcheck source=bench_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"

profile_src=$("$tb" up --nodes 2 --dir /run/traindeck-testbed-bench 2>/dev/null)
profile="$work/profile.json"
cp "$profile_src" "$profile"
"$cli" install-key --profile "$profile" --key /run/traindeck-testbed-bench/client/id_ed25519.pub --head-to-workers >/dev/null
"$cli" deploy --profile "$profile" --trainer "$trainer" --dest /run/traindeck-testbed-bench/work/bin/traindeck-trainer >/dev/null
