#!/usr/bin/env python3
"""Offline look at what an OpenCL kernel becomes on an NVIDIA Hopper GPU: registers, spills, and the
instructions of each loop body by opcode and by pipe, without the GPU machine.

Two sources of PTX:
- a clfilters .cl file, compiled here with clang (target nvptx64--nvidiacl, libclc's builtins linked):
  close to, not the same as, NVIDIA's OpenCL compiler;
- a .ptx file, e.g. one that NVIDIA's driver built (clfilters' program cache on the GPU machine holds
  the driver's PTX as each program's binary).
Either way ptxas (sm_90) assembles it and nvdisasm's SASS is read back.

Tools it needs (none on the GPU machine): clang-15 and libclc-15 (Debian), and ptxas, cuobjdump and
nvdisasm from PyPI (pip install nvidia-cuda-nvcc nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm).

Usage:
  bench/sass.py src/filters/sobel/sobel.cl sobel_row_tile -D OUTPUT=0 -D VEC=4 -D ALIGNED=1
  bench/sass.py driver.ptx sobel_row_tile
  bench/sass.py ~/.cache/clfilters/programs/0123456789abcdef.bin sobel_row_tile   (its .txt names the build)
  --sass FILE (anywhere after the kernel name) also writes the whole SASS listing to FILE.
Per loop (a backward branch and its target) it prints the instruction count and the split by pipe:
ALU (integer/logic, 64 lanes per SM on Hopper), FMA (FP32 and IMAD, 128 lanes), XU (MUFU and
conversions, 16 lanes), LSU (loads, stores, shared memory), and the rest. Dividing a loop's count by
the pixels one trip makes gives instructions per pixel, the figure bench/NOTES.md predicts with.
"""
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SHARED_HEADER = os.path.join(REPO, "src", "common", "border.cl")  # prepended to every kernel file
LIBCLC = "/usr/lib/clc/nvptx64--nvidiacl.bc"
# libclc leaves some native_* builtins to LLVM intrinsics that LLVM 15's NVPTX back end cannot lower;
# NVIDIA's compiler maps them to these PTX approximations.
PRELUDE = """
#define SASS_APPROX(name, ptx) \\
  inline float sass_##name(float x) { float r; asm(ptx " %0, %1;" : "=f"(r) : "f"(x)); return r; }
SASS_APPROX(exp2, "ex2.approx.ftz.f32")
SASS_APPROX(recip, "rcp.approx.ftz.f32")
SASS_APPROX(sqrt, "sqrt.approx.ftz.f32")
SASS_APPROX(rsqrt, "rsqrt.approx.ftz.f32")
#define native_exp2(x) sass_exp2(x)
#define native_recip(x) sass_recip(x)
#define native_sqrt(x) sass_sqrt(x)
#define native_rsqrt(x) sass_rsqrt(x)
"""

# Hopper pipes by opcode (the first word of the mnemonic). Anything unlisted counts as "other".
PIPES = {
    "ALU": "IADD3 LOP3 SHF PRMT ISETP IMNMX VIMNMX IABS SEL LEA LEA.HI FSEL FSETP FMNMX PLOP3 VIADD BMSK "
           "SGXT FLO POPC BREV".split(),
    "FMA": "FFMA FADD FMUL IMAD IMUL HFMA2 HADD2 HMUL2 FMAX FMIN".split(),
    "XU": "MUFU I2F F2I F2F I2I FRND".split(),
    "LSU": "LDG STG LDS STS LD ST LDL STL ATOM ATOMS RED LDSM".split(),
}
PIPE_OF = {op: pipe for pipe, ops in PIPES.items() for op in ops}


def find_tool(name):
    path = shutil.which(name)
    if path:
        return path
    hits = sorted(glob.glob(f"{sys.prefix}/lib/python3*/site-packages/nvidia/cu*/bin/{name}") +
                  glob.glob(f"/usr/local/cuda*/bin/{name}"))
    if not hits:
        sys.exit(f"sass.py: {name} not found (pip install nvidia-cuda-nvcc nvidia-cuda-cuobjdump "
                 f"nvidia-cuda-nvdisasm)")
    return hits[-1]


def ptx_from_cl(cl_path, defines, tmp):
    source = os.path.join(tmp, "kernel.cl")
    with open(source, "w") as out:
        out.write(PRELUDE)
        for part in (SHARED_HEADER, cl_path):
            with open(part) as f:
                out.write(f.read() + "\n")
    ptx = os.path.join(tmp, "kernel.ptx")
    cmd = ["clang-15", "-x", "cl", "-cl-std=CL1.2", "-target", "nvptx64--nvidiacl", "-march=sm_80", "-O3", "-S",
           "-Xclang", "-finclude-default-header", "-Dasm=__asm__", "-Xclang", "-mlink-builtin-bitcode", "-Xclang", LIBCLC,
           *defines, "-o", ptx, source]
    subprocess.run(cmd, check=True)
    return ptx


