# The H200's SM clock under the kernels whose "share of the issue rate" bench/NOTES.md computes at the
# 1980 MHz maximum (tenth session; the H100's was sampled in 2026-11-24-nvidia-h100-closing.sh headline).
# nvidia-smi is sampled every ~0.2 s while each tuned kernel runs alone for a few seconds; the mean clock of
# the samples inside each bench's time window is printed last.
# Through the device tool on nvidia-h200: bash THIS_FILE (OUT set).
set -u
cd "$(dirname "$0")/../.."
bench/gpu-quick.sh "$OUT" "box_blur;sobel;bilateral" "" || exit 1
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
mkdir -p $XDG_CACHE_HOME/clfilters && cp bench/results/2026-11-24-nvidia-tuning.json $XDG_CACHE_HOME/clfilters/tuning.json
while :; do
  echo "$(date +%s.%N) $(nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader,nounits)"
  sleep 0.2
done > "$OUT/clocks.txt" 2>&1 &
smi=$!
: > "$OUT/windows.txt"
window() {  # window NAME RUNS ARGS...: one bench, its time window recorded
  local name=$1 runs=$2; shift 2
  local t0=$(date +%s.%N)
  build/release/tools/clfilters bench "$@" --sizes 8192x8192 --variants auto --warmup 20 --runs "$runs" \
    --total-runs 1 --cpu-runs 0 2>&1 | tail -1 | tr -s ' ' | cut -d' ' -f1-9
  echo "$name $t0 $(date +%s.%N)" >> "$OUT/windows.txt"
}
window bilateral-rgba 2500 bilateral --params sigma_spatial=3,sigma_range=30,radius=4,channels=4
window bilateral-grey 4000 bilateral --params sigma_spatial=3,sigma_range=30,radius=4,channels=1
window box-d31 20000 box-blur --params channels=4,diameter=31
window box-d3 20000 box-blur --params channels=4,diameter=3
window sobel-magnitude 60000 sobel --params output=magnitude
sleep 0.5
kill $smi
# The window's samples skip its first 30% (build, check, warm-up); the rest are the timed runs.
while read -r name t0 t1; do
  awk -v n="$name" -v a="$t0" -v b="$t1" '{ t = $1; c = $2 + 0; p = $3 + 0 }
    t > a + 0.3 * (b - a) && t < b && c > 0 { k++; s += c; ps += p; if (c < m || m == 0) m = c }
    END { printf "%-16s SM clock mean %4.0f MHz, min %4d, power mean %3.0f W (%d samples)\n", n, s / k, m, ps / k, k }' \
    "$OUT/clocks.txt"
done < "$OUT/windows.txt"
