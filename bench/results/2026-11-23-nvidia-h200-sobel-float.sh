# H200 call of 2026-11-23: Sobel strip's FP32 magnitude path (mag_float) against the 16-bit lanes, at
# the tuned shapes and a few more; every Sobel test on the NVIDIA device first. Through the device
# tool: bash THIS_FILE (OUT set).
set -u
CLF_TAIL=16 CLF_QUICK_TESTS='Sobel' bench/gpu-quick.sh $OUT "sobel" \
"bench sobel --sizes 8192x8192 --params output=magnitude --cpu-runs 0 --warmup 10 --runs 50 --total-runs 1 --variants 'strip[columns=8,local_x=256,rows=8,mag_float=0],strip[columns=8,local_x=256,rows=8,mag_float=1],strip[columns=16,local_x=128,rows=4,mag_float=0],strip[columns=16,local_x=128,rows=4,mag_float=1],strip[columns=16,local_x=64,rows=8,mag_float=1],strip[columns=8,local_x=128,rows=8,mag_float=1],strip[columns=8,local_x=64,rows=4,mag_float=1],strip[columns=4,local_x=256,rows=8,mag_float=1]'"
