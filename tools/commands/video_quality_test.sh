#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Epsilon on real compressed video raises its quality: a clip panned across data/astronaut.jpg (a photograph),
# MPEG-2 encoded at a low quality (qscale 12: mosquito noise around edges), decoded, filtered by
# `clfilters epsilon -r 2 -t 8` (docs/video.md's setting for such streams); the Y PSNR against the pristine clip,
# by ffmpeg's psnr filter, must rise. Skipped (exit 77) without ffmpeg. Usage: video_quality_test.sh CLFILTERS WORK
set -uo pipefail
cli=$1
work=$2
photo=$(cd "$(dirname "$0")/../.." && pwd)/data/astronaut.jpg
command -v ffmpeg > /dev/null || { echo "ffmpeg is not installed: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
export CLFILTERS_TUNING_DB=$work/tuning.json
ff() { ffmpeg -hide_banner -loglevel error -nostdin -threads 1 -y "$@"; }
# 24 frames of 320x240, panning right and down across the photograph.
ff -loop 1 -i "$photo" -vf "crop=320:240:x='10+t*60':y='10+t*40',format=yuv420p" -t 1 -r 24 \
  -f yuv4mpegpipe pristine.y4m || exit 2
ff -i pristine.y4m -c:v mpeg2video -qscale:v 12 coded.mpg && ff -i coded.mpg -pix_fmt yuv420p -f yuv4mpegpipe decoded.y4m ||
  exit 2
"$cli" epsilon decoded.y4m filtered.y4m -r 2 -t 8 --quiet || { echo "FAIL: clfilters epsilon exited $?"; exit 1; }
# psnr_y VIDEO: the average Y PSNR of VIDEO against the pristine clip.
psnr_y() {
  ffmpeg -hide_banner -nostdin -threads 1 -i "$1" -i pristine.y4m -lavfi psnr -f null - 2>&1 |
    sed -n 's/.*PSNR y:\([0-9.]*\).*/\1/p' | tail -1
}
decoded=$(psnr_y decoded.y4m)
filtered=$(psnr_y filtered.y4m)
echo "Y PSNR against the pristine clip: decoded $decoded dB, filtered by epsilon $filtered dB"
[ -n "$decoded" ] && [ -n "$filtered" ] || { echo "FAIL: no PSNR read"; exit 1; }
# At least 0.05 dB better (0.3 dB measured): a filter that blurs detail or leaves the frames unchanged fails.
awk -v d="$decoded" -v f="$filtered" 'BEGIN { exit !(f >= d + 0.05) }' || { echo "FAIL: epsilon did not raise PSNR"; exit 1; }
