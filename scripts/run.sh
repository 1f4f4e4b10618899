#!/usr/bin/env bash
# The one command to use TrainDeck: installs dependencies, builds, and starts the app on the embedded
# local-cluster default (this machine, 2 ranks on the CPU, the qwen2-tiny preset, the demo corpus).
# Without a display it runs the same demo in the terminal.
#   scripts/run.sh [--terminal | traindeck options such as --demo, --lang zh_CN]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/setup-deps.sh >/dev/null

build="${BUILD_DIR:-build}"
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
cmake --preset ci -B "$build" -DTRAINDECK_WITH_GUI=ON >/dev/null
targets=(traindeck-trainer traindeck-cli traindeck)
echo "run.sh: building ${targets[*]} (the first build takes several minutes)"
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

if [ "${1:-}" != "--terminal" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec "$build/app/gui/traindeck" "$@"
fi
[ "${1:-}" != "--terminal" ] && echo "run.sh: no display found; running the demo in the terminal instead"

# The same demo as the app's Tiny demo preset: the built-in spec resources/specs/demo.json.
exec "$build/app/cli/traindeck-cli" launch --demo
