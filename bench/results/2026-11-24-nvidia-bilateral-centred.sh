#!/usr/bin/env bash
# Bilateral step 6 (bench/NOTES.md): the RGBA exponent without the centre's q (its factor cancels in the
# normalised sum), colours centred at 128 so that the weights stay small. Two phases, each one device-tool call:
#   bench/results/2026-11-24-nvidia-bilateral-centred.sh OUT measure   the bilateral tests on the NVIDIA device,
#       the 8k RGBA case at the tuned shapes of both devices and their neighbours, then bilateral re-tuned at 8k
#       and 1080p (its source changed, so the committed entries no longer apply), starting from the committed
#       database; OUT/tuning.json is the result
#   bench/results/2026-11-24-nvidia-bilateral-centred.sh OUT headline  a re-tune (CLF_RETUNE: CLI commands), then
#       bilateral's tuned choice (bench-auto) and the peers for bilateral, with CLF_TUNING_FILE (default: the
#       committed database); OUT/tuning.json is the database after the re-tune
set -uo pipefail
out="${1:?usage: OUT measure|headline}"; phase="${2:?usage: OUT measure|headline}"
cd "$(dirname "$0")/../.."
db="${CLF_TUNING_FILE:-bench/results/2026-11-24-nvidia-tuning.json}"
export CLF_GPU_CACHE=/tmp/clfilters-gpu-cache
mkdir -p "$CLF_GPU_CACHE/clfilters" && cp "$db" "$CLF_GPU_CACHE/clfilters/tuning.json"
params="sigma_spatial=3,sigma_range=30,radius=4,border=replicate"
case "$phase" in
  measure)
    v="unrolled[block_x=4,local_x=8,local_y=32,rows=2,soft_exp=0,table_taps=-1]"
    v="$v,unrolled[block_x=4,local_x=16,local_y=16,rows=2,soft_exp=0,table_taps=-1]"
    v="$v,unrolled[block_x=4,local_x=8,local_y=32,rows=1,soft_exp=0,table_taps=-1]"
    v="$v,unrolled[block_x=4,local_x=8,local_y=16,rows=4,soft_exp=0,table_taps=-1]"
    v="$v,unrolled[block_x=4,local_x=8,local_y=32,rows=2,soft_exp=2,table_taps=-1]"
    v="$v,unrolled[block_x=2,local_x=16,local_y=16,rows=2,soft_exp=0,table_taps=-1]"
    CLF_QUICK_TESTS="Bilateral|Unrolled" CLF_TAIL=${CLF_TAIL:-4} bench/gpu-quick.sh "$out" bilateral \
      "bench bilateral --sizes 8192x8192 --cpu-runs 0 --runs 30 --warmup 5 --params channels=4,$params --variants '$v';tune bilateral --size 8192x8192 --budget 150;tune bilateral --size 1920x1080 --budget 60;tune --show"
    tar xzf "$out/logs.tar.gz" -C "$out" cmd-1.txt cmd-4.txt 2>/dev/null
    echo "== 8k RGBA (variant, kernel median ms)"
    grep -E '^bilateral' "$out/cmd-1.txt" | awk '{for (i = 1; i < NF; ++i) if ($i ~ /^unrolled/) print $i, $(i + 1)}'
    echo "== tuned"
    grep -i bilateral "$out/cmd-4.txt"
    rm -f "$out/cmd-1.txt" "$out/cmd-4.txt"
    ;;
  headline)
    # First the classes whose re-tune missed the earlier winner (the grey 8k class in the measure call, before the
    # tuner tried earlier kernel versions' winners), then the tuned choice of every class and the peers.
    CLF_TAIL=${CLF_TAIL:-30} bench/gpu-quick.sh "$out" bilateral \
      "${CLF_RETUNE:-tune bilateral --size 8192x8192 --params channels=1,$params --budget 60};bench bilateral --sizes 8192x8192,1920x1080 --variants auto --warmup 10 --runs 50 --total-runs 2 --cpu-runs 0"
    # peers.py runs the CLI, which must find the same tuning database.
    XDG_CACHE_HOME="$CLF_GPU_CACHE" python3 bench/peers.py --cli build/release/tools/clfilters --sizes 1920x1080,8192x8192 --filters bilateral \
      --out "$out/peers" > "$out/peers.log" 2>&1
    tail -20 "$out/peers.log"
    ;;
esac
true
