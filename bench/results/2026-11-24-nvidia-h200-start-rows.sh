# H200 call of 2026-11-24 (eighth session; needs commit 3f5c4c2, whose DIAG_* macros were removed after it):
# what a strip start of X rows instead of d costs fused_wide at short strips (DIAG_START_MAX=X loads and adds
# only the first X rows of the start), with and without the leaving-row loads (DIAG_NO_LEAVING). A 2D
# work-group whose row lanes run consecutive sub-strips and share one start would have each lane load about
# S + (d - S) / R rows before its first output (S rows a sub-strip, R lanes): this tells what that is worth
# before it is built. Outputs are wrong, so timed with --unchecked.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_TAIL=3 bench/gpu-quick.sh $OUT "box_blur" "" > /dev/null
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
for shape in "31 items=4" "63 items=8"; do
  set -- $shape
  for s in 16 32 64; do
    for opts in "" "-D DIAG_START_MAX=8" "-D DIAG_START_MAX=16" "-D DIAG_START_MAX=24" \
                "-D DIAG_START_MAX=8 -D DIAG_NO_LEAVING=1" "-D DIAG_START_MAX=16 -D DIAG_NO_LEAVING=1" \
                "-D DIAG_START_MAX=0 -D DIAG_NO_LEAVING=1"; do
      CLFILTERS_BUILD_OPTIONS="$opts" build/release/tools/clfilters bench box-blur $F \
        --params channels=4,diameter=$1 --unchecked \
        --variants "fused_wide[$2,local_x=64,mirror=1,ring=0,strip=$s,prefetch=1]" > "$OUT/run.txt" 2>&1
      echo "d=$1 $2 strip=$s [${opts:-whole}]: $(grep '^box-blur' "$OUT/run.txt" | tr -s ' ' | cut -d' ' -f6-9)"
    done
  done
done | tee "$OUT/start-rows.txt"
rm -f "$OUT/run.txt"
