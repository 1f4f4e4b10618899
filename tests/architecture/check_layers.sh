#!/usr/bin/env bash
# The layering of docs/contributors/architecture.md, checked on the sources:
# 1. every #include "area/..." in backend/<area> names an area the table lets it use;
# 2. no backend file includes Qt Widgets, nor do the GUI's models (app/gui/models);
# 3. the front ends (app/) do not put runs together themselves: they call runs::Operations and
#    ssh::SshKeys::installOnNode instead of the pieces below them (no launch::Launcher at all, no
#    RemoteRuns, no run monitor of their own).
#   check_layers.sh [SOURCE_ROOT]   (default: this checkout; the table is always this checkout's)
set -u
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
root="${1:-$repo}"
doc="$repo/docs/contributors/architecture.md"
failures=0
fail() { echo "check_layers: $*" >&2; failures=$((failures + 1)); }

declare -A allowed
while IFS='|' read -r _ area uses _; do
  area="$(echo "$area" | tr -d ' ')"
  [ -z "$area" ] || [ "$area" = area ] || [[ "$area" == -* ]] && continue
  allowed[$area]="$(echo "$uses" | tr -d ' ' | tr ',' ' ')"
done < <(sed -n '/<!-- layers/,/<!-- \/layers -->/p' "$doc" | grep '^|')
[ "${#allowed[@]}" -gt 0 ] || { echo "check_layers: no layer table in $doc" >&2; exit 2; }

for dir in "$root"/backend/*/; do
  area="$(basename "$dir")"
  if [ -z "${allowed[$area]+set}" ]; then
    fail "backend/$area is not in the layer table of docs/contributors/architecture.md"
    continue
  fi
  while IFS=: read -r file line text; do
    used="$(echo "$text" | sed -E 's/.*#include "([a-z_]+)\/.*/\1/')"
    [ "$used" = "$area" ] && continue
    [[ " ${allowed[$area]} " == *" $used "* ]] ||
      fail "${file#$root/}:$line: $area may not use $used (docs/contributors/architecture.md): $text"
  done < <(grep -nH -E '^#include "[a-z_]+/' "$dir"*.h "$dir"*.cpp 2>/dev/null)
done

while IFS=: read -r file line text; do
  fail "${file#$root/}:$line: the backend never uses Qt Widgets: $text"
done < <(grep -snH -E '#include <(QtWidgets|QWidget|QApplication|QMainWindow|QDialog)' "$root"/backend/*/*.h "$root"/backend/*/*.cpp)
# The GUI's models and view maths (traindeck_gui_models) link Qt Core and Gui only.
while IFS=: read -r file line text; do
  fail "${file#$root/}:$line: the GUI's models use no widgets: $text"
done < <(grep -snH -E '#include <(QtWidgets|QWidget|QApplication|QMainWindow|QDialog|QAbstractItemView|QTableView|qcustomplot)|#include "(qcp|plotstyle)\.h"' "$root"/app/gui/models/*.h "$root"/app/gui/models/*.cpp 2>/dev/null)

forbidden='Launcher::|RemoteRuns::|locateRun\(|installPublicKey\(|new (launch::)?RunMonitor|RunMonitor [a-z]+\(|make_(unique|shared)<(launch::)?RunMonitor>'
while IFS=: read -r file line text; do
  fail "${file#$root/}:$line: a front end calls below runs::Operations / SshKeys::installOnNode: $text"
done < <(grep -snH -E "$forbidden" "$root"/app/*/*.cpp "$root"/app/*/*.h)

if [ "$failures" -gt 0 ]; then
  echo "check_layers: $failures problem(s)" >&2
  exit 1
fi
echo "check_layers: ${#allowed[@]} areas, their include arrows and the front ends' calls are as docs/contributors/architecture.md says"
