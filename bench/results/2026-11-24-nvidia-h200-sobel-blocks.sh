# H200 call of 2026-11-24 (fifth session): Sobel strip with several blocks per work-item (the `blocks`
# tunable) at 8k, magnitude over the shapes near the tuned one, gradients and l1 at their tuned shapes.
# It needs commit 1a0fcaf: the tunable it sweeps was reverted after this call (see the .md).
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 10 --runs 30 --total-runs 1 --cpu-runs 0'
k() {  # k "c r l;c r l;..."  -> strip variants over blocks 1..16
  local out="" s c r l b
  IFS=';' read -ra shapes <<< "$1"
  for s in "${shapes[@]}"; do read -r c r l <<< "$s"; for b in 1 2 4 8 16; do
    out="$out,strip[columns=$c,rows=$r,local_x=$l,mag_float=1,blocks=$b]"
  done; done
  echo "${out#,}"
}
M=$(k "8 4 32;8 5 32;8 4 64;8 2 64;4 4 64;8 8 64;16 2 32;16 4 64")
G=$(k "8 2 64;8 4 64")
L=$(k "8 8 32;8 4 32")
CLF_QUICK_TESTS='SobelStrip' CLF_TAIL=60 bench/gpu-quick.sh $OUT "sobel" \
  "bench sobel $F --params output=magnitude --variants '$M';bench sobel $F --params output=gradients --variants '$G';bench sobel $F --params output=l1 --variants '$L'"
