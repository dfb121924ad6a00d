#!/usr/bin/env bash
# One call on the GPU machine: register NVIDIA's OpenCL driver, build, run every test on the NVIDIA
# device and on PoCL there, and time the box blur variants. Full logs go to OUT_DIR; a short table
# is printed last.   Usage: bench/run-gpu.sh OUT_DIR
set -uo pipefail
out="${1:?usage: bench/run-gpu.sh OUT_DIR}"
mkdir -p "$out"
cd "$(dirname "$0")/.."
if [ ! -f /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
export XDG_CACHE_HOME="$out/cache"
summary="$out/summary.txt"
: > "$summary"

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > "$out/gpu.txt" 2>&1
echo "gpu: $(head -1 "$out/gpu.txt")" >> "$summary"

start=$(date +%s)
if cmake --preset release > "$out/configure.log" 2>&1 && cmake --build --preset release -j "$(nproc)" > "$out/build.log" 2>&1; then
  echo "build: ok ($(( $(date +%s) - start )) s)" >> "$summary"
else
  echo "build: FAILED (see build.log)" >> "$summary"; tail -30 "$out/build.log"; cat "$summary"; exit 1
fi
cli=build/release/tools/clfilters
$cli devices > "$out/devices.txt" 2>&1

for dev in ${CLF_GPU_TEST_DEVICES:-nvidia pocl}; do
  start=$(date +%s)
  CLFILTERS_DEVICE=$dev ctest --preset release -j 8 --timeout 900 > "$out/ctest-$dev.log" 2>&1
  echo "tests on $dev: $(grep -E 'tests passed|tests failed' "$out/ctest-$dev.log" | tail -1) ($(( $(date +%s) - start )) s)" >> "$summary"
done

# Box blur variants on an 8192x8192 RGBA image: median kernel time of 3 CLI calls each.
CLFILTERS_DEVICE=nvidia bench/box-blur-variants.sh "$cli" 8192x8192 3 "2 3 9 31 63" > "$out/box-blur-variants-nvidia.md" 2>&1
cat "$out/box-blur-variants-nvidia.md" >> "$summary"
cat "$summary"; exit 1
fi
cli=build/release/tools/clfilters
$cli devices > "$out/devices.txt" 2>&1

for dev in ${CLF_GPU_TEST_DEVICES:-nvidia pocl}; do
  start=$(date +%s)
  CLFILTERS_DEVICE=$dev ctest --preset release -j 8 --timeout 900 > "$out/ctest-$dev.log" 2>&1
  echo "tests on $dev: $(grep -E 'tests passed|tests failed' "$out/ctest-$dev.log" | tail -1) ($(( $(date +%s) - start )) s)" >> "$summary"
done

# Box blur variants, one call each on an 8192x8192 RGBA image (kernel time from profiling events).
if [ -x build/release/tools/clfilters ]; then
  python3 - "$out/big.npy" <<'PY' 2>/dev/null || true
import sys, numpy as np
rng = np.random.default_rng(1)
y, x = np.mgrid[0:8192, 0:8192]
img = ((x * 255 // 8191)[..., None] + rng.integers(0, 40, (8192, 8192, 4))).clip(0, 255).astype(np.uint8)
np.save(sys.argv[1], img)
PY
  for d in 3 9 31; do
    for v in naive block4x4 two_pass separable_sliding local_tile; do
      line=$(CLFILTERS_DEVICE=nvidia $cli box-blur "$out/big.npy" "$out/blur.npy" -d $d --variant $v --time 2>&1 | tail -1)
      echo "box-blur 8192x8192x4 d=$d $v: $line" >> "$summary"
    done
  done
  rm -f "$out/big.npy" "$out/blur.npy"
fi
cat "$summary"
