# H200 call of 2026-11-24 (third session): box blur fused_packed (packed 16-bit row window, mul_hi rounding)
# against the tuned fused_prefix at 8k for d = 3, 9, 11, 15 and at 1080p d = 9; fused_prefix's wide shapes
# at d = 63 (its own tuning class from this session); the fused_packed tests on the NVIDIA device first.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
S='--sizes 1920x1080 --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0'
# fused_packed at every items x local_x x strip x prefetch below, then fused_prefix at its tuned shape ($2).
k() {
  local out="" i l s p
  for i in 8 4; do for l in $1; do for s in $2; do for p in 1 2; do
    out="$out,fused_packed[items=$i,local_x=$l,strip=$s,prefetch=$p]"
  done; done; done; done
  echo "${out#,},fused_prefix[$3]"
}
CLF_TAIL=40 CLF_QUICK_TESTS='FusedPacked|fused_packed|Photograph' bench/gpu-quick.sh $OUT "box_blur" \
"bench box-blur $F --params channels=4,diameter=3 --variants '$(k '64 128' '16 32 64' items=4,local_x=64,prefetch=2,strip=16)';\
bench box-blur $F --params channels=4,diameter=9 --variants '$(k '64 128' '16 32 64' items=4,local_x=64,prefetch=2,strip=32)';\
bench box-blur $F --params channels=4,diameter=11 --variants '$(k '64 128' '32' items=4,local_x=64,prefetch=2,strip=32)';\
bench box-blur $F --params channels=4,diameter=15 --variants '$(k '64' '32' items=4,local_x=64,prefetch=2,strip=64)';\
bench box-blur $S --params channels=4,diameter=9 --variants '$(k '32 64' '4 8' items=4,local_x=32,prefetch=4,strip=8)';\
bench box-blur $F --params channels=4,diameter=63 --variants 'fused_prefix[items=4,local_x=64,prefetch=2,strip=64],fused_prefix[items=8,local_x=128,prefetch=1,strip=128],fused_prefix[items=8,local_x=256,prefetch=1,strip=128],fused_prefix[items=8,local_x=256,prefetch=1,strip=256],fused_prefix[items=4,local_x=256,prefetch=2,strip=128],fused_prefix[items=4,local_x=256,prefetch=2,strip=256],fused_prefix[items=4,local_x=128,prefetch=2,strip=256]'"
