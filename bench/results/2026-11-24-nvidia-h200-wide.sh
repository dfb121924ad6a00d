# H200 call of 2026-11-24 (fourth session): box blur fused_wide (windows as whole 32-bit words plus their
# high lanes' sum, first windows from published block sums) at d = 31 and 63 over items, local_x, strips
# and prefetch, with mirrored strips, beside the tuned fused_prefix; d = 16 and 15 beside fused_packed.
# The band tests first, on the NVIDIA device.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
# k VARIANT "ITEMS" "LOCAL_X" "STRIPS" "PREFETCHES"
k() {
  local out="" i l s p
  for i in $2; do for l in $3; do for s in $4; do for p in $5; do
    out="$out,$1[items=$i,local_x=$l,strip=$s,prefetch=$p,mirror=1,ring=0]"
  done; done; done; done
  echo "${out#,}"
}
CLF_TAIL=80 CLF_QUICK_TESTS='BoxBlurFused' bench/gpu-quick.sh $OUT "box_blur" \
"bench box-blur $F --params channels=4,diameter=31 --variants '$(k fused_wide "4 8" "64 128" "32 64 128" "1 2"),fused_prefix[items=4,local_x=64,strip=96,prefetch=2,mirror=1,ring=0]';\
bench box-blur $F --params channels=4,diameter=63 --variants '$(k fused_wide "4 8" "64 128" "32 64 128" "1 2"),fused_prefix[items=8,local_x=64,strip=128,prefetch=1,mirror=1,ring=0]';\
bench box-blur $F --params channels=4,diameter=15 --variants '$(k fused_wide "4 8" 64 "32 64" 2),fused_packed[items=4,local_x=64,strip=32,prefetch=2,mirror=1,ring=1]'"
