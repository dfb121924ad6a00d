# Bilateral step 9, kept (twenty-first session): int_exp is a tunable of `unrolled`, and bilateral.cl's code key moved,
# so the bilateral classes are re-tuned on each device, starting from the committed database (whose bilateral entries
# the tuner tries first as an earlier source's winners). One device-tool call per device:
#   bash bench/results/2026-11-26-nvidia-bilateral-int-exp-tune.sh    (OUT set)
# Build; bilateral's tests on the NVIDIA device; tune bilateral at 8k (200 s) and 1080p (60 s); OUT/tuning.json is the
# database after it (it becomes bench/results/2026-11-24-nvidia-tuning.json); then the tuned choice at both sizes
# (bench-auto's command, bilateral only) and bench/peers.py for bilateral.
set -u
cd "$(dirname "$0")/../.."
t0=$(date +%s)
[ -f /etc/OpenCL/vendors/nvidia.icd ] ||
  { mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)"; } > /tmp/build.log 2>&1 ||
  { tail -30 /tmp/build.log; exit 1; }
export XDG_CACHE_HOME=/tmp/int-exp-tune CLFILTERS_DEVICE=nvidia
rm -rf $XDG_CACHE_HOME && mkdir -p $XDG_CACHE_HOME/clfilters
cp bench/results/2026-11-24-nvidia-tuning.json $XDG_CACHE_HOME/clfilters/tuning.json
timeout 150 ctest --preset release -j 8 --timeout 140 -R "Bilateral|Unrolled" > "$OUT/ctest.log" 2>&1
echo "bilateral tests on nvidia (rc $?): $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
grep -E '\(Failed\)|Timeout' "$OUT/ctest.log" | head
cli=build/release/tools/clfilters
$cli tune bilateral --size 8192x8192 --budget 200 > "$OUT/tune.log" 2>&1
$cli tune bilateral --size 1920x1080 --budget 60 >> "$OUT/tune.log" 2>&1
cp $XDG_CACHE_HOME/clfilters/tuning.json "$OUT/tuning.json"
grep -E "best|->|fastest" "$OUT/tune.log" | cut -c1-220 | tail -8
echo "tuned: $(( $(date +%s) - t0 )) s"
$cli bench bilateral --sizes 8192x8192,1920x1080 --variants auto --warmup 10 --runs 50 --total-runs 2 --cpu-runs 0 \
  > "$OUT/auto.txt" 2>&1
grep -E '^bilateral' "$OUT/auto.txt" | cut -c1-200
python3 bench/peers.py --cli $cli --filters bilateral --sizes 1920x1080,8192x8192 --out /tmp/peers > /tmp/peers.log 2>&1
cp /tmp/peers.md "$OUT/peers.md"; cp /tmp/peers.json "$OUT/peers.json"
grep -E '^\| bilateral' /tmp/peers.md | cut -c1-220
echo "done: $(( $(date +%s) - t0 )) s"
