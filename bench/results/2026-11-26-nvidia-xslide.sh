#!/usr/bin/env bash
# Box blur step 30 (bench/NOTES.md): fused_xslide (the window slides along the rows, the cross window down the
# columns from local memory) at d = 31 and 63, 8k, over its shapes, against both devices' tuned fused_wide shapes
# in the same call. First the fused_xslide tests on the NVIDIA device. Needs commit f5e3b66 or 1c05875 (fused_xslide was
# removed after step 30).
# Through the device tool: bash THIS_FILE (OUT set). Results: OUT/cmd-1.txt and cmd-2.txt in logs.tar.gz; a
# summary last.
set -u
cd "$(dirname "$0")/../.."
shapes() {  # d
  python3 -c "
import sys
d = int(sys.argv[1])
base = {31: ['items=4,local_x=64,mirror=1,prefetch=1,ring=0,strip=128', 'items=4,local_x=96,mirror=0,prefetch=2,ring=0,strip=16'],
        63: ['items=8,local_x=64,mirror=1,prefetch=1,ring=0,strip=120', 'items=4,local_x=128,mirror=1,prefetch=1,ring=0,strip=144']}[d]
rows = [f'fused_wide[{b}]' for b in base]
rows += [f'fused_xslide[local_x={lx},prefetch={pf},rows={r},segment={sg},step={st}]'
         for lx in (64, 128, 256) for r in (1, 2) for st in (8, 16, 32) for sg in (256, 512, 1024, 2048) for pf in (0, 1)
         if lx * r - d + 1 >= lx * r // 2 and lx * r * (st + 2) * 8 < 48000]
print(','.join(rows))" "$1"
}
bench="bench box-blur --sizes 8192x8192 --runs 20 --total-runs 1 --cpu-runs 0"
CLF_TAIL=0 CLF_QUICK_TESTS='BoxBlurFusedXslide|fused_xslide' bench/gpu-quick.sh "$OUT" box_blur \
  "$bench --params channels=4,diameter=31 --variants '$(shapes 31)';$bench --params channels=4,diameter=63 --variants '$(shapes 63)'"
tar xzf "$OUT/logs.tar.gz" -C /tmp cmd-1.txt cmd-2.txt
for f in /tmp/cmd-1.txt /tmp/cmd-2.txt; do
  grep -m1 -E '^Device|copy' "$f"
  echo "baselines (fused_wide, both devices' tuned shapes):"
  grep fused_wide "$f" | awk '{print $5, $6, $12}'
  echo "fastest 12 fused_xslide (kernel median ms):"
  grep 'fused_xslide' "$f" | grep -vE 'skipped|failed|WRONG' | sort -k6 -g | head -12 | awk '{print $5, $6, $12}'
  echo "WRONG or failed rows: $(grep -cE 'WRONG|failed' "$f")"
done
