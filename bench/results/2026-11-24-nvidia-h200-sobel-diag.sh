# H200 call of 2026-11-24 (ninth session): what holds Sobel magnitude (strip, MAG_FLOAT) at 56% of the
# copy bandwidth? Two diagnostic builds of sobel.cl (SOBEL_DIAG, commit of this script; removed after):
#   SOBEL_DIAG=1: every load and store kept, one XOR per output word instead of the filter (memory alone);
#   SOBEL_DIAG=2: the filter and the stores on synthetic pixels, the input loads dead (arithmetic alone).
# 8192x8192, kernel time, median of 30 after 5 warm-ups; the diagnostic rows are unchecked.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
bench/gpu-quick.sh "$OUT" "sobel" "" > /dev/null  # build only; registers the NVIDIA ICD
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
F='--sizes 8192x8192 --warmup 5 --runs 30 --total-runs 1 --cpu-runs 0 --params output=magnitude'
V=""
for s in "columns=8,local_x=32,rows=4" "columns=8,local_x=64,rows=4" "columns=8,local_x=64,rows=2" \
         "columns=16,local_x=32,rows=4" "columns=4,local_x=64,rows=4" "columns=8,local_x=128,rows=8"; do
  V="$V,strip[$s,mag_float=1]"
done
for d in 0 1 2; do
  u=""; [ $d = 0 ] || u=--unchecked
  CLFILTERS_BUILD_OPTIONS="-cl-nv-verbose -D SOBEL_DIAG=$d" build/release/tools/clfilters bench sobel $F $u \
    --variants "${V#,}" > "$OUT/diag-$d.txt" 2>&1
  echo "== SOBEL_DIAG=$d (rc $?)"
  grep -E '^sobel|mismatch|rror' "$OUT/diag-$d.txt" | tr -s ' ' | cut -d" " -f4,5,11
done
cd /tmp/clfilters-gpu-cache/clfilters/programs && for f in *.txt; do
  grep -q 'SOBEL_DIAG' "$f" || continue
  echo "$(head -1 "$f" | grep -oE ' -D (VEC|ROWS|SOBEL_DIAG)=[0-9]+' | tr -d '\n'):" \
    "$(awk "/entry function 'sobel_strip'/ {f = 1} f && /Used/ {print; exit}" "$f" | grep -oE 'Used [0-9]+ registers')"
done | sort | tee "$OUT/registers.txt"
cd - > /dev/null
tar czf "$OUT/programs.tar.gz" -C /tmp/clfilters-gpu-cache/clfilters programs
(cd "$OUT" && tar czf runs.tar.gz --remove-files diag-*.txt)
