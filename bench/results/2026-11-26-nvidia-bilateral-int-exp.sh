# Bilateral step 9 (twenty-first session): the RGBA exponent from integers (-D INT_EXP=1 through CLFILTERS_BUILD_OPTIONS,
# bilateral.cl at the commit that adds it): -|p - c|^2 from one dp4a and one IADD3 (ALU pipe) on packed bytes, made a
# float by its exponent bits, then one FFMA with k and s; against the FP32 expanded form's four FFMAs. Same shapes both
# ways (the tuned one, 8x32 rows 2, needs 57.6 KB with INT_EXP's fifth plane, so it runs without it only); every row
# checked against the CPU reference; 8192x8192 RGBA, kernel median of 50.
# Through the device tool: bash bench/results/2026-11-26-nvidia-bilateral-int-exp.sh (OUT set).
set -u
cd "$(dirname "$0")/../.."
[ -f /etc/OpenCL/vendors/nvidia.icd ] ||
  { mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
{ cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)"; } > "$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
export XDG_CACHE_HOME=/tmp/int-exp-cache CLFILTERS_DEVICE=nvidia
nvidia-smi --query-gpu=name --format=csv,noheader
u() { echo "unrolled[block_x=$1,local_x=$2,local_y=$3,rows=$4,soft_exp=0,table_taps=-1]"; }
shapes="$(u 4 8 16 2),$(u 4 8 32 1),$(u 4 16 8 2),$(u 4 8 8 4),$(u 2 16 16 2),$(u 4 16 16 1),$(u 4 8 16 1),$(u 2 8 32 1)"
run() {  # run LABEL OPTIONS VARIANTS
  CLFILTERS_BUILD_OPTIONS="$2" build/release/tools/clfilters bench bilateral --sizes 8192x8192 \
    --params channels=4,radius=4,sigma_range=30,sigma_spatial=3 --variants "$3" --warmup 10 --runs 50 --total-runs 1 \
    --cpu-runs 0 > "$OUT/$1.txt" 2>&1
  grep -E '^bilateral' "$OUT/$1.txt" | awk -v l="$1" '{v=$5; print l, v, $(NF-9), $(NF-5)}' | sed 's/soft_exp=0,table_taps=-1//'
  grep -E 'WRONG|failed|skipped' "$OUT/$1.txt" | cut -c1-250 | head -8
}
run fp32-tuned "" "$(u 4 8 32 2)"
run fp32 "" "$shapes"
run int "-D INT_EXP=1" "$shapes"
run fp32-tuned-again "" "$(u 4 8 32 2)"
