# H200 call of 2026-11-24 (seventh session; needs commit 38b9b9e, whose DIAG_* macros were removed after
# it): fused_wide at its tuned d = 31 and d = 63 shapes with parts of its work taken out through
# CLFILTERS_BUILD_OPTIONS (wrong outputs; timing only), to see what its time follows:
#   DIAG_NO_LEAVING  no leaving-row loads (the column sums slide by a value made from the entering row)
#   DIAG_NO_WINDOW   no row window (each output is its column sum)
#   DIAG_NO_STORE    no output stores (kept only for a value that never occurs)
#   DIAG_NO_STARTUP  no d-row start of each strip (its column sums start from zero)
# Through the device tool: bash THIS_FILE (OUT set).
set -u
CLF_TAIL=3 bench/gpu-quick.sh $OUT "box_blur" "" > /dev/null
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
W31='fused_wide[items=4,local_x=64,mirror=1,ring=0,strip=128,prefetch=1]'
W63='fused_wide[items=8,local_x=64,mirror=1,ring=0,strip=128,prefetch=1]'
export XDG_CACHE_HOME=/tmp/clfilters-gpu-cache CLFILTERS_DEVICE=nvidia
for opts in "" "-D DIAG_NO_LEAVING=1" "-D DIAG_NO_WINDOW=1" "-D DIAG_NO_STORE=1" \
            "-D DIAG_NO_LEAVING=1 -D DIAG_NO_STORE=1" "-D DIAG_NO_LEAVING=1 -D DIAG_NO_WINDOW=1" \
            "-D DIAG_NO_STARTUP=1" "-D DIAG_NO_STARTUP=1 -D DIAG_NO_LEAVING=1 -D DIAG_NO_WINDOW=1" \
            "-D DIAG_NO_LEAVING=1 -D DIAG_NO_WINDOW=1 -D DIAG_NO_STORE=1"; do
  for dv in "31 $W31" "63 $W63"; do
    set -- $dv
    CLFILTERS_BUILD_OPTIONS="$opts" build/release/tools/clfilters bench box-blur $F \
      --params channels=4,diameter=$1 --variants "$2" --unchecked > "$OUT/run.txt" 2>&1
    echo "[${opts:-none}] $(grep '^box-blur' "$OUT/run.txt" | tr -s ' ' | cut -d' ' -f3,6-9)"
  done
done | tee "$OUT/diagnosis.txt"
rm -f "$OUT/run.txt"
