#!/usr/bin/env bash
# Box blur step 46 (bench/NOTES.md): a fraction of the rows' lines kept in L2 (evict_last) until their leaving read,
# under the diagnostic -D L2_KEEP / L2_LEAVE / L2_SECOND of box_blur.cl, in the H200's tuned long-strip shape at d = 63
# and its tuned pair shape and a long-strip shape at d = 31, in interleaved rounds, every output checked.
# One device-tool call (OUT set; ~6 min):
#   bash bench/results/2026-11-27-nvidia-l2-keep.sh NAME ROUNDS
set -u
cd "$(dirname "$0")/../.."
w8="fused_wide[items=8,mirror=1,ring=0,pair=0,prefetch=1,local_x=64,strip=120"
p4="fused_wide[items=4,mirror=1,ring=0,pair=1,prefetch=1,local_x=64,strip=16,direct=1]"
l4="fused_wide[items=4,mirror=1,ring=0,pair=0,prefetch=1,local_x=64,strip=128,direct=0]"
D63="$w8,direct=0],$w8,direct=1]" D31="$p4,$l4" \
  bash bench/results/2026-11-27-nvidia-h100-options-probe.sh "$1" "$2" base= k15=-DL2_KEEP=0.15 k25=-DL2_KEEP=0.25 \
  k40=-DL2_KEEP=0.4 k25l1='-DL2_KEEP=0.25 -DL2_LEAVE=1' k25l2='-DL2_KEEP=0.25 -DL2_LEAVE=2' \
  k25s='-DL2_KEEP=0.25 -DL2_SECOND=1'
