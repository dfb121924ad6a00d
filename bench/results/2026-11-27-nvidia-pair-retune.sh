#!/usr/bin/env bash
# Box blur step 32 (bench/NOTES.md): pair kept (step 31's 7% at d = 31 on the H100), with 12- and 24-row strips
# for fused_wide, so box_blur.cl's code key moved and every box blur class is re-tuned on each device, starting
# from the committed database (the tuner tries the earlier winners first, with pair at its default, 0).
# One device-tool call per device:   bash bench/results/2026-11-27-nvidia-pair-retune.sh   (OUT set; ~9 min)
# Build; the fused box blur tests on the NVIDIA device; `tune --params` per class: 8k d = 31 and 63 at 130 s each,
# d = 3, 9 and 11 at 20 s, then 1080p at 10 s a class; OUT/tuning.json is the database after it (it becomes
# bench/results/2026-11-24-nvidia-tuning.json). Then the tuned choice at 8k and 1080p (bench-auto's command, box
# blur only), step 31's best pair shape at d = 31, and bench/peers.py for the box blur. A summary last.
# Box blur step 33 re-ran it with TESTS='BoxBlurFusedPair|BoxBlurFusedTunables' TEST_LIMIT=150 LONG=120 (the tests
# that build pair at items 4, the only shapes START_ROWS changed; the long budget cut to fit the 600-s call).
# Box blur step 40 (the `direct` tunable; the tuner's must-try neighbours of the previous two winners, which lengthen
# every class's tune) re-ran it without the peers, comparing each device's previous winners with direct=1 beside auto:
#   TESTS='BoxBlurFusedWide|BoxBlurFusedPair|BoxBlurFusedDirect' TEST_LIMIT=120 LONG=100 PEERS=0 \
#     CMP31=... CMP63=... bash bench/results/2026-11-27-nvidia-pair-retune.sh
# (CMP31 and CMP63: variant lists benched beside auto at 8k d = 31 and 63; CMP31 defaults to step 31's shape.)
# Box blur step 49 (DELTA) re-ran it the same way, CMP31 and CMP63 each device's previous winners.
set -u
TESTS=${TESTS:-BoxBlurFused|BoxBlurFullHd} TEST_LIMIT=${TEST_LIMIT:-120} LONG=${LONG:-130} PEERS=${PEERS:-1}
CMP31=${CMP31:-fused_wide[items=4,local_x=64,mirror=1,pair=1,prefetch=2,ring=0,strip=12]} CMP63=${CMP63:-}
cd "$(dirname "$0")/../.."
source bench/nvidia-setup.sh retune
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$W/gpu.txt"
timeout $TEST_LIMIT ctest --preset release -j 8 --timeout $(( TEST_LIMIT - 10 )) -R "$TESTS" > "$W/ctest.log" 2>&1
echo "box blur tests on nvidia (rc $?): $(grep -E 'tests passed|tests failed' "$W/ctest.log" | tail -1)"
grep -E '\(Failed\)|Timeout' "$W/ctest.log" | head
tune() {  # SIZE D BUDGET
  timeout $(( $3 + 60 )) $cli tune box-blur --size $1 --params channels=4,diameter=$2 --budget $3 >> "$W/tune.log" 2>&1 ||
    echo "tune $1 d=$2 failed or timed out"
  cp $db "$OUT/tuning.json"
}
for d in 31 63; do tune 8192x8192 $d $LONG; done
for d in 3 9 11; do tune 8192x8192 $d 20; done
for d in 9 3 11 31 63; do tune 1920x1080 $d 10; done
grep -E "best" "$W/tune.log" | cut -c1-200
echo "tuned: $(( $(date +%s) - t0 )) s"
$cli bench box-blur --sizes 8192x8192,1920x1080 --variants auto --warmup 10 --runs 50 --total-runs 2 --cpu-runs 0 \
  --format json --out "$W/auto.json" > "$W/auto.txt" 2>&1 || echo "bench auto failed: $(tail -1 "$W/auto.txt")"
for d in 31 63; do
  v=CMP$d
  [ -n "${!v}" ] && $cli bench box-blur --sizes 8192x8192 --params channels=4,diameter=$d --warmup 10 --runs 50 \
    --total-runs 1 --cpu-runs 0 --variants "auto,${!v}" >> "$W/compare.txt" 2>&1
done
[ "$PEERS" = 1 ] && { python3 bench/peers.py --cli $cli --filters box-blur --sizes 1920x1080,8192x8192 --deadline 120 \
  --out "$W/peers" > "$W/peers.log" 2>&1 || tail -5 "$W/peers.log"; }
echo "benched: $(( $(date +%s) - t0 )) s"
echo "== tuned auto (kernel median ms; copy bandwidth in the header):"
grep -E '^(Device|box-blur)|copy' "$W/auto.txt" | tr -s ' ' | cut -c1-200
echo "== beside auto (CMP31, CMP63):"
grep -E 'box-blur' "$W/compare.txt" | tr -s ' ' | cut -c1-200
[ "$PEERS" = 1 ] && { echo "== peers:"; grep -E '^\| box' "$W/peers.md" | cut -c1-200; }
cp "$W/auto.txt" "$W/auto.json" "$W/compare.txt" "$W/peers.md" "$W/peers.json" "$OUT/" 2>/dev/null
tar czf "$OUT/retune.tar.gz" -C /tmp retune
