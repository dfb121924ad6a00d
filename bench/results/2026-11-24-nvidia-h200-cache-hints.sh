# H200 call of 2026-11-24 (seventh session; needs commit 146531e, reverted after it): box blur with L2 eviction hints (`cache_hints`, box_blur.cl's
# CACHE_HINTS) against none, at the tuned shapes and with longer strips (fewer strips in flight, so a row
# stays in L2 until it leaves the window), 8192x8192.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
v() {  # v VARIANT "fixed tunables" "hints" "prefetch" "strips"
  local out="" c p s
  for s in $5; do for p in $4; do for c in $3; do
    out="$out,$1[$2,strip=$s,prefetch=$p,cache_hints=$c]"
  done; done; done
  echo "${out#,}"
}
W31=$(v fused_wide "items=4,local_x=64,mirror=1,ring=0" "0 1 3 7" "1 2" "128 256")
W31b=$(v fused_wide "items=4,local_x=64,mirror=1,ring=0" "3 7" "1 2" "192 384")
W31c=$(v fused_wide "items=4,local_x=128,mirror=1,ring=0" "0 7" "1 2" "256")
W63=$(v fused_wide "items=8,local_x=64,mirror=1,ring=0" "0 1 3 7" "1 2" "128 256")
W63b=$(v fused_wide "items=8,local_x=64,mirror=1,ring=0" "0 7" "1 2 4" "512")
P3=$(v fused_packed "items=4,local_x=64,mirror=0,ring=1" "0 1 7" "4" "12")
P9=$(v fused_packed "items=4,local_x=64,mirror=1,ring=1" "0 1 7" "4" "40")
P11=$(v fused_packed "items=4,local_x=64,mirror=1,ring=1" "0 1 7" "4" "64")
CLF_QUICK_TESTS='BoxBlurFused(Packed|Wide)' CLF_TAIL=80 bench/gpu-quick.sh $OUT "box_blur" \
"bench box-blur $F --params channels=4,diameter=31 --variants '$W31,$W31b,$W31c';\
bench box-blur $F --params channels=4,diameter=63 --variants '$W63,$W63b';\
bench box-blur $F --params channels=4,diameter=3 --variants '$P3';\
bench box-blur $F --params channels=4,diameter=9 --variants '$P9';\
bench box-blur $F --params channels=4,diameter=11 --variants '$P11'"
