#!/usr/bin/env bash
# Box blur step 23 (bench/NOTES.md): fused_wide's ring with its register part (-D RING_REGS=X): each entering
# row stays X steps in registers before it goes to the local ring, which is then d - X rows deep, so that more
# work-groups fit per SM than the whole ring allows (5-6 at d = 31, step 22) while the leaving rows stay off
# DRAM. Against each device's tuned shapes (first two entries of each list).
# Usage (device tool), at commit b21d9a5 (ring_regs was removed after this run):
#   bench/results/2026-11-24-nvidia-wide-ring-regs.sh "$OUT"
set -uo pipefail
out="${1:?usage: OUT_DIR}"
cd "$(dirname "$0")/../.."
v31="fused_wide[items=4,local_x=64,mirror=0,prefetch=2,ring=0,strip=16],fused_wide[items=4,local_x=64,mirror=1,prefetch=1,ring=0,strip=128]"
for x in 8 12 16 20 24; do
  for p in 1 2 4; do
    [ $((x % p)) -eq 0 ] || continue
    for s in 32 64 128 256; do v31="$v31,fused_wide[items=4,local_x=64,mirror=1,prefetch=$p,ring=1,ring_regs=$x,strip=$s]"; done
  done
done
for x in 4 8; do
  for s in 64 128 256; do v31="$v31,fused_wide[items=8,local_x=32,mirror=1,prefetch=1,ring=1,ring_regs=$x,strip=$s]"; done
done
v63="fused_wide[items=4,local_x=128,mirror=1,prefetch=1,ring=0,strip=144],fused_wide[items=8,local_x=64,mirror=1,prefetch=1,ring=0,strip=120]"
for x in 16 24 32; do
  for p in 1 2 4; do
    for s in 64 128 256; do v63="$v63,fused_wide[items=4,local_x=32,mirror=1,prefetch=$p,ring=1,ring_regs=$x,strip=$s]"; done
  done
done
common="--sizes 8192x8192 --cpu-runs 0 --runs 30 --warmup 5"
CLF_TAIL=${CLF_TAIL:-12} bench/gpu-quick.sh "$out" box_blur \
  "bench box-blur $common --params channels=4,diameter=31 --variants '$v31';bench box-blur $common --params channels=4,diameter=63 --variants '$v63'"
# The fastest ten of each diameter, last.
for f in 1 2; do
  tar xzf "$out/logs.tar.gz" -C "$out" "cmd-$f.txt" 2>/dev/null
  echo "== fastest, command $f"
  grep -E '^box-blur' "$out/cmd-$f.txt" | sort -k6 -g | head -10 | cut -c1-200
  rm -f "$out/cmd-$f.txt"
done
