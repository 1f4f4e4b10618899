#!/usr/bin/env bash
# The trainer suites marked NO_TORCH_PCH in tests/unit/trainer/CMakeLists.txt compile without LibTorch's
# precompiled header. That only pays while nothing they include, directly or through the project's own
# headers, reaches <torch/...> (torch/torch.h costs ~20 s per object; <ATen/core/Tensor.h> ~3 s). This
# follows their "..." includes through trainer/ and tests/ and fails on the first <torch/...> it meets.
#   check_torch_includes.sh [SOURCE_ROOT]   (default: this checkout)
set -u
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
tests="$root/tests/unit/trainer"
search=("$tests" "$root/trainer" "$root/trainer/tokenizer/.." "$root/tests/fixtures/paths")
failures=0

resolve() { # resolve NAME FROM_DIR: the project file a #include "NAME" means, or nothing (a system header)
  local d
  for d in "$2" "${search[@]}"; do
    [ -f "$d/$1" ] && { realpath "$d/$1"; return; }
  done
}

suites=$(sed -n 's/^trainer_add_test(\([^ ]*\) NO_TORCH_PCH .*/\1/p' "$tests/CMakeLists.txt")
[ -n "$suites" ] || { echo "check_torch_includes: no NO_TORCH_PCH suite in $tests/CMakeLists.txt" >&2; exit 2; }
count=0
for suite in $suites; do
  count=$((count + 1))
  declare -A seen=()
  queue=("$(realpath "$tests/$suite.cpp")")
  declare -A via=()
  while [ "${#queue[@]}" -gt 0 ]; do
    file="${queue[0]}"
    queue=("${queue[@]:1}")
    [ -n "${seen[$file]+set}" ] && continue
    seen[$file]=1
    while IFS=: read -r line text; do
      if [[ "$text" =~ \#include\ \<torch/ ]]; then
        echo "check_torch_includes: $suite compiles without the LibTorch precompiled header, but" \
          "${file#"$root"/}:$line includes $text${via[$file]:+ (reached through ${via[$file]#"$root"/})}" >&2
        failures=$((failures + 1))
      elif [[ "$text" =~ \#include\ \"([^\"]+)\" ]]; then
        next="$(resolve "${BASH_REMATCH[1]}" "$(dirname "$file")")"
        if [ -n "$next" ] && [ -z "${seen[$next]+set}" ]; then
          queue+=("$next")
          [ -n "${via[$next]+set}" ] || via[$next]="$file"
        fi
      fi
    done < <(grep -n -E '^#include ' "$file")
  done
  unset seen via
done

if [ "$failures" -gt 0 ]; then
  echo "check_torch_includes: $failures include(s) of LibTorch's full headers; include model/qwen2.h etc. only" \
    "in suites that keep the precompiled header, or narrow the header to <ATen/core/Tensor.h>" >&2
  exit 1
fi
echo "check_torch_includes: $count suites without the LibTorch precompiled header reach no <torch/...> header"
