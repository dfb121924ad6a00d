#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""clfilters against what a user would pick instead, on the same device in the same run.

Fair by construction:
- Same bytes. `clfilters bench --save-inputs DIR` writes the exact input each case ran on (what its
  synthetic_photo drew) with its SHA-256; the peers load that file and the hash is checked before they
  run. The Jacobi peer derives the edge map from that photo exactly as clfilters does (integer-valued, so
  exact in float32; checked against `clfilters edges`).
- Same method. Both sides: device-resident input, host wall time of one synchronised call, median of 50
  calls after 10 warm-ups. clfilters' figure is `call_ms` of `clfilters bench --variants auto` (enqueue to
  completion on a queue without profiling, as the peers' queues and streams run); a peer's is
  perf_counter around fn() + device synchronise.
- Same computation. Same parameters and replicate borders; at sizes up to --check-max-pixels each peer's
  output is compared with clfilters' output (the filter's command on the same input) and the largest
  absolute difference is in the table. Known differences in what a peer computes are listed in the notes.

Peers: OpenCV's OpenCL path (cv2.UMat, OPENCV_OPENCL_DEVICE, default :GPU:), CuPy (cupyx.scipy.ndimage, and
a slicing Jacobi step), and PyTorch written by hand (avg_pool2d, conv2d, unfold). On request (--peers opencv-cpu)
also OpenCV's CPU path (the same calls on NumPy arrays, OpenCV's own threads): what a user without a GPU would
pick instead of clfilters on PoCL. A peer that is missing or
fails is reported as such, never dropped. Limits that keep the run short: a peer whose single call takes
over 1 s is skipped and reported; nothing starts after --deadline seconds (default 400), and what is left
is reported as "not run (deadline)".

Usage: bench/peers.py --cli build/release/tools/clfilters --out PREFIX   (writes PREFIX.md and PREFIX.json)
Local check on PoCL: bench/peers.py --cli ... --out /tmp/p --sizes 320x240 --device pocl --opencv-device :CPU:
Against OpenCV's CPU path on a machine without a GPU: bench/peers.py --cli ... --out /tmp/p --sizes 1920x1080
  --device pocl --peers opencv-cpu
"""
import argparse
import datetime
import hashlib
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

WARMUP, RUNS = 10, 50
GUARD_S = 1.0  # a peer whose single call takes longer is skipped
JACOBI_ITERATIONS = 100  # jacobi_spec.cpp's bench case: iterations=100 from a zero iterate


class Unavailable(Exception):
    """A peer that cannot run here (not installed, no device): reported in its cells."""


# ---- peers: each make(...) returns (fn, sync, to_numpy); fn() runs one call on device-resident data ----

_modules = {}


def peer_module(name, args):
    """Imports a peer once; raises Unavailable with the reason (remembered) if it cannot run."""
    if name not in _modules:
        try:
            if name == "opencv":
                import cv2
                cv2.ocl.setUseOpenCL(True)
                if not cv2.ocl.useOpenCL():
                    raise Unavailable(f"no OpenCL device matching OPENCV_OPENCL_DEVICE={args.opencv_device}")
                dev = cv2.ocl.Device.getDefault()
                _modules[name] = (cv2, f"OpenCV {cv2.__version__}, OpenCL device {dev.name()} ({dev.version()})")
            elif name == "opencv-cpu":
                import cv2
                _modules[name] = (cv2, f"OpenCV {cv2.__version__}, CPU path ({cv2.getNumThreads()} threads)")
            elif name == "cupy":
                import cupy
                from cupyx.scipy import ndimage  # noqa: F401
                cupy.cuda.Device(0).use()
                props = cupy.cuda.runtime.getDeviceProperties(0)
                _modules[name] = (cupy, f"CuPy {cupy.__version__}, {props['name'].decode()}")
            elif name == "torch":
                import torch
                if args.torch_device.startswith("cuda") and not torch.cuda.is_available():
                    raise Unavailable("torch has no CUDA device")
                where = torch.cuda.get_device_name() if args.torch_device.startswith("cuda") else "CPU (test only)"
                _modules[name] = (torch, f"PyTorch {torch.__version__}, {where}")
        except Unavailable as e:
            _modules[name] = e
        except Exception as e:  # ImportError, a CUDA driver error, ...
            _modules[name] = Unavailable(f"{type(e).__name__}: {first_line(e)}")
    if isinstance(_modules[name], Unavailable):
        raise _modules[name]
    return _modules[name][0]


def first_line(e):
    text = str(e).strip()
    return text.splitlines()[0][:100] if text else ""


def opencv_peer(args, img, call, out):
    cv2 = peer_module("opencv", args)
    u = cv2.UMat(img)
    return (lambda: call(cv2, u)), cv2.ocl.finish, out


def opencv_cpu_peer(args, img, call, out):
    """The same call as opencv_peer's on a NumPy array: OpenCV runs it on the CPU, whatever setUseOpenCL says."""
    cv2 = peer_module("opencv-cpu", args)
    return (lambda: call(cv2, img)), (lambda: None), out


