# The first H100 calls (2026-11-24, tenth session; every earlier GPU result is the H200's). Two
# device-tool calls on nvidia-h100-x1, each under the 10-minute limit:
#   bash THIS_FILE tune      build; every test on the NVIDIA device (at most 200 s); tune every filter at
#                            8192x8192 (240 s) and at 1920x1080 (60 s) from the committed database, whose
#                            H200 winners the tuner tries first (same vendor). OUT/tuning.json becomes
#                            bench/results/2026-11-24-nvidia-tuning.json (H200 and H100 entries).
#   bash THIS_FILE headline  bench-auto and peers (bench/run-gpu.sh) with that database, the SM clock
#                            sampled by nvidia-smi meanwhile (OUT/clocks.csv).
#   bash THIS_FILE rest      a third call: box blur's d<=31 and d<=64 classes tuned on their own (120 s
#                            each, `tune --params`) into that database (OUT/tuning.json replaces it), then
#                            what the headline does not cover: box blur auto at 8k, epsilon at 3264x2448,
#                            Jacobi tiled2d at 8k, the 1080p d=9 call, and the test the first call's
#                            200 s cut off (tune_smoke).
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
    CLF_TUNING_FILE=bench/results/2026-11-24-nvidia-tuning.json bench/run-gpu.sh "$OUT" bench-auto,peers | tail -60
    kill $smi
    awk -F', ' 'NR > 1 && $2 + 0 > 0 { n++; s += $2; if ($2 + 0 > m) m = $2 + 0 } END { printf "SM clock: mean %.0f MHz, max %d (%d samples)\n", s / n, m, n }' "$OUT/clocks.csv"
    ;;
  rest)
    [ -f /etc/OpenCL/vendors/nvidia.icd ] ||
      { mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
    { cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)"; } > "$OUT/build.log" 2>&1 ||
      { tail -30 "$OUT/build.log"; exit 1; }
    export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
    mkdir -p $XDG_CACHE_HOME/clfilters
    cp bench/results/2026-11-24-nvidia-tuning.json $XDG_CACHE_HOME/clfilters/tuning.json
    cli=build/release/tools/clfilters
    ctest --preset release -R tune_smoke --timeout 300 2>&1 | grep -E 'tune_smoke|tests passed|tests failed'
    for d in 31 63; do
      $cli tune box-blur --params diameter=$d,channels=4 --size 8192x8192 --budget 120 2>&1 | grep best
    done
    cp $XDG_CACHE_HOME/clfilters/tuning.json "$OUT/tuning.json"
    run() { echo "\$ clfilters $*"; $cli "$@" 2>&1 | cut -c1-250; }
    run bench box-blur --sizes 8192x8192 --variants auto --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0
    run bench epsilon --sizes 3264x2448 --params channels=1,radius=4,threshold=20 --variants auto --warmup 10 \
      --runs 50 --total-runs 1 --cpu-runs 0
    run bench reconstruct --sizes 8192x8192 --variants 'tiled2d[local_x=64,local_y=4,rows=1],tiled2d[local_x=128,local_y=2,rows=4],tiled2d[local_x=64,local_y=2,rows=8],tiled2d[local_x=128,local_y=2,rows=8],strip' \
      --warmup 2 --runs 10 --total-runs 1 --cpu-runs 0
    run bench box-blur --sizes 1920x1080 --params diameter=9,channels=4 --variants auto --warmup 10 --runs 50 \
      --total-runs 1 --cpu-runs 0 --format json --out "$OUT/call-1080p.json"
    python3 -c "import json; r = json.load(open('$OUT/call-1080p.json'))['rows'][0]; print('1080p d=9 call (us):', {k: round(v * 1000, 1) for k, v in r['call_ms'].items()})"
    ;;
esac
