# Bilateral step 8 (twenty-first session): what holds the tuned RGBA kernel at ~71% of the SM's issue rate? Diagnostic
# builds of bilateral.cl at commit 5b3be16 (-D options through CLFILTERS_BUILD_OPTIONS; wrong outputs, so --unchecked):
#   DIAG_EXP=1     every weight from one FFMA instead of the SFU's exp2 (the same instruction count, no SFU)
#   DIAG_EXP=2     every other weight so
#   DIAG_NO_LOAD=1 the interior tiles filled from an integer hash: no global loads before the barrier
# Tuned H100/H200 shape, 8192x8192 RGBA, kernel median of 50; the plain build first and last.
# Through the device tool: bash bench/results/2026-11-26-nvidia-bilateral-diag.sh (OUT set).
set -u
cd "$(dirname "$0")/../.."
[ -f /etc/OpenCL/vendors/nvidia.icd ] ||
  { mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
{ cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)"; } > "$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
export XDG_CACHE_HOME=/tmp/diag-cache CLFILTERS_DEVICE=nvidia
nvidia-smi --query-gpu=name --format=csv,noheader
for shape in 'unrolled[block_x=4,local_x=8,local_y=32,rows=2,soft_exp=0,table_taps=-1]' \
             'unrolled[block_x=4,local_x=8,local_y=32,rows=4,soft_exp=0,table_taps=-1]'; do
  echo "$shape"
  for opts in "" "-D DIAG_EXP=1" "-D DIAG_EXP=2" "-D DIAG_NO_LOAD=1" "-D DIAG_EXP=1 -D DIAG_NO_LOAD=1" ""; do
    CLFILTERS_BUILD_OPTIONS="$opts" build/release/tools/clfilters bench bilateral --sizes 8192x8192 \
      --params channels=4,radius=4,sigma_range=30,sigma_spatial=3 --variants "$shape" --unchecked --warmup 10 --runs 50 \
      --total-runs 1 --cpu-runs 0 > "$OUT/b.txt" 2>&1
    printf '  %-32s %s\n' "${opts:-plain}" "$(grep -E '^bilateral' "$OUT/b.txt" | awk '{print "kernel med", $(NF-9), "min", $(NF-8), "p90", $(NF-7)}')$(grep -E 'failed|rror' "$OUT/b.txt" | head -1)"
  done
done
