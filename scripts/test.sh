#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every test: installs what is missing, checks the format and the layers' include order, builds the
# release preset (warnings are errors) and runs the CTest suite (benchmarks excluded), then the same unit
# tests built with ASan and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/check-format.sh
scripts/check-layers.sh
for preset in release asan; do
  echo "== $preset =="
  scripts/build.sh "$preset"
  ctest --preset "$preset" -j "$(nproc)"
done
