# H200 call of 2026-11-24 (fourth session): Sobel magnitude with the root rounded and saturated by one
# conversion (strip mag_float=2, cvt.rni.sat.u8.f32) against mag_float=1 (clamp, root, FADD), over the
# shapes the tuner picked before; the Sobel tests first, on the NVIDIA device.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 10 --runs 30 --total-runs 1 --cpu-runs 0 --params output=magnitude'
k() {
  local out="" c r l m
  for c in 8 16; do for r in 2 4 8; do for l in 32 64 128; do for m in 1 2; do
    [ $((c * r)) -le 128 ] && out="$out,strip[columns=$c,rows=$r,local_x=$l,mag_float=$m]"
  done; done; done; done
  echo "${out#,}"
}
CLF_TAIL=40 CLF_QUICK_TESTS='Sobel' bench/gpu-quick.sh $OUT "sobel" "bench sobel $F --variants '$(k)'"
