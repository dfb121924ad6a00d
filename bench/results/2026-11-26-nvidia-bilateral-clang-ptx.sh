# Bilateral step 7's question (twenty-first session): NVIDIA's OpenCL compiler gives bilateral_unrolled's tuned RGBA
# build 128 registers (step 5), where clang 15's PTX of the same source, assembled by ptxas for sm_90, needs 64 and
# spills nothing (bench/sass.py). Is the driver's code what holds the kernel at ~65% of its issue rate?
# The clang PTX (.clang-ptx/bilateral_unrolled_rgba.ptx, carried; not in the repo) was made here with sass.py's
# ptx_from_cl for the tuned build's options (-D CHANNELS=4 -D RADIUS=4 -D LOCAL_X=8 -D LOCAL_Y=32 -D BLOCK_X=4
# -D ROWS=2 -D SOFT_EXP=0 -D CLAMP_EXP=0 -D EXPANDED=1 -D TABLE_TAPS=0 -D NV_PTX_FTZ=1), keeping only the
# bilateral_unrolled entry, its two pointer parameters declared `.param .u64 .ptr .global .align 4` and its target
# `sm_80, texmode_independent` as NVIDIA's own PTX has them (without those the kernel failed at launch, -9999).
# NVIDIA's runtime takes PTX as a program binary, so the script swaps it into clfilters'
# program cache for that build and times both, A/B/A/B; the bench checks every output against the CPU reference
# first. Through the device tool: bash bench/results/2026-11-26-nvidia-bilateral-clang-ptx.sh (OUT set).
set -u
cd "$(dirname "$0")/../.."
[ -f /etc/OpenCL/vendors/nvidia.icd ] ||
  { mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
{ cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)"; } > "$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
export XDG_CACHE_HOME=/tmp/clang-ptx-cache CLFILTERS_DEVICE=nvidia
rm -rf $XDG_CACHE_HOME
shape='unrolled[block_x=4,local_x=8,local_y=32,rows=2,soft_exp=0,table_taps=-1]'
bench() {  # bench LABEL: one row, kernel median of 50
  build/release/tools/clfilters bench bilateral --sizes 8192x8192 --params channels=4,radius=4,sigma_range=30,sigma_spatial=3 \
    --variants "$shape" --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0 > "$OUT/bench-$1.txt" 2>&1
  echo "$1: $(grep -E '^bilateral' "$OUT/bench-$1.txt" | awk '{print "kernel med", $(NF-9), "min", $(NF-8), "p90", $(NF-7), $(NF-5), "Gpix/s"}') $(grep -E 'WRONG|rror' "$OUT/bench-$1.txt" | head -2)"
}
bench driver-1
progs=$XDG_CACHE_HOME/clfilters/programs
txt=$(grep -l "bilateral.cl.*CHANNELS=4.*LOCAL_Y=32" $progs/*.txt | head -1)
bin=${txt%.txt}.bin
echo "program: $(head -1 "$txt" | cut -c1-200)"
cp "$bin" "$OUT/driver.ptx"
use() { cp "$1" "$bin"; }
for round in 1 2; do
  use .clang-ptx/bilateral_unrolled_rgba.ptx; bench clang-$round
  cmp -s "$bin" .clang-ptx/bilateral_unrolled_rgba.ptx && echo "  (clang PTX loaded from the cache)" || echo "  (cache rebuilt from source: clang PTX refused)"
  use "$OUT/driver.ptx"; bench driver-$((round + 1))
done
