#!/usr/bin/env bash
# Box blur steps 49-51 (bench/NOTES.md), one device-tool call each (~4-5 min), every output checked:
# - steps 49 and 50, on the H200, with two hooks in box_blur.cl as it was before step 49's commit (never committed in
#   that form): -D DELTA=1, the code step 49's commit keeps, and -D LANE_BARRIER=1, which replaced the row loop's
#   barrier from step 1 on by `bar.sync 1 + ly, local_x` (removed):
#     bash bench/results/2026-11-27-nvidia-delta.sh NAME ROUNDS base= delta=-DDELTA=1 lane=-DLANE_BARRIER=1 \
#       both='-DDELTA=1 -DLANE_BARRIER=1'
# - step 51, at step 49's commit (DELTA on at items 4, the start's sums of whole words, and a diagnostic
#   -D OLD_START=1 restoring the old start, removed in the next commit), on the H100 (H100=1: its tuned shapes):
#     H100=1 bash ... NAME ROUNDS new= nodelta=-DDELTA=0 oldstart=-DOLD_START=1 head='-DDELTA=0 -DOLD_START=1'
set -u
cd "$(dirname "$0")/../.."
p="fused_wide[mirror=1,ring=0"
if [ -n "${H100:-}" ]; then
  D31="$p,prefetch=2,items=4,pair=1,local_x=64,strip=12,direct=1],$p,prefetch=2,items=4,pair=1,local_x=64,strip=14,direct=1]"
  D63="$p,prefetch=1,items=4,pair=1,local_x=128,strip=14,direct=1],$p,prefetch=1,items=4,pair=1,local_x=64,strip=16,direct=1],$p,prefetch=1,items=8,pair=0,local_x=64,strip=128,direct=0]"
else
  D31="$p,prefetch=1,items=4,pair=1,local_x=64,strip=16,direct=1],$p,prefetch=1,items=4,pair=1,local_x=64,strip=24,direct=1],$p,prefetch=1,items=4,pair=0,local_x=64,strip=128,direct=0]"
  D63="$p,prefetch=1,items=8,pair=0,local_x=64,strip=120,direct=0],$p,prefetch=1,items=4,pair=1,local_x=128,strip=14,direct=1],$p,prefetch=1,items=4,pair=0,local_x=64,strip=120,direct=0]"
fi
D31=$D31 D63=$D63 bash bench/results/2026-11-27-nvidia-h100-options-probe.sh "$@"
