# H200 call of 2026-11-24 (fourth session): fused_packed and fused_prefix with mirrored strips (odd strips
# run upwards) and the leaving-row ring (RING=1), each on and off, over strips and prefetch depths, at the
# diameters of the box blur target; the band tests first, on the NVIDIA device.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
# k VARIANT "FIXED TUNABLES" "STRIPS" "PREFETCHES"
k() {
  local out="" s p m r
  for s in $3; do for p in $4; do for m in 0 1; do for r in 0 1; do
    out="$out,$1[$2,strip=$s,prefetch=$p,mirror=$m,ring=$r]"
  done; done; done; done
  echo "${out#,}"
}
P4='items=4,local_x=64'
CLF_TAIL=90 CLF_QUICK_TESTS='BoxBlurFusedP' bench/gpu-quick.sh $OUT "box_blur" \
"bench box-blur $F --params channels=4,diameter=3 --variants '$(k fused_packed $P4 "8 16 32" 2)';\
bench box-blur $F --params channels=4,diameter=9 --variants '$(k fused_packed $P4 "10 16 32 64" 2)';\
bench box-blur $F --params channels=4,diameter=11 --variants '$(k fused_packed $P4 "10 16 32 64" 2)';\
bench box-blur $F --params channels=4,diameter=15 --variants '$(k fused_packed $P4 "10 16 32 64" 2)';\
bench box-blur $F --params channels=4,diameter=31 --variants '$(k fused_prefix $P4 "16 32 64 128" "2 4")';\
bench box-blur $F --params channels=4,diameter=63 --variants '$(k fused_prefix items=4,local_x=32 "32 64 128" "2 4"),$(k fused_prefix items=8,local_x=64 "64 128 256" 1)'"
