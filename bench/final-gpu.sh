#!/usr/bin/env bash
# The closing H200 calls of 2026-11-23, in two device-tool calls (each under the 10-minute limit):
#   bench/final-gpu.sh OUT tune      build everything, tune the filters whose kernels changed (box blur,
#                                    Sobel, bilateral; CLF_TUNE_FILTERS) at 8k and 1080p (CLF_TUNE_8K,
#                                    CLF_TUNE_1080P seconds, 0 skips), starting from the committed
#                                    tuning database; OUT/tuning.json is the result
#   bench/final-gpu.sh OUT headline  build (a no-op on a warm machine), the tests of the changed filters
#                                    on the NVIDIA device, then bench/run-gpu.sh's bench-auto and peers
#                                    with CLF_TUNING_FILE (default: the committed database)
set -uo pipefail
out="${1:?usage: bench/final-gpu.sh OUT tune|headline}"; phase="${2:?usage}"
cd "$(dirname "$0")/.."
if [ ! -f /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
export XDG_CACHE_HOME="${CLF_GPU_CACHE:-/tmp/clfilters-gpu-cache}"
db="${CLF_TUNING_FILE:-bench/results/2026-11-24-nvidia-tuning.json}"  # H200 and H100 entries
mkdir -p "$XDG_CACHE_HOME/clfilters"
start=$(date +%s)
{ cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)"; } > "$out/build-$phase.log" 2>&1 \
  || { tail -30 "$out/build-$phase.log"; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
cli=build/release/tools/clfilters
case "$phase" in
  tune)
    cp "$db" "$XDG_CACHE_HOME/clfilters/tuning.json"
    filters="${CLF_TUNE_FILTERS:-box-blur sobel bilateral}"
    CLFILTERS_DEVICE=nvidia $cli tune $filters --size 8192x8192 --budget "${CLF_TUNE_8K:-240}" > "$out/tune.log" 2>&1
    [ "${CLF_TUNE_1080P:-60}" -gt 0 ] &&
      CLFILTERS_DEVICE=nvidia $cli tune $filters --size 1920x1080 --budget "${CLF_TUNE_1080P:-60}" >> "$out/tune.log" 2>&1
    CLFILTERS_DEVICE=nvidia $cli tune --show >> "$out/tune.log" 2>&1
    cp "$XDG_CACHE_HOME/clfilters/tuning.json" "$out/tuning.json"
    grep -E "best|->|fastest" "$out/tune.log" | tail -20
    ;;
  headline)
    CLFILTERS_DEVICE=nvidia ctest --preset release -j 8 --timeout 600 -R "${CLF_HEADLINE_TESTS:-Box|Sobel|Bilateral|Unrolled|WaitFor}" \
      > "$out/ctest-nvidia.log" 2>&1
    echo "tests on nvidia: $(grep -E 'tests passed|tests failed' "$out/ctest-nvidia.log" | tail -1)"
    grep -E '\(Failed\)|Timeout' "$out/ctest-nvidia.log" | head
    CLF_TUNING_FILE="$db" bench/run-gpu.sh "$out" bench-auto,peers | tail -60
    ;;
esac
true
