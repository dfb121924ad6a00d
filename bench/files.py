#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""File to file: `clfilters box-blur IN OUT --diameter 9` against the same job in an OpenCV Python script.

Both sides run as subprocesses, so both pay process start-up, library loading and (clfilters) OpenCL
platform start-up; each timing is the wall time of one whole process. The runs are interleaved
(clfilters, OpenCV, clfilters, OpenCV, ...) and the table gives medians, so a slow spell of the machine hits
both sides alike. One untimed run of each first fills the caches (PoCL's program cache, the page cache).

Input: data/astronaut.jpg upscaled to 3840x2160 (bicubic) with light fixed-seed noise, so that it is not
unrealistically smooth for PNG; written once to a temporary folder as JPEG (quality 95) and PNG.

The OpenCV script is what a user would write: cv2.imread, cv2.blur((d, d), BORDER_REPLICATE), cv2.imwrite
with OpenCV's defaults (JPEG quality 95 4:2:0; PNG zlib level 1, Sub filter, Z_RLE). clfilters' box blur is
the rounded mean with the replicate border (its default), as cv2.blur is on 8-bit images, so the PNG
outputs must be identical pixel for pixel; the JPEG outputs are compared by PSNR (clfilters writes 4:4:4 at
quality >= 90, OpenCV 4:2:0).

With --batch N, also N copies of each input in one process on both sides: `clfilters box-blur IN... -o DIR`
against the script looping over the files (its Python and cv2 start once too).

Usage: python3 bench/files.py [--cli build/release/tools/clfilters] [--runs 5] [--diameter 9] [--batch 8]
Needs OpenCV for Python (Debian: apt-get install python3-opencv); if this Python lacks cv2, the script
runs itself again under /usr/bin/python3.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import cv2
    import numpy as np
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    sys.exit("bench/files.py needs OpenCV for Python (Debian: apt-get install python3-opencv)")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

OPENCV_SCRIPT = """
import sys, cv2
img = cv2.imread(sys.argv[1], cv2.IMREAD_COLOR)
d = int(sys.argv[3])
out = cv2.blur(img, (d, d), borderType=cv2.BORDER_REPLICATE)
if not cv2.imwrite(sys.argv[2], out):
    sys.exit("cv2.imwrite failed")
"""

OPENCV_BATCH_SCRIPT = """
import os, sys, cv2
d, folder = int(sys.argv[1]), sys.argv[2]
for path in sys.argv[3:]:
    out = cv2.blur(cv2.imread(path, cv2.IMREAD_COLOR), (d, d), borderType=cv2.BORDER_REPLICATE)
    if not cv2.imwrite(os.path.join(folder, os.path.basename(path)), out):
        sys.exit("cv2.imwrite failed")
"""


def make_input(folder, width, height):
    src = cv2.imread(os.path.join(REPO, "data", "astronaut.jpg"), cv2.IMREAD_COLOR)
    big = cv2.resize(src, (width, height), interpolation=cv2.INTER_CUBIC)
    noise = np.random.default_rng(1).normal(0, 2.0, big.shape)
    big = np.clip(big.astype(np.float64) + noise, 0, 255).astype(np.uint8)
    paths = {"jpeg": os.path.join(folder, "in.jpg"), "png": os.path.join(folder, "in.png")}
    cv2.imwrite(paths["jpeg"], big, [cv2.IMWRITE_JPEG_QUALITY, 95])
    cv2.imwrite(paths["png"], big)
    return paths


def timed(cmd):
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr}")
    return seconds


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255.0**2 / mse)


