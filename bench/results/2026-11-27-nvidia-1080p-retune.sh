#!/usr/bin/env bash
# Box blur step 45 (bench/NOTES.md): fused_packed's strips gained 4 and 6 rows (host-side: the code key stays), so the
# 1080p fused_packed classes (d <= 3, 9, 11) are re-tuned on each device from the committed database, then the d = 9
# call (the issue-8 target) is timed in interleaved rounds: the re-tuned auto against the previous winner.
# One device-tool call per device (OUT set; ~5 min):   bash bench/results/2026-11-27-nvidia-1080p-retune.sh OLD9
# OLD9: the previous d = 9 winner as a variant, e.g. fused_packed[direct=0,items=4,...]. OUT/tuning.json is the database
# after it (it becomes bench/results/2026-11-24-nvidia-tuning.json).
set -u
old9=$1
cd "$(dirname "$0")/../.."
source bench/nvidia-setup.sh retune1080 || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$W/gpu.txt"
for d in 9 3 11; do
  budget=$([ $d = 9 ] && echo 150 || echo 60)
  timeout $(( budget + 60 )) $cli tune box-blur --size 1920x1080 --params channels=4,diameter=$d --budget $budget \
    >> "$W/tune.log" 2>&1 || echo "tune d=$d failed or timed out"
done
cp $db "$OUT/tuning.json"
grep -E "best" "$W/tune.log" | cut -c1-220
echo "tuned: $(( $(date +%s) - t0 )) s"
for round in 1 2 3 4; do
  for d in 3 9 11; do
    v=auto; [ $d = 9 ] && v="auto,$old9"
    $cli bench box-blur --sizes 1920x1080 --params channels=4,diameter=$d --warmup 10 --runs 50 --total-runs 1 \
      --cpu-runs 0 --format csv --variants "$v" >> "$W/calls.csv" 2>&1
  done
done
echo "benched: $(( $(date +%s) - t0 )) s"
echo "== 1080p: kernel median / call median (us) per round"
python3 - "$W/calls.csv" <<'PY'
import csv, sys
rows = {}
for r in csv.reader(open(sys.argv[1])):
    if len(r) < 15 or r[0] == "device": continue
    v = r[2].split()[-1] + " " + (r[5] if r[5] != "auto" else "auto " + r[6]).replace("fused_packed[", "")
    rows.setdefault(v, []).append(f"{1000 * float(r[8]):.1f}/{1000 * float(r[14]):.1f}" if r[7] == "ok" else r[7][:40])
for v in sorted(rows): print(f"{v}: {' '.join(rows[v])}")
PY
cp "$W/calls.csv" "$W/tune.log" "$OUT/"
