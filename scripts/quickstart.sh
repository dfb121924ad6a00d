#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job on a fresh machine: install what is missing, build, and blur the sample photograph
# on the default OpenCL device (the first GPU, else the CPU through PoCL).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release
mkdir -p out
build/release/tools/clfilters box-blur data/astronaut.jpg out/astronaut-blur.png --diameter 9 --time
