#!/usr/bin/env bash
# Sobel step 11 (bench/NOTES.md): on sm_90 strip's FP32 paths leave their bytes unclamped and the pack clamps
# them two at a time (min.u16x2; sobel.cl's STRIP_PACK_SATURATES, on by default there), against each float
# clamped by an FMNMX before its rounding (-D STRIP_PACK_SATURATES=0 through CLFILTERS_BUILD_OPTIONS). Same
# shapes, same call, 8192x8192, kernel median of 30, each form timed twice in turn (new, old, new, old) so
# that drift shows. The device's own OpenCL runs the Sobel tests (both forms of the exhaustive rounding
# checks) and the runtime tests (the compute capability query) first.
# Usage (device tool): bash bench/results/2026-11-25-nvidia-sobel-pack.sh (OUT set), on the tree of commit e7eed03:
# the step was measured, found no faster, and reverted (results: 2026-11-25-nvidia-h200-sobel-pack.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
shapes=""
for c in 8 16; do
  for r in 2 4 8; do
    for l in 32 64; do shapes="$shapes,strip[columns=$c,local_x=$l,mag_float=2,rows=$r]"; done
  done
done
shapes="${shapes#,},strip[columns=8,local_x=32,mag_float=1,rows=4],strip[columns=8,local_x=64,mag_float=1,rows=4]"
common="--sizes 8192x8192 --cpu-runs 0 --runs 30 --warmup 5"
CLF_QUICK_TESTS='Sobel' CLF_TAIL=1 bench/gpu-quick.sh "$OUT" sobel "bench sobel $common --params output=magnitude --variants '$shapes'" || exit 1
export XDG_CACHE_HOME="${CLF_GPU_CACHE:-/tmp/clfilters-gpu-cache}" CLFILTERS_DEVICE=nvidia
{ cmake --build --preset release -j "$(nproc)" --target runtime_test &&
  ctest --preset release -R 'Devices' --timeout 300; } > "$OUT/runtime-tests.log" 2>&1
echo "== runtime tests (Devices): $(grep -E 'tests passed|tests failed' "$OUT/runtime-tests.log" | tail -1)"
cli=build/release/tools/clfilters
for round in 1 2; do
  for form in new old; do
    opts=""; [ "$form" = old ] && opts="-D STRIP_PACK_SATURATES=0"
    for o in magnitude l1; do
      CLFILTERS_BUILD_OPTIONS="$opts" $cli bench sobel $common --params output=$o --variants "$shapes" \
        > "$OUT/sweep-$o-$form-$round.txt" 2>&1
    done
  done
done
grep -m1 '^Device' "$OUT/sweep-magnitude-new-1.txt"
for o in magnitude l1; do
  echo "== $o: variant, kernel median ms (new 1, old 1, new 2, old 2)"
  for v in $(grep -E '^sobel' "$OUT/sweep-$o-new-1.txt" | awk '{print $4}'); do
    row="$v"
    for f in new-1 old-1 new-2 old-2; do
      row="$row $(grep -F " $v " "$OUT/sweep-$o-$f.txt" | awk '{print $5}')"
    done
    echo "$row"
  done | sort -k2 -n
done
(cd "$OUT" && tar czf sweeps.tar.gz --remove-files sweep-*.txt runtime-tests.log)
