#!/usr/bin/env python3
"""Issue 8's targets, checked against one run's results: a Markdown table of each target, what was
measured, what it needs, and whether it is met.

Inputs are what a GPU run writes (bench/run-gpu.sh, bench/results/*-closing.sh):
- `clfilters bench --format json` files (any number; their rows are merged). Fractions of bandwidth are
  the bench's own `bandwidth_fraction`, against the copy bandwidth measured in the same process.
- at most one `bench/peers.py` JSON file.

A target whose row is missing from the inputs is reported as "not measured", never as met.

Usage: bench/targets.py BENCH.json [BENCH.json ...] [--peers PEERS.json] [--out FILE.md]
"""
import argparse
import json
import sys

K8 = (8192, 8192)


def params_of(text):
    """'channels=4 diameter=9' (bench) or 'diameter=9,channels=4' (peers) as a dict."""
    return dict(p.split("=", 1) for p in text.replace(",", " ").split() if "=" in p)


def find(rows, filt, size, params, resolved=None):
    """The row of `filt` at `size` whose params equal `params` exactly (the bench's own params string, so
    that e.g. Jacobi's check_every case is not taken for the plain one), optionally of a resolved variant."""
    for r in rows:
        if (r["filter"] == filt and (r["width"], r["height"]) == size and params_of(r["params"]) == params
                and r.get("status", "ok") == "ok" and (resolved is None or r["resolved"].startswith(resolved))):
            return r
    return None


def bandwidth(need):
    return lambda r: (r["bandwidth_fraction"], f"{100 * r['bandwidth_fraction']:.0f}% of copy bw", f">= {100 * need:.0f}%",
                      r["bandwidth_fraction"] >= need)


def gpix(need):
    return lambda r: (r["gpix_per_s"], f"{r['gpix_per_s']:.1f} Gpix/s", f">= {need} Gpix/s", r["gpix_per_s"] >= need)


def times_floor(need):
    # Jacobi counts 12 B per pixel per iteration, so its bandwidth fraction is the speed over the one-step floor.
    return lambda r: (r["bandwidth_fraction"], f"{r['bandwidth_fraction']:.2f}x the one-step floor", f">= {need}x",
                      r["bandwidth_fraction"] >= need)


def call_us(need):
    return lambda r: (r["call_ms"]["median"], f"{1000 * r['call_ms']['median']:.1f} us call", f"<= {need} us",
                      1000 * r["call_ms"]["median"] <= need)


# (target, case, filter, size, params, resolved variant or None for the tuned choice, check)
TARGETS = [("box blur RGBA", f"8k d={d}", "box-blur", K8, {"channels": "4", "diameter": str(d)}, None, bandwidth(0.70))
           for d in (3, 9, 11, 31, 63)] + [
    ("Sobel", "8k gradients", "sobel", K8, {"output": "gradients"}, None, bandwidth(0.70)),
    ("Sobel", "8k magnitude", "sobel", K8, {"output": "magnitude"}, None, bandwidth(0.60)),
] + [("epsilon 9x9 T=20 grey", f"{w}x{h}", "epsilon", (w, h), {"channels": "1", "radius": "4", "threshold": "20"}, None,
      gpix(80)) for w, h in ((3264, 2448), K8)] + [
    ("bilateral 9x9 grey", "8k", "bilateral", K8,
     {"channels": "1", "radius": "4", "sigma_range": "30", "sigma_spatial": "3"}, None, gpix(50)),
    ("bilateral 9x9 RGBA", "8k", "bilateral", K8,
     {"channels": "4", "radius": "4", "sigma_range": "30", "sigma_spatial": "3"}, None, gpix(25)),
    ("Jacobi tiled2d", "8k, 12 B/px/iteration", "reconstruct", K8, {"iterations": "100"}, "tiled2d", bandwidth(0.85)),
    ("Jacobi temporal", "8k", "reconstruct", K8, {"iterations": "100"}, "wavefront", times_floor(3)),
    ("matrix add", "8k (67M elements)", "matrix-add", K8, {}, None, bandwidth(0.90)),
    ("dot product", "8k (67M pairs)", "dot-product", K8, {}, None, bandwidth(0.90)),
    ("1080p box blur d=9 call", "device-resident, host wall time", "box-blur", (1920, 1080),
     {"channels": "4", "diameter": "9"}, None, call_us(30)),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", nargs="+", help="clfilters bench JSON files")
    ap.add_argument("--peers", help="bench/peers.py JSON file")
    ap.add_argument("--out", help="also write the table to this Markdown file")
    args = ap.parse_args()

    rows, devices = [], set()
    for path in args.bench:
        with open(path) as f:
            doc = json.load(f)
        devices.add(f"{doc['device']} (copy bandwidth {doc['copy_gb_per_s']:.0f} GB/s)")
        rows += doc["rows"]

    lines = [f"Issue 8's targets on {'; '.join(sorted(devices))}", "",
             "| target | case | variant | measured | needs | |", "|---|---|---|---|---|---|"]
    missed, unmeasured = [], []
    for target, case, filt, size, params, resolved, check in TARGETS:
        r = find(rows, filt, size, params, resolved)
        if r is None:
            unmeasured.append(f"{target} {case}")
            lines.append(f"| {target} | {case} | | not measured | | **not measured** |")
            continue
        _, shown, need, ok = check(r)
        if not ok:
            missed.append(f"{target} {case}")
        lines.append(f"| {target} | {case} | `{r['resolved']}` | {shown} | {need} | {'met' if ok else '**missed**'} |")

    if args.peers:
        with open(args.peers) as f:
            peers = json.load(f)
        lines += ["", "| peers: filter | params | size | clfilters ms | best peer ms | ratio | |", "|---|---|---|---|---|---|---|"]
        for p in peers["rows"]:
            w, h = map(int, p["size"].split("x"))
            if w * h < 1920 * 1080:
                continue
            ratio = p.get("ratio")
            ok = p.get("status") == "ok" and ratio is not None and ratio >= 2
            case = f"peers {p['filter']} {p['params']} {p['size']}"
            if not ok:
                (missed if ratio is not None else unmeasured).append(case)
            cells = [f"{p['clfilters_ms']:.3f}" if p.get("clfilters_ms") else "-",
                     f"{p['best_peer_ms']:.3f}" if p.get("best_peer_ms") else "-",
                     f"{ratio:.2f}x" if ratio is not None else "-"]
            lines.append(f"| {p['filter']} | {p['params']} | {p['size']} | {' | '.join(cells)} | "
                         f"{'met' if ok else '**missed**' if ratio is not None else '**not measured**'} |")

    lines += ["", f"Missed: {', '.join(missed) or 'none'}.", f"Not measured: {', '.join(unmeasured) or 'none'}."]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
