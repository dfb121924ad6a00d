#!/usr/bin/env bash
# Box blur step 29 (bench/NOTES.md): fused_wide with lanes (several work-items per column, each taking every
# lanes-th row, their column sums from a scan of the lanes' deltas) at d = 31 and 63, 8k, against both devices'
# tuned lanes=1 shapes in the same call. First the lanes and fused_wide tests on the NVIDIA device. Needs commit
# 9eb7799 (the H200 call) or 67871cb (the H100 call): the lanes were removed after step 29.
# Through the device tool: bash THIS_FILE (OUT set). Results: OUT/cmd-1.txt and cmd-2.txt in logs.tar.gz; a
# summary last.
set -u
cd "$(dirname "$0")/../.."
shapes() {  # d items_list
  python3 -c "
import sys
d, items = int(sys.argv[1]), [int(x) for x in sys.argv[2].split(',')]
base = {31: ['items=4,local_x=64,mirror=1,prefetch=1,ring=0,strip=128', 'items=4,local_x=96,mirror=0,prefetch=2,ring=0,strip=16'],
        63: ['items=8,local_x=64,mirror=1,prefetch=1,ring=0,strip=120', 'items=4,local_x=128,mirror=1,prefetch=1,ring=0,strip=144']}[d]
rows = [f'fused_wide[{b}]' for b in base]
shapes = [(2, 64), (2, 128), (4, 32), (4, 64), (8, 32)]  # lanes x local_x <= 256, the kernels' limit on NVIDIA
rows += [f'fused_wide[items={it},lanes={m},local_x={lx},mirror=1,prefetch={pf},ring=0,strip={s}]'
         for it in items for m, lx in shapes for s in ((32, 64, 128, 256) if d == 31 else (64, 128, 256))
         for pf in ((1, 2) if d == 31 else (1,))]
print(','.join(rows))" "$1" "$2"
}
bench="bench box-blur --sizes 8192x8192 --runs 30 --total-runs 1 --cpu-runs 0"
CLF_TAIL=0 CLF_QUICK_TESTS='BoxBlurLanes|BoxBlurFusedWide' bench/gpu-quick.sh "$OUT" box_blur \
  "$bench --params channels=4,diameter=31 --variants '$(shapes 31 4)';$bench --params channels=4,diameter=63 --variants '$(shapes 63 4,8)'"
tar xzf "$OUT/logs.tar.gz" -C /tmp cmd-1.txt cmd-2.txt
for f in /tmp/cmd-1.txt /tmp/cmd-2.txt; do
  grep -m1 -E '^Device|copy' "$f"
  echo "baselines (lanes=1, both devices' tuned shapes):"
  grep fused_wide "$f" | grep -v lanes= | awk '{print $5, $6, $12}'
  echo "fastest 10 with lanes (kernel median ms):"
  grep 'lanes=' "$f" | grep -vE 'skipped|failed|WRONG' | sort -k6 -g | head -10 | awk '{print $5, $6, $12}'
  echo "best per lanes:"
  for m in 2 4 8; do grep "lanes=$m," "$f" | grep -vE 'skipped|failed|WRONG' | sort -k6 -g | head -1 | awk '{print $5, $6, $12}'; done
  echo "WRONG rows: $(grep -c WRONG "$f")"
done
