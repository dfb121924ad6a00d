#!/usr/bin/env bash
# Box blur step 30 (bench/NOTES.md), call 2: what fused_xslide's time follows, with diagnostic builds (wrong output,
# timed unchecked) through CLFILTERS_BUILD_OPTIONS: -D XDIAG=1 skips the cross window (phase B), 2 the global loads
# of the row slide, 3 only the leaving loads. The best shapes of call 1 at d = 31 and 63, 8k, and the tuned fused_wide.
# Needs commit 1c05875 (fused_xslide was removed after step 30). Through the device tool: bash THIS_FILE (OUT set). A summary last.
set -u
cd "$(dirname "$0")/../.."
bench/gpu-quick.sh "$OUT" box_blur "" > /dev/null
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
b="build/release/tools/clfilters bench box-blur --sizes 8192x8192 --runs 20 --total-runs 1 --cpu-runs 0 --unchecked"
x="fused_xslide[local_x=128,prefetch=0,rows=1,segment=256,step=32],fused_xslide[local_x=128,prefetch=1,rows=1,segment=512,step=32]"
for d in 31 63; do
  for diag in 0 1 2 3; do
    CLFILTERS_BUILD_OPTIONS="-D XDIAG=$diag" $b --params channels=4,diameter=$d --variants "$x" > "$OUT/d$d-diag$diag.txt" 2>&1
    echo "d=$d XDIAG=$diag: $(grep fused_xslide "$OUT/d$d-diag$diag.txt" | awk '{printf "%s %s  ", $5, $7}')"
  done
done
$b --params channels=4,diameter=31 --variants 'fused_wide[items=4,local_x=96,mirror=0,prefetch=2,ring=0,strip=16]' | grep fused_wide
(cd "$OUT" && tar czf diag.tar.gz --remove-files d*-diag*.txt)
