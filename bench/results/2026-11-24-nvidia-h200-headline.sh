# H200 closing call of the second 2026-11-23 session (UTC date 2026-11-24): the tests of the changed
# code on the NVIDIA device, the tuned headline and peers (bench/final-gpu.sh headline, with the
# database re-tuned for box blur and Jacobi), then Jacobi tiled2d at the rows shapes (issue 8's
# tiled2d target names that variant, which auto does not pick).
# Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_HEADLINE_TESTS='Box|Jacobi|ContextProfiling|WaitFor' bash bench/final-gpu.sh "$OUT" headline
XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia build/release/tools/clfilters bench reconstruct \
  --sizes 8192x8192 --params iterations=100 --warmup 2 --runs 10 --total-runs 1 --cpu-runs 0 \
  --variants 'tiled2d[local_x=64,local_y=4,rows=1],tiled2d[local_x=128,local_y=2,rows=4],tiled2d[local_x=64,local_y=2,rows=8],tiled2d[local_x=128,local_y=2,rows=8],strip' \
  | tee "$OUT/tiled2d.txt"
