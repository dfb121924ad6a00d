#!/usr/bin/env bash
# Sobel step 9 (bench/NOTES.md): `tensor`, gx and gy as mma.sync m16n8k32 products on the tensor cores,
# against strip's tuned shapes (H200 tuning database: magnitude 8x4 at local_x 32, gradients 8x2 at 64,
# l1 8x8 at 32), 8192x8192, kernel median of 30. The device's own OpenCL runs the Sobel tests first (tensor
# on the tensor cores there, not emulated); ptxas' register counts go to the program cache
# (-cl-nv-verbose), which comes back in programs.tar.gz.
# Usage (device tool), on a87854a's tree (tensor was removed after these runs): bench/results/2026-11-24-nvidia-sobel-tensor.sh "$OUT"
set -uo pipefail
out="${1:?usage: OUT_DIR}"
cd "$(dirname "$0")/../.."
shapes() {
  local list="" l r
  for l in 32 64 128 256; do
    for r in 1 2 4 8; do list="$list,tensor[local_x=$l,rows=$r]"; done
  done
  echo "$list"
}
common="--sizes 8192x8192 --cpu-runs 0 --runs 30 --warmup 5"
export CLFILTERS_BUILD_OPTIONS=-cl-nv-verbose
CLF_QUICK_TESTS='Sobel' CLF_TAIL=${CLF_TAIL:-2} bench/gpu-quick.sh "$out" sobel \
  "bench sobel $common --params output=magnitude --variants 'strip[columns=8,local_x=32,mag_float=1,rows=4]$(shapes)';bench sobel $common --params output=gradients --variants 'strip[columns=8,local_x=64,mag_float=1,rows=2]$(shapes)';bench sobel $common --params output=l1 --variants 'strip[columns=8,local_x=32,mag_float=1,rows=8]$(shapes)'"
for f in 1 2 3; do
  tar xzf "$out/logs.tar.gz" -C "$out" "cmd-$f.txt" 2>/dev/null
  echo "== sobel, command $f (variant, kernel median ms, fraction of copy bandwidth)"
  grep -E '^sobel' "$out/cmd-$f.txt" | awk '{print $4, $5, $11}'
  rm -f "$out/cmd-$f.txt"
done
mkdir -p /tmp/progs && tar xzf "$out/programs.tar.gz" -C /tmp/progs 2>/dev/null
echo "== ptxas registers (sobel_tensor / sobel_strip)"
grep -h -E 'Compiling entry|Used [0-9]+ registers' -r /tmp/progs 2>/dev/null | grep -A1 -E 'sobel_(tensor|strip)' |
  grep -oE "sobel_(tensor|strip)|Used [0-9]+ registers[^\"]*" | paste - - | sort | uniq -c | head -12
