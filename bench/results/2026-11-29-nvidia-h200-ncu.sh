#!/usr/bin/env bash
# Box blur step 58 (bench/NOTES.md): Nsight Compute on the H200's tuned fused_wide shapes at d = 31 and 63 (8k), through
# CUDA. ncu does not see OpenCL kernels (step 29), so the driver's own PTX of each tuned build, taken from clfilters'
# program cache, is launched from CuPy by bench/ptx_profile.py with box_blur.cpp's arguments and work-group shape, its
# output checked against an exact CuPy box blur, and timed against the OpenCL bench of the same build.
# One device-tool call (OUT set): [SHAPES=...] bash bench/results/2026-11-29-nvidia-h200-ncu.sh
# Output: OUT/log.txt (a summary last), OUT/dD-details.txt (ncu --set full) and OUT/dD-sass.csv (per-instruction source
# counters) for each diameter D, OUT/programs.tar.gz (the PTX builds).
set -u
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200"; exit 3; }
# LABEL (optional) names the run and its folder under OUT, so that one call can profile builds under different
# CLFILTERS_BUILD_OPTIONS (box blur step 59): LABEL=base CLFILTERS_BUILD_OPTIONS=-DROW_SPLIT=0 bash ...; LABEL=split bash ...
source bench/nvidia-setup.sh "ncu${LABEL:+-$LABEL}" clfilters_cli
O=$OUT${LABEL:+/$LABEL}
mkdir -p "$O"
export PYTHONUNBUFFERED=1
p="fused_wide[direct=1,items=4,local_x=64,mirror=1,pair=1,ring=0"
# SHAPES: "D:PREFETCH:STRIP ..." (the H200's tuned shapes at 02b3398ed6b9dbd8 by default).
shapes=()
for s in ${SHAPES:-31:1:12 63:2:20}; do
  IFS=: read -r d pf st <<< "$s"; shapes+=("$d $p,prefetch=$pf,strip=$st] $st")
done
{
  for s in "${shapes[@]}"; do
    read -r d v strip <<< "$s"
    echo "== OpenCL bench, d = $d, $v"
    $cli bench box-blur --sizes 8192x8192 --params channels=4,diameter=$d --warmup 10 --runs 50 --total-runs 1 \
      --cpu-runs 0 --variants "$v" 2>&1 | grep -E '^box-blur|WRONG|rror'
  done
  progs=$XDG_CACHE_HOME/clfilters/programs
  for s in "${shapes[@]}"; do
    read -r d v strip <<< "$s"
    txt=$(grep -l "DIAMETER=$d " $progs/*.txt | head -1)
    [ -n "$txt" ] || { echo "no program for d = $d"; continue; }
    cp "${txt%.txt}.bin" "$W/d$d.ptx"
    echo "== program d = $d: $(head -1 "$txt" | cut -c1-200)"
    grep -oE 'Used [0-9]+ registers[^"]*' "$txt" | head -2
    args=(bench/ptx_profile.py "$W/d$d.ptx" box_fused_wide --d "$d" --items 4 --local-x 64 --pair 1 --strip "$strip")
    echo "== CUDA launch of that PTX, d = $d"
    timeout 300 python3 "${args[@]}" --runs 50 || { echo "ptx_profile failed (rc $?)"; continue; }
    echo "== ncu, d = $d"
    timeout 400 ncu --clock-control none --set full --import-source no --kernel-name box_fused_wide --launch-skip 3 \
      --launch-count 1 -f -o "$W/d$d" python3 "${args[@]}" --runs 2 2>&1 | grep -vE '^\s*$' | tail -5
    ncu -i "$W/d$d.ncu-rep" --page details > "$O/d$d-details.txt" 2>&1
    ncu -i "$W/d$d.ncu-rep" --page source --csv --print-source sass > "$O/d$d-sass.csv" 2>&1
    echo "details: $(wc -l < "$O/d$d-details.txt") lines, sass: $(wc -l < "$O/d$d-sass.csv") lines"
  done
} 2>&1 | tee "$O/log.txt"
tar -C "$W" -czf "$O/programs.tar.gz" $(cd "$W" && ls d*.ptx) 2>/dev/null
echo "== summary (total $(( $(date +%s) - t0 )) s)"
grep -E '^(box-blur|check|kernel median|== ncu|details)' "$O/log.txt"
for d in 31 63; do
  f=$O/d$d-details.txt
  [ -f "$f" ] && grep -E 'Duration|Registers Per|Achieved Occupancy|Issued Warp Per|No Eligible|Warp Cycles Per Issued|Memory Throughput|L1/TEX Hit|L2 Hit|DRAM Throughput|Compute \(SM\)' "$f" | head -20
done
