#!/usr/bin/env bash
# Box blur step 29 (bench/NOTES.md), fourth call: what the leaving rows' re-reads cost with and without lanes at
# d = 31 and 63 (8k). Each shape twice: as built, and with -D DIAG_NO_LEAVING=1 (no leaving-row loads; wrong
# output, so --unchecked), through CLFILTERS_BUILD_OPTIONS. Needs the commit that added DIAG_NO_LEAVING (removed
# again with the lanes).
# Through the device tool: bash THIS_FILE (OUT set). Results: OUT/cmd-*.txt in logs.tar.gz; a summary last.
set -u
cd "$(dirname "$0")/../.."
v31='fused_wide[items=4,local_x=96,mirror=0,prefetch=2,ring=0,strip=16],fused_wide[items=4,local_x=64,mirror=1,prefetch=1,ring=0,strip=128],fused_wide[items=4,lanes=2,local_x=64,mirror=1,prefetch=1,ring=0,strip=32],fused_wide[items=4,lanes=2,local_x=64,mirror=1,prefetch=2,ring=0,strip=128],fused_wide[items=4,lanes=4,local_x=64,mirror=1,prefetch=2,ring=0,strip=128]'
v63='fused_wide[items=4,local_x=128,mirror=1,prefetch=1,ring=0,strip=144],fused_wide[items=8,local_x=64,mirror=1,prefetch=1,ring=0,strip=120],fused_wide[items=8,lanes=2,local_x=64,mirror=1,prefetch=1,ring=0,strip=256],fused_wide[items=8,lanes=4,local_x=32,mirror=1,prefetch=1,ring=0,strip=128]'
bench="bench box-blur --sizes 8192x8192 --runs 30 --total-runs 1 --cpu-runs 0 --unchecked"
CLF_TAIL=0 bench/gpu-quick.sh "$OUT" box_blur \
  "$bench --params channels=4,diameter=31 --variants '$v31';$bench --params channels=4,diameter=63 --variants '$v63'"
tar xzf "$OUT/logs.tar.gz" -C /tmp
export XDG_CACHE_HOME="${CLF_GPU_CACHE:-/tmp/clfilters-gpu-cache}" CLFILTERS_DEVICE=nvidia
export CLFILTERS_BUILD_OPTIONS=-DDIAG_NO_LEAVING=1
build/release/tools/clfilters $bench --params channels=4,diameter=31 --variants "$v31" > /tmp/cmd-3.txt 2>&1
build/release/tools/clfilters $bench --params channels=4,diameter=63 --variants "$v63" > /tmp/cmd-4.txt 2>&1
cp /tmp/cmd-3.txt /tmp/cmd-4.txt "$OUT/"
grep -m1 '^Device' /tmp/cmd-1.txt
for i in 1 2 3 4; do
  echo "== cmd-$i ($([ $i -gt 2 ] && echo 'no leaving loads' || echo 'as built'))"
  grep fused_wide /tmp/cmd-$i.txt | awk '{print $5, $6, $12}'
done
