# H200 call of 2026-11-23 after the headline: shapes around the three near misses (bilateral RGBA 8k
# against 2x OpenCV, Jacobi wavefront against 3x its one-step floor, the 1080p box blur call).
# Through the device tool: bash THIS_FILE (OUT set).
set -u
u() { local out="" s; for s in "$@"; do out="$out,unrolled[soft_exp=0,$s]"; done; echo "${out#,}"; }
CLF_TAIL=40 bench/gpu-quick.sh $OUT "bilateral;jacobi;box_blur" \
"bench bilateral --sizes 8192x8192 --params channels=4,radius=4,sigma_spatial=3,sigma_range=30 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0 --variants '$(u local_x=16,local_y=16,block_x=4,rows=2 local_x=16,local_y=16,block_x=4,rows=1 local_x=16,local_y=16,block_x=4,rows=4 local_x=8,local_y=16,block_x=4,rows=2 local_x=16,local_y=8,block_x=4,rows=4 local_x=32,local_y=8,block_x=4,rows=1 local_x=8,local_y=32,block_x=4,rows=2 local_x=16,local_y=16,block_x=2,rows=2 local_x=16,local_y=16,block_x=3,rows=2 local_x=16,local_y=16,block_x=6,rows=1 local_x=16,local_y=16,block_x=5,rows=1 local_x=32,local_y=8,block_x=2,rows=2)';\
bench reconstruct --sizes 8192x8192 --params iterations=100 --warmup 2 --runs 10 --total-runs 1 --cpu-runs 0 --variants 'wavefront,wavefront[steps=12,local_x=256,cols=1,rows=0],wavefront[steps=10,local_x=256,cols=1,rows=0],wavefront[steps=9,local_x=256,cols=1,rows=0],wavefront[steps=8,local_x=512,cols=1,rows=0],wavefront[steps=8,local_x=192,cols=1,rows=0],wavefront[steps=7,local_x=256,cols=1,rows=0]';\
bench box-blur --sizes 1920x1080 --params channels=4,diameter=9 --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0 --variants 'fused_prefix[items=4,local_x=64,prefetch=4,strip=8],fused_prefix[items=2,local_x=64,prefetch=2,strip=8],fused_prefix[items=2,local_x=128,prefetch=2,strip=8],fused_prefix[items=4,local_x=128,prefetch=2,strip=8],fused_prefix[items=4,local_x=64,prefetch=2,strip=12],fused_prefix[items=4,local_x=64,prefetch=4,strip=16],fused_prefix[items=4,local_x=96,prefetch=2,strip=8]' --format json --out \$OUT/box1080.json"
python3 -c "
import json; d=json.load(open('$OUT/box1080.json'))
for r in d['rows']: print(r['variant'], 'call', r['call_ms']['median'], 'kernel', r['kernel_ms']['median'])"
