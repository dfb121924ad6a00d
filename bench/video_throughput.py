#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Video throughput: `clfilters FILTER IN OUT` on a Y4M stream against the I/O floor, `cat IN | cat > OUT`.

For each depth (8-bit 4:2:0, 10-bit 4:2:0) a clip (a panning gradient with noise) is written once to --workdir. Then, interleaved run by run so that a slow spell of the machine hits every side alike:
  floor   cat IN | cat > OUT                         (what any tool that reads and writes the stream must pay)
  file    clfilters FILTER IN OUT                    (file to file)
  pipe    cat IN | clfilters FILTER - - | cat > OUT  (through pipes, as behind ffmpeg)
The table gives median wall times, frames a second and the share of the floor's throughput (floor time / time).
Each filter runs with its default planes (epsilon Y; the blurs Y, U and V; sobel Y into a grey stream, 8-bit only).

Usage: python3 bench/video_throughput.py [--cli build/release/tools/clfilters] [--device nvidia] [--size 3840x2160]
         [--frames 60] [--runs 3] [--filters epsilon,box-blur,bilateral,sobel] [--depths 8,10] [--out PREFIX]
Needs NumPy. --out PREFIX writes PREFIX.md and PREFIX.json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIX_FMT = {8: "yuv420p", 10: "yuv420p10le"}


def make_clip(path, size, frames, depth):
    """A 4:2:0 Y4M clip: a diagonal gradient that pans by 8 pixels a frame, with fixed-seed noise."""
    width, height = (int(v) for v in size.split("x"))
    rng = np.random.default_rng(1)
    dtype, top = (np.uint8, 255) if depth == 8 else (np.dtype("<u2"), (1 << depth) - 1)
    colour = f"C420p{depth} XYSCSS=420P{depth}" if depth > 8 else "C420jpeg"

    noise = {}  # one noise field a plane size, panned with the gradient: fast to make, still not smooth

    def plane(w, h, frame, phase):
        if (w, h) not in noise:
            noise[(w, h)] = rng.normal(0, top / 40, (h, 2 * w)).astype(np.float32)
        x = (np.arange(w)[None, :] + 8 * frame + phase) % (2 * w)
        ramp = (np.abs(x - w) / w * 0.6 + np.arange(h)[:, None] / h * 0.3) * top
        return np.clip(ramp + noise[(w, h)][:, (8 * frame) % w:(8 * frame) % w + w], 0, top).astype(dtype)

    cw, ch = (width + 1) // 2, (height + 1) // 2
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{width} H{height} F30:1 Ip A1:1 {colour}\n".encode())
        for frame in range(frames):
            f.write(b"FRAME\n")
            for w, h, phase in ((width, height, 0), (cw, ch, 100), (cw, ch, 300)):
                f.write(plane(w, h, frame, phase).tobytes())


def timed(command, env):
    start = time.perf_counter()
    result = subprocess.run(command, shell=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {command}\n{result.stderr}")
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", default=os.path.join(REPO, "build/release/tools/clfilters"))
    parser.add_argument("--device", default="")
    parser.add_argument("--size", default="3840x2160")
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--filters", default="epsilon,box-blur,bilateral,sobel")
    parser.add_argument("--depths", default="8,10")
    parser.add_argument("--workdir", default=tempfile.gettempdir())
    parser.add_argument("--out", default="")
    args = parser.parse_args()

    env = dict(os.environ)
    device = f" --device {args.device}" if args.device else ""
    rows = []
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        out = os.path.join(tmp, "out.y4m")
        for depth in (int(d) for d in args.depths.split(",")):
            clip = os.path.join(tmp, f"in{depth}.y4m")
            make_clip(clip, args.size, args.frames, depth)
            megabytes = os.path.getsize(clip) / 1e6
            filters = [f for f in args.filters.split(",") if f != "sobel" or depth == 8]
            commands = {("none", "floor"): f"cat {clip} | cat > {out}"}
            for f in filters:
                commands[(f, "file")] = f"{args.cli} {f} {clip} {out} --quiet{device}"
                commands[(f, "pipe")] = f"cat {clip} | {args.cli} {f} - - --quiet{device} | cat > {out}"
            for command in commands.values():  # untimed: page cache, program caches
                timed(command, env)
            times = {key: [] for key in commands}
            for _ in range(args.runs):
                for key, command in commands.items():
                    times[key].append(timed(command, env))
            floor = statistics.median(times[("none", "floor")])
            for (name, path), runs in times.items():
                seconds = statistics.median(runs)
                rows.append({"stream": f"{args.size} 4:2:0 {depth}-bit", "megabytes": round(megabytes, 1),
                             "frames": args.frames, "filter": name, "path": path, "seconds": round(seconds, 3),
                             "runs": [round(t, 3) for t in runs], "fps": round(args.frames / seconds, 1),
                             "of_floor": round(floor / seconds, 3)})
    header = "| stream | filter | path | s (median) | fps | share of cat \\| cat |\n| --- | --- | --- | --- | --- | --- |"
    lines = [header] + [f"| {r['stream']} ({r['megabytes']} MB) | {r['filter']} | {r['path']} | {r['seconds']:.3f} | "
                        f"{r['fps']:.1f} | {100 * r['of_floor']:.0f}% |" for r in rows]
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out + ".json", "w") as f:
            json.dump({"command": " ".join(sys.argv), "rows": rows}, f, indent=1)
        with open(args.out + ".md", "w") as f:
            f.write(f"`{' '.join(['python3', 'bench/video_throughput.py'] + sys.argv[1:])}`\n\n{table}\n")


if __name__ == "__main__":
    main()
