# The first H100 calls (2026-11-24, tenth session; every earlier GPU result is the H200's). Two
# device-tool calls on nvidia-h100-x1, each under the 10-minute limit:
#   bash THIS_FILE tune      build; every test on the NVIDIA device (at most 200 s); tune every filter at
#                            8192x8192 (240 s) and at 1920x1080 (60 s) from the committed database, whose
#                            H200 winners the tuner tries first (same vendor). OUT/tuning.json becomes
#                            bench/results/2026-11-24-nvidia-h100-tuning.json (H200 and H100 entries).
#   bash THIS_FILE headline  bench-auto and peers (bench/run-gpu.sh) with that database, the SM clock
#                            sampled by nvidia-smi meanwhile (OUT/clocks.csv).
# Through the device tool (OUT set).
set -u
cd "$(dirname "$0")/../.."
case "${1:?tune|headline}" in
  tune)
    # final-gpu.sh tune builds first; the tests run between its build and its tuning through this hook.
    { cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)"; } > "$OUT/build.log" 2>&1 ||
      { tail -30 "$OUT/build.log"; exit 1; }
    [ -f /etc/OpenCL/vendors/nvidia.icd ] ||
      { mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
    CLFILTERS_DEVICE=nvidia timeout 200 ctest --preset release -j 8 --timeout 150 > "$OUT/ctest-nvidia.log" 2>&1
    echo "tests on nvidia (rc $?): $(grep -E 'tests passed|tests failed' "$OUT/ctest-nvidia.log" | tail -1)"
    grep -E '\(Failed\)|Timeout' "$OUT/ctest-nvidia.log" | head -20
    CLF_TUNE_FILTERS="box-blur sobel bilateral epsilon reconstruct matrix-add dot-product" CLF_TUNE_8K=240 \
      CLF_TUNE_1080P=60 bash bench/final-gpu.sh "$OUT" tune
    ;;
  headline)
    [ -f /etc/OpenCL/vendors/nvidia.icd ] ||
      { mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 250 \
      > "$OUT/clocks.csv" 2>&1 &
    smi=$!
    { cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)"; } > "$OUT/build.log" 2>&1
    CLF_TUNING_FILE=bench/results/2026-11-24-nvidia-h100-tuning.json bench/run-gpu.sh "$OUT" bench-auto,peers | tail -60
    kill $smi
    awk -F', ' 'NR > 1 && $2 + 0 > 0 { n++; s += $2; if ($2 + 0 > m) m = $2 + 0 } END { printf "SM clock: mean %.0f MHz, max %d (%d samples)\n", s / n, m, n }' "$OUT/clocks.csv"
    ;;
esac
