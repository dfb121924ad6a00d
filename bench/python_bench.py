#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""clfilters from Python: the binding's cost per call, and a box blur from NumPy against OpenCV's.

1. Overhead at 64x64 (RGBA and grey, d = 3): a Python call against the same work timed in C++ with no Python
   in between (clfilters._clfilters._time_cpp_box_blur), interleaved in blocks, medians. "array": box_blur(a)
   from a NumPy array to a new one (the binding's in-place path: buffers over the arrays' memory on a CPU
   device, else an upload and a download); its C++ twin allocates the output, makes the buffers, runs the call
   and maps or reads the result. "device": box_blur(d, out=o) on DeviceImages, then Context.finish(); its C++
   twin is clf::box_blur on the same device images and clFinish. The difference is what Python adds.
2. Host to host: clf.box_blur(a) against cv2.blur(a) on NumPy (OpenCV's CPU code and threads) and through
   cv2.UMat (OpenCV's OpenCL path: upload, blur, download), on the same arrays, replicate borders, d = 9,
   medians after warm-ups, the calls interleaved. The largest difference from clfilters' output is shown (OpenCV rounds its own way).

Usage: bench/python_bench.py [--device pocl] [--sizes 1920x1080,3840x2160] [--channels 3 or 4,3]
(PYTHONPATH=build/release/python for the module built by the release preset). OpenCV's OpenCL device is
$OPENCV_OPENCL_DEVICE, else the first GPU, else the first CPU.
"""
import argparse
import os
import statistics
import time

import numpy as np

import clfilters as clf
from clfilters import _clfilters


def median_us(seconds):
    return statistics.median(seconds) * 1e6


def python_times(fn, runs):
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def overhead(ctx, runs, blocks):
    rng = np.random.default_rng()
    print("| 64x64, d = 3 | Python call (us) | same work in C++ (us) | Python adds (us) |")
    print("|---|---|---|---|")
    for channels in (4, 1):
        shape = (64, 64, 4) if channels == 4 else (64, 64)
        a = rng.integers(0, 256, shape, dtype=np.uint8)
        d = clf.DeviceImage.upload(ctx, a)
        o = clf.DeviceImage.upload(ctx, a)

        def device_call():
            clf.box_blur(d, diameter=3, out=o)
            ctx.finish()

        cases = {
            "array": (lambda: clf.box_blur(a, diameter=3, ctx=ctx), a),
            "device": (device_call, d),
        }
        for name, (fn, img) in cases.items():
            py, cpp = [], []
            python_times(fn, 20)  # warm-up: programs built, caches filled
            _clfilters._time_cpp_box_blur(img, 3, 20, ctx)
            for _ in range(blocks):
                py += python_times(fn, runs)
                cpp += _clfilters._time_cpp_box_blur(img, 3, runs, ctx)
            p, c = median_us(py), median_us(cpp)
            print(f"| {name}, {channels} channel(s) | {p:.1f} | {c:.1f} | {p - c:.1f} |")


def interleaved_ms(fns, runs):
    """Median milliseconds of each of `fns`, called in turn `runs` times after warm-ups, so that a change of the
    machine's load (other processes on the same cores) reaches every candidate alike."""
    times = [[] for _ in fns]
    for fn in fns:
        python_times(fn, 3)
    for _ in range(runs):
        for fn, out in zip(fns, times):
            out += python_times(fn, 1)
    return [median_us(t) / 1e3 for t in times]


def host_to_host(ctx, sizes, channels_list, runs):
    import cv2

    os.environ.setdefault("OPENCV_OPENCL_DEVICE", "")
    cv2.ocl.setUseOpenCL(True)
    ocl = cv2.ocl.Device.getDefault().name() if cv2.ocl.haveOpenCL() else ""
    print(f"\nclfilters on {ctx.device.name}; OpenCV {cv2.__version__} CPU with {cv2.getNumThreads()} threads, "
          f"UMat on {ocl or 'no OpenCL device'}; calls interleaved, load average before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| size | clf.box_blur (ms) | cv2.blur (ms) | cv2.blur UMat (ms) | largest difference (CPU, UMat) |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng()
    for size in sizes:
        w, h = map(int, size.split("x"))
        # Every channel count's calls of one size interleaved together, so that their ratio sees one load.
        cases = []
        for channels in channels_list:
            a = rng.integers(0, 256, (h, w, channels) if channels > 1 else (h, w), dtype=np.uint8)
            fns = [
                lambda a=a: clf.box_blur(a, diameter=9, ctx=ctx),
                lambda a=a: cv2.blur(a, (9, 9), borderType=cv2.BORDER_REPLICATE),
            ]
            if ocl:
                fns.append(lambda a=a: cv2.blur(cv2.UMat(a), (9, 9), borderType=cv2.BORDER_REPLICATE).get())
            cases.append((channels, fns))
        times = interleaved_ms([fn for _, fns in cases for fn in fns], runs)
        for channels, fns in cases:
            row = [f"{times.pop(0):.2f}" for _ in fns] + ([] if ocl else ["n/a"])
            ref = fns[0]().astype(int)
            diffs = [np.abs(fn().astype(int) - ref).max() for fn in fns[1:]]
            print(f"| {w}x{h}x{channels} | {' | '.join(row)} | {', '.join(map(str, diffs))} |")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=os.environ.get("CLFILTERS_DEVICE", ""))
    ap.add_argument("--sizes", default="1920x1080,3840x2160")
    ap.add_argument("--channels", default="3", help="channels of the arrays, or a list: 4,3")
    ap.add_argument("--runs", type=int, default=20, help="host-to-host calls per measurement")
    ap.add_argument("--overhead-runs", type=int, default=100, help="calls per block of the overhead figure")
    ap.add_argument("--blocks", type=int, default=5)
    ap.add_argument("--skip-overhead", action="store_true")
    ap.add_argument("--skip-opencv", action="store_true")
    args = ap.parse_args()
    ctx = clf.Context(args.device)
    ctx.profiling = False
    if not args.skip_overhead:
        overhead(ctx, args.overhead_runs, args.blocks)
    if not args.skip_opencv:
        host_to_host(ctx, args.sizes.split(","), [int(c) for c in args.channels.split(",")], args.runs)


if __name__ == "__main__":
    main()
