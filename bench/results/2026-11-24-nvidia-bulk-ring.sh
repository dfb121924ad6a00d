#!/usr/bin/env bash
# Box blur step 26 (bench/NOTES.md): can bulk asynchronous copies (cp.async.bulk + mbarrier) feed the strip
# loop with the d-row history in a shared-memory ring? bench/bulk_ring.cpp copies 8k RGBA through the box
# blur's vertical sum, with the rows from a bulk-copy ring (tma 1) or from plain loads with the leaving row
# re-read from global memory (tma 0, fused_wide's way), and checks every case's output.
# Usage (device tool): bench/results/2026-11-24-nvidia-bulk-ring.sh "$OUT"
set -uo pipefail
out="${1:?usage: OUT_DIR}"
cd "$(dirname "$0")/../.."
if [ ! -f /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
g++ -std=c++20 -O2 bench/bulk_ring.cpp -lOpenCL -o /tmp/bulk_ring && BULK_RING_PTX="$out/ring.ptx" /tmp/bulk_ring NVIDIA > "$out/bulk_ring.txt" 2>&1
echo "== bulk_ring (rc $?)"
cat "$out/bulk_ring.txt"
