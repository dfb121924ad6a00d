#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Beyond one device: out-of-core bands, several devices, batches. Host wall times from the Python package.

Cases (--cases, comma-separated; each prints one table and adds rows to --out's JSON and Markdown):
  bands   WxH RGBA box blur d = 9 (--bands-size, default 32768x32768: 2^30 pixels, cut below 2^29 by the kernels'
          indexing) host to host on --device: into a new array each call, into one reused (out=), and with
          CLFILTERS_DEVICE_MEMORY=--cap (default 1G) into one reused, against
          the pinned transfer floor: the bytes each way over the rates `clfilters bench` measures at its start. The
          three results must be equal, and rows at the image's edges against the CPU reference.
  split   WxH (--split-size, default 8192x8192) RGBA box blur d = 9 and grey bilateral (radius 4) on --split-device
          (default pocl) whole and split into --parts sub-devices (default 2,4): the same result bit for bit.
  mixed   WxH (--mixed-size, default 16384x16384) RGBA box blur d = 9 and bilateral (radius 4) host to host on
          --device alone and on the list --mixed (default "nvidia,pocl": a GPU with the CPU beside it): the box
          blur bit for bit, the bilateral within 1 (different devices run different variants, each within 1 of
          the reference).
  batch   --photos N (default 1000) 1920x1080 JPEGs through `clfilters box-blur -d 9 -o DIR` in one process against
          a loop of single calls over the first --loop of them (default 50), photos per second.

Each timing is the median of --runs (default 5) after one untimed call; split and mixed alternate their two
configurations run by run. Run from the repository root with the package
built (PYTHONPATH=build/release/python) or installed.

Usage: python3 bench/scale.py --device nvidia [--cases bands,split,batch] [--out bench/results/NAME]
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

import clfilters as clf

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def median_ms(call, runs):
    call()  # programs built, buffers kept
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), times


def interleaved_medians(first, second, runs):
    """Median ms of each call, the two alternated run by run, so that a slow spell of the machine hits both alike."""
    first(), second()  # programs built, buffers kept
    times = ([], [])
    for _ in range(runs):
        for call, into in ((first, times[0]), (second, times[1])):
            start = time.perf_counter()
            call()
            into.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times[0]), statistics.median(times[1]), times[1]


