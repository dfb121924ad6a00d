#!/usr/bin/env bash
# Box blur step 48 (bench/NOTES.md): what the H200's tuned box blur shapes at 8k spend their time on, by diagnostic
# builds with a part taken out (-D DIAG_NO_START, DIAG_NO_LEAVE, DIAG_NO_WINDOW in box_blur.cl at the commit that names
# this step; their outputs are wrong, so the bench runs --unchecked). One device-tool call on an H200 (OUT set; ~5 min):
#   bash bench/results/2026-11-27-nvidia-diagnosis.sh NAME ROUNDS
# and on the H100, d = 63 only (its tuned pair shape is the H200's second d = 63 shape): DS=63 bash ... NAME ROUNDS
set -u
cd "$(dirname "$0")/../.."
D31="fused_wide[items=4,mirror=1,ring=0,pair=1,prefetch=1,local_x=64,strip=16,direct=1]" \
D63="fused_wide[items=8,mirror=1,ring=0,pair=0,prefetch=1,local_x=64,strip=120,direct=0],fused_wide[items=4,mirror=1,ring=0,pair=1,prefetch=1,local_x=128,strip=14,direct=1]" \
BENCH_FLAGS=--unchecked bash bench/results/2026-11-27-nvidia-h100-options-probe.sh "$1" "$2" base= \
  nowin=-DDIAG_NO_WINDOW=1 noleave=-DDIAG_NO_LEAVE=1 nostart=-DDIAG_NO_START=1 \
  nowin_noleave='-DDIAG_NO_WINDOW=1 -DDIAG_NO_LEAVE=1' all='-DDIAG_NO_WINDOW=1 -DDIAG_NO_LEAVE=1 -DDIAG_NO_START=1'
