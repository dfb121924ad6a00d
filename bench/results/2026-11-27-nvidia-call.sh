#!/usr/bin/env bash
# The 1080p d = 9 device-resident call (issue 8: <= 30 us), measured again: step 33's re-tune call on the H200 timed it
# at 31.6 us (32.9 in its peers step) with a 14.8-us kernel, where the call before took 26.1 us with the same shape
# and a 14.2-us kernel. The driver's own cost around a kernel (bench/launch_cost.cpp: an empty kernel and a 1080p copy),
# then five rounds of the tuned call (bench's call_ms: enqueue to completion, median of 50 after 10 warm-ups).
# One device-tool call:   bash bench/results/2026-11-27-nvidia-call.sh   (OUT set; ~1.5 min)
set -u
cd "$(dirname "$0")/../.."
source bench/nvidia-setup.sh call clfilters_cli launch_cost
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
build/release/bench/launch_cost NVIDIA 2>&1 | tee "$OUT/launch_cost.txt"
for k in 1 2 3 4 5; do
  $cli bench box-blur --sizes 1920x1080 --params channels=4,diameter=9 --variants auto \
    --warmup 10 --runs 50 --total-runs 50 --cpu-runs 0 --format json --out "$OUT/call-$k.json" > /dev/null 2>&1
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows'][0]; print('round', sys.argv[2], 'call', \
round(r['call_ms']['median'] * 1000, 1), 'us, kernel', round(r['kernel_ms']['median'] * 1000, 1), 'us', r['variant'])" \
    "$OUT/call-$k.json" $k
done
