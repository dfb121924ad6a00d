#!/usr/bin/env bash
# Box blur after step 49's re-tune (bench/NOTES.md): bench/peers.py for the box blur alone (its 1080p d = 9 row is
# the issue-8 call target), with the committed tuning database. One device-tool call (~3 min), OUT set:
#   bash bench/results/2026-11-27-nvidia-box-peers.sh
set -u
cd "$(dirname "$0")/../.."
source bench/nvidia-setup.sh box-peers clfilters_cli
python3 bench/peers.py --cli $cli --filters box-blur --sizes 1920x1080,8192x8192 --out "$W/peers" > "$W/peers.log" 2>&1 ||
  tail -5 "$W/peers.log"
echo "peers: $(( $(date +%s) - t0 )) s"
cat "$W/peers.md"
cp "$W/peers.md" "$W/peers.json" "$W/peers.log" "$OUT/"
