# H200 call of 2026-11-24 (fourth session), after ...-ring-mirror.sh: mirrored strips with the ring at d = 9
# and 11 (fused_packed) over items, local_x, longer strips and prefetch depths; fused_prefix's mirrored
# strips at d = 31 and 63 over strips between the listed ones.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
# k VARIANT "ITEMS" "LOCAL_X" "STRIPS" "PREFETCHES" "FIXED"
k() {
  local out="" i l s p
  for i in $2; do for l in $3; do for s in $4; do for p in $5; do
    out="$out,$1[items=$i,local_x=$l,strip=$s,prefetch=$p,$6]"
  done; done; done; done
  echo "${out#,}"
}
CLF_TAIL=100 bench/gpu-quick.sh $OUT "box_blur" \
"bench box-blur $F --params channels=4,diameter=11 --variants '$(k fused_packed "4 8" "64 128" "24 32 48" "1 2 4" mirror=1,ring=1),$(k fused_packed 4 96 "32 40" "2 4" mirror=1,ring=1)';\
bench box-blur $F --params channels=4,diameter=9 --variants '$(k fused_packed 4 "64 128" "24 32 40 48" "2 4" mirror=1,ring=1)';\
bench box-blur $F --params channels=4,diameter=31 --variants '$(k fused_prefix "4 8" "64 128" "48 64 96" "1 2" mirror=1,ring=0)';\
bench box-blur $F --params channels=4,diameter=63 --variants '$(k fused_prefix 8 "64 128" "96 128 160 192" "1 2" mirror=1,ring=0)'"
