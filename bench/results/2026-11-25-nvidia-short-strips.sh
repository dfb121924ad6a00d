# Box blur d = 31 at 8k in short strips: fused_wide with ring 0 (leaving rows re-read through L2) against
# ring 1 (leaving rows from a local-memory ring), strips of 8-32 rows, items 4, mirror 0. The H100's tuned
# shape is a 16-row strip with ring 0 (0.287 ms), which reads each input row ~3.9 times through L2 (46 rows
# entering and 16 leaving per 16 outputs). If L2 traffic held it, ring 1 (~2.9 reads) would win.
# Through the device tool: bash THIS_FILE (OUT set). Results: OUT/cmd-1.txt in logs.tar.gz; a summary last.
set -u
cd "$(dirname "$0")/../.."
variants=$(python3 -c "
print(','.join(f'fused_wide[items=4,local_x={lx},mirror=0,prefetch={pf},ring={ring},strip={strip}]'
               for ring in (0, 1) for strip in (8, 12, 16, 24, 32) for lx in (64, 96, 128) for pf in (1, 2, 4)))")
CLF_TAIL=0 bench/gpu-quick.sh "$OUT" box_blur \
  "bench box-blur --sizes 8192x8192 --params channels=4,diameter=31 --runs 30 --total-runs 1 --cpu-runs 0 --variants '$variants'"
tar xzf "$OUT/logs.tar.gz" -C /tmp cmd-1.txt
echo "fastest 12 (kernel median ms):"
grep fused_wide /tmp/cmd-1.txt | grep -v skipped | sort -k6 -g | head -12 | awk '{print $5, $6, $12}'
echo "best per ring:"
for r in 0 1; do grep "ring=$r" /tmp/cmd-1.txt | grep -v skipped | sort -k6 -g | head -1 | awk '{print $5, $6, $12}'; done
grep -c WRONG /tmp/cmd-1.txt
