# H200 call of 2026-11-24 (ninth session): bilateral RGBA 9x9 at 8192x8192, does the tap order or a
# register cap raise the warps per SM? The tuned shape (block_x 4, 8x32, rows 2) holds 101 registers, so
# 2 work-groups of 256 (16 warps) per SM; at <= 80 registers 3 would fit (46 KB of local memory each).
# - COLUMN_ORDER=1 walks each window row by segment column, loading the segment one vector at a time,
#   so only a few columns are live instead of the whole segment (48 floats at block_x 4).
# - UR_REQD=0 drops reqd_work_group_size, which (like CUDA's launch bounds) may be why
#   -cl-nv-maxrregcount did not reach this kernel in the fifth session.
# Each build's ptxas report (-cl-nv-verbose) is in the program cache's .txt files (OUT/programs.tar.gz).
# Through the device tool: bash THIS_FILE (OUT set).
set -u
bench/gpu-quick.sh "$OUT" "bilateral" "" > /dev/null  # build only; registers the NVIDIA ICD
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
P='sigma_spatial=3,sigma_range=30,radius=4,channels=4'
F='--sizes 8192x8192 --warmup 5 --runs 30 --total-runs 1 --cpu-runs 0'
V=""
for s in "block_x=4,local_x=8,local_y=32,rows=2" "block_x=4,local_x=16,local_y=16,rows=2" \
         "block_x=4,local_x=8,local_y=16,rows=2" "block_x=2,local_x=32,local_y=8,rows=2" \
         "block_x=8,local_x=8,local_y=16,rows=1"; do
  V="$V,unrolled[$s,soft_exp=0,table_taps=-1]"
done
i=0
for opts in "" "-D COLUMN_ORDER=1" "-D UR_REQD=0" "-D UR_REQD=0 -cl-nv-maxrregcount=80" \
            "-D UR_REQD=0 -cl-nv-maxrregcount=72" "-D UR_REQD=0 -cl-nv-maxrregcount=64" \
            "-D COLUMN_ORDER=1 -D UR_REQD=0 -cl-nv-maxrregcount=80" \
            "-D COLUMN_ORDER=1 -D UR_REQD=0 -cl-nv-maxrregcount=64"; do
  i=$((i + 1))
  CLFILTERS_BUILD_OPTIONS="-cl-nv-verbose $opts" build/release/tools/clfilters bench bilateral $F --params "$P" \
    --variants "${V#,}" > "$OUT/run-$i.txt" 2>&1
  echo "== [$i] options '$opts' (rc $?)"
  grep -E '^bilateral|mismatch|rror|skipped' "$OUT/run-$i.txt" | tr -s ' ' | cut -d" " -f7,8
done
# Registers per build, from ptxas' reports.
cd /tmp/clfilters-gpu-cache/clfilters/programs && for f in *.txt; do
  grep -q 'RADIUS=4' "$f" || continue
  echo "$(head -1 "$f" | grep -oE ' -D (BLOCK_X|LOCAL_X|LOCAL_Y|COLUMN_ORDER|UR_REQD)=[0-9]+| -cl-nv-maxrregcount=[0-9]+' | tr -d '\n'):" \
    "$(awk "/entry function 'bilateral_unrolled'/ {f = 1} f && /Used/ {print; exit}" "$f" | grep -oE 'Used [0-9]+ registers')"
done | sort | tee "$OUT/registers.txt"
cd - > /dev/null
tar czf "$OUT/programs.tar.gz" -C /tmp/clfilters-gpu-cache/clfilters programs
(cd "$OUT" && tar czf runs.tar.gz --remove-files run-*.txt)
