#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates the per-device result files in bench/results/ on a machine with an NVIDIA GPU: registers NVIDIA's
# OpenCL driver if needed, builds, runs the tests on the GPU and on PoCL, tunes the GPU, benchmarks it and PoCL,
# and compares the GPU with its peers (bench/peers.py).
#   Usage: bench/run-gpu.sh OUT_DIR [STEPS]
#   STEPS: comma-separated, any of build,test,tune,bench-auto,bench-16bit,peers,video,bench-pocl,peers-pocl,video-pocl,scale,
#          mpi
#          (default: build,test,bench-auto,peers,bench-pocl; on a machine without a GPU: build,bench-pocl,peers-pocl)
# Files written to bench/results/ (and copied to OUT_DIR/results/, for a machine whose tree is a copy):
#   bench-auto  <gpu>.json, <gpu>.md            every filter's tuned auto at 8k and 1080p, epsilon at 3264x2448,
#                                                 Jacobi tiled2d; <gpu> is the GPU's name, e.g. nvidia-h200
#   bench-16bit <gpu>-16bit.md                    box blur, epsilon and bilateral on 16-bit samples, auto, 8k and 1080p
#   peers       <gpu>-peers.json, <gpu>-peers.md  clfilters against OpenCV's OpenCL path, CuPy and PyTorch
#   video       <gpu>-video.json, .md             4K 8- and 10-bit Y4M through every filter against cat | cat;
#               <gpu>-video-240.json, .md         the same through epsilon, 240 frames
#   bench-pocl  pocl-<N>core.json, .md           every variant on PoCL on this machine's N CPU cores, 1080p, untuned
#   peers-pocl  pocl-<N>core-peers.json, .md     clfilters on PoCL, untuned, against OpenCV's CPU path, 1080p and 4K
#   video-pocl  pocl-<N>core-video.json, .md     the video step on PoCL
#   scale       <gpu>-scale.json, .md             bench/scale.py: out-of-core bands and a photo batch on the GPU,
#                                                 the Xeon split into sub-devices, the GPU with PoCL beside it
#                                                 (needs the Python package built)
#   mpi         <gpu>-mpi.md                      bench/mpi_scale.sh: clfilters-mpi over 1, 2, 4 and 8 ranks of the CPU, and
#                                                 on the GPU (needs MPI where the project is built)
#   tune        shipped_tuning.json               the shipped tuning database, this GPU's entries updated
# Every call starts from the tuning database shipped in the binary, src/tuning/db/shipped_tuning.json (CLF_TUNING_FILE=FILE
# for another); `tune` rewrites it (copied to OUT_DIR/results/: where the tree is a copy, bring it back into
# src/tuning/db/ before later calls, and rebuild).
# Logs and a short summary go to OUT_DIR. Built programs and PoCL's kernels are cached outside OUT_DIR
# (CLF_GPU_CACHE, default /tmp/clfilters-gpu-cache), so steps split over several calls on one machine reuse them.
set -uo pipefail
out="${1:?usage: bench/run-gpu.sh OUT_DIR [STEPS]}"
steps="${2:-build,test,bench-auto,peers,bench-pocl}"
mkdir -p "$out/results"
out="$(cd "$out" && pwd)"
cd "$(dirname "$0")/.."
results=bench/results
if [ ! -f /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
export XDG_CACHE_HOME="${CLF_GPU_CACHE:-/tmp/clfilters-gpu-cache}"
export CLFILTERS_TUNING_DB="$XDG_CACHE_HOME/clfilters/tuning.json"
summary="$out/summary.txt"
: > "$summary"
step() { [[ ",$steps," == *",$1,"* ]]; }
elapsed() { echo "$(( $(date +%s) - $1 )) s"; }
cli=${CLF_CLI:-build/release/tools/clfilters}

# <gpu>: "NVIDIA H100 80GB HBM3" -> nvidia-h100, "NVIDIA H200" -> nvidia-h200; empty without a GPU, and the GPU steps
# are then skipped.
gpu=
if nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt" 2>&1; then
  gpu=${CLF_DEVICE_SLUG:-$(head -1 "$out/gpu.txt" | cut -d, -f1 | tr 'A-Z ' 'a-z-' | sed -E 's/-[0-9]+gb.*$//')}
fi
echo "gpu: ${gpu:-none} ($(head -1 "$out/gpu.txt"))" >> "$summary"
gpu_step() { step "$1" && { [ -n "$gpu" ] || { echo "$1: skipped, no GPU" >> "$summary"; false; }; }; }
pocl="pocl-$(nproc)core"

# Keep a copy in OUT_DIR of everything written to bench/results/.
keep() { for f in "$@"; do [ -f "$f" ] && cp "$f" "$out/results/"; done; }

if step build; then
  start=$(date +%s)
  if cmake --preset release > "$out/configure.log" 2>&1 && cmake --build --preset release -j "$(nproc)" > "$out/build.log" 2>&1; then
    echo "build: ok ($(elapsed $start))" >> "$summary"
  else
    echo "build: FAILED (see build.log)" >> "$summary"; tail -30 "$out/build.log"; cat "$summary"; exit 1
  fi
fi
$cli devices > "$out/devices.txt" 2>&1

shipped=src/tuning/db/shipped_tuning.json
db="${CLF_TUNING_FILE:-$shipped}"
if [ -f "$db" ]; then
  mkdir -p "$XDG_CACHE_HOME/clfilters" && cp "$db" "$CLFILTERS_TUNING_DB"
fi

if step test; then
  for dev in ${CLF_TEST_DEVICES:-${gpu:+nvidia} pocl}; do
    start=$(date +%s)
    CLFILTERS_DEVICE=$dev ctest --preset release -j 8 --timeout 900 > "$out/ctest-$dev.log" 2>&1
    echo "tests on $dev: $(grep -E 'tests passed|tests failed' "$out/ctest-$dev.log" | tail -1) ($(elapsed $start))" >> "$summary"
    grep -E '\*\*\*Failed|\(Failed\)|Timeout' "$out/ctest-$dev.log" | head -20 >> "$summary"
  done
  # The sweeps' exhaustive twins (every tunable combination), which the default run samples.
  if [ -n "$gpu" ]; then
    start=$(date +%s)
    CLFILTERS_DEVICE=nvidia ctest --preset slow -j 8 > "$out/ctest-slow.log" 2>&1
    echo "slow tests on nvidia: $(grep -E 'tests passed|tests failed' "$out/ctest-slow.log" | tail -1) ($(elapsed $start))" >> "$summary"
  fi
fi

if gpu_step tune; then
  start=$(date +%s)
  CLFILTERS_DEVICE=nvidia $cli tune --size 8192x8192 --budget 120 > "$out/tune-nvidia.log" 2>&1
  # Small images favour other shapes (shorter strips, smaller work-groups): a second size class.
  CLFILTERS_DEVICE=nvidia $cli tune --size 1920x1080 --budget 60 >> "$out/tune-nvidia.log" 2>&1
  CLFILTERS_DEVICE=nvidia $cli tune --show >> "$out/tune-nvidia.log" 2>&1
  cp "$CLFILTERS_TUNING_DB" "$shipped" && keep "$shipped"
  echo "tune on nvidia: $(elapsed $start)" >> "$summary"
fi

# One result file: bench_section appends one bench command's table (text, as the bench prints it) under its command
# line to $body, its JSON to the file given; bench_file then writes $md from a header and $body.
bench_section() {  # bench_section TITLE JSON ARGS...   (environment for the bench in $envs)
  local title=$1 json=$2; shift 2
  local txt; txt=$(mktemp)
  env $envs $cli bench "$@" --format json --out "$json" > "$txt" 2>&1 ||
    echo "bench failed: $envs $* ($(tail -1 "$txt"))" >> "$summary"
  local shown=() a
  for a in "$@"; do [[ $a == *[][]* ]] && a="'$a'"; shown+=("$a"); done
  { echo; echo "## $title"; echo; echo '```'; echo "$envs clfilters bench ${shown[*]}"; echo '```'; echo
    echo '```'; cat "$txt"; echo '```'; } >> "$body"
  rm -f "$txt"
}
bench_file() {  # bench_file TITLE INTRO: $md = title, device, intro, $body
  { echo "# clfilters bench: $1"; echo
    echo "Device: $(grep -m1 '^Device:' "$body" | sed -E 's/^Device: //; s/; CPU reference.*//')."
    echo "$2"; } > "$md"
  cat "$body" >> "$md"
  rm -f "$body"
}
legend='Kernel times in ms: median, min and p90 of the timed runs (profiling events, every kernel of a call). `total med`:
host image in to host image out (upload, kernels, download). `%bw`: effective bytes (each input byte read once, each
output byte written once) over the `clEnqueueCopyBuffer` bandwidth measured at the start of the same process. For
`reconstruct`, 100 iterations; `wavefront` runs 10 per launch, so its %bw exceeds 100%. `call_ms` (the host wall time
of one device-resident call) is in the JSON.'

if gpu_step bench-auto; then
  start=$(date +%s)
  envs="CLFILTERS_DEVICE=nvidia" md="$results/$gpu.md" body=$(mktemp)
  bench_section "Every filter, tuned \`auto\`" "$results/$gpu.json" --sizes 8192x8192,1920x1080 --variants auto \
    --warmup 10 --runs 50 --total-runs 2 --cpu-runs 0
  bench_section "Epsilon 9x9 at 3264x2448" "$out/$gpu-epsilon-3264.json" epsilon --sizes 3264x2448 \
    --params channels=1,radius=4,threshold=20 --variants auto --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0
  bench_section "Jacobi \`tiled2d\` at its tuned shape" "$out/$gpu-tiled2d.json" reconstruct --sizes 8192x8192 \
    --params iterations=100 --variants 'tiled2d[local_x=128,local_y=2,rows=4]' --warmup 10 --runs 50 --total-runs 1 \
    --cpu-runs 0
  bench_file "$(head -1 "$out/gpu.txt" | cut -d, -f1)" "With the tuning database \`src/tuning/db/shipped_tuning.json\`.
Each section gives the \`clfilters\` command that produced it; \`bench/run-gpu.sh OUT build,bench-auto\` runs the same
commands and rewrites this file. JSON: \`$gpu.json\` (the first section). Peers: \`$gpu-peers.md\`.

$legend"
  keep "$results/$gpu.json" "$md"
  echo "bench-auto ($gpu): $(elapsed $start)" >> "$summary"
fi

if gpu_step bench-16bit; then
  start=$(date +%s)
  envs="CLFILTERS_DEVICE=nvidia" md="$results/$gpu-16bit.md" body=$(mktemp)
  # The 8-bit bench cases at 16 bits, sample-unit parameters scaled by 256 (epsilon T = 20, sigma_range = 30).
  for case in "box-blur bits=16,diameter=9,channels=4" "box-blur bits=16,diameter=9,channels=1" \
              "epsilon bits=16,radius=4,threshold=5120,channels=1" \
              "bilateral bits=16,sigma_spatial=3,sigma_range=7680,radius=4,channels=4" \
              "bilateral bits=16,sigma_spatial=3,sigma_range=7680,radius=4,channels=1"; do
    set -- $case
    bench_section "$1 $2" "$out/$gpu-16bit-$1-$2.json" "$1" --sizes 8192x8192,1920x1080 --params "$2" \
      --variants auto --warmup 10 --runs 50 --total-runs 2 --cpu-runs 0
  done
  bench_file "$(head -1 "$out/gpu.txt" | cut -d, -f1), 16-bit samples" "Every bench case of the filters that take
16-bit samples, on u16 inputs (\`bits=16\`), untuned (16-bit calls are not tuned: \`auto\` is each filter's 16-bit
rule). \`bench/run-gpu.sh OUT build,bench-16bit\` runs the command and rewrites this file.

$legend"
  keep "$md"
  echo "bench-16bit ($gpu): $(elapsed $start)" >> "$summary"
fi

if gpu_step video; then
  start=$(date +%s)
  python3 bench/video_throughput.py --cli "$cli" --device nvidia --out "$results/$gpu-video" > "$out/video.log" 2>&1
  # A longer stream, where the process's start (NVIDIA's platform and context, 0.25 s) weighs less.
  python3 bench/video_throughput.py --cli "$cli" --device nvidia --frames 240 --runs 2 --filters epsilon \
    --out "$results/$gpu-video-240" >> "$out/video.log" 2>&1
  keep "$results/$gpu-video.json" "$results/$gpu-video.md" "$results/$gpu-video-240.json" "$results/$gpu-video-240.md"
  echo "video: $(elapsed $start)" >> "$summary"
  tail -20 "$out/video.log" >> "$summary"
fi

if gpu_step peers; then
  start=$(date +%s)
  python3 bench/peers.py --cli "$cli" --sizes "${CLF_PEER_SIZES:-1920x1080,8192x8192}" --device nvidia \
    --out "$results/$gpu-peers" > "$out/peers.log" 2>&1
  keep "$results/$gpu-peers.json" "$results/$gpu-peers.md"
  echo "peers: $(elapsed $start)" >> "$summary"
  tail -40 "$out/peers.log" >> "$summary"
fi

if step bench-pocl; then
  start=$(date +%s)
  envs="CLFILTERS_DEVICE=pocl CLFILTERS_NO_TUNING=1" md="$results/$pocl.md" body=$(mktemp)
  bench_section "Every variant, 1920x1080" "$results/$pocl.json" --sizes 1920x1080 --warmup 2 --runs 5 \
    --total-runs 2 --cpu-runs 1 --max-seconds-per-row 2
  bench_file "PoCL, $(nproc) CPU cores" "Every variant, untuned (\`auto\` is each filter's
built-in rule), by the command below; \`bench/run-gpu.sh OUT build,bench-pocl\` runs it and rewrites this file.
JSON: \`$pocl.json\`.

Kernel and total times in ms (median of 5 and of 2 runs); \`x cpu4\` / \`x cpuN\`: speedup over the filter's CPU
reference at 4 threads and at all of them."
  keep "$results/$pocl.json" "$md"
  echo "bench-pocl ($pocl): $(elapsed $start)" >> "$summary"
fi

if step peers-pocl; then
  start=$(date +%s)
  CLFILTERS_NO_TUNING=1 python3 bench/peers.py --cli "$cli" --sizes 1920x1080,3840x2160 --device pocl --peers opencv-cpu \
    --filters box-blur,sobel,bilateral --out "$results/$pocl-peers" > "$out/peers-pocl.log" 2>&1
  keep "$results/$pocl-peers.json" "$results/$pocl-peers.md"
  echo "peers-pocl ($pocl): $(elapsed $start)" >> "$summary"
  tail -10 "$out/peers-pocl.log" >> "$summary"
fi

if step scale; then
  start=$(date +%s)
  # Out-of-core bands and batches on the GPU, sub-devices of the Xeon (issue 56's cases).
  PYTHONPATH=build/release/python python3 bench/scale.py --cli "$cli" --device "${gpu:+nvidia}" \
    --cases "bands,split,${gpu:+mixed,}batch" --out "$results/${gpu:-$pocl}-scale" > "$out/scale.log" 2>&1
  keep "$results/${gpu:-$pocl}-scale.json" "$results/${gpu:-$pocl}-scale.md"
  echo "scale: $(elapsed $start)" >> "$summary"
  tail -12 "$out/scale.log" >> "$summary"
fi

if step mpi; then
  start=$(date +%s)
  bench/mpi_scale.sh "$out/mpi" > "$out/mpi.log" 2>&1
  cp "$out/mpi/mpi-scale.md" "$results/${gpu:-$pocl}-mpi.md"
  keep "$results/${gpu:-$pocl}-mpi.md"
  echo "mpi: $(elapsed $start)" >> "$summary"
  tail -16 "$out/mpi.log" >> "$summary"
fi

if step video-pocl; then
  start=$(date +%s)
  python3 bench/video_throughput.py --cli "$cli" --device pocl --runs 2 --out "$results/$pocl-video" > "$out/video-pocl.log" 2>&1
  keep "$results/$pocl-video.json" "$results/$pocl-video.md"
  echo "video-pocl ($pocl): $(elapsed $start)" >> "$summary"
  tail -20 "$out/video-pocl.log" >> "$summary"
fi
cat "$summary"
