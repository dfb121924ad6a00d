#!/usr/bin/env bash
# Sobel step 10's second call per device (bench/NOTES.md): sobel.cl changed (the Roberts path), so its code
# key did too, and Sobel's classes are re-tuned on this device from the committed database (bench/final-gpu.sh
# tune: 8k for 150 s, 1080p for 60 s; OUT/tuning.json is the result). Then, with that database, the tuned
# `auto` choice of every output at 8k and 1080p, timed as the headline is (median of 50 after 10 warm-ups).
# Usage (device tool): bash bench/results/2026-11-25-nvidia-roberts-tune.sh (OUT set); CLF_TUNING_FILE picks
# the starting database (default: the committed one).
set -uo pipefail
cd "$(dirname "$0")/../.."
CLF_TUNE_FILTERS=sobel CLF_TUNE_8K=150 CLF_TUNE_1080P=60 bench/final-gpu.sh "$OUT" tune || exit 1
export XDG_CACHE_HOME="${CLF_GPU_CACHE:-/tmp/clfilters-gpu-cache}" CLFILTERS_DEVICE=nvidia
for o in magnitude gradients l1; do
  build/release/tools/clfilters bench sobel --sizes 8192x8192,1920x1080 --cpu-runs 0 --params output=$o \
    --variants auto
done > "$OUT/auto.txt" 2>&1
grep -m1 '^Device' "$OUT/auto.txt"
echo "== tuned auto: params, size, variant, kernel median ms, fraction of copy bandwidth"
grep -E '^sobel' "$OUT/auto.txt" | awk '{print $2, $3, $4, $5, $11}'
