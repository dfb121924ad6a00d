# H200 call of 2026-11-24 (eighth session; needs commit f7f8399, whose pair was removed after it): fused_wide and fused_packed with `pair` (two mirrored strips per
# work-group from one shared start, box_blur.cl's PAIR) against the same shapes without it, at the tuned
# shapes' neighbourhood. First the box blur tests on the NVIDIA device.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_QUICK_TESTS=box_blur CLF_TAIL=3 bench/gpu-quick.sh $OUT "box_blur" ""
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
v() { # variant, fixed tunables, strips
  local list="" s p
  for s in $3; do for p in 0 1; do list="$list,$1[$2,strip=$s,pair=$p]"; done; done
  echo "${list#,}"
}
{
  build/release/tools/clfilters bench box-blur $F --params channels=4,diameter=31 \
    --variants "$(v fused_wide items=4,local_x=64,mirror=1,ring=0,prefetch=1 '64 96 128 160')"
  build/release/tools/clfilters bench box-blur $F --params channels=4,diameter=63 \
    --variants "$(v fused_wide items=8,local_x=64,mirror=1,ring=0,prefetch=1 '64 96 128 160')"
  for d in 3 9 11; do
    build/release/tools/clfilters bench box-blur $F --params channels=4,diameter=$d \
      --variants "fused_packed[items=4,local_x=64,mirror=1,prefetch=4,ring=1,strip=40],$(v fused_packed items=4,local_x=64,mirror=1,ring=0,prefetch=4 '12 24 40 64')"
  done
} > "$OUT/pair.txt" 2>&1
grep '^box-blur' "$OUT/pair.txt" | tr -s ' ' | cut -d' ' -f3,5,6 | tee "$OUT/pair-table.txt"
