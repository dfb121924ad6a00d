#!/usr/bin/env bash
# The 1080p d = 9 device-resident call (issue 8: <= 30 us) sits on the line on the H100 (29.0-32.9 us in five rounds,
# bench/results/2026-11-27-nvidia-packed-blocks.md), and its class has only ever had 10-s tunes: 17 of 6586
# candidates timed in step 39's re-tune. This tunes that class alone for BUDGET seconds (default 150), then times the
# call in five rounds (bench's call_ms: enqueue to completion, median of 50 after 10 warm-ups), the committed entry's
# shape beside the new one. OUT/tuning.json is the database after it.
# One device-tool call:   bash bench/results/2026-11-27-nvidia-fullhd-d9-tune.sh   (OUT set; ~4 min)
set -u
cd "$(dirname "$0")/../.."
source bench/nvidia-setup.sh fullhd clfilters_cli
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
before=$(python3 -c "
import json, sys
for e in json.load(open(sys.argv[1]))['entries']:
    if e['filter'] == 'box-blur' and e['param_class'] == 'c4 d<=9' and e['size_class'] == '<=4MP' and sys.argv[2] in e['device']:
        print(e['best']['variant'] + '[' + e['best']['config'] + ']')" "$db" "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)")
echo "committed entry: $before"
timeout $(( ${BUDGET:-150} + 60 )) $cli tune box-blur --size 1920x1080 --params channels=4,diameter=9 \
  --budget ${BUDGET:-150} > "$W/tune.log" 2>&1 || echo "tune failed or timed out"
grep -E 'best' "$W/tune.log" | cut -c1-200
cp "$db" "$OUT/tuning.json"
for k in 1 2 3 4 5; do
  $cli bench box-blur --sizes 1920x1080 --params channels=4,diameter=9 --variants "auto,$before" \
    --warmup 10 --runs 50 --total-runs 50 --cpu-runs 0 --format json --out "$W/call-$k.json" > /dev/null 2>&1
  python3 -c "import json,sys
for r in json.load(open(sys.argv[1]))['rows']:
    print('round', sys.argv[2], 'call', round(r['call_ms']['median'] * 1000, 1), 'us, kernel',
          round(r['kernel_ms']['median'] * 1000, 1), 'us', r['variant'])" "$W/call-$k.json" $k
done | tee "$OUT/calls.txt"
cp "$W/tune.log" "$OUT/"
