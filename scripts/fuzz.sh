#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harnesses (the `fuzz` preset) and runs each for SECONDS (default 60) from its seed corpus
# (corpus/<name>/ in fuzz/corpus.tar.gz), one after another. Inputs are at most 16 KB, and any single allocation
# over 1 GiB is a failure (-malloc_limit_mb): no input that small may make a reader allocate that much. A crash, a timeout
# (10 s on one input) or an out-of-memory stop fails the script; the input is kept in build/fuzz/artifacts/.
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(png jpeg pnm npy y4m raw_yuv tuning_db cli)
scripts/install-deps.sh fuzz
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
seeds=build/fuzz/seeds
rm -rf "$seeds" && mkdir -p "$seeds" && tar -xzf fuzz/corpus.tar.gz -C "$seeds"
status=0
for name in "${harnesses[@]}"; do
  work=build/fuzz/corpus/$name  # new inputs go here, never into the seeds under version control
  artifacts=build/fuzz/artifacts/$name/
  log=build/fuzz/$name.log
  tmp=$PWD/build/fuzz/tmp/$name  # the tuning database harness writes its file there
  mkdir -p "$work" "$artifacts" "$tmp"
  if TMPDIR=$tmp build/fuzz/fuzz/fuzz_"$name" -max_total_time="$seconds" -max_len=16384 \
    -malloc_limit_mb=1024 -rss_limit_mb=2560 -timeout=10 -print_final_stats=1 -close_fd_mask=3 \
    -artifact_prefix="$artifacts" "$work" "$seeds/corpus/$name" >"$log" 2>&1; then
    result=ok
  else
    result=FAILED
    status=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  coverage=$(sed -nE 's/.*DONE +(cov: [0-9]+ ft: [0-9]+).*/\1/p' "$log")
  echo "fuzz_$name: $result, ${runs:-?} runs in ${seconds} s, ${coverage:-no coverage line} (log: $log)"
  [ "$result" = ok ] || grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -5 || true
done
exit $status
