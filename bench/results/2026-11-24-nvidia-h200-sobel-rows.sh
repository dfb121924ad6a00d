# H200 call of 2026-11-24 (fourth session): Sobel magnitude at 8k over strip shapes outside the tuner's
# lists (rows 3, 5, 6; columns 4 and 8) beside the tuned 8x4, to see whether shape alone reaches 60%.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 10 --runs 30 --total-runs 1 --cpu-runs 0 --params output=magnitude'
k() {
  local out="" c r l
  for c in 4 8; do for r in 3 4 5 6; do for l in 32 64; do
    out="$out,strip[columns=$c,rows=$r,local_x=$l,mag_float=1]"
  done; done; done
  echo "${out#,}"
}
CLF_TAIL=40 bench/gpu-quick.sh $OUT "sobel" "bench sobel $F --variants '$(k)'"
