# H200 call of 2026-11-24 (fifth session): box blur with `rows_per_barrier` steps publishing their column
# sums before one barrier, against one per barrier, at the tuned shapes and around them, 8192x8192.
# It needs commit 2e164f9: the tunable it sweeps was reverted after this call (see the .md).
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
v() {  # v VARIANT "fixed tunables" "prefetch:rpb ..." "strips"
  local out="" pr s
  for s in $4; do for pr in $3; do
    out="$out,$1[$2,strip=$s,prefetch=${pr%:*},rows_per_barrier=${pr#*:}]"
  done; done
  echo "${out#,}"
}
W31=$(v fused_wide "items=4,local_x=64,mirror=1,ring=0" "1:1 2:1 2:2 4:2 4:4" "64 128 192")
W63=$(v fused_wide "items=8,local_x=64,mirror=1,ring=0" "1:1 2:1 2:2 4:4" "64 128 192")
W63b=$(v fused_wide "items=4,local_x=64,mirror=1,ring=0" "1:1 2:2 4:4" "128")
P3=$(v fused_packed "items=4,local_x=64,mirror=0,ring=1" "4:1 4:2 4:4" "12 24")
P9=$(v fused_packed "items=4,local_x=64,mirror=1,ring=1" "4:1 4:2 4:4 2:2" "40 64")
P11=$(v fused_packed "items=4,local_x=64,mirror=1,ring=1" "4:1 4:2 4:4" "64")
CLF_QUICK_TESTS='BoxBlurFused(Packed|Wide)' CLF_TAIL=80 bench/gpu-quick.sh $OUT "box_blur" \
"bench box-blur $F --params channels=4,diameter=31 --variants '$W31';\
bench box-blur $F --params channels=4,diameter=63 --variants '$W63,$W63b';\
bench box-blur $F --params channels=4,diameter=3 --variants '$P3';\
bench box-blur $F --params channels=4,diameter=9 --variants '$P9';\
bench box-blur $F --params channels=4,diameter=11 --variants '$P11'"
