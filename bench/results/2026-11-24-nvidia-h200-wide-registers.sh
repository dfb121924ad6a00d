# H200 call of 2026-11-24 (eighth session; results in ...-wave-fit.md): ptxas' register counts for fused_wide's tuned 8k shapes and the
# deeper start batches of ...-start-rows.md call 2 (rebuilt here with -cl-nv-verbose), to check the
# one-wave arithmetic of bench/NOTES.md box blur steps 18-19: resident work-groups per SM from registers
# against the work-groups a launch has.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_TAIL=3 bench/gpu-quick.sh $OUT "box_blur" "" > /dev/null
F='--sizes 8192x8192 --warmup 2 --runs 5 --total-runs 1 --cpu-runs 0'
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
for shape in "31 items=4" "63 items=8"; do
  set -- $shape
  for s in 128 64; do
    CLFILTERS_BUILD_OPTIONS="-cl-nv-verbose" build/release/tools/clfilters bench box-blur $F \
      --params channels=4,diameter=$1 \
      --variants "fused_wide[$2,local_x=64,mirror=1,ring=0,strip=$s,prefetch=1],fused_wide[$2,local_x=64,mirror=1,ring=0,strip=$s,prefetch=2]" \
      | grep '^box-blur' | tr -s ' ' | cut -d' ' -f3,5,6
  done
done | tee "$OUT/times.txt"
cd "$XDG_CACHE_HOME/clfilters/programs" && for f in *.txt; do
  grep -q cl-nv-verbose "$f" || continue
  echo "== $(head -1 "$f" | grep -oE ' -D (ITEMS|DIAMETER|PREFETCH)=[0-9]+' | tr -d '\n')"
  grep -E "box_fused_wide|Used [0-9]+ registers" "$f" | head -4
done | tee "$OUT/registers.txt"
