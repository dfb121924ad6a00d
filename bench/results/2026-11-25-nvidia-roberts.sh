#!/usr/bin/env bash
# Sobel step 10 (bench/NOTES.md): strip's Roberts path (mag_float=2: the Roberts cross of 2x2 sums in FP32)
# against the separable FP32 path (mag_float=1) for the magnitude, and against the lanes (mag_float=1 there)
# for l1, at the same shapes: columns 4/8/16 x rows 2/4/8 x local_x 32/64, 8192x8192, kernel median of 30.
# The device's own OpenCL runs the Sobel tests first (the new exhaustive check of the Roberts rounding among
# them). Last: per output and mag_float, the best shape, then every row.
# Usage (device tool): bash bench/results/2026-11-25-nvidia-roberts.sh (OUT set)
set -uo pipefail
cd "$(dirname "$0")/../.."
shapes() {  # mag_float
  local list="" c r l
  for c in 4 8 16; do
    for r in 2 4 8; do
      for l in 32 64; do list="$list,strip[columns=$c,local_x=$l,mag_float=$1,rows=$r]"; done
    done
  done
  echo "${list#,}"
}
common="--sizes 8192x8192 --cpu-runs 0 --runs 30 --warmup 5"
CLF_QUICK_TESTS='Sobel' CLF_TAIL=1 bench/gpu-quick.sh "$OUT" sobel \
  "bench sobel $common --params output=magnitude --variants '$(shapes 1),$(shapes 2)';bench sobel $common --params output=l1 --variants '$(shapes 1),$(shapes 2)'"
tar xzf "$OUT/logs.tar.gz" -C /tmp cmd-1.txt cmd-2.txt 2>/dev/null
for f in 1 2; do
  echo "== command $f: variant, kernel median ms, fraction of copy bandwidth"
  grep -E '^sobel' "/tmp/cmd-$f.txt" | awk '{print $4, $5, $11}' | sort -k2 -n | head -6
  for m in 1 2; do
    echo "best mag_float=$m: $(grep -E '^sobel' "/tmp/cmd-$f.txt" | grep "mag_float=$m" | awk '{print $5, $4}' | sort -n | head -1)"
  done
done
