#!/usr/bin/env bash
# Box blur step 45 (bench/NOTES.md): the 1080p classes' tuned fused_packed / fused_wide shapes sit at the shortest strip
# their lists held (8 rows); shorter strips (2-6 rows) and items 2, which the lists did not hold, beside them at
# 1920x1080, d = 3, 9, 11 and 31, in interleaved rounds (kernel and device-resident call medians of 50, every output
# checked). One device-tool call per device (OUT set; ~2-3 min):
#   bash bench/results/2026-11-27-nvidia-1080p-strips.sh h200|h100 ROUNDS
set -u
cd "$(dirname "$0")/../.."
source bench/nvidia-setup.sh strips1080 || exit 1
k="fused_packed[direct=0,mirror=0,pair=0,ring=1"
pp="fused_packed[direct=0,mirror=1,pair=1,ring=0,items=4"
wp="fused_wide[direct=0,mirror=1,pair=1,ring=0,items=4,local_x=64"
if [ "$1" = h200 ]; then
  t3="fused_packed[direct=1,items=4,local_x=32,mirror=0,pair=0,prefetch=2,ring=1,strip=8]"
  t9="$k,items=4,local_x=32,prefetch=1,strip=8]"
  t11="$pp,direct=1,local_x=64,prefetch=2,strip=8]"
  t31="$wp,prefetch=2,strip=10]"
else
  t3="fused_packed[direct=1,items=4,local_x=32,mirror=0,pair=0,prefetch=1,ring=1,strip=8]"
  t9="$k,items=4,local_x=32,prefetch=1,strip=8]"
  t11="$pp,local_x=32,prefetch=2,strip=8]"
  t31="$wp,prefetch=1,strip=8]"
fi
v3="auto,$t3,$k,items=4,local_x=32,prefetch=1,strip=4],$k,items=2,local_x=32,prefetch=1,strip=8],$k,items=2,local_x=64,prefetch=1,strip=4]"
v9="auto,$t9,$k,items=4,local_x=32,prefetch=1,strip=4],$k,items=4,local_x=32,prefetch=1,strip=6],$k,items=4,local_x=32,prefetch=2,strip=4]"
v9+=",$k,items=4,local_x=32,prefetch=1,strip=2],$k,items=2,local_x=32,prefetch=1,strip=8],$k,items=2,local_x=64,prefetch=1,strip=4]"
v9+=",$pp,local_x=32,prefetch=1,strip=4],$pp,local_x=32,prefetch=2,strip=6],$k,items=4,local_x=64,prefetch=1,strip=4]"
v11="auto,$t11,$pp,local_x=32,prefetch=2,strip=4],$pp,local_x=64,prefetch=1,strip=4],$k,items=4,local_x=32,prefetch=1,strip=4]"
v31="auto,$t31,$wp,prefetch=1,strip=4],$wp,prefetch=2,strip=6],$wp,prefetch=1,strip=6]"
for round in $(seq "$2"); do
  for d in 3 9 11 31; do
    v=v$d
    $cli bench box-blur --sizes 1920x1080 --params channels=4,diameter=$d --warmup 10 --runs 50 --total-runs 1 \
      --cpu-runs 0 --format csv --variants "${!v}" >> "$W/d$d.csv" 2>&1
  done
done
echo "benched: $(( $(date +%s) - t0 )) s"
for d in 3 9 11 31; do
  echo "== d = $d: kernel median / call median (us) per round"
  python3 - "$W/d$d.csv" <<'PY'
import csv, sys
rows = {}
for r in csv.reader(open(sys.argv[1])):
    if len(r) < 15 or r[0] == "device": continue
    v = (r[5] if r[5] != "auto" else "auto " + r[6]).replace("fused_packed[", "").replace("fused_wide[", "")
    rows.setdefault(v, []).append(f"{1000 * float(r[8]):.1f}/{1000 * float(r[14]):.1f}" if r[7] == "ok" else r[7][:40])
for v in sorted(rows): print(f"{v}: {' '.join(rows[v])}")
PY
  cp "$W/d$d.csv" "$OUT/"
done
