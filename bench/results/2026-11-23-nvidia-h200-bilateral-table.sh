set -u
mkdir -p /tmp/clfilters-gpu-cache/clfilters && cp bench/results/2026-11-23-nvidia-h200-tuning.json /tmp/clfilters-gpu-cache/clfilters/tuning.json
U='unrolled[local_x=16,local_y=16,block_x=4,rows=1,soft_exp=0'
CLF_TAIL=16 CLF_QUICK_TESTS='Unrolled' bench/gpu-quick.sh $OUT "bilateral;box_blur" \
"bench bilateral --sizes 8192x8192 --params channels=1,radius=4,sigma_spatial=3,sigma_range=30 --variants '$U,table_taps=0],$U,table_taps=4],$U,table_taps=5],$U,table_taps=6],$U,table_taps=8],unrolled[local_x=32,local_y=8,block_x=2,rows=2,soft_exp=0,table_taps=0],unrolled[local_x=32,local_y=8,block_x=2,rows=2,soft_exp=0,table_taps=5],unrolled[local_x=16,local_y=8,block_x=4,rows=2,soft_exp=0,table_taps=5],unrolled[local_x=32,local_y=8,block_x=4,rows=1,soft_exp=0,table_taps=6]' --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0;\
bench bilateral --sizes 8192x8192 --params channels=4,radius=4,sigma_spatial=3,sigma_range=30 --variants 'unrolled[local_x=32,local_y=8,block_x=2,rows=4,soft_exp=0],unrolled[local_x=16,local_y=4,block_x=2,rows=2,soft_exp=0]' --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0;\
bench box-blur --sizes 1920x1080 --params channels=4,diameter=9 --variants auto --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0 --call-wait finish --format json --out \$OUT/call-finish.json;\
bench box-blur --sizes 1920x1080 --params channels=4,diameter=9 --variants auto --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0 --call-wait spin --format json --out \$OUT/call-spin.json;\
bench box-blur --sizes 1920x1080 --params channels=4,diameter=9 --variants auto --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0 --call-wait finish --format json --out \$OUT/call-finish2.json"
for f in $OUT/call-*.json; do python3 -c "import json,sys; d=json.load(open('$f')); r=d['rows'][0] if 'rows' in d else d[0]; print('$f', r.get('call_ms'), r.get('kernel_ms'))" 2>&1 | tail -1; done
