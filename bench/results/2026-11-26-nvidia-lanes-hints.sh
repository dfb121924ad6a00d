#!/usr/bin/env bash
# Box blur step 29 (bench/NOTES.md), fifth call: on the H100 the leaving rows' re-reads cost 26% in 128-row strips
# (the fourth call), and lanes take that to 9-16% but cost as much themselves. Step 15's L2 hints were measured on
# the H200 only, where the row window holds fused_wide: here with and without lanes, through
# CLFILTERS_BUILD_OPTIONS=-DCACHE_HINTS=bits (1 outputs evict-first, 2 leaving rows evict-first, 4 entering rows
# evict-last). Needs the commit that added CACHE_HINTS again (removed with the lanes).
# Through the device tool: bash THIS_FILE (OUT set). Results: OUT/hints-*.txt; a summary last.
set -u
cd "$(dirname "$0")/../.."
v31='fused_wide[items=4,local_x=96,mirror=0,prefetch=2,ring=0,strip=16],fused_wide[items=4,local_x=64,mirror=1,prefetch=1,ring=0,strip=128],fused_wide[items=4,lanes=2,local_x=64,mirror=1,prefetch=1,ring=0,strip=32],fused_wide[items=4,lanes=2,local_x=64,mirror=1,prefetch=2,ring=0,strip=128],fused_wide[items=4,lanes=4,local_x=64,mirror=1,prefetch=2,ring=0,strip=128]'
v63='fused_wide[items=4,local_x=128,mirror=1,prefetch=1,ring=0,strip=144],fused_wide[items=8,local_x=64,mirror=1,prefetch=1,ring=0,strip=120],fused_wide[items=8,lanes=2,local_x=64,mirror=1,prefetch=1,ring=0,strip=256],fused_wide[items=4,lanes=2,local_x=64,mirror=1,prefetch=1,ring=0,strip=128]'
bench="bench box-blur --sizes 8192x8192 --runs 30 --total-runs 1 --cpu-runs 0"
CLF_TAIL=0 bench/gpu-quick.sh "$OUT" box_blur "" || exit 1
export XDG_CACHE_HOME="${CLF_GPU_CACHE:-/tmp/clfilters-gpu-cache}" CLFILTERS_DEVICE=nvidia
for hints in 0 1 3 7; do
  export CLFILTERS_BUILD_OPTIONS=-DCACHE_HINTS=$hints
  for d in 31 63; do
    v=v$d
    build/release/tools/clfilters $bench --params channels=4,diameter=$d --variants "${!v}" > "$OUT/hints-$hints-$d.txt" 2>&1
  done
done
grep -m1 '^Device' "$OUT/hints-0-31.txt"
for d in 31 63; do
  for hints in 0 1 3 7; do
    echo "== d=$d cache_hints=$hints"
    grep fused_wide "$OUT/hints-$hints-$d.txt" | awk '{print $5, $6, $12}'
  done
done
