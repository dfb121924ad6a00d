#!/usr/bin/env bash
# Box blur step 43 (bench/NOTES.md): pair's leaving rows from the other lane's start rows in local memory (`leaving`),
# beside each device's tuned shapes (leaving=0) at d = 31 and 63, through the options probe (interleaved rounds, every
# output checked against the CPU reference). One device-tool call per device (OUT set; ~3-4 min):
#   bash bench/results/2026-11-27-nvidia-pair-leaving.sh h200|h100 ROUNDS
# It first runs the pair tests on the device.
set -u
cd "$(dirname "$0")/../.."
p="fused_wide[items=4,mirror=1,ring=0,pair=1,direct=1"
q="fused_wide[items=8,mirror=1,ring=0,pair=1,direct=1"
if [ "$1" = h200 ]; then
  D31="$p,local_x=64,prefetch=1,strip=16,leaving=0],$p,local_x=64,prefetch=1,strip=16,leaving=1]"
  D31+=",$p,local_x=64,prefetch=2,strip=16,leaving=1],$p,local_x=64,prefetch=1,strip=12,leaving=1]"
  D31+=",$p,local_x=64,prefetch=1,strip=14,leaving=1],$p,local_x=32,prefetch=1,strip=16,leaving=1]"
  D63="fused_wide[items=8,mirror=1,ring=0,pair=0,direct=0,prefetch=1,strip=120,local_x=64]"
else
  D31="$p,local_x=64,prefetch=2,strip=12,leaving=0],$p,local_x=64,prefetch=2,strip=12,leaving=1]"
  D31+=",$p,local_x=64,prefetch=1,strip=12,leaving=1],$p,local_x=64,prefetch=2,strip=16,leaving=1]"
  D31+=",$p,local_x=64,prefetch=1,strip=16,leaving=1],$p,local_x=32,prefetch=2,strip=12,leaving=1]"
  D63="$p,local_x=128,prefetch=1,strip=14,leaving=0]"
fi
D63+=",$p,local_x=64,prefetch=1,strip=14,leaving=0],$p,local_x=64,prefetch=1,strip=14,leaving=1]"
D63+=",$p,local_x=64,prefetch=2,strip=14,leaving=1],$p,local_x=64,prefetch=1,strip=16,leaving=1]"
D63+=",$p,local_x=32,prefetch=1,strip=24,leaving=1],$q,local_x=32,prefetch=1,strip=16,leaving=1]"
export D31 D63
source bench/nvidia-setup.sh leaving-tests || exit 1
timeout 240 build/release/src/filters/box_blur/box_blur_test --gtest_filter='BoxBlurFusedPair*:BoxBlurFusedDirect*' \
  2>&1 | grep -E '^\[ *(OK|FAILED|PASSED) ' | tail -5
bash bench/results/2026-11-27-nvidia-h100-options-probe.sh "leaving-$1" "$2" base=
