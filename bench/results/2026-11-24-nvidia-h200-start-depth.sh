# H200 call of 2026-11-24 (eighth session; needs commit b83ce1c, whose DIAG_* macros were removed after it):
# fused_wide with more of its strip start's row loads in flight (DIAG_START_ROWS=K: K rows loaded before they
# are added; the source's default is 4 at items 4 and 2 at items 8), at 32-, 64- and 128-row strips. If the
# start is a chain of load latencies (every work-group of the one wave starts at once), deeper batches cut it.
# Outputs are right (only the batching changes), so the bench checks them.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_TAIL=3 bench/gpu-quick.sh $OUT "box_blur" "" > /dev/null
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
for shape in "31 items=4 4 8 16" "63 items=8 2 4 8"; do
  set -- $shape
  for s in 128 64 32; do
    for k in $3 $4 $5; do
      CLFILTERS_BUILD_OPTIONS="-D DIAG_START_ROWS=$k -cl-nv-verbose" build/release/tools/clfilters bench box-blur $F \
        --params channels=4,diameter=$1 \
        --variants "fused_wide[$2,local_x=64,mirror=1,ring=0,strip=$s,prefetch=1]" > "$OUT/run.txt" 2>&1
      echo "d=$1 $2 strip=$s start_rows=$k: $(grep '^box-blur' "$OUT/run.txt" | tr -s ' ' | cut -d' ' -f6-9)"
    done
  done
done | tee "$OUT/start-depth.txt"
rm -f "$OUT/run.txt"
# The glob expands in the cache directory (tar -C does not apply to a shell glob).
(cd "$XDG_CACHE_HOME/clfilters" && tar czf "$OUT/ptxas-reports.tar.gz" programs/*.txt)