def opencv_peers(img_of, call, out=lambda r, get: get(r)):
    """OpenCV's OpenCL path and its CPU path for one call. img_of(img) is what OpenCV takes of the input;
    out(result, get) makes the result NumPy, get(array) being UMat.get on the OpenCL path."""
    return {"opencv": lambda args, img: opencv_peer(args, img_of(img), call, lambda r: out(r, lambda a: a.get())),
            "opencv-cpu": lambda args, img: opencv_cpu_peer(args, img_of(img), call, lambda r: out(r, lambda a: a))}


def cupy_peer(args, img, call, out=lambda r: r.get()):
    cp = peer_module("cupy", args)
    from cupyx.scipy import ndimage
    a = cp.asarray(img)
    cp.cuda.Device().synchronize()
    return (lambda: call(cp, ndimage, a)), cp.cuda.Device().synchronize, out


def torch_peer(args, img, call, out=lambda r: r.cpu().numpy()):
    torch = peer_module("torch", args)
    t = torch.from_numpy(img).to(args.torch_device)
    sync = torch.cuda.synchronize if args.torch_device.startswith("cuda") else (lambda: None)
    sync()
    return (lambda: call(torch, t)), sync, out


def box_peers(d):
    def cupy(args, img):
        # Separable, on uint8 as a user calls it: the row pass's mean is stored as uint8 before the column pass.
        return cupy_peer(args, img, lambda cp, nd, a: nd.uniform_filter(a, size=(d, d, 1), mode="nearest"))

    def torch(args, img):
        def call(torch, t):
            import torch.nn.functional as F
            x = t.permute(2, 0, 1)[None].float()  # HxWx4 uint8 -> 1x4xHxW float
            x = F.pad(x, (d // 2, (d - 1) // 2, d // 2, (d - 1) // 2), mode="replicate")
            y = F.avg_pool2d(x, d, stride=1).round_().to(torch.uint8)
            return y[0].permute(1, 2, 0).contiguous()  # back to the HxWx4 bytes clfilters writes
        return torch_peer(args, img, call)
    return {**opencv_peers(lambda img: img, lambda cv2, u: cv2.blur(u, (d, d), borderType=cv2.BORDER_REPLICATE)),
            "cupy": cupy, "torch": torch}


def sobel_peers():
    def opencv_call(cv2, u):
        return (cv2.Sobel(u, cv2.CV_16S, 1, 0, ksize=3, borderType=cv2.BORDER_REPLICATE),
                cv2.Sobel(u, cv2.CV_16S, 0, 1, ksize=3, borderType=cv2.BORDER_REPLICATE))

    def cupy(args, img):
        def call(cp, nd, a):
            return (nd.sobel(a, axis=1, output=cp.int16, mode="nearest"),
                    nd.sobel(a, axis=0, output=cp.int16, mode="nearest"))
        return cupy_peer(args, img, call, lambda r: stack2(r[0].get(), r[1].get()))

    def torch(args, img):
        torch_ = peer_module("torch", args)
        k = torch_.tensor([[[[-1., 0., 1.], [-2., 0., 2.], [-1., 0., 1.]]]], device=args.torch_device)
        w = torch_.cat([k, k.transpose(2, 3)])  # gx and gy as two output channels

        def call(torch, t):
            import torch.nn.functional as F
            x = F.pad(t[None, None].float(), (1, 1, 1, 1), mode="replicate")
            return F.conv2d(x, w).to(torch.int16)  # 1x2xHxW: two planes, as clfilters keeps them on the device
        return torch_peer(args, img, call, lambda r: r[0].permute(1, 2, 0).cpu().numpy())
    opencv = opencv_peers(lambda img: img, opencv_call, lambda r, get: stack2(get(r[0]), get(r[1])))
    return {**opencv, "cupy": cupy, "torch": torch}


def stack2(gx, gy):
    import numpy as np
    return np.stack([gx, gy], axis=-1)


def bilateral_peers(channels, sigma_spatial, sigma_range, radius):
    # OpenCV's bilateralFilter takes 1 or 3 channels: RGBA runs as the same image's RGB bytes.
    return opencv_peers(lambda img: img if channels == 1 else img[..., :3].copy(),
                        lambda cv2, u: cv2.bilateralFilter(u, 2 * radius + 1, sigmaColor=sigma_range,
                                                           sigmaSpace=sigma_spatial, borderType=cv2.BORDER_REPLICATE))


def epsilon_peers(radius, threshold):
    def torch(args, img):
        k = 2 * radius + 1

        def call(torch, t):
            import torch.nn.functional as F
            h, w = t.shape
            x = F.pad(t[None, None].float(), (radius,) * 4, mode="replicate")
            out = torch.empty_like(t)
            # unfold makes k*k floats per pixel; rows in chunks of at most 2^30 of them (4 GiB)
            step = max(1, (1 << 30) // (k * k * w))
            for y0 in range(0, h, step):
                y1 = min(h, y0 + step)
                win = F.unfold(x[:, :, y0:y1 + 2 * radius], k)  # 1 x k*k x (rows*w)
                c = win[:, (k * k) // 2:(k * k) // 2 + 1]  # the centre tap
                mask = (win - c).abs_() <= threshold
                n = mask.sum(1)
                s = (win * mask).sum(1).to(torch.int64)
                out[y0:y1] = torch.div(s + n // 2, n, rounding_mode="floor").view(y1 - y0, w).to(torch.uint8)
            return out
        return torch_peer(args, img, call)
    return {"torch": torch}


def jacobi_edges(photo):
    """SPEC's edge map of the grey photo, zero outside: integer-valued, so exact in float32."""
    import numpy as np
    u = np.pad(photo.astype(np.float32), 1)
    return (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]).astype(np.float32)


def jacobi_peers():
    def cupy(args, photo):
        cp = peer_module("cupy", args)
        h, w = photo.shape
        e = cp.asarray(jacobi_edges(photo))
        bufs = [cp.zeros((h + 2, w + 2), cp.float32), cp.zeros((h + 2, w + 2), cp.float32)]  # zero ring outside

        def call(cp, nd, _):
            a, b = bufs
            a.fill(0)  # every call starts from the zero iterate, as clfilters' bench call does
            for _ in range(JACOBI_ITERATIONS):
                b[1:-1, 1:-1] = (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - e) * 0.25
                a, b = b, a
            return a
        return cupy_peer(args, photo, call, lambda r: r[1:-1, 1:-1].get())
    return {"cupy": cupy}


def cases():
    """Each: key, filter, clfilters --params, clfilters command for the agreement check, peers, per_call."""
    for d in (3, 9, 31, 63):
        yield dict(filter="box-blur", params=f"diameter={d},channels=4,border=replicate",
                   command=["box-blur", "--diameter", str(d), "--border", "replicate"], peers=box_peers(d))
    yield dict(filter="sobel", params="output=gradients,border=replicate",
               command=["sobel", "--output", "gradients", "--border", "replicate"], peers=sobel_peers())
    for c in (1, 4):
        # OpenCV's taps: the disk window and, for colour, the L1 distance.
        yield dict(filter="bilateral",
                   params=f"sigma_spatial=3,sigma_range=30,radius=4,channels={c},border=replicate,window=disk,"
                          "distance=l1",
                   command=["bilateral", "--sigma-spatial", "3", "--sigma-range", "30", "--radius", "4",
                            "--border", "replicate", "--window", "disk", "--distance", "l1"],
                   peers=bilateral_peers(c, 3.0, 30.0, 4),
                   check_channels=3 if c == 4 else None)
    yield dict(filter="epsilon", params="radius=4,threshold=20,channels=1,border=replicate",
               command=["epsilon", "--radius", "4", "--threshold", "20", "--border", "replicate"],
               peers=epsilon_peers(4, 20))
    yield dict(filter="reconstruct", params=f"iterations={JACOBI_ITERATIONS}",
               command=["reconstruct", "--iterations", str(JACOBI_ITERATIONS)], peers=jacobi_peers(),
               per=JACOBI_ITERATIONS)


NOTES = {
    "box-blur": "cupy's uniform_filter is separable on uint8: the row pass's mean is stored as uint8 before the "
                "column pass, so it may differ by more than 1. torch: float avg_pool2d, round half to even.",
    "bilateral": "clfilters runs with window=disk, distance=l1: OpenCV's taps (dx^2+dy^2 <= radius^2, 49 of the 81 "
                 "in the 9x9 square) and its L1 colour distance over B,G,R, so the two compute the same filter "
                 "(within 1: OpenCV weighs in float). RGBA runs on OpenCV as the same image's RGB (3 channels, "
                 "OpenCV takes 1 or 3). Parameters map exactly: d = 2*radius+1 = 9, sigmaSpace = sigma_spatial = 3, "
                 "sigmaColor = sigma_range = 30, both as exp(-x^2 / (2 sigma^2)).",
    "reconstruct": f"ms per iteration: the call (from a zero iterate, {JACOBI_ITERATIONS} iterations) over "
                   f"{JACOBI_ITERATIONS}, on both sides. The CuPy step is one slicing expression on zero-padded "
                   "arrays (about 6 kernels per iteration). Agreement: max abs difference and relative L2 of the "
                   "float32 iterates.",
}


# ---- timing ----

class Deadline(Exception):
    pass


def time_peer(fn, sync, deadline):
    """(median ms, last result). Raises Deadline when the runs would not end before it."""
    t = time.perf_counter()
    result = fn()  # first call: compiles kernels, allocates pools
    sync()
    first = time.perf_counter() - t
    t = time.perf_counter()
    result = fn()
    sync()
    one = time.perf_counter() - t
    if one > GUARD_S:
        raise Unavailable(f"skipped: one call took {one:.2f} s (> {GUARD_S:g} s); first call {first:.1f} s")
    if time.monotonic() + one * (WARMUP + RUNS) > deadline:
        raise Deadline()
    for _ in range(WARMUP - 2):
        result = fn()
    sync()
    samples = []
    for _ in range(RUNS):
        t = time.perf_counter()
        result = fn()
        sync()
        samples.append((time.perf_counter() - t) * 1e3)
    return statistics.median(samples), result


def free_device_memory():
    for name in ("cupy", "torch"):
        mod = _modules.get(name)
        if not mod or isinstance(mod, Unavailable):
            continue
        try:
            if name == "cupy":
                mod[0].get_default_memory_pool().free_all_blocks()
            else:
                mod[0].cuda.empty_cache()
        except Exception:
            pass


# ---- clfilters side ----

def run_clfilters_bench(args, case, sizes, workdir, deadline):
    """{(w, h): bench row} from one `clfilters bench` call for every size of the case."""
    out = os.path.join(workdir, "bench.json")
    cmd = [args.cli, "bench", case["filter"], "--variants", "auto", "--params", case["params"],
           "--sizes", ",".join(f"{w}x{h}" for w, h in sizes), "--warmup", str(WARMUP), "--runs", str(RUNS),
           "--total-runs", "1", "--cpu-runs", "0", "--format", "json", "--out", out, "--save-inputs", workdir,
           "--device", args.device]
    timeout = max(1.0, deadline - time.monotonic())
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {}, "not run (deadline)", cmd
    if not os.path.exists(out):
        return {}, f"failed (exit {proc.returncode}): {proc.stdout.strip().splitlines()[-1:] or ''}", cmd
    report = json.load(open(out))
    os.remove(out)
    return {(r["width"], r["height"]): dict(r, device=report["device"], platform=report["platform"],
                                            driver=report["driver"]) for r in report["rows"]}, None, cmd


def clfilters_output(args, case, input_file, workdir):
    """clfilters' own output for the same input (the filter's command, auto variant, same device)."""
    import numpy as np
    out = os.path.join(workdir, "clfilters-out.npy")
    src = input_file
    if case["filter"] == "reconstruct":
        src = os.path.join(workdir, "edges.npy")
        subprocess.run([args.cli, "edges", input_file, src, "--device", args.device], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    cmd = [args.cli, case["command"][0], src, out] + case["command"][1:] + ["--device", args.device]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    result = np.load(out)
    edges = np.load(src) if case["filter"] == "reconstruct" else None
    return result, edges


def agreement(case, ours, theirs):
    import numpy as np
    if case.get("check_channels"):
        ours = ours[..., :case["check_channels"]]
    if theirs.shape != ours.shape:
        return f"shape {theirs.shape} vs {ours.shape}"
    diff = np.abs(theirs.astype(np.float64) - ours.astype(np.float64))
    text = f"max|d| {diff.max():.3g}"
    if case["filter"] == "reconstruct":
        rel = np.linalg.norm(theirs.astype(np.float64) - ours) / max(np.linalg.norm(ours.astype(np.float64)), 1e-30)
        text += f", rel L2 {rel:.1e}"
    return text


# ---- main ----

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="the clfilters binary")
    ap.add_argument("--out", required=True, help="writes OUT.md and OUT.json")
    ap.add_argument("--sizes", default="1920x1080,8192x8192")
    ap.add_argument("--device", default=os.environ.get("CLFILTERS_DEVICE", "nvidia"), help="clfilters' device")
    ap.add_argument("--opencv-device", default=os.environ.get("OPENCV_OPENCL_DEVICE", ":GPU:"),
                    help="OPENCV_OPENCL_DEVICE for OpenCV's OpenCL path (:CPU: for PoCL in a local test)")
    ap.add_argument("--torch-device", default="cuda", help="cuda; cpu only to test this script without a GPU")
    ap.add_argument("--deadline", type=float, default=400, help="seconds; nothing starts after it")
    ap.add_argument("--check-max-pixels", type=int, default=1920 * 1080,
                    help="compare peers' outputs with clfilters' at sizes up to this many pixels")
    ap.add_argument("--filters", default="", help="comma-separated subset (box-blur,sobel,...); default all")
    ap.add_argument("--peers", default="opencv,cupy,torch", help="comma-separated subset of the peers")
    args = ap.parse_args()
    os.environ["OPENCV_OPENCL_DEVICE"] = args.opencv_device  # read when OpenCV first touches OpenCL
    import numpy as np

    start = time.monotonic()
    deadline = start + args.deadline
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    wanted_filters = set(filter(None, args.filters.split(",")))
    wanted_peers = set(filter(None, args.peers.split(",")))
    all_cases = [c for c in cases() if not wanted_filters or c["filter"] in wanted_filters]
    names = [n for n in ("opencv", "opencv-cpu", "cupy", "torch") if n in wanted_peers]
    command = " ".join(shlex.quote(a) for a in ["python3", sys.argv[0]] + sys.argv[1:])
    workdir = tempfile.mkdtemp(prefix="clf-peers-")
    device = {}
    rows = []
    try:
        for case in all_cases:
            per = case.get("per", 1)
            base = dict(filter=case["filter"], params=case["params"], unit="ms per iteration" if per > 1 else "ms")
            if time.monotonic() >= deadline:
                rows += [dict(base, size=f"{w}x{h}", status="not run (deadline)") for w, h in sizes]
                continue
            t0 = time.monotonic()
            bench, bench_error, bench_cmd = run_clfilters_bench(args, case, sizes, workdir, deadline)
            print(f"{case['filter']} {case['params']}: clfilters bench {time.monotonic() - t0:.1f} s", flush=True)
            for w, h in sizes:
                row = dict(base, size=f"{w}x{h}", peers={}, agreement={})
                rows.append(row)
                b = bench.get((w, h))
                if b is None:
                    row["status"] = bench_error or "clfilters bench returned no row"
                    continue
                device.setdefault("clfilters", f"{b['device']} ({b['platform']}, driver {b['driver']})")
                row["clfilters_status"] = b["status"]
                row["variant"] = b["resolved"]
                row["clfilters_ms"] = b["call_ms"]["median"] / per if b["status"] == "ok" else None
                row["clfilters_kernel_ms"] = b["kernel_ms"]["median"] / per if b["status"] == "ok" else None
                row["clfilters_command"] = " ".join(shlex.quote(a) for a in bench_cmd)
                if not b.get("input_file"):
                    row["status"] = "clfilters bench saved no input (is --save-inputs in this build?)"
                    continue
                img = np.load(b["input_file"])
                sha = hashlib.sha256(np.ascontiguousarray(img).data).hexdigest()
                row["input_sha256"] = b["input_sha256"]
                if sha != b["input_sha256"]:
                    row["status"] = f"INPUT MISMATCH: clfilters {b['input_sha256'][:12]}, file {sha[:12]}"
                    continue
                row["status"] = "ok"
                ours = None
                check = w * h <= args.check_max_pixels
                if check:
                    try:
                        ours, cli_edges = clfilters_output(args, case, b["input_file"], workdir)
                        if cli_edges is not None:  # the peer's edge map must be clfilters' bit for bit
                            row["edges_max_diff"] = float(np.abs(cli_edges - jacobi_edges(img)).max())
                    except subprocess.CalledProcessError as e:
                        row["agreement"]["clfilters"] = f"no output: {first_line(e.stderr.decode(errors='replace'))}"
                for name in names:
                    make = case["peers"].get(name)
                    if make is None:
                        continue
                    if time.monotonic() >= deadline:
                        row["peers"][name] = "not run (deadline)"
                        continue
                    try:
                        fn, sync, to_numpy = make(args, img)
                        ms, result = time_peer(fn, sync, deadline)
                        row["peers"][name] = ms / per
                        if ours is not None:
                            row["agreement"][name] = agreement(case, ours, to_numpy(result))
                        del fn, result
                    except Deadline:
                        row["peers"][name] = "not run (deadline)"
                    except Unavailable as e:
                        row["peers"][name] = str(e) if str(e).startswith("skipped") else f"unavailable ({e})"
                    except Exception as e:  # a failing peer is reported, not hidden
                        row["peers"][name] = f"failed ({type(e).__name__}: {first_line(e)})"
                    free_device_memory()
                numeric = [v for v in row["peers"].values() if isinstance(v, float)]
                row["best_peer_ms"] = min(numeric) if numeric else None
                row["ratio"] = row["best_peer_ms"] / row["clfilters_ms"] if numeric and row["clfilters_ms"] else None
                os.remove(b["input_file"])
                print(json.dumps({k: v for k, v in row.items() if k != "clfilters_command"}), flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for name in names:
        mod = _modules.get(name)
        device[name] = mod[1] if isinstance(mod, tuple) else f"unavailable ({mod})" if mod else "not used"
    elapsed = time.monotonic() - start
    write_outputs(args, command, device, names, rows, elapsed)
    return 0


def fmt_ms(v):
    return f"{v:.4f}" if v < 0.1 else f"{v:.3f}"


def write_outputs(args, command, device, names, rows, elapsed):
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open(args.out + ".json", "w") as f:
        json.dump(dict(command=command, date=date, elapsed_s=round(elapsed, 1), device=device,
                       method=f"host wall time of a synchronised device-resident call, median of {RUNS} after "
                              f"{WARMUP} warm-ups", rows=rows), f, indent=1)
    head = ["filter", "params", "size", "clfilters (auto variant)"] + names + ["best peer / clfilters",
                                                                              "agreement with clfilters"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if r.get("status") != "ok" and "clfilters_ms" not in r:
            lines.append(f"| {r['filter']} | {r['params']} | {r['size']} | {r['status']} |" + " |" * (len(head) - 4))
            continue
        ours = (f"{fmt_ms(r['clfilters_ms'])} ({r['variant']})" if r.get("clfilters_ms") is not None
                else r.get("clfilters_status", "-"))
        cells = []
        for n in names:
            v = r.get("peers", {}).get(n, "-")
            # the reason a peer is unavailable is the same everywhere: it is listed once, under Devices
            cells.append(fmt_ms(v) if isinstance(v, float) else "unavailable" if v.startswith("unavailable") else v)
        ratio = f"{r['ratio']:.2f}x" if r.get("ratio") else "-"
        agree = [f"{k}: {v}" for k, v in r.get("agreement", {}).items()]
        if "edges_max_diff" in r:
            agree.insert(0, f"edge map max|d| {r['edges_max_diff']:g}")
        if r.get("status") != "ok":
            agree.insert(0, r["status"])
        agree = "; ".join(agree)
        unit = " (ms per iteration)" if r.get("unit") == "ms per iteration" else ""
        lines.append(f"| {r['filter']} | {r['params']}{unit} | {r['size']} | {ours} | " + " | ".join(cells) +
                     f" | {ratio} | {agree or '-'} |")
    shas = sorted({(r["filter"], r["params"], r["size"], r["input_sha256"]) for r in rows if r.get("input_sha256")})
    notes = [f"- **{k}**: {v}" for k, v in NOTES.items() if any(r["filter"] == k for r in rows)]
    with open(args.out + ".md", "w") as f:
        f.write("# clfilters and its peers, same machine, same run\n\n")
        f.write(f"Command: `{command}`\n\n")
        f.write("Devices:\n" + "".join(f"- {k}: {v}\n" for k, v in device.items()) + "\n")
        f.write(f"Times in ms: host wall time of one synchronised call on device-resident data, median of {RUNS} "
                f"after {WARMUP} warm-ups, both sides; clfilters' is `call_ms` of `clfilters bench --variants "
                f"auto` (a queue without profiling, waiting by polling). Both sides read the same input bytes (`clfilters bench --save-inputs`, SHA-256 checked), "
                f"with the same parameters and replicate borders. 'best peer / clfilters' > 1 means clfilters is "
                f"faster. Agreement: largest absolute difference from clfilters' output on the same input "
                f"(computed at sizes up to {args.check_max_pixels} pixels). A peer call over {GUARD_S:g} s is "
                f"skipped.\n\n")
        f.write("\n".join(lines) + "\n\n")
        if notes:
            f.write("Notes:\n" + "\n".join(notes) + "\n\n")
        if shas:
            f.write("Inputs (SHA-256 of the samples, checked on both sides):\n" +
                    "".join(f"- {a} {b} {c}: `{d}`\n" for a, b, c, d in shas))
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
