#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails if any C++ or OpenCL file differs from .clang-format, naming the files. The formatter is pinned
# (clang-format-14, installed by scripts/install-deps.sh) so every machine formats alike.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' '*.cl')
if ! clang-format-14 --dry-run --Werror $files 2> /tmp/clfilters-format.$$; then
  grep -o '^[^:]*:[0-9]*:[0-9]*: error' /tmp/clfilters-format.$$ | cut -d: -f1 | sort -u | sed 's/^/not formatted: /'
  echo "run: clang-format-14 -i \$(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' '*.cl')"
  rm -f /tmp/clfilters-format.$$
  exit 1
fi
rm -f /tmp/clfilters-format.$$
echo "format: $(echo "$files" | wc -l) files match .clang-format"
