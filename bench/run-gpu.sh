#!/usr/bin/env bash
# One call on the GPU machine: register NVIDIA's OpenCL driver, build, run every test on the NVIDIA
# device and on PoCL there, tune the NVIDIA device, and benchmark both. Full logs and result files go
# to OUT_DIR (results/ there is laid out like bench/results/ in the repo); a short summary is printed
# last. Result files are packed into OUT_DIR/results.tar.gz after every step.
#   Usage: bench/run-gpu.sh OUT_DIR [STEPS]
#   STEPS: any of build,test,tune,bench-1080p,bench-8k,bench-auto,bench-pocl,peers
#          (default: all but bench-auto). CLF_TUNING_FILE=FILE starts from that tuning database.
set -uo pipefail
out="${1:?usage: bench/run-gpu.sh OUT_DIR [STEPS]}"
steps="${2:-build,test,tune,bench-1080p,bench-8k,bench-pocl,peers}"  # bench-auto: on request
results="$(mktemp -d)/results"
mkdir -p "$results"
cd "$(dirname "$0")/.."
if [ ! -f /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
# Caches (built programs, PoCL's kernels, the tuning database) stay on the machine, outside OUT_DIR, so
# later calls reuse them and OUT_DIR holds only logs and results.
export XDG_CACHE_HOME="${CLF_GPU_CACHE:-/tmp/clfilters-gpu-cache}"
summary="$out/summary.txt"
: > "$summary"
step() { [[ ",$steps," == *",$1,"* ]]; }
elapsed() { echo "$(( $(date +%s) - $1 )) s"; }
today=$(date -u +%Y-%m-%d)
cli=build/release/tools/clfilters

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt" 2>&1
echo "gpu: $(head -1 "$out/gpu.txt")" >> "$summary"
gpu_slug=$(head -1 "$out/gpu.txt" | cut -d, -f1 | tr 'A-Z ' 'a-z-')

if step build; then
  start=$(date +%s)
  if cmake --preset release > "$out/configure.log" 2>&1 && cmake --build --preset release -j "$(nproc)" > "$out/build.log" 2>&1; then
    echo "build: ok ($(elapsed $start))" >> "$summary"
  else
    echo "build: FAILED (see build.log)" >> "$summary"; tail -30 "$out/build.log"; cat "$summary"; exit 1
  fi
fi
$cli devices > "$out/devices.txt" 2>&1

if step test; then
  for dev in ${CLF_TEST_DEVICES:-nvidia pocl}; do
    start=$(date +%s)
    CLFILTERS_DEVICE=$dev ctest --preset release -j 8 --timeout 900 > "$out/ctest-$dev.log" 2>&1
    echo "tests on $dev: $(grep -E 'tests passed|tests failed' "$out/ctest-$dev.log" | tail -1) ($(elapsed $start))" >> "$summary"
    grep -E '\*\*\*Failed|\(Failed\)|Timeout' "$out/ctest-$dev.log" | head -20 >> "$summary"
  done
fi

# A tuning database from an earlier call (the machine is fresh each call): CLF_TUNING_FILE=path.
if [ -n "${CLF_TUNING_FILE:-}" ] && [ -f "$CLF_TUNING_FILE" ]; then
  mkdir -p "$XDG_CACHE_HOME/clfilters" && cp "$CLF_TUNING_FILE" "$XDG_CACHE_HOME/clfilters/tuning.json"
fi
if step tune; then
  start=$(date +%s)
  CLFILTERS_DEVICE=nvidia $cli tune --size 8192x8192 --budget 120 > "$out/tune-nvidia.log" 2>&1
  # Small images favour other shapes (shorter strips, smaller work-groups): a second size class.
  CLFILTERS_DEVICE=nvidia $cli tune --size 1920x1080 --budget 60 >> "$out/tune-nvidia.log" 2>&1
  CLFILTERS_DEVICE=nvidia $cli tune --show >> "$out/tune-nvidia.log" 2>&1
  echo "tune on nvidia: $(elapsed $start)" >> "$summary"
  cp "$XDG_CACHE_HOME/clfilters/tuning.json" "$results/$today-$gpu_slug-tuning.json" 2>/dev/null
fi

pack() { tar czf "$out/results.tar.gz" -C "$(dirname "$results")" results; }

# Results named after the device and the date; each Markdown file records the command that made it.
bench() {  # bench NAME DEVICE ARGS...
  local name=$1 dev=$2; shift 2
  local base="$results/$today-$name"
  local start=$(date +%s)
  CLFILTERS_DEVICE=$dev $cli bench "$@" --format json --out "$base.json" --plot "$base.svg" > "$base.txt" 2>&1
  { echo "# clfilters bench on $name ($today)"; echo
    echo "Command (run by \`bench/run-gpu.sh\` through the device tool): \`CLFILTERS_DEVICE=$dev clfilters bench $*\`"; echo
    echo '```'; cat "$base.txt"; echo '```'; } > "$base.md"
  echo "bench $name: $(elapsed $start)" >> "$summary"
  pack  # after every step, so a call cut off by the time limit still brings back what it finished
}
if step bench-1080p; then
  bench "$gpu_slug-1080p" nvidia --sizes 1920x1080 --cpu-runs 1
fi
if step bench-8k; then
  bench "$gpu_slug-8k" nvidia --sizes 8192x8192 --warmup 5 --runs 20 --total-runs 2 --cpu-runs 0 --max-seconds-per-row 3
fi
# The tuned choice only, at both sizes: the headline table, quicker than every variant.
if step bench-auto; then
  bench "$gpu_slug-auto" nvidia --sizes 8192x8192,1920x1080 --variants auto --warmup 10 --runs 50 --total-runs 2 \
    --cpu-runs 0
fi
if step bench-pocl; then
  bench "pocl-16core-1080p" pocl --sizes 1920x1080 --warmup 2 --runs 5 --total-runs 2 --cpu-runs 1 --max-seconds-per-row 2
fi

if step peers && [ -f bench/peers.py ]; then
  start=$(date +%s)
  python3 bench/peers.py --cli "$cli" --sizes "${CLF_PEER_SIZES:-1920x1080,8192x8192}" \
    --out "$results/$today-$gpu_slug-peers" > "$out/peers.log" 2>&1
  echo "peers: $(elapsed $start)" >> "$summary"
  tail -40 "$out/peers.log" >> "$summary"
fi
pack
cat "$summary"
