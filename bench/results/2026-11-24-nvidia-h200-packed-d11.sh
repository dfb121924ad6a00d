# H200 call of 2026-11-24 (third session, after the closing run): fused_packed at d = 11 and 15 over
# strips 8..16 and local_x 64, 96, 128 (items=4, prefetch 2 and 4), to see what d=11's own tuning class
# would reach; the d<=11 class is tuned at d = 9.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
k() {
  local out="" l s p
  for l in 64 96 128; do for s in 8 10 12 14 16; do for p in 2 4; do
    out="$out,fused_packed[items=4,local_x=$l,strip=$s,prefetch=$p]"
  done; done; done
  echo "${out#,}"
}
CLF_TAIL=32 bench/gpu-quick.sh $OUT "box_blur" \
"bench box-blur $F --params channels=4,diameter=11 --variants '$(k)';\
bench box-blur $F --params channels=4,diameter=15 --variants '$(k)'"