def time_batch(args, folder, source, case, ext, d, size):
    """N copies of `source`, each side in one process; the outputs must agree as the single files do."""
    batch = os.path.join(folder, f"batch-{case}")
    os.makedirs(batch, exist_ok=True)
    files = []
    for i in range(args.batch):
        files.append(os.path.join(batch, f"{i}.{ext}"))
        if not os.path.exists(files[-1]):
            os.link(source, files[-1])
    out_clf, out_cv = os.path.join(folder, f"clf-{case}"), os.path.join(folder, f"cv-{case}")
    os.makedirs(out_cv, exist_ok=True)
    clf = [args.cli, "box-blur", *files, "-o", out_clf, "--diameter", d, *args.clfilters_args.split()]
    ocv = [sys.executable, "-c", OPENCV_BATCH_SCRIPT, d, out_cv, *files]
    timed(clf), timed(ocv)
    times = {"clf": [], "cv": []}
    for _ in range(args.runs):
        times["clf"].append(timed(clf))
        times["cv"].append(timed(ocv))
    first = os.path.basename(files[0])
    a = cv2.imread(os.path.join(out_clf, first), cv2.IMREAD_COLOR)
    b = cv2.imread(os.path.join(out_cv, first), cv2.IMREAD_COLOR)
    agree = ("identical" if np.array_equal(a, b) else "DIFFER") if case == "png" else f"PSNR {psnr(a, b):.1f} dB"
    t_clf, t_cv = statistics.median(times["clf"]), statistics.median(times["cv"])
    size_clf = sum(os.path.getsize(os.path.join(out_clf, os.path.basename(f))) for f in files)
    size_cv = sum(os.path.getsize(os.path.join(out_cv, os.path.basename(f))) for f in files)
    return (f"{args.batch} x {case} {size} d={d}, one process", t_clf, t_cv, t_clf / t_cv, size_clf, size_cv, agree,
            min(times["clf"]), max(times["clf"]), min(times["cv"]), max(times["cv"]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", default=os.path.join(REPO, "build", "release", "tools", "clfilters"))
    p.add_argument("--runs", type=int, default=5, help="timed runs of each side per case (default 5)")
    p.add_argument("--diameter", type=int, default=9)
    p.add_argument("--size", default="3840x2160")
    p.add_argument("--cases", default="jpeg,png")
    p.add_argument("--clfilters-args", default="", help="extra arguments for clfilters, e.g. '--device pocl'")
    p.add_argument("--batch", type=int, default=0, help="also time N copies of each input in one process")
    args = p.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    if not os.access(args.cli, os.X_OK):
        sys.exit(f"no clfilters at {args.cli} (build it, or pass --cli)")

    rows = []
    with tempfile.TemporaryDirectory(prefix="clf-files-") as folder:
        inputs = make_input(folder, width, height)
        for case in args.cases.split(","):
            ext = {"jpeg": "jpg", "png": "png"}[case]
            out_clf, out_cv = os.path.join(folder, f"clf.{ext}"), os.path.join(folder, f"cv.{ext}")
            d = str(args.diameter)
            clf = [args.cli, "box-blur", inputs[case], out_clf, "--diameter", d, *args.clfilters_args.split()]
            ocv = [sys.executable, "-c", OPENCV_SCRIPT, inputs[case], out_cv, d]
            timed(clf), timed(ocv)  # warm-up: program cache, page cache
            times = {"clf": [], "cv": []}
            for _ in range(args.runs):
                times["clf"].append(timed(clf))
                times["cv"].append(timed(ocv))
            a, b = cv2.imread(out_clf, cv2.IMREAD_COLOR), cv2.imread(out_cv, cv2.IMREAD_COLOR)
            if case == "png":
                agree = "identical" if np.array_equal(a, b) else f"DIFFER (max {int(np.abs(a.astype(int) - b).max())})"
            else:
                agree = f"PSNR {psnr(a, b):.1f} dB"
            t_clf, t_cv = statistics.median(times["clf"]), statistics.median(times["cv"])
            rows.append((f"{case} {width}x{height} d={d}", t_clf, t_cv, t_clf / t_cv, os.path.getsize(out_clf),
                         os.path.getsize(out_cv), agree, min(times["clf"]), max(times["clf"]), min(times["cv"]),
                         max(times["cv"])))
            if args.batch > 0:
                rows.append(time_batch(args, folder, inputs[case], case, ext, d, f"{width}x{height}"))

    print(f"clfilters: {args.cli}; OpenCV {cv2.__version__} ({cv2.getNumThreads()} threads); "
          f"median of {args.runs} interleaved runs, wall time of the whole process")
    print()
    print("| case | clfilters s | OpenCV s | ratio | output MB clfilters / OpenCV | outputs |")
    print("|---|---|---|---|---|---|")
    for case, t_clf, t_cv, ratio, size_clf, size_cv, agree, *_ in rows:
        print(f"| {case} | {t_clf:.3f} | {t_cv:.3f} | {ratio:.2f} | {size_clf / 1e6:.1f} / {size_cv / 1e6:.1f} "
              f"| {agree} |")
    print()
    for case, *_, lo_clf, hi_clf, lo_cv, hi_cv in rows:
        print(f"{case}: clfilters {lo_clf:.3f}-{hi_clf:.3f} s, OpenCV {lo_cv:.3f}-{hi_cv:.3f} s")
    if any(r[6].startswith("DIFFER") for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
