#!/usr/bin/env bash
# Box blur step 35 (bench/NOTES.md): since step 33 pair's start keeps 8 rows of loads in flight at items 4, 16 more
# registers, and the H100's d = 31 sits on the 70% line (0.256-0.259 ms). Does a register cap buy the work-groups
# back? Step 14 found none on the H200's long strips before step 33. The tuned shapes and their neighbours at caps
# 56, 64 and 72 and uncapped (NVIDIA's -cl-nv-maxrregcount=N through CLFILTERS_BUILD_OPTIONS, with -cl-nv-verbose
# so ptxas' registers and spills land in the program cache), in two interleaved rounds, every output checked.
# One device-tool call on an H100:   bash bench/results/2026-11-27-nvidia-h100-regcap.sh   (OUT set; ~3 min).
# On another card it runs the shape sweep instead (its H200 sections).
set -u
cd "$(dirname "$0")/../.."
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
[[ $gpu == *H100* ]] || exec bash bench/results/2026-11-27-nvidia-shape-sweep.sh
t0=$(date +%s)
W=/tmp/regcap; rm -rf $W; mkdir -p $W
[ -f /etc/OpenCL/vendors/nvidia.icd ] ||
  { mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
echo "$gpu"
{ cmake --preset release -DCLF_FILTERS= && cmake --build --preset release -j "$(nproc)"; } > "$W/build.log" 2>&1 ||
  { tail -30 "$W/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
export XDG_CACHE_HOME=/tmp/regcap-cache CLFILTERS_DEVICE=nvidia
rm -rf $XDG_CACHE_HOME && mkdir -p $XDG_CACHE_HOME/clfilters
cp bench/results/2026-11-24-nvidia-tuning.json $XDG_CACHE_HOME/clfilters/tuning.json
cli=build/release/tools/clfilters
p4="fused_wide[items=4,mirror=1,ring=0,pair=1,local_x"
d31="auto,$p4=64,strip=14,prefetch=2],$p4=64,strip=12,prefetch=2],$p4=64,strip=24,prefetch=2],$p4=96,strip=14,prefetch=2]"
d63="auto,$p4=64,strip=24,prefetch=2],$p4=64,strip=32,prefetch=2]"
for round in 1 2; do
  for cap in none 72 64 56; do
    opts=-cl-nv-verbose; [ $cap = none ] || opts+=" -cl-nv-maxrregcount=$cap"
    for d in 31 63; do
      v=d$d; CLFILTERS_BUILD_OPTIONS="$opts" $cli bench box-blur --sizes 8192x8192 --params channels=4,diameter=$d \
        --warmup 10 --runs 50 --total-runs 1 --cpu-runs 0 --variants "${!v}" 2>&1 | sed "s/^box-blur/cap=$cap box-blur/" \
        >> "$W/d$d.txt"
    done
  done
done
echo "benched: $(( $(date +%s) - t0 )) s"
# ptxas' report per program: the fused_wide builds' options and their registers and spills.
for f in $XDG_CACHE_HOME/clfilters/programs/*.txt; do
  grep -q "WIDE=1" "$f" || continue
  echo "$(head -1 "$f" | grep -oE 'ITEMS=[0-9]+|PREFETCH=[0-9]+|PAIR=[0-9]+|DIAMETER=[0-9]+|maxrregcount=[0-9]+' | paste -sd' ')" \
    "| $(grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill (stores|loads)' "$f" | grep -v ' 0 bytes' | paste -sd' ')"
done | sort -u > "$W/registers.txt"
for d in 31 63; do
  echo "== d = $d (kernel median ms, % of the copy bandwidth, cap, variant), fastest first"
  grep -E '^cap=' "$W/d$d.txt" | awk '{print $7, $13, $1, $6}' | sort -n | head -12
done
echo "== registers (ptxas)"; grep -E "PAIR=1" "$W/registers.txt" | head -20
cp $W/d31.txt $W/d63.txt $W/registers.txt "$OUT/"
