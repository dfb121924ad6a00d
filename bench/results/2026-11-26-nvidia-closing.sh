# Every issue-8 target measured at one commit in one device-tool call per device (twenty-first session,
# 2026-11-26), and checked by bench/targets.py:
#   bash bench/results/2026-11-26-nvidia-closing.sh     (through the device tool, OUT set; ~8 minutes)
# Build; the tuned choice of every filter at 8k and 1080p (bench-auto's command), epsilon at 3264x2448, Jacobi
# tiled2d at its tuned shape (128x2, 4 rows: bench/NOTES.md, Jacobi), bench/peers.py, all with the committed
# tuning database (H200 and H100 entries) and the SM clock sampled meanwhile; then bench/targets.py's table;
# last, the tests on the NVIDIA device in whatever time is left of CLOSING_LIMIT s (560 unless set; results first, so a
# cut-off keeps them).
set -u
# At most 8 files come back from OUT: everything goes to $W, packed into OUT/closing.tar.gz at the end.
W=/tmp/closing; rm -rf $W; mkdir -p $W
cd "$(dirname "$0")/../.."
t0=$(date +%s)
[ -f /etc/OpenCL/vendors/nvidia.icd ] ||
  { mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee "$W/gpu.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 250 \
  > "$W/clocks.csv" 2>&1 &
smi=$!
{ cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)"; } > "$W/build.log" 2>&1 ||
  { tail -30 "$W/build.log"; kill $smi; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
mkdir -p $XDG_CACHE_HOME/clfilters
cp bench/results/2026-11-24-nvidia-tuning.json $XDG_CACHE_HOME/clfilters/tuning.json
cli=build/release/tools/clfilters
bench() {  # bench NAME ARGS...: a JSON and a text table in OUT
  local name=$1; shift
  $cli bench "$@" --warmup 10 --runs 50 --cpu-runs 0 --format json --out "$W/$name.json" > "$W/$name.txt" 2>&1 ||
    echo "bench $name failed: $(tail -1 "$W/$name.txt")"
}
bench auto --sizes 8192x8192,1920x1080 --variants auto --total-runs 2
bench epsilon-3264 epsilon --sizes 3264x2448 --params channels=1,radius=4,threshold=20 --variants auto --total-runs 1
bench tiled2d reconstruct --sizes 8192x8192 --params iterations=100 --variants 'tiled2d[local_x=128,local_y=2,rows=4]' \
  --total-runs 1
echo "bench: $(( $(date +%s) - t0 )) s"
python3 bench/peers.py --cli $cli --sizes 1920x1080,8192x8192 --out "$W/peers" > "$W/peers.log" 2>&1 ||
  tail -5 "$W/peers.log"
kill $smi
echo "peers: $(( $(date +%s) - t0 )) s"
awk -F', ' 'NR > 1 && $2 + 0 > 0 { n++; s += $2; if ($2 + 0 > m) m = $2 + 0 } END { printf "SM clock: mean %.0f MHz, max %d (%d samples)\n", s / n, m, n }' "$W/clocks.csv"
left=$(( ${CLOSING_LIMIT:-560} - ($(date +%s) - t0) ))  # CLOSING_LIMIT=0: no tests
if [ $left -gt 30 ]; then
  timeout $left ctest --preset release -j 8 --timeout 300 > "$W/ctest-nvidia.log" 2>&1
  echo "tests on nvidia (rc $?, ${left} s allowed): $(grep -E 'tests passed|tests failed' "$W/ctest-nvidia.log" | tail -1)"
  grep -E '\(Failed\)|Timeout' "$W/ctest-nvidia.log" | head
fi
python3 bench/targets.py "$W/auto.json" "$W/epsilon-3264.json" "$W/tiled2d.json" --peers "$W/peers.json" \
  --out "$W/targets.md"
cp "$W/targets.md" "$W/peers.md" "$W/auto.txt" "$OUT/" 2>/dev/null
tar czf "$OUT/closing.tar.gz" -C /tmp closing
