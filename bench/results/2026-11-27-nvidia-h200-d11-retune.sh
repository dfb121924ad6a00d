#!/usr/bin/env bash
# Box blur step 32, H200 follow-up: the 20-s re-tune of the d <= 11 class at 8k (2026-11-27-nvidia-pair-retune.sh)
# picked 48-row strips at 0.181 ms (69.9% of the copy bandwidth) over the earlier winner's 64 rows (0.179 ms, 71%, in
# the closing runs of 2026-11-26). Re-tune that class alone for 120 s from the committed database, then the tuned
# choice and both shapes side by side in three interleaved rounds.   bash THIS_FILE   (device tool, OUT set)
set -u
cd "$(dirname "$0")/../.."
[ -f /etc/OpenCL/vendors/nvidia.icd ] ||
  { mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{ cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)" --target clfilters_cli; } \
  > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
export XDG_CACHE_HOME=/tmp/d11-cache CLFILTERS_DEVICE=nvidia
rm -rf $XDG_CACHE_HOME && mkdir -p $XDG_CACHE_HOME/clfilters
cp bench/results/2026-11-24-nvidia-tuning.json $XDG_CACHE_HOME/clfilters/tuning.json
cli=build/release/tools/clfilters
$cli tune box-blur --size 8192x8192 --params channels=4,diameter=11 --budget 120 > "$OUT/tune.log" 2>&1
grep best "$OUT/tune.log" | cut -c1-200
cp $XDG_CACHE_HOME/clfilters/tuning.json "$OUT/tuning.json"
p='fused_packed[items=4,local_x=64,mirror=1,pair=0,prefetch=4,ring=1'
$cli bench box-blur --sizes 8192x8192 --params channels=4,diameter=11 --warmup 10 --runs 50 --total-runs 3 --cpu-runs 0 \
  --variants "auto,$p,strip=64],$p,strip=48]" > "$OUT/bench.txt" 2>&1
grep -E '^(Device|box-blur)' "$OUT/bench.txt" | tr -s ' ' | cut -c1-200