def assemble(ptx, tmp):
    with open(ptx, errors="replace") as f:
        text = f.read().rstrip("\x00")  # a driver binary ends in a NUL
    # clang 15 writes PTX 7.5 for sm_80; sm_90 needs PTX 7.8 or later.
    version = re.search(r"^\.version (\d+)\.(\d+)", text, flags=re.M)
    if version and (int(version.group(1)), int(version.group(2))) < (7, 8):
        text = re.sub(r"^\.version \d+\.\d+", ".version 7.8", text, flags=re.M)
    text = re.sub(r"^\.target sm_\d+", ".target sm_90", text, flags=re.M)
    fixed = os.path.join(tmp, "sm90.ptx")
    with open(fixed, "w") as f:
        f.write(text)
    cubin = os.path.join(tmp, "kernel.cubin")
    run = subprocess.run([find_tool("ptxas"), "-arch=sm_90", "-O3", "-v", "-c", fixed, "-o", cubin],
                         capture_output=True, text=True)
    if run.returncode:
        sys.exit("sass.py: ptxas failed:\n" + run.stderr[-3000:])
    return cubin, run.stderr


def parse_sass(sass):
    """[(address, opcode)] of the listing, predicates dropped."""
    out = []
    for line in sass.splitlines():
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if not m:
            continue
        words = [w for w in m.group(2).split() if not w.startswith("@")]
        if words:
            out.append((int(m.group(1), 16), words[0], m.group(2)))
    return out


def histogram(instrs):
    ops = collections.Counter(op.split(".")[0] for _, op, _ in instrs)
    pipes = collections.Counter()
    for op, n in ops.items():
        pipes[PIPE_OF.get(op, "other")] += n
    return ops, pipes


def report(name, instrs):
    ops, pipes = histogram(instrs)
    total = sum(ops.values())
    print(f"  {name}: {total} instructions; " + ", ".join(f"{p} {pipes[p]}" for p in
                                                          ("ALU", "FMA", "XU", "LSU", "other") if pipes[p]))
    print("    " + " ".join(f"{op} {n}" for op, n in ops.most_common(16)))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, kernel, defines = sys.argv[1], sys.argv[2], sys.argv[3:]
    listing = None
    if "--sass" in defines:
        at = defines.index("--sass")
        listing = defines[at + 1]
        del defines[at:at + 2]
    # "-D NAME=V" may come as two words.
    joined, i = [], 0
    while i < len(defines):
        if defines[i] == "-D" and i + 1 < len(defines):
            joined.append("-D" + defines[i + 1])
            i += 2
        else:
            joined.append(defines[i])
            i += 1
    with tempfile.TemporaryDirectory() as tmp:
        from_driver = src.endswith((".ptx", ".bin"))
        ptx = src if from_driver else ptx_from_cl(src, joined, tmp)
        cubin, info = assemble(ptx, tmp)
        env = dict(os.environ, PATH=os.path.dirname(find_tool("nvdisasm")) + ":" + os.environ.get("PATH", ""))
        sass = subprocess.run([find_tool("cuobjdump"), "-sass", "-fun", kernel, cubin], check=True,
                              capture_output=True, text=True, env=env).stdout
    if listing:
        with open(listing, "w") as f:
            f.write(sass)
    block = re.search(rf"Compiling entry function '{re.escape(kernel)}'.*?\n(.*?)(?=Compiling entry|\Z)", info, re.S)
    usage = re.findall(r"(\d+ bytes stack frame.*|Used \d+ registers.*)", block.group(1) if block else "")
    instrs = parse_sass(sass)
    if not instrs:
        sys.exit(f"sass.py: no SASS for kernel {kernel}")
    print(f"{kernel} (sm_90, {'driver PTX' if from_driver else 'clang PTX'}): " + "; ".join(usage))
    report("whole kernel", instrs)
    addr = {a: k for k, (a, _, _) in enumerate(instrs)}
    loops = []
    for k, (a, op, text) in enumerate(instrs):
        target = re.search(r"0x([0-9a-f]+)", text) if op.startswith("BRA") else None
        if target and int(target.group(1), 16) < a and int(target.group(1), 16) in addr:
            loops.append((addr[int(target.group(1), 16)], k))
    for start, end in sorted(loops):
        report(f"loop {instrs[start][0]:#06x}..{instrs[end][0]:#06x}", instrs[start:end + 1])


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # piped into head
        sys.stderr.close()
