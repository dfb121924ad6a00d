# H200 call of 2026-11-23: box blur fused_prefix's prefetch depth (1 = the previous schedule) at 8k for
# d = 3, 9, 31, 63 and at 1080p d = 9; every box blur test on the NVIDIA device first.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
S='--sizes 1920x1080 --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0'
p() { local out="" s; for s in "$@"; do out="$out,fused_prefix[items=4,$s]"; done; echo "${out#,}"; }
CLF_TAIL=14 CLF_QUICK_TESTS='Box' bench/gpu-quick.sh $OUT "box_blur" \
"bench box-blur $F --params channels=4,diameter=3 --variants '$(p local_x=64,strip=8,prefetch=1 local_x=64,strip=8,prefetch=2 local_x=64,strip=8,prefetch=4 local_x=64,strip=32,prefetch=2 local_x=64,strip=32,prefetch=4 local_x=128,strip=16,prefetch=2)';\
bench box-blur $F --params channels=4,diameter=9 --variants '$(p local_x=64,strip=16,prefetch=1 local_x=64,strip=16,prefetch=2 local_x=64,strip=16,prefetch=4 local_x=64,strip=32,prefetch=2 local_x=64,strip=32,prefetch=4 local_x=128,strip=32,prefetch=2)';\
bench box-blur $F --params channels=4,diameter=31 --variants '$(p local_x=128,strip=64,prefetch=1 local_x=128,strip=64,prefetch=2 local_x=128,strip=64,prefetch=4 local_x=64,strip=64,prefetch=2 local_x=64,strip=64,prefetch=4)';\
bench box-blur $F --params channels=4,diameter=63 --variants '$(p local_x=128,strip=64,prefetch=1 local_x=128,strip=64,prefetch=2 local_x=128,strip=64,prefetch=4 local_x=128,strip=128,prefetch=2 local_x=128,strip=128,prefetch=4 local_x=256,strip=128,prefetch=2)';\
bench box-blur $S --params channels=4,diameter=9 --variants '$(p local_x=32,strip=8,prefetch=1 local_x=32,strip=8,prefetch=2 local_x=32,strip=8,prefetch=4 local_x=32,strip=4,prefetch=2 local_x=64,strip=4,prefetch=2 local_x=32,strip=4,prefetch=4 local_x=64,strip=8,prefetch=4),fused_blocks'"
