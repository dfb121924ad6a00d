#!/usr/bin/env bash
# Focused GPU run for iterating on a few filters (bench/run-gpu.sh does the full pass).
# Usage: bench/gpu-quick.sh OUT_DIR FILTER_DIRS "CLI COMMANDS..."   e.g.
#   bench/gpu-quick.sh $OUT "box_blur" "bench box-blur --sizes 8192x8192 --variants all"
# Each CLI command (separated by ';') runs on the NVIDIA device with its output in OUT_DIR/cmd-N.txt.
# CLF_QUICK_TESTS=REGEX first runs the CTest tests matching REGEX on the NVIDIA device (OUT_DIR/ctest.log).
# At the end the tuning database goes to OUT_DIR/tuning.json and the driver's built programs (PTX on
# NVIDIA, each with a .txt naming its kernel file and options) to OUT_DIR/programs.tar.gz, for
# bench/sass.py here.
set -uo pipefail
out="${1:?usage}"; filters="${2:?usage}"; cmds="${3:-}"
cd "$(dirname "$0")/.."
if [ ! -f /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
export XDG_CACHE_HOME="${CLF_GPU_CACHE:-/tmp/clfilters-gpu-cache}" CLFILTERS_DEVICE="${CLFILTERS_DEVICE:-nvidia}"
# Only the CLI and the chosen filters' tests: other targets (cli_test, the example) need every filter.
targets="clfilters_cli"
for f in ${filters//;/ }; do targets="$targets ${f}_test"; done
if ! { cmake --preset release "-DCLF_FILTERS=$filters" && cmake --build --preset release -j "$(nproc)" --target $targets; } \
  > "$out/build.log" 2>&1; then
  tail -30 "$out/build.log"; exit 1
fi
if [ -n "${CLF_QUICK_TESTS:-}" ]; then
  start=$(date +%s)
  ctest --preset release -j 8 --timeout 600 -R "$CLF_QUICK_TESTS" > "$out/ctest.log" 2>&1
  echo "== tests matching '$CLF_QUICK_TESTS' on $CLFILTERS_DEVICE ($(( $(date +%s) - start )) s):" \
    "$(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -1)"
  grep -E '\(Failed\)|Timeout|Not Run' "$out/ctest.log" | head -20
fi
i=0
IFS=';' read -ra list <<< "$cmds"
for c in "${list[@]}"; do
  i=$((i + 1))
  start=$(date +%s)
  eval "build/release/tools/clfilters $c" > "$out/cmd-$i.txt" 2>&1
  rc=$?  # read before the line below: its $(date) would report its own status
  echo "== [$i] clfilters $c  ($(( $(date +%s) - start )) s, rc $rc)"
  grep -vE '^\s*$' "$out/cmd-$i.txt" | tail -${CLF_TAIL:-12}
done
cache="$XDG_CACHE_HOME/clfilters"
cp "$cache/tuning.json" "$out/" 2>/dev/null
tar czf "$out/programs.tar.gz" -C "$cache" programs 2>/dev/null
# The device tool brings back at most 8 files: the logs travel as one archive.
(cd "$out" && tar czf logs.tar.gz --remove-files build.log $(ls cmd-*.txt ctest.log 2>/dev/null))
true
