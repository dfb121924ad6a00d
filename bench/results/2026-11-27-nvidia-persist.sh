#!/usr/bin/env bash
# Box blur step 47 (bench/NOTES.md): pair with persist (several pairs per work-group, the next pair's start summed
# while the last one slides) at persist 1, 4, 8 and 16, in each device's tuned pair shapes at d = 31 and 63, in
# interleaved rounds, every output checked. One device-tool call per device (OUT set; ~5 min):
#   DEV=h100|h200 bash bench/results/2026-11-27-nvidia-persist.sh NAME ROUNDS
# SETS lists the option sets (LABEL=OPTIONS, no spaces within one; default base=). Step 47's calls on the H100:
#   bash ... persist 2     and     SETS="base= cap80=-cl-nv-maxrregcount=80 cap72=-cl-nv-maxrregcount=72" bash ... persist2 1
set -u
cd "$(dirname "$0")/../.."
if [ "${DEV:-h100}" = h100 ]; then
  s31="fused_wide[items=4,mirror=1,ring=0,pair=1,local_x=64,prefetch=2,direct=1,strip=12"
  s63="fused_wide[items=4,mirror=1,ring=0,pair=1,local_x=128,prefetch=1,direct=1,strip=14"
else
  s31="fused_wide[items=4,mirror=1,ring=0,pair=1,local_x=64,prefetch=1,direct=1,strip=16"
  s63="fused_wide[items=4,mirror=1,ring=0,pair=1,local_x=128,prefetch=1,direct=1,strip=14"
fi
list() { local s=$1 out="" p; for p in 1 4 8 16; do out+="${out:+,}$s,persist=$p]"; done; echo "$out"; }
D31=$(list "$s31") D63=$(list "$s63") bash bench/results/2026-11-27-nvidia-h100-options-probe.sh "$1" "$2" ${SETS:-base=}
