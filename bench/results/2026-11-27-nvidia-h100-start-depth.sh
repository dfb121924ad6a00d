#!/usr/bin/env bash
# Box blur step 33 (bench/NOTES.md): how deep should pair's start be? Each lane of a pair work-group sums about
# d / 2 shared rows before its first output, START_ROWS rows of loads in flight at a time (4 at items 4, 2 at items
# 8). Diagnostic build: START_ROWS overridable with -D through CLFILTERS_BUILD_OPTIONS, by an #ifndef this script
# writes into box_blur.cl of the checkout it runs in, the device's copy (not committed: it moves the code key, so
# `auto` finds no tuned entry here and its rows are the built-in rule's shape, not the tuned one). H100, 8k, d = 31
# and 63, pair shapes near the tuned ones, every row checked against the CPU reference; START_ROWS 4 / 8 / 16 at
# items 4 and 2 / 4 / 8 at items 8. Through the device tool: bash THIS_FILE (OUT set). Its one call ran at 9ecd151
# with the same #ifndef applied by hand, before the script was made to write it.
set -u
cd "$(dirname "$0")/../.."
python3 - <<'PY'
p = "src/filters/box_blur/box_blur.cl"
s = open(p).read()
old = "#define START_ROWS (ITEMS >= 8 ? 2 : 16 / ITEMS)\n"
assert s.count(old) == 1 and s.count("#undef START_ROWS\n") == 1
s = s.replace(old, "#ifndef START_ROWS\n" + old + "#define START_ROWS_DEFAULT\n#endif\n")
s = s.replace("#undef START_ROWS\n", "#ifdef START_ROWS_DEFAULT\n#undef START_ROWS\n#undef START_ROWS_DEFAULT\n#endif\n")
open(p, "w").write(s)
PY
[ -f /etc/OpenCL/vendors/nvidia.icd ] ||
  { mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{ cmake --preset release -DCLF_FILTERS=box_blur && cmake --build --preset release -j "$(nproc)" --target clfilters_cli; } \
  > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
export XDG_CACHE_HOME=/tmp/depth-cache CLFILTERS_DEVICE=nvidia
mkdir -p $XDG_CACHE_HOME/clfilters && cp bench/results/2026-11-24-nvidia-tuning.json $XDG_CACHE_HOME/clfilters/tuning.json
cli=build/release/tools/clfilters
b="bench box-blur --sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0"
v31="auto"; for lx in 64 96; do for pf in 1 2; do for s in 8 12 16; do
  v31="$v31,fused_wide[items=4,local_x=$lx,mirror=1,pair=1,prefetch=$pf,ring=0,strip=$s]"; done; done; done
v63="auto"; for s in 64 96 128; do for pf in 1 2; do
  v63="$v63,fused_wide[items=8,local_x=64,mirror=1,pair=1,prefetch=$pf,ring=0,strip=$s]"; done; done
for sr in 4 8 16; do
  CLFILTERS_BUILD_OPTIONS="-D START_ROWS=$sr" timeout 100 $cli $b --params channels=4,diameter=31 --variants "$v31" \
    > "$OUT/d31-start$sr.txt" 2>&1
done
for sr in 2 4 8; do
  CLFILTERS_BUILD_OPTIONS="-D START_ROWS=$sr" timeout 60 $cli $b --params channels=4,diameter=63 --variants "$v63" \
    > "$OUT/d63-start$sr.txt" 2>&1
done
for f in $OUT/d*-start*.txt; do
  echo "== $(basename $f): $(grep -cE 'WRONG|failed' $f) wrong or failed; fastest 3:"
  grep fused_wide $f | grep -vE 'WRONG|failed|skipped' | sort -k6 -g | head -3 | awk '{print $5, $6}'
done
