#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Quality of `clfilters epsilon` on compressed video, against ffmpeg's denoisers.

Makes a clip of real photographs (scikit-image's data images side by side, a 640x360 window panning across them),
encodes it with MPEG-2 at low bitrates, decodes it, filters the decoded clip with `clfilters epsilon` at a few
settings and with ffmpeg's hqdn3d, nlmeans and atadenoise, and measures each result's PSNR and SSIM against the
pristine clip (ffmpeg's psnr and ssim filters) and each tool's speed, as a Markdown table (docs/video.md).

  python3 bench/video_quality.py [--cli build/release/tools/clfilters] [--bitrates 300k,600k] [--frames 60]
Needs ffmpeg, NumPy and scikit-image (pip install scikit-image).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
W, H = 640, 360


def ffmpeg(*args, **kw):
    return subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-y", *args], capture_output=True, check=True,
                          **kw)


def photographs():
    """The data images side by side, each scaled to the canvas height: about 2300x512 RGB."""
    from skimage import data, transform
    tiles = []
    for name in ("astronaut", "coffee", "chelsea", "rocket"):
        img = getattr(data, name)()
        scaled = transform.resize(img, (512, round(img.shape[1] * 512 / img.shape[0])), anti_aliasing=True)
        tiles.append((scaled * 255 + 0.5).astype(np.uint8))
    return np.concatenate(tiles, axis=1)


def make_clip(path, frames, fps):
    canvas = photographs()
    span_x, span_y = canvas.shape[1] - W, canvas.shape[0] - H
    raw = bytearray()
    for i in range(frames):
        t = i / max(frames - 1, 1)
        x = round(t * span_x)
        y = round(span_y * 0.5 * (1 - np.cos(2 * np.pi * t)))  # down and back up while panning right
        raw += canvas[y:y + H, x:x + W].tobytes()
    ffmpeg("-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{W}x{H}", "-r", str(fps), "-i", "-", "-pix_fmt", "yuv420p",
           "-f", "yuv4mpegpipe", path, input=bytes(raw))


def quality(video, pristine):
    """(PSNR of Y, PSNR of all planes, SSIM of all planes) of `video` against `pristine`."""
    err = subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-i", video, "-i", pristine, "-lavfi",
                          "[0:v][1:v]psnr;[0:v][1:v]ssim", "-f", "null", "-"], capture_output=True, text=True).stderr
    psnr_y = float(re.findall(r"PSNR y:([0-9.]+)", err)[-1])
    psnr_all = float(re.findall(r"PSNR .*average:([0-9.]+)", err)[-1])
    ssim = float(re.findall(r"SSIM .*All:([0-9.]+)", err)[-1])
    return psnr_y, psnr_all, ssim


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True)
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", default=os.path.join(REPO, "build", "release", "tools", "clfilters"))
    p.add_argument("--bitrates", default="300k,600k", help="MPEG-2 bitrates for the 640x360 clip at --fps")
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--epsilon", default="2:8,2:12,4:20", help="epsilon settings to try, RADIUS:THRESHOLD,...")
    p.add_argument("--device", default="", help="clfilters' --device")
    args = p.parse_args()
    device = ["--device", args.device] if args.device else []
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        pristine = os.path.join(tmp, "pristine.y4m")
        make_clip(pristine, args.frames, args.fps)
        for rate in args.bitrates.split(","):
            coded, decoded = os.path.join(tmp, "coded.mpg"), os.path.join(tmp, "decoded.y4m")
            ffmpeg("-i", pristine, "-c:v", "mpeg2video", "-b:v", rate, coded)
            ffmpeg("-i", coded, "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", decoded)
            out = os.path.join(tmp, "out.y4m")
            tools = [("decoded, unfiltered", None)]
            for setting in args.epsilon.split(","):
                r, t = setting.split(":")
                tools.append((f"clfilters epsilon -r {r} -t {t}",
                              [args.cli, "epsilon", decoded, out, "-r", r, "-t", t, "--quiet", *device]))
            for name in ("hqdn3d", "atadenoise", "nlmeans"):
                tools.append((f"ffmpeg -vf {name}", ["ffmpeg", "-hide_banner", "-nostdin", "-y", "-i", decoded, "-vf",
                                                     name, "-f", "yuv4mpegpipe", out]))
            for name, cmd in tools:
                seconds = timed(cmd) if cmd else None
                psnr_y, psnr_all, ssim = quality(out if cmd else decoded, pristine)
                fps = f"{args.frames / seconds:.0f}" if seconds else "-"
                rows.append((rate, name, psnr_y, psnr_all, ssim, fps))
                print(f"{rate} {name}: PSNR Y {psnr_y:.2f} dB, all {psnr_all:.2f} dB, SSIM {ssim:.4f}, {fps} fps",
                      file=sys.stderr)
    print(f"| bitrate | filter | PSNR Y (dB) | PSNR Y, U, V (dB) | SSIM | fps, {W}x{H} file to file |")
    print("|---|---|---|---|---|---|")
    for rate, name, psnr_y, psnr_all, ssim, fps in rows:
        print(f"| {rate} | {name} | {psnr_y:.2f} | {psnr_all:.2f} | {ssim:.4f} | {fps} |")


if __name__ == "__main__":
    main()
