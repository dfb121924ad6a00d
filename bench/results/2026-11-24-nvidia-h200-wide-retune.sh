# H200 call of 2026-11-24 (eighth session; results in ...-wave-fit.md): re-tune box blur's d<=64 class at 8k alone (`tune --params`), now
# that fused_wide's strips include 120, from the committed database; then the tuned `auto` at d = 63 and 31
# with the result. OUT/tuning.json becomes bench/results/2026-11-23-nvidia-h200-tuning.json.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
mkdir -p "$XDG_CACHE_HOME/clfilters"
cp bench/results/2026-11-23-nvidia-h200-tuning.json "$XDG_CACHE_HOME/clfilters/tuning.json"
CLF_QUICK_TESTS=BoxBlur CLF_TAIL=3 bench/gpu-quick.sh $OUT "box_blur" ""
cli=build/release/tools/clfilters
$cli tune box-blur --size 8192x8192 --params channels=4,diameter=63 --budget 200 > "$OUT/tune.log" 2>&1
tail -2 "$OUT/tune.log"
cp "$XDG_CACHE_HOME/clfilters/tuning.json" "$OUT/tuning.json"
for d in 63 31; do
  $cli bench box-blur --sizes 8192x8192 --params channels=4,diameter=$d --variants auto --cpu-runs 0 --total-runs 1
done > "$OUT/auto.txt" 2>&1
grep -E '^(Device|box-blur)' "$OUT/auto.txt" | tr -s ' ' | cut -d' ' -f1-12