def pinned_rates(cli, device):
    """Upload and download GB/s as `clfilters bench` measures them at its start (pinned staging)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "b.json")
        subprocess.run([cli, "bench", "box-blur", "--sizes", "256x256", "--params", "diameter=3,channels=1",
                        "--variants", "auto", "--runs", "1", "--warmup", "0", "--total-runs", "1", "--cpu-runs", "0",
                        "--format", "json", "--out", out], check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, CLFILTERS_DEVICE=device))
        with open(out) as f:
            report = json.load(f)
    return report["upload_gb_per_s"], report["download_gb_per_s"]


def noise_image(height, width, channels, seed):
    """A tiled block of random samples: quick to make at gigabytes, never smooth."""
    block = np.random.default_rng(seed).integers(0, 256, (min(height, 2048), min(width, 2048), channels), np.uint8)
    reps = (-(-height // block.shape[0]), -(-width // block.shape[1]), 1)
    return np.ascontiguousarray(np.tile(block, reps)[:height, :width])


def case_bands(args, rows):
    width, height = (int(v) for v in args.bands_size.split("x"))
    image = noise_image(height, width, 4, 1)
    ctx = clf.Context(args.device)
    os.environ["CLFILTERS_DEVICE_MEMORY"] = args.cap
    capped = clf.Context(args.device)  # the cap is read where the device is described
    del os.environ["CLFILTERS_DEVICE_MEMORY"]
    up, down = pinned_rates(args.cli, args.device)
    floor = image.nbytes / (up * 1e6) + image.nbytes / (down * 1e6)
    # A new result array each call pays its fresh pages (faults and zeroing); out= reuses one, as a stream would.
    results = {"new array": None, "out= reused": np.empty_like(image), f"capped to {args.cap}, out= reused":
               np.empty_like(image)}
    for (name, out), c in zip(list(results.items()), (ctx, ctx, capped)):
        def call():
            if out is None:
                results[name] = clf.box_blur(image, diameter=9, ctx=c)
            else:
                clf.box_blur(image, diameter=9, ctx=c, out=out)
        ms, runs = median_ms(call, args.runs)
        rows.append({"case": f"bands, {width}x{height} RGBA box blur d=9, {name}", "device": ctx.device.name,
                     "ms": round(ms, 1), "runs": [round(t, 1) for t in runs], "floor_ms": round(floor, 1),
                     "of_floor": round(ms / floor, 2)})
    first, *others = results.values()
    for other in others:
        assert np.array_equal(first, other), "out= or the capped call differs from the uncapped one"
    reference = clf._clfilters._reference.box_blur
    for y in (0, 1, height // 2, height - 1):  # the rows each reads, through the reference
        y0, y1 = max(0, y - 4), min(height, y + 5)
        want = reference(np.ascontiguousarray(image[y0:y1]), 9, "replicate")
        assert np.array_equal(first[y], want[y - y0]), f"row {y} differs from the reference"


def case_split(args, rows):
    width, height = (int(v) for v in args.split_size.split("x"))
    whole = clf.Context(args.split_device)
    cases = [("RGBA box blur d=9", noise_image(height, width, 4, 2), lambda img, c: clf.box_blur(img, 9, ctx=c)),
             ("grey bilateral r=4", noise_image(height, width, 1, 3)[:, :, 0],
              lambda img, c: clf.bilateral(img, 3.0, 30.0, 4, ctx=c))]
    for parts in (int(p) for p in args.parts.split(",")):
        devices = clf.contexts(f"{args.split_device}/{parts}")
        for name, image, run in cases:
            expected = run(image, whole)
            ms_whole, ms_parts, runs = interleaved_medians(lambda: run(image, whole), lambda: run(image, devices),
                                                           args.runs)
            assert np.array_equal(run(image, devices), expected), f"{name}: {parts} sub-devices differ"
            rows.append({"case": f"split, {width}x{height} {name}, {parts} sub-devices", "device": whole.device.name,
                         "ms": round(ms_parts, 2), "runs": [round(t, 2) for t in runs],
                         "whole_ms": round(ms_whole, 2), "of_whole": round(ms_parts / ms_whole, 3)})


def case_mixed(args, rows):
    width, height = (int(v) for v in args.mixed_size.split("x"))
    alone = clf.Context(args.device)
    together = clf.contexts(args.mixed)
    image = noise_image(height, width, 4, 4)
    cases = [("RGBA box blur d=9", lambda c: clf.box_blur(image, 9, ctx=c)),
             ("RGBA bilateral r=4", lambda c: clf.bilateral(image, 3.0, 30.0, 4, ctx=c))]
    for name, run in cases:
        expected = run(alone)
        ms_alone, ms_together, runs = interleaved_medians(lambda: run(alone), lambda: run(together), args.runs)
        # The box blur is exact everywhere: bit for bit. The bilateral's contract is within 1 of its reference, and
        # a GPU and a CPU run different variants (and float code): each band within 1 of the one-device result.
        diff = int(np.abs(run(together).astype(np.int16) - expected.astype(np.int16)).max())
        assert diff <= ("bilateral" in name), f"{name}: {args.mixed} differs from {args.device} alone by {diff}"
        rows.append({"case": f"mixed, {width}x{height} {name}, on {args.mixed}", "device": alone.device.name,
                     "ms": round(ms_together, 1), "runs": [round(t, 1) for t in runs],
                     "alone_ms": round(ms_alone, 1), "of_alone": round(ms_together / ms_alone, 3),
                     "largest_difference": diff})


def case_batch(args, rows):
    import cv2  # only this case writes JPEGs

    with tempfile.TemporaryDirectory() as tmp:
        photo = cv2.resize(cv2.imread(os.path.join(REPO, "data", "astronaut.jpg")), (1920, 1080))
        files = []
        for i in range(args.photos):
            path = os.path.join(tmp, f"{i:05d}.jpg")
            noisy = np.clip(photo.astype(np.int16) + np.random.default_rng(i).integers(-3, 4, photo.shape), 0, 255)
            cv2.imwrite(path, noisy.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 95])
            files.append(path)
        device = ["--device", args.device] if args.device else []
        out = os.path.join(tmp, "out")
        start = time.perf_counter()
        subprocess.run([args.cli, "box-blur", *files, "-o", out, "-d", "9", *device], check=True,
                       stdout=subprocess.DEVNULL)
        batch_s = time.perf_counter() - start
        loop = files[: args.loop]
        start = time.perf_counter()
        for f in loop:
            subprocess.run([args.cli, "box-blur", f, os.path.join(tmp, "single.jpg"), "-d", "9", *device],
                           check=True, stdout=subprocess.DEVNULL)
        loop_s = time.perf_counter() - start
        rows.append({"case": f"batch, {args.photos} 1920x1080 JPEGs, box blur d=9, one process",
                     "device": args.device or "default", "ms": round(batch_s * 1e3), "photos_per_s":
                     round(args.photos / batch_s, 1), "loop_photos_per_s": round(len(loop) / loop_s, 2),
                     "loop_photos": len(loop)})


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cli", default=os.path.join(REPO, "build", "release", "tools", "clfilters"))
    p.add_argument("--device", default="", help="clfilters' device for bands and batch")
    p.add_argument("--cases", default="bands,split,batch")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--bands-size", default="32768x32768")
    p.add_argument("--cap", default="1G")
    p.add_argument("--split-device", default="pocl")
    p.add_argument("--split-size", default="8192x8192")
    p.add_argument("--parts", default="2,4")
    p.add_argument("--mixed", default="nvidia,pocl")
    p.add_argument("--mixed-size", default="16384x16384")
    p.add_argument("--photos", type=int, default=1000)
    p.add_argument("--loop", type=int, default=50)
    p.add_argument("--out", default="")
    args = p.parse_args()
    rows = []
    for case in args.cases.split(","):
        done = len(rows)
        {"bands": case_bands, "split": case_split, "mixed": case_mixed, "batch": case_batch}[case](args, rows)
        for r in rows[done:]:
            print(json.dumps(r), flush=True)
    if args.out:
        with open(args.out + ".json", "w") as f:
            json.dump({"command": " ".join(["python3", "bench/scale.py", *sys.argv[1:]]), "rows": rows}, f, indent=1)
        with open(args.out + ".md", "w") as f:
            f.write(f"`python3 bench/scale.py {' '.join(sys.argv[1:])}`\n\n")
            f.write("| case | device | ms (median) | against |\n| --- | --- | --- | --- |\n")
            for r in rows:
                against = (f"floor {r['floor_ms']} ms: {r['of_floor']}x" if "floor_ms" in r else
                           f"whole device {r['whole_ms']} ms: {r['of_whole']}x" if "whole_ms" in r else
                           f"{r['device']} alone {r['alone_ms']} ms: {r['of_alone']}x" if "alone_ms" in r else
                           f"{r['photos_per_s']} photos/s; single calls {r['loop_photos_per_s']} photos/s")
                f.write(f"| {r['case']} | {r['device']} | {r['ms']} | {against} |\n")


if __name__ == "__main__":
    main()
