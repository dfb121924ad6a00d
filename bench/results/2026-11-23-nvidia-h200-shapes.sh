# Second exploratory H200 call of 2026-11-23: Jacobi tiled2d's wider work-groups, bilateral shapes
# around the best of ...-bilateral-table.md. Run through the device tool: bash THIS_FILE (OUT set).
set -u
mkdir -p /tmp/clfilters-gpu-cache/clfilters
[ -f /tmp/clfilters-gpu-cache/clfilters/tuning.json ] || cp bench/results/2026-11-23-nvidia-h200-tuning.json /tmp/clfilters-gpu-cache/clfilters/tuning.json
G='unrolled[soft_exp=0'
CLF_TAIL=16 CLF_QUICK_TESTS='Jacobi' bench/gpu-quick.sh $OUT "bilateral;jacobi" \
"bench reconstruct --sizes 8192x8192 --params iterations=100 --variants 'tiled2d[local_x=32,local_y=12],tiled2d[local_x=32,local_y=4],tiled2d[local_x=64,local_y=4],tiled2d[local_x=64,local_y=2],tiled2d[local_x=128,local_y=2],tiled2d[local_x=128,local_y=4],strip' --warmup 1 --runs 5 --total-runs 1 --cpu-runs 0 --max-seconds-per-row 2;\
bench bilateral --sizes 8192x8192 --params channels=1,radius=4,sigma_spatial=3,sigma_range=30 --variants '$G,local_x=16,local_y=8,block_x=4,rows=2,table_taps=5],$G,local_x=16,local_y=8,block_x=4,rows=2,table_taps=6],$G,local_x=16,local_y=8,block_x=4,rows=4,table_taps=5],$G,local_x=16,local_y=16,block_x=4,rows=2,table_taps=5],$G,local_x=32,local_y=8,block_x=4,rows=2,table_taps=5],$G,local_x=16,local_y=8,block_x=8,rows=1,table_taps=5],$G,local_x=16,local_y=4,block_x=4,rows=4,table_taps=6],$G,local_x=8,local_y=8,block_x=4,rows=4,table_taps=5]' --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0;\
bench bilateral --sizes 8192x8192 --params channels=4,radius=4,sigma_spatial=3,sigma_range=30 --variants '$G,local_x=32,local_y=8,block_x=2,rows=4],$G,local_x=16,local_y=8,block_x=4,rows=2],$G,local_x=16,local_y=16,block_x=4,rows=1],$G,local_x=32,local_y=4,block_x=4,rows=2],$G,local_x=8,local_y=8,block_x=4,rows=4],$G,local_x=32,local_y=8,block_x=1,rows=4],$G,local_x=64,local_y=4,block_x=2,rows=4]' --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0"
