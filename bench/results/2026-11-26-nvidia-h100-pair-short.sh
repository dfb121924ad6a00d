#!/usr/bin/env bash
# Box blur step 31 (bench/NOTES.md): pair (step 19: two mirrored strips per work-group from one shared start) in
# the short strips the H100 tunes d = 31 to, where the d-row start is most of the work, at d = 31 and 63, 8k, with
# pair=0 at the same shapes and both devices' tuned fused_wide shapes in the same call. Step 19 measured pair on
# the H200 only, at 64-160-row strips. First the pair tests on the NVIDIA device. Needs commit f4134e8 (pair
# restored from f7f8399 for this step).
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
rows += [f'fused_wide[items=4,local_x={lx},mirror=1,pair={p},prefetch={pf},ring=0,strip={s}]'
         for p in (1, 0) for lx in (64, 96, 128) for s in (8, 12, 16, 24, 32, 48, 64) for pf in ((1, 2, 4) if d == 31 else (1, 2))]
print(','.join(rows))" "$1"
}
bench="bench box-blur --sizes 8192x8192 --runs 20 --total-runs 1 --cpu-runs 0"
CLF_TAIL=0 CLF_QUICK_TESTS='BoxBlurFusedPair' bench/gpu-quick.sh "$OUT" box_blur \
  "$bench --params channels=4,diameter=31 --variants '$(shapes 31)';$bench --params channels=4,diameter=63 --variants '$(shapes 63)'"
tar xzf "$OUT/logs.tar.gz" -C /tmp cmd-1.txt cmd-2.txt
for f in /tmp/cmd-1.txt /tmp/cmd-2.txt; do
  grep -m1 -E '^Device|copy' "$f"
  echo "tuned shapes (pair=0):"
  grep fused_wide "$f" | grep -v 'pair=' | awk '{print $5, $6, $12}'
  for p in 1 0; do
    echo "fastest 6 with pair=$p (kernel median ms):"
    grep "pair=$p," "$f" | grep -vE 'skipped|failed|WRONG' | sort -k6 -g | head -6 | awk '{print $5, $6, $12}'
  done
  echo "WRONG or failed rows: $(grep -cE 'WRONG|failed' "$f")"
done
