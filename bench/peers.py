#!/usr/bin/env python3
"""clfilters against what a user would pick instead, on the same GPU in the same run (issue 8).

Both sides use device-resident data and the host wall time of a synchronised call, the median of 50
calls after 10 warm-ups; same sizes, parameters and border mode (replicate). clfilters' figure is the
`call_ms` median of `clfilters bench --variants auto` (enqueue to clFinish). Peers:
  OpenCV's OpenCL path (cv2.UMat on the NVIDIA OpenCL device), CuPy (cupyx.scipy.ndimage), and PyTorch
  written by hand. A peer that is not installed, or fails, is reported as such, never silently dropped.

Usage: bench/peers.py --cli build/release/tools/clfilters --out PREFIX   (writes PREFIX.md and PREFIX.json)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OPENCV_OPENCL_DEVICE", ":GPU:")

WARMUP, RUNS = 10, 50


def timed(fn, sync):
    for _ in range(WARMUP):
        fn()
    sync()
    samples = []
    for _ in range(RUNS):
        t = time.perf_counter()
        fn()
        sync()
        samples.append((time.perf_counter() - t) * 1e3)
    return statistics.median(samples)


def photo(h, w, c, seed=1):
    """A photograph-like test image: gradients, blocks with hard edges, texture, noise."""
    import numpy as np
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    img = 40 + 170 * (0.6 * x / max(w - 1, 1) + 0.4 * y / max(h - 1, 1))
    img = img + 18 * np.sin(0.35 * x + 0.21 * y)
    for _ in range(12):
        cy, cx = rng.integers(0, h), rng.integers(0, w)
        ry, rx = rng.integers(h // 30 + 1, h // 5 + 2), rng.integers(w // 30 + 1, w // 5 + 2)
        img[max(0, cy - ry):cy + ry, max(0, cx - rx):cx + rx] = rng.uniform(0, 255)
    img = img[..., None] + rng.normal(0, 6, (h, w, c)).astype(np.float32)
    out = np.clip(np.rint(img), 0, 255).astype(np.uint8)
    return out if c > 1 else out[..., 0]


def clfilters_ms(cli, filt, params, w, h):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        cmd = [cli, "bench", filt, "--variants", "auto", "--sizes", f"{w}x{h}", "--warmup", str(WARMUP),
               "--runs", str(RUNS), "--total-runs", "3", "--cpu-runs", "0", "--format", "json", "--out", out]
        if params:
            cmd += ["--params", params]
        env = dict(os.environ, CLFILTERS_DEVICE=os.environ.get("CLFILTERS_DEVICE", "nvidia"))
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
        rows = [r for r in json.load(open(out))["rows"] if r["status"] == "ok"]
        return (rows[0]["call_ms"]["median"], rows[0]["resolved"]) if rows else (None, "failed")


def peer(name, make):
    """Returns (name, ms or error text). `make` returns (fn, sync) or raises."""
    try:
        fn, sync = make()
        return name, timed(fn, sync)
    except Exception as e:  # a missing or failing peer is reported, not hidden
        return name, f"n/a ({type(e).__name__}: {str(e).splitlines()[0][:60] if str(e) else ''})"


def opencv(fn_of_umat, img):
    import cv2
    cv2.ocl.setUseOpenCL(True)
    if not cv2.ocl.useOpenCL():
        raise RuntimeError("OpenCV has no OpenCL device")
    u = cv2.UMat(img)
    return (lambda: fn_of_umat(u)), cv2.ocl.finish


def cupy_peer(fn_of_array, img):
    import cupy as cp
    a = cp.asarray(img)
    return (lambda: fn_of_array(a)), cp.cuda.Device().synchronize


def torch_peer(fn_of_tensor, img):
    import torch
    t = torch.from_numpy(img).cuda()
    return (lambda: fn_of_tensor(t)), torch.cuda.synchronize


def box_cases(d):
    def cv(img):
        import cv2
        return opencv(lambda u: cv2.blur(u, (d, d), borderType=cv2.BORDER_REPLICATE), img)

    def cupy(img):
        from cupyx.scipy import ndimage
        return cupy_peer(lambda a: ndimage.uniform_filter(a, size=(d, d, 1), mode="nearest"), img)

    def torch_box(img):
        import torch.nn.functional as F

        def run(t):
            x = t.permute(2, 0, 1)[None].float()
            x = F.pad(x, (d // 2, (d - 1) // 2, d // 2, (d - 1) // 2), mode="replicate")
            return F.avg_pool2d(x, d, stride=1).round_().to(t.dtype)
        return torch_peer(run, img)
    return ("box-blur", f"diameter={d},channels=4,border=replicate", 4, {"opencv": cv, "cupy": cupy, "torch": torch_box})


def sobel_case():
    def cv(img):
        import cv2
        return opencv(lambda u: (cv2.Sobel(u, cv2.CV_16S, 1, 0, ksize=3, borderType=cv2.BORDER_REPLICATE),
                                 cv2.Sobel(u, cv2.CV_16S, 0, 1, ksize=3, borderType=cv2.BORDER_REPLICATE)), img)

    def cupy(img):
        import cupy as cp
        from cupyx.scipy import ndimage

        def run(a):
            a16 = a.astype(cp.int16)
            return ndimage.sobel(a16, axis=1, mode="nearest"), ndimage.sobel(a16, axis=0, mode="nearest")
        return cupy_peer(run, img)

    def torch_sobel(img):
        import torch
        import torch.nn.functional as F
        k = torch.tensor([[[[-1., 0., 1.], [-2., 0., 2.], [-1., 0., 1.]]]], device="cuda")
        w = torch.cat([k, k.transpose(2, 3)])

        def run(t):
            x = F.pad(t[None, None].float(), (1, 1, 1, 1), mode="replicate")
            return F.conv2d(x, w).to(torch.int16)
        return torch_peer(run, img)
    return ("sobel", "output=gradients,border=replicate", 1, {"opencv": cv, "cupy": cupy, "torch": torch_sobel})


def bilateral_case(channels):
    def cv(img):
        import cv2
        src = img if channels == 1 else img[..., :3].copy()  # OpenCV's bilateral takes 1 or 3 channels
        return opencv(lambda u: cv2.bilateralFilter(u, 9, 30, 3, borderType=cv2.BORDER_REPLICATE), src)
    return ("bilateral", f"sigma_spatial=3,sigma_range=30,radius=4,channels={channels},border=replicate", channels,
            {"opencv": cv})


def epsilon_case():
    def torch_eps(img):
        import torch
        import torch.nn.functional as F

        def run(t):
            x = F.pad(t[None, None].float(), (4, 4, 4, 4), mode="replicate")
            win = F.unfold(x, 9)  # 1 x 81 x (H*W)
            c = t.reshape(1, 1, -1).float()
            mask = (win - c).abs() <= 20
            s = (win * mask).sum(1)
            n = mask.sum(1)
            return torch.div(s + n // 2, n, rounding_mode="floor").to(torch.uint8)
        return torch_peer(run, img)
    return ("epsilon", "radius=4,threshold=20,channels=1,border=replicate", 1, {"torch": torch_eps})


def jacobi_case():
    def cupy_jacobi(img):
        import cupy as cp
        e = cp.asarray(img.astype("float32"))
        u = cp.zeros_like(e)
        nxt = cp.zeros_like(e)

        def run(_):
            # 100 one-step Jacobi iterations with zero outside, by slicing (what a user writes in CuPy).
            a, b = u, nxt
            for _ in range(100):
                b[...] = -e
                b[1:, :] += a[:-1, :]
                b[:-1, :] += a[1:, :]
                b[:, 1:] += a[:, :-1]
                b[:, :-1] += a[:, 1:]
                b *= 0.25
                a, b = b, a
        return cupy_peer(run, img)
    return ("reconstruct", "iterations=100", 1, {"cupy": cupy_jacobi})


def cases():
    """(filter, clfilters params, channels, {peer: make(img) -> (fn, sync)})"""
    yield box_cases(3)
    yield box_cases(9)
    yield box_cases(31)
    yield sobel_case()
    yield bilateral_case(1)
    yield bilateral_case(4)
    yield epsilon_case()
    yield jacobi_case()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="1920x1080,8192x8192")
    args = ap.parse_args()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    results = []
    for filt, params, channels, peers in cases():
        for w, h in sizes:
            img = photo(h, w, channels)
            try:
                ours, variant = clfilters_ms(args.cli, filt, params, w, h)
            except Exception as e:  # a filter this build lacks, or a failure: reported, not hidden
                ours, variant = None, f"failed: {e}"
            row = {"filter": filt, "params": params, "size": f"{w}x{h}", "clfilters_ms": ours, "variant": variant,
                   "peers": dict(peer(n, lambda m=make: m(img)) for n, make in peers.items())}
            numeric = [v for v in row["peers"].values() if isinstance(v, float)]
            row["best_peer_ms"] = min(numeric) if numeric else None
            row["ratio"] = row["best_peer_ms"] / ours if numeric and ours else None
            results.append(row)
            print(json.dumps(row), flush=True)
    names = sorted({n for r in results for n in r["peers"]})
    lines = ["| filter | params | size | clfilters ms (variant) | " + " | ".join(f"{n} ms" for n in names) +
             " | best peer / clfilters |", "|" + "---|" * (5 + len(names))]
    for r in results:
        cells = [f"{r['peers'][n]:.3f}" if isinstance(r['peers'].get(n), float) else str(r['peers'].get(n, '-'))
                 for n in names]
        ours = f"{r['clfilters_ms']:.3f} ({r['variant']})" if r["clfilters_ms"] else "failed"
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] else "-"
        lines.append(f"| {r['filter']} | {r['params']} | {r['size']} | {ours} | " + " | ".join(cells) + f" | {ratio} |")
    table = "\n".join(lines)
    with open(args.out + ".json", "w") as f:
        json.dump(results, f, indent=1)
    with open(args.out + ".md", "w") as f:
        f.write(f"# clfilters and its peers, same GPU, same run\n\nCommand: `python3 bench/peers.py --cli {args.cli} "
                f"--out PREFIX --sizes {args.sizes}` (via bench/run-gpu.sh)\n\nHost wall time of a synchronised "
                f"device-resident call, median of {RUNS} after {WARMUP} warm-ups.\n\n{table}\n")
    print(table)


if __name__ == "__main__":
    sys.exit(main())
