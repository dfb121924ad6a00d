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
# One seed for both runs: the sanitizer run draws the release run's sweep cases, whose kernels PoCL has cached.
export CLF_TEST_RUN_SEED="${CLF_TEST_RUN_SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}"
echo "CLF_TEST_RUN_SEED=$CLF_TEST_RUN_SEED"
for preset in release asan; do
  echo "== $preset =="
  scripts/build.sh "$preset"
  ctest --preset "$preset" -j "$(nproc)"
done
