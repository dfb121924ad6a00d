#!/usr/bin/env bash
# Box blur step 27 (bench/NOTES.md): fused_wide with ring 2, its rows brought by bulk asynchronous copies into a
# local-memory ring of d + prefetch rows (box_blur.cl, RING=2). Why: bench/bulk_ring.cpp (step 26) found that on
# the H100 a d = 31 ring fed this way copies at 80% of the copy bandwidth, against 54% for fused_wide's re-reads
# through the same loop; the question is what is left once the row window's work is added. First the box blur
# tests on the NVIDIA device (the bulk path runs only there), then d = 31 and d = 63 against each device's tuned
# shapes (bench/results/2026-11-24-nvidia-tuning.json).
# Needs ring=2, which exists only at commit 25f933c (removed after this run); run from a checkout of it.
# Usage (device tool): bench/results/2026-11-25-nvidia-bulk-wide.sh "$OUT"
set -uo pipefail
out="${1:?usage: OUT_DIR}"
cd "$(dirname "$0")/../.."
# ptxas' register and shared-memory report into the program cache's .txt files (programs.tar.gz).
export CLFILTERS_BUILD_OPTIONS=-cl-nv-verbose
v31="fused_wide[items=4,local_x=96,mirror=0,prefetch=2,ring=0,strip=16],fused_wide[items=4,local_x=64,mirror=1,prefetch=1,ring=0,strip=128]"
for s in 256 512 640; do
  for p in 2 4 8; do v31="$v31,fused_wide[items=4,local_x=64,mirror=1,prefetch=$p,ring=2,strip=$s]"; done
done
for s in 256 512; do v31="$v31,fused_wide[items=4,local_x=32,mirror=1,prefetch=4,ring=2,strip=$s]"; done
for s in 512 640; do v31="$v31,fused_wide[items=8,local_x=32,mirror=1,prefetch=4,ring=2,strip=$s]"; done
v63="fused_wide[items=4,local_x=128,mirror=1,prefetch=1,ring=0,strip=144],fused_wide[items=8,local_x=64,mirror=1,prefetch=1,ring=0,strip=120]"
for s in 256 512; do v63="$v63,fused_wide[items=4,local_x=32,mirror=1,prefetch=4,ring=2,strip=$s]"; done
common="--sizes 8192x8192 --cpu-runs 0 --runs 30 --warmup 5 --total-runs 2"
CLF_QUICK_TESTS="${CLF_QUICK_TESTS-BoxBlur}" CLF_TAIL=40 bench/gpu-quick.sh "$out" box_blur \
  "bench box-blur $common --params channels=4,diameter=31 --variants '$v31';bench box-blur $common --params channels=4,diameter=63 --variants '$v63'"
