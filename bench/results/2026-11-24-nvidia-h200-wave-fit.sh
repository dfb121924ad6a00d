# H200 call of 2026-11-24 (eighth session): fused_wide strips chosen so that the launch just fits one wave,
# from ptxas' register counts (...-wide-registers.md): d=63 items 8 (84 registers: 11 work-groups of 64 per
# SM, 1452 in all; 19 column groups, so up to 76 strips: 108 rows and up); d=31 items 4 at local_x 96 and 128;
# prefetch 2 with strips long enough to fit (72 / 128 registers).
# Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_TAIL=3 bench/gpu-quick.sh $OUT "box_blur" "" > /dev/null
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
w() { # fixed tunables, strips
  local list="" s
  for s in $2; do list="$list,fused_wide[$1,strip=$s]"; done
  echo "${list#,}"
}
{
  build/release/tools/clfilters bench box-blur $F --params channels=4,diameter=63 --variants \
    "$(w items=8,local_x=64,mirror=1,ring=0,prefetch=1 '128 120 112 108 104 100'),$(w items=8,local_x=64,mirror=1,ring=0,prefetch=2 '150 160')"
  build/release/tools/clfilters bench box-blur $F --params channels=4,diameter=31 --variants \
    "$(w items=4,local_x=64,mirror=1,ring=0,prefetch=1 '128 124'),$(w items=4,local_x=128,mirror=1,ring=0,prefetch=1 '125 128'),$(w items=4,local_x=96,mirror=1,ring=0,prefetch=1 '125 128'),$(w items=4,local_x=64,mirror=1,ring=0,prefetch=2 '168 176')"
} > "$OUT/wave-fit.txt" 2>&1
grep '^box-blur' "$OUT/wave-fit.txt" | tr -s ' ' | cut -d' ' -f3,5,6 | tee "$OUT/wave-fit-table.txt"
