#!/usr/bin/env bash
# Box blur step 25 (bench/NOTES.md): fused_rows, one work-item per column sliding 8 rows at a time and then
# one per (row, block) for the row window, against each device's tuned fused_wide shapes (the first entry of
# each list: H200 tuning database). The device's own OpenCL runs the fused_rows and fused_wide tests first;
# ptxas' register counts go to the program cache (-cl-nv-verbose), which comes back in programs.tar.gz.
# Usage (device tool), on fc6fbab's tree (fused_rows was removed after this run): bench/results/2026-11-24-nvidia-fused-rows.sh "$OUT"
set -uo pipefail
out="${1:?usage: OUT_DIR}"
cd "$(dirname "$0")/../.."
rows() {
  local list="" l s
  for l in 256 128 192 288; do
    for s in 256 384 512 640 768 1024 2048; do list="$list,fused_rows[local_x=$l,mirror=1,strip=$s]"; done
  done
  echo "$list,fused_rows[local_x=256,mirror=0,strip=512]"
}
v31="fused_wide[items=4,local_x=64,mirror=1,prefetch=1,ring=0,strip=128]$(rows)"
v63="fused_wide[items=8,local_x=64,mirror=1,prefetch=1,ring=0,strip=120]$(rows)"
common="--sizes 8192x8192 --cpu-runs 0 --runs 30 --warmup 5"
export CLFILTERS_BUILD_OPTIONS=-cl-nv-verbose
CLF_QUICK_TESTS='BoxBlurFusedRows|BoxBlurFusedWide' CLF_TAIL=${CLF_TAIL:-2} bench/gpu-quick.sh "$out" box_blur \
  "bench box-blur $common --params channels=4,diameter=31 --variants '$v31';bench box-blur $common --params channels=4,diameter=63 --variants '$v63'"
for f in 1 2; do
  tar xzf "$out/logs.tar.gz" -C "$out" "cmd-$f.txt" 2>/dev/null
  echo "== box blur, command $f (variant, kernel median ms)"
  grep -E '^box-blur' "$out/cmd-$f.txt" | awk '{print $5, $6}'
  rm -f "$out/cmd-$f.txt"
done
mkdir -p /tmp/progs && tar xzf "$out/programs.tar.gz" -C /tmp/progs 2>/dev/null
echo "== ptxas registers (box_fused_rows / box_fused_wide)"
grep -h -E 'Compiling entry|Used [0-9]+ registers' -r /tmp/progs 2>/dev/null | grep -A1 -E 'fused_(rows|wide)' | grep -oE "fused_(rows|wide)|Used [0-9]+ registers[^\"]*" | paste - - | sort | uniq -c | head -8
