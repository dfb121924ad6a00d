# H200 call of 2026-11-24 (ninth session): fused_wide at d = 31 and 63 with the next ASYNC steps' entering
# and leaving rows copied into local memory by cp.async (box_blur.cl's -D ASYNC, -D ASYNC_L = the
# work-group size, given here through CLFILTERS_BUILD_OPTIONS; ASYNC=0 is today's kernel). Why: the
# strip loop keeps one row of loads in flight per work-item (prefetch 1), and deeper prefetch in
# registers cost the one-wave fit (box blur steps 17 and 19); cp.async keeps rows in flight without
# registers. 8192x8192, kernel time, median of 30 after 5 warm-ups, every row checked against the CPU
# reference. ptxas' reports (-cl-nv-verbose) give the registers. Through the device tool: bash THIS_FILE.
set -u
bench/gpu-quick.sh "$OUT" "box_blur" "" > /dev/null  # build only; registers the NVIDIA ICD
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
F='--sizes 8192x8192 --warmup 5 --runs 30 --total-runs 1 --cpu-runs 0'
for a in 0 1 2 4; do
  for shape in "31 items=4 64,96,128,160" "63 items=8 64,96,120,128,160"; do
    set -- $shape
    V=""
    for s in ${3//,/ }; do V="$V,fused_wide[$2,local_x=64,mirror=1,prefetch=1,ring=0,strip=$s]"; done
    CLFILTERS_BUILD_OPTIONS="-cl-nv-verbose -D ASYNC=$a -D ASYNC_L=64" build/release/tools/clfilters bench box-blur $F \
      --params channels=4,diameter=$1 --variants "${V#,}" > "$OUT/async-$a-d$1.txt" 2>&1
    echo "== ASYNC=$a d=$1 (rc $?)"
    grep -E '^box-blur|WRONG|rror' "$OUT/async-$a-d$1.txt" | tr -s ' ' | cut -d' ' -f5,6,12 | sed 's/fused_wide\[//; s/,local_x=64,mirror=1,prefetch=1,ring=0//'
  done
done
cd /tmp/clfilters-gpu-cache/clfilters/programs && for f in *.txt; do
  grep -q 'ASYNC' "$f" || continue
  echo "$(head -1 "$f" | grep -oE ' -D (ITEMS|DIAMETER|ASYNC)=[0-9]+' | tr -d '\n'):" \
    "$(awk "/entry function 'box_fused_wide'/ {f = 1} f && /(Used|spill)/ {print} f && /Used/ {exit}" "$f" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | tr '\n' ' ')"
done | sort | tee "$OUT/registers.txt"
cd - > /dev/null
(cd "$OUT" && tar czf runs.tar.gz --remove-files async-*.txt)
