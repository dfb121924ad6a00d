# H200 call of 2026-11-23 (second session): fused_tile shapes at 1080p and 8k against fused_prefix,
# tiled2d with rows per work-item, and the driver's own call cost (bench/launch_cost.cpp).
# Through the device tool: bash THIS_FILE (OUT set).
set -u
g++ -std=c++20 -O2 bench/launch_cost.cpp -lOpenCL -o /tmp/launch_cost 2>/dev/null
ft() { local out="" s; for s in "$@"; do out="$out,fused_tile[$s]"; done; echo "${out#,}"; }
tiles=$(ft local_x=32,local_y=4,items=4,rows=4 local_x=32,local_y=8,items=4,rows=2 local_x=32,local_y=4,items=4,rows=8 \
  local_x=64,local_y=2,items=4,rows=4 local_x=16,local_y=8,items=4,rows=4 local_x=32,local_y=4,items=2,rows=4 \
  local_x=32,local_y=4,items=8,rows=2 local_x=64,local_y=4,items=4,rows=2 local_x=32,local_y=2,items=4,rows=8 \
  local_x=32,local_y=8,items=4,rows=4 local_x=64,local_y=1,items=4,rows=8)
ref1080='fused_prefix[items=4,local_x=64,prefetch=4,strip=8]'
t2() { local out="" s; for s in "$@"; do out="$out,tiled2d[$s]"; done; echo "${out#,}"; }
tiled=$(t2 local_x=64,local_y=4,rows=1 local_x=64,local_y=4,rows=2 local_x=64,local_y=4,rows=4 local_x=64,local_y=4,rows=8 \
  local_x=32,local_y=8,rows=4 local_x=128,local_y=2,rows=4 local_x=16,local_y=16,rows=2 local_x=32,local_y=4,rows=8 \
  local_x=128,local_y=2,rows=8 local_x=64,local_y=2,rows=8)
CLF_TAIL=30 CLF_QUICK_TESTS='BoxBlurFusedTile|BoxBlurFusedTunables|BoxBlurPhotograph|BoxBlurVariant.*fused_tile|Jacobi' \
bench/gpu-quick.sh $OUT "box_blur;jacobi" \
"bench box-blur --sizes 1920x1080 --params channels=4,diameter=9 --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0 --variants '$ref1080,$tiles' --format json --out \$OUT/box1080.json;\
bench box-blur --sizes 1920x1080 --params channels=4,diameter=3 --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0 --variants 'fused_prefix[items=4,local_x=32,prefetch=1,strip=4],$tiles';\
bench box-blur --sizes 1920x1080 --params channels=4,diameter=31 --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0 --variants 'fused_prefix[items=4,local_x=64,prefetch=2,strip=8],$tiles';\
bench box-blur --sizes 8192x8192 --params channels=4,diameter=9 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0 --variants 'fused_prefix[items=4,local_x=64,prefetch=2,strip=16],$tiles';\
bench reconstruct --sizes 8192x8192 --params iterations=100 --warmup 2 --runs 10 --total-runs 1 --cpu-runs 0 --variants '$tiled'"
python3 -c "
import json; d=json.load(open('$OUT/box1080.json'))
for r in d['rows']: print(r['variant'], 'call', r['call_ms']['median'], 'kernel', r['kernel_ms']['median'])"
/tmp/launch_cost NVIDIA
