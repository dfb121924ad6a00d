# H200 call of 2026-11-24 (ninth session): Sobel magnitude (strip, MAG_FLOAT) with work-groups of
# local_x x local_y work-items (the new local_y tunable). Why: the memory-alone build (SOBEL_DIAG=1, see
# ...-sobel-diag.md) moves the tuned shape's bytes at only 68% of the copy bandwidth, and each block of
# ROWS rows loads ROWS + 2; stacked work-items of one group read each other's halo rows, which can then
# be L1 hits instead of L2 reads. Full (checked) and memory-alone (SOBEL_DIAG=1, unchecked) builds.
# 8192x8192, kernel time, median of 30 after 5 warm-ups. Through the device tool: bash THIS_FILE (OUT set).
set -u
bench/gpu-quick.sh "$OUT" "sobel" "" > /dev/null  # build only; registers the NVIDIA ICD
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
F='--sizes 8192x8192 --warmup 5 --runs 30 --total-runs 1 --cpu-runs 0 --params output=magnitude'
V=""
for s in "columns=8,rows=4,local_x=32" "columns=8,rows=4,local_x=64" "columns=16,rows=4,local_x=32" \
         "columns=8,rows=2,local_x=64" "columns=8,rows=8,local_x=32" "columns=4,rows=4,local_x=64"; do
  for ly in 1 2 4; do V="$V,strip[$s,mag_float=1,local_y=$ly]"; done
done
for d in 0 1; do
  u=""; [ $d = 0 ] || u=--unchecked
  CLFILTERS_BUILD_OPTIONS="-D SOBEL_DIAG=$d" build/release/tools/clfilters bench sobel $F $u \
    --variants "${V#,}" > "$OUT/diag-$d.txt" 2>&1
  echo "== SOBEL_DIAG=$d (rc $?)"
  grep -E '^sobel|mismatch|rror' "$OUT/diag-$d.txt" | sed 's/UNCHECKED//' | tr -s ' ' | cut -d' ' -f4,5,11
done
(cd "$OUT" && tar czf runs.tar.gz --remove-files diag-*.txt)
