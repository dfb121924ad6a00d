#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails if an include runs against the layers, which run one way:
#   common -> io -> runtime -> video -> tuning/db -> filters -> tuning (tuner), bench -> testing -> tools
# A file may include its own layer and those before it. Test code (*_test.cpp, *_test_*.hpp) may include anything
# but tools.
# Public headers (include/clfilters/) include only each other.
set -euo pipefail
cd "$(dirname "$0")/.."
level() {
  case "$1" in
    src/common/* | common/*) echo 0 ;;
    src/io/* | io/*) echo 1 ;;
    src/runtime/* | runtime/*) echo 2 ;;
    src/video/* | video/*) echo 3 ;;
    src/tuning/db/* | tuning/db/*) echo 4 ;;
    src/filters/* | filters/*) echo 5 ;;
    src/tuning/* | tuning/* | src/bench/* | bench/*) echo 6 ;;
    src/testing/* | testing/*) echo 7 ;;
    tools/*) echo 8 ;;
    *) echo "" ;;
  esac
}
tools_headers=$(cd tools && git ls-files '*.hpp')
status=0
while IFS= read -r file; do
  own=$(level "$file")
  while IFS= read -r included; do
    [ -n "$included" ] || continue
    if [[ "$file" == include/* ]]; then
      [[ "$included" == clfilters/* ]] || { echo "$file: public header includes internal \"$included\""; status=1; }
      continue
    fi
    if [[ "$file" == src/* ]] && grep -qxF "$included" <<< "$tools_headers"; then
      echo "$file: includes \"$included\" from tools/"
      status=1
      continue
    fi
    [[ "$file" == *_test.cpp || "$file" == *_test_*.hpp ]] && continue
    theirs=$(level "$included")
    if [ -n "$theirs" ] && [ -n "$own" ] && [ "$theirs" -gt "$own" ]; then
      echo "$file: includes \"$included\", a later layer"
      status=1
    fi
  done < <(sed -n 's/^#include "\(.*\)".*/\1/p' "$file")
done < <(git ls-files --cached --others --exclude-standard 'src/*.cpp' 'src/*.hpp' 'tools/*.cpp' 'tools/*.hpp' 'include/*.hpp')
[ $status -eq 0 ] && echo "layers: every include runs one way"
exit $status
