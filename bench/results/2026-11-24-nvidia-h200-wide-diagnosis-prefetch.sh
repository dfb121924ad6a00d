# H200 call of 2026-11-24 (seventh session; needs commit 3d2c998, whose DIAG_* macros were removed after it):
# fused_wide's bare loop (no strip start, no leaving loads, no row window; see ...-wide-diagnosis.sh) and the
# whole kernel at prefetch 1, 2 and 4, so see whether loads in flight are what the bare loop lacks; with
# `strips` as the first argument, instead the bare loop and the kernel without its strip start at short strips
# (more work-groups), to see whether work-groups in flight are.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_TAIL=3 bench/gpu-quick.sh $OUT "box_blur" "" > /dev/null
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
opt_list=("" "-D DIAG_NO_STARTUP=1 -D DIAG_NO_LEAVING=1 -D DIAG_NO_WINDOW=1"); prefetch="1 2 4"; strips="128 256"
if [ "${1:-}" = strips ]; then
  opt_list=("-D DIAG_NO_STARTUP=1" "-D DIAG_NO_STARTUP=1 -D DIAG_NO_LEAVING=1 -D DIAG_NO_WINDOW=1")
  prefetch=1; strips="128 64 32 16"
fi
for opts in "${opt_list[@]}"; do
  for shape in "31 items=4" "63 items=8"; do
    set -- $shape
    for p in $prefetch; do
      for s in $strips; do
        CLFILTERS_BUILD_OPTIONS="$opts" build/release/tools/clfilters bench box-blur $F \
          --params channels=4,diameter=$1 --unchecked \
          --variants "fused_wide[$2,local_x=64,mirror=1,ring=0,strip=$s,prefetch=$p]" > "$OUT/run.txt" 2>&1
        echo "[${opts:-none}] d=$1 $2 prefetch=$p strip=$s: $(grep '^box-blur' "$OUT/run.txt" | tr -s ' ' | cut -d' ' -f6-9)"
      done
    done
  done
done | tee "$OUT/diagnosis.txt"
rm -f "$OUT/run.txt"
