# H200 call of 2026-11-24 (seventh session; needs commit 3d25d7d, reverted after it): box blur's fused_packed and
# fused_wide with direct row loads
# (load_strip_row: strips whose rows are all in the image load them with no border index), at the tuned
# shapes and around them, 8192x8192. Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
v() {  # v VARIANT "fixed tunables" "prefetch" "strips"
  local out="" p s
  for s in $4; do for p in $3; do out="$out,$1[$2,strip=$s,prefetch=$p]"; done; done
  echo "${out#,}"
}
W31=$(v fused_wide "items=4,local_x=64,mirror=1,ring=0" "1 2" "128 144 112")
W63=$(v fused_wide "items=8,local_x=64,mirror=1,ring=0" "1 2" "128 144")
W63b=$(v fused_wide "items=4,local_x=64,mirror=1,ring=0" "1" "128")
P3=$(v fused_packed "items=4,local_x=64,mirror=0,ring=1" "4 2" "12 16")
P9=$(v fused_packed "items=4,local_x=64,mirror=1,ring=1" "4 2" "40 48")
P11=$(v fused_packed "items=4,local_x=64,mirror=1,ring=1" "4 2" "64 48")
CLF_QUICK_TESTS='BoxBlur(Fused|Variant|Photograph)' CLF_TAIL=40 bench/gpu-quick.sh $OUT "box_blur" \
"bench box-blur $F --params channels=4,diameter=31 --variants '$W31';\
bench box-blur $F --params channels=4,diameter=63 --variants '$W63,$W63b';\
bench box-blur $F --params channels=4,diameter=3 --variants '$P3';\
bench box-blur $F --params channels=4,diameter=9 --variants '$P9';\
bench box-blur $F --params channels=4,diameter=11 --variants '$P11'"
