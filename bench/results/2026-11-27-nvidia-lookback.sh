#!/usr/bin/env bash
# Box blur step 44 (bench/NOTES.md): fused_wide's `lookback` (each strip's first window from the block sums of the
# strips above) beside each device's tuned shapes at d = 31 and 63, through the options probe (interleaved rounds,
# every output checked against the CPU reference). One device-tool call per device (OUT set; ~3-4 min):
#   bash bench/results/2026-11-27-nvidia-lookback.sh h200|h100 ROUNDS
# It first runs the lookback test on the device.
set -u
cd "$(dirname "$0")/../.."
p="fused_wide[items=4,mirror=1,ring=0,pair=1,direct=1"
l="fused_wide[mirror=0,ring=0,pair=0,lookback=1,direct=1"
if [ "$1" = h200 ]; then
  D31="$p,local_x=64,prefetch=1,strip=16]"
  D63="fused_wide[items=8,mirror=1,ring=0,pair=0,direct=0,prefetch=1,strip=120,local_x=64]"
else
  D31="$p,local_x=64,prefetch=2,strip=12]"
  D63="$p,local_x=128,prefetch=1,strip=14]"
fi
D31+=",$l,items=4,local_x=64,prefetch=1,strip=16],$l,items=4,local_x=64,prefetch=2,strip=16]"
D31+=",$l,items=4,local_x=64,prefetch=1,strip=10],$l,items=4,local_x=64,prefetch=1,strip=32]"
D31+=",$l,items=4,local_x=64,prefetch=1,strip=8]"
D63+=",$l,items=4,local_x=64,prefetch=1,strip=16],$l,items=4,local_x=64,prefetch=2,strip=16]"
D63+=",$l,items=4,local_x=64,prefetch=1,strip=32],$l,items=4,local_x=128,prefetch=1,strip=16]"
D63+=",$l,items=8,local_x=64,prefetch=1,strip=16],$l,items=8,local_x=64,prefetch=1,strip=32]"
D63+=",$l,items=4,local_x=64,prefetch=1,strip=8]"
export D31 D63
source bench/nvidia-setup.sh lookback-tests || exit 1
timeout 240 build/release/src/filters/box_blur/box_blur_test --gtest_filter='BoxBlurFusedLookback*' \
  2>&1 | grep -E '^\[ *(OK|FAILED|PASSED) |Failure' | tail -5
bash bench/results/2026-11-27-nvidia-h100-options-probe.sh "lookback-$1" "$2" base=
