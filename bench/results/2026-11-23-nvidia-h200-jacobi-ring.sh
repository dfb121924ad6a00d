# H200 call of 2026-11-23: Jacobi wavefront with the edge ring, every Jacobi test on the NVIDIA device
# first. Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_TAIL=16 CLF_QUICK_TESTS='Jacobi' bench/gpu-quick.sh $OUT "jacobi" \
"bench reconstruct --sizes 8192x8192 --params iterations=100 --variants 'strip,wavefront,wavefront[steps=8,local_x=256,cols=1,rows=96],wavefront[steps=12,local_x=256,cols=1,rows=0],wavefront[steps=16,local_x=256,cols=1,rows=0],wavefront[steps=8,local_x=128,cols=1,rows=0],wavefront[steps=8,local_x=256,cols=1,rows=192]' --warmup 2 --runs 10 --total-runs 1 --cpu-runs 0 --max-seconds-per-row 3"
