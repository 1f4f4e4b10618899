#!/usr/bin/env bash
# Every C and C++ file git tracks is formatted as .clang-format says (clang-format from
# scripts/setup-deps.sh). Fix with: clang-format -i FILE...
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
command -v clang-format >/dev/null || { echo "check_format: clang-format is missing (scripts/setup-deps.sh installs it)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.c')
[ "${#files[@]}" -gt 0 ] || { echo "check_format: no sources found (not a git checkout?)" >&2; exit 2; }
if ! out="$(clang-format --dry-run --Werror "${files[@]}" 2>&1)"; then
  echo "$out" | grep -E '^[^ ].*: (warning|error):' | sed -E 's/: (warning|error):.*//' | sort -u |
    sed 's/^/check_format: not formatted: /' >&2
  echo "check_format: run clang-format -i on the files above" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted as .clang-format says"
