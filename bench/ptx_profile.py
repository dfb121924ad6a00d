#!/usr/bin/env python3
"""Runs one of NVIDIA's OpenCL-built box blur kernels through CUDA, so that Nsight Compute can profile it.

Nsight Compute does not see OpenCL kernels (bench/NOTES.md, box blur step 29). But NVIDIA's OpenCL driver builds a
program into PTX, which clfilters' program cache keeps as the program's binary (bench/sass.py reads it too), and the
CUDA driver loads that PTX. Launched from CuPy with the arguments and the work-group shape box_blur.cpp gives it, the
same machine code runs where ncu can see it: warp stall reasons, issue rates and per-instruction samples. The output
is checked against an independent exact box blur in CuPy (replicate border) before any timing, so a wrong argument or
a PTX the CUDA driver reads differently shows as a mismatch, not as a figure.

Only fused_wide and fused_packed (box_fused_wide / box_fused_packed) without a ring are handled. Their __local pointer
parameter is given a dynamic shared-memory array: the PTX's load of that parameter is replaced by the array's address.

  python3 bench/ptx_profile.py PROGRAM.bin KERNEL --d 31 --items 4 --local-x 64 --pair 1 --strip 12 [--runs 50]
Prints: the entry's parameters, the check, and the kernel time (CUDA events, median of --runs after 10 warm-ups).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import cupy as cp
import numpy as np


def patched_ptx(path, kernel):
    with open(path, errors="replace") as f:
        text = f.read().rstrip("\x00")
    entry = re.search(r"\.entry\s+" + re.escape(kernel) + r"\s*\((.*?)\)", text, flags=re.S)
    if not entry:
        sys.exit(f"ptx_profile: no entry {kernel} in {path}")
    params = [p.strip() for p in entry.group(1).split(",")]
    print("entry parameters:")
    for p in params:
        print("  " + p)
    shared = [p.split()[-1] for p in params if ".shared" in p]
    if len(shared) != 1:
        sys.exit(f"ptx_profile: {len(shared)} __local parameters; only the row buffers' one is handled (ring=0)")
    for name in shared:
        text, n = re.subn(r"ld\.param\.(u32|u64)\s+(%\w+),\s*\[" + re.escape(name) + r"\];",
                          lambda m: f"mov.{m.group(1)} {m.group(2)}, clf_dynamic_local;", text)
        print(f"  {name}: {n} load(s) replaced by the dynamic shared array's address")
    # OpenCL-only parts CUDA's loader refuses (CUDA_ERROR_INVALID_IMAGE): the target's texmode_independent (these
    # kernels use no images), the parameters' .ptr state-space attributes and the %envreg registers. Only this entry is
    # kept; in the band kernels only %envreg0-2 are read, get_group_id's offsets, 0 here (no global offset).
    head = text[:text.index(".entry")]
    body = text[text.index(".entry " + kernel):]
    body = body[:body.find("\n.entry ")] if "\n.entry " in body else body
    others = sorted(set(re.findall(r"%envreg\d+", body)) - {"%envreg0", "%envreg1", "%envreg2"})
    if others:
        sys.exit(f"ptx_profile: {kernel} reads {others}, whose CUDA value is unknown")
    head = head.replace(", texmode_independent", "")
    head = head[:head.rindex("//")] if "// .globl" in head else head
    head += ".extern .shared .align 16 .b8 clf_dynamic_local[];\n\n.visible "
    body = re.sub(r"\.ptr\s+\.(global|shared)\s+\.align\s+\d+\s+", "", body)
    body, n = re.subn(r"mov\.b32\s+(%\w+),\s*%envreg\d+;", r"mov.b32 \1, 0;", body)
    print(f"  {n} %envreg reads replaced by 0")
    text = head + body
    out = tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False)
    out.write(text)
    out.close()
    return out.name, params


def assembled(ptx, kernel):
    """A cubin of the patched PTX by ptxas (sm_90, -O3, as the driver's JIT would build it), whose -v line gives the
    registers; main falls back to the PTX itself if CUDA refuses the cubin."""
    for tool in (shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas", *glob.glob("/usr/local/cuda*/bin/ptxas")):
        if tool and os.path.exists(tool):
            cubin = ptx[:-4] + ".cubin"
            run = subprocess.run([tool, "-arch=sm_90", "-O3", "-v", ptx, "-o", cubin], capture_output=True, text=True)
            lines = run.stderr.splitlines()
            at = next((i for i, l in enumerate(lines) if f"entry function '{kernel}'" in l), len(lines))
            print("ptxas: " + " ".join(l.split(":", 1)[-1].strip() for l in lines[at + 2:at + 4]))
            if run.returncode:
                sys.exit("ptx_profile: ptxas failed:\n" + run.stderr[-2000:])
            return cubin
    sys.exit("ptx_profile: no ptxas found")


def reference(src, d):
    """Exact box blur, replicate border, (s + n/2) / n: separable sums in int32 (no overflow at d <= 63)."""
    r = d // 2
    p = cp.pad(src.astype(cp.int32), ((r, r), (r, r), (0, 0)), mode="edge")
    c = cp.cumsum(p, axis=1, dtype=cp.int32)
    c = cp.concatenate([cp.zeros_like(c[:, :1]), c], axis=1)
    hs = c[:, d:] - c[:, :-d]
    c = cp.cumsum(hs, axis=0, dtype=cp.int32)
    c = cp.concatenate([cp.zeros_like(c[:1]), c], axis=0)
    s = c[d:] - c[:-d]
    n = d * d
    return ((s + n // 2) // n).astype(cp.uint8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ptx")
    ap.add_argument("kernel")
    ap.add_argument("--d", type=int, required=True)
    ap.add_argument("--items", type=int, required=True)
    ap.add_argument("--local-x", type=int, required=True)
    ap.add_argument("--pair", type=int, default=0)
    ap.add_argument("--mirror", type=int, default=1)
    ap.add_argument("--strip", type=int, required=True)
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--runs", type=int, default=50)
    a = ap.parse_args()

    path, params = patched_ptx(a.ptx, a.kernel)
    for image in (assembled(path, a.kernel), path):  # a cubin, else the driver's JIT of the PTX
        try:
            fn = cp.RawModule(path=image).get_function(a.kernel)
            break
        except cp.cuda.driver.CUDADriverError as e:
            print(f"  loading {os.path.basename(image)}: {e}")
    else:
        sys.exit("ptx_profile: CUDA loaded neither image")
    w = h = a.size
    d, items, lx = a.d, a.items, a.local_x
    r = d // 2
    # box_blur_spec.cpp's box_packed_shape and box_blur.cpp's launch_bands, for the band variants.
    win_a = (r + items - 1) // items * items - r
    halo = (win_a + d + items - 2) // items
    lanes = 2 if a.pair else 1
    entry_bytes = 2 * lx * (items // 2 + 1) * 16 * lanes
    if a.kernel == "box_fused_wide" and items * 255 * d < 65536:
        entry_bytes += 2 * lx * 8 * lanes
    tw = (lx - halo) * items
    groups_x = (w + tw - 1) // tw
    strips = (h + a.strip - 1) // a.strip
    groups_y = strips // 2 + 1 if a.pair else strips
    n = d * d
    magic, half_n = ((1 << 32) + n - 1) // n, (n // 2) * 0x10001
    print(f"grid {groups_x}x{groups_y}, block {lx}x{lanes}, dynamic local {entry_bytes} B, halo {halo}")

    rng = cp.random.default_rng(20261129)
    src = rng.integers(1, 256, size=(h, w, 4), dtype=cp.uint8)
    dst = cp.full((h, w, 4), 0xA5, dtype=cp.uint8)  # poison: unwritten pixels show
    shared_arg = [np.uint64(0) if ".u64" in p else np.uint32(0) for p in params if ".shared" in p]
    args = (src, dst, np.int32(w), np.int32(h), np.int32(d), np.int32(0), np.uint32(0), np.int32(a.strip),
            np.int32(a.mirror), np.uint32(magic), np.uint32(half_n), *shared_arg)
    if len(args) != len(params):
        sys.exit(f"ptx_profile: {len(params)} parameters, {len(args)} arguments")
    launch = lambda: fn((groups_x, groups_y), (lx, lanes, 1), args, shared_mem=entry_bytes)
    launch()
    cp.cuda.Device().synchronize()
    want = reference(src, d)
    bad = int(cp.count_nonzero(cp.any(dst != want, axis=2)))
    print(f"check against the CuPy reference: {bad} of {w * h} pixels differ")
    if bad:
        ys, xs = cp.nonzero(cp.any(dst != want, axis=2))
        print(f"  first at (x {int(xs[0])}, y {int(ys[0])}): got {dst[ys[0], xs[0]].get()}, want {want[ys[0], xs[0]].get()}")
        sys.exit(1)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for i in range(10 + a.runs):
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        if i >= 10:
            times.append(cp.cuda.get_elapsed_time(start, stop))
    med = float(np.median(times))
    print(f"kernel median {med:.4f} ms (min {min(times):.4f}), {8 * w * h / med / 1e6:.0f} GB/s")


if __name__ == "__main__":
    main()
