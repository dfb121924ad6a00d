#!/usr/bin/env bash
# Box blur step 24 (bench/NOTES.md): can the SM's L1 hold the leaving rows? Step 22's re-read probe (set l2)
# padded each work-group's local memory so that 18 fit per SM, which also left L1 only what the shared-memory
# carveout spared (~28 KiB): its re-reads could only hit L2. With no padding and long strips, few work-groups
# run per SM and the carveout stays small, so a d-row history (~124 KiB at d = 31 for ~1000 columns per SM)
# might stay in L1. First bench/strip_pattern.cpp's set l1 (the copy loop, L1 large against L1 cut back at the
# same occupancy), then fused_wide itself in long strips with its leaving rows from global memory (ring 0) and
# deeper prefetch, against each device's tuned shapes (the first two entries of each list).
# Usage (device tool): bench/results/2026-11-24-nvidia-wide-l1.sh "$OUT"
set -uo pipefail
out="${1:?usage: OUT_DIR}"
cd "$(dirname "$0")/../.."
v31="fused_wide[items=4,local_x=64,mirror=1,prefetch=1,ring=0,strip=128],fused_wide[items=4,local_x=96,mirror=0,prefetch=2,ring=0,strip=16]"
for s in 256 384 512 768 1024; do
  for p in 2 4 8; do v31="$v31,fused_wide[items=4,local_x=64,mirror=1,prefetch=$p,ring=0,strip=$s]"; done
done
for s in 512 1024; do
  for p in 4 8; do v31="$v31,fused_wide[items=2,local_x=128,mirror=1,prefetch=$p,ring=0,strip=$s]"; done
done
for p in 4 8; do v31="$v31,fused_wide[items=8,local_x=64,mirror=1,prefetch=$p,ring=0,strip=512]"; done
v63="fused_wide[items=8,local_x=64,mirror=1,prefetch=1,ring=0,strip=120],fused_wide[items=4,local_x=128,mirror=1,prefetch=1,ring=0,strip=144]"
for s in 512 1024 2048; do
  for p in 4 8; do v63="$v63,fused_wide[items=4,local_x=64,mirror=1,prefetch=$p,ring=0,strip=$s]"; done
done
v63="$v63,fused_wide[items=8,local_x=64,mirror=1,prefetch=4,ring=0,strip=1024]"
for s in 1024 2048; do v63="$v63,fused_wide[items=2,local_x=128,mirror=1,prefetch=8,ring=0,strip=$s]"; done
common="--sizes 8192x8192 --cpu-runs 0 --runs 30 --warmup 5"
CLF_TAIL=${CLF_TAIL:-4} bench/gpu-quick.sh "$out" box_blur \
  "bench box-blur $common --params channels=4,diameter=31 --variants '$v31';bench box-blur $common --params channels=4,diameter=63 --variants '$v63'"
# gpu-quick.sh registered the NVIDIA ICD; the probe is standalone OpenCL.
g++ -std=c++20 -O2 bench/strip_pattern.cpp -lOpenCL -o /tmp/strip_pattern && /tmp/strip_pattern NVIDIA l1 > "$out/strip_l1.txt" 2>&1
echo "== strip_pattern l1 (rc $?)"
tail -n +4 "$out/strip_l1.txt" | cut -c1-120
for f in 1 2; do
  tar xzf "$out/logs.tar.gz" -C "$out" "cmd-$f.txt" 2>/dev/null
  echo "== box blur, command $f (variant, kernel median ms)"
  grep -E '^box-blur' "$out/cmd-$f.txt" | awk '{print $5, $6}'
  rm -f "$out/cmd-$f.txt"
done
