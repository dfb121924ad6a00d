#!/usr/bin/env bash
# Box blur step 22 (bench/NOTES.md): fused_wide with its leaving rows from the local-memory ring, in strips long
# enough that the ring's few work-groups per SM (about 5 at d = 31) still cover 8k in one wave, and more rows
# loaded ahead to keep bytes in flight. Why: bench/strip_pattern.cpp showed that re-reading each row 8 or more
# rows after its first read costs a copy loop 30-65% on both devices (the re-reads miss L2), and that a ring
# with long strips and prefetch 8 recovers most of it. Against the tuned shapes of each device.
# Usage (device tool): bench/results/2026-11-24-nvidia-wide-ring-long.sh "$OUT"
set -uo pipefail
out="${1:?usage: OUT_DIR}"
cd "$(dirname "$0")/../.."
v31="fused_wide[items=4,local_x=96,mirror=0,prefetch=2,ring=0,strip=16],fused_wide[items=4,local_x=64,mirror=1,prefetch=1,ring=0,strip=128]"
for s in 256 384 488 512; do
  for p in 4 8 16; do v31="$v31,fused_wide[items=4,local_x=64,mirror=1,prefetch=$p,ring=1,strip=$s]"; done
done
for s in 488 512; do
  for p in 4 8; do v31="$v31,fused_wide[items=8,local_x=32,mirror=1,prefetch=$p,ring=1,strip=$s]"; done
done
v63="fused_wide[items=4,local_x=128,mirror=1,prefetch=1,ring=0,strip=144],fused_wide[items=8,local_x=64,mirror=1,prefetch=1,ring=0,strip=120]"
for p in 8 16; do v63="$v63,fused_wide[items=4,local_x=32,mirror=1,prefetch=$p,ring=1,strip=512]"; done
common="--sizes 8192x8192 --cpu-runs 0 --runs 30 --warmup 5 --total-runs 2"
CLF_TAIL=40 bench/gpu-quick.sh "$out" box_blur \
  "bench box-blur $common --params channels=4,diameter=31 --variants '$v31';bench box-blur $common --params channels=4,diameter=63 --variants '$v63'"
