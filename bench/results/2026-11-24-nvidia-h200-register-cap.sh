# H200 call of 2026-11-24 (fifth session): the register cap (-cl-nv-maxrregcount through the
# `max_registers` tunable) on the three register-hungry kernels short of their targets: Sobel magnitude
# (strip), box blur d = 31 and 63 (fused_wide) and bilateral RGBA (unrolled), 8192x8192. With
# CLFILTERS_BUILD_OPTIONS=-cl-nv-verbose the ptxas report of each build (registers, spills) is in the
# program cache's .txt files (OUT/programs.tar.gz).
# It needs commit 3e17d03: the tunable it sweeps was reverted after this call (see the .md).
# Through the device tool: bash THIS_FILE (OUT set).
set -u
export CLFILTERS_BUILD_OPTIONS=-cl-nv-verbose
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
caps() {  # caps "variant[shape" "caps" -> the variant at each cap
  local out="" c
  for c in $2; do out="$out,$1,max_registers=$c]"; done
  echo "${out#,}"
}
S=""
for shape in "columns=8,rows=4,local_x=32" "columns=8,rows=5,local_x=32" "columns=8,rows=8,local_x=64" \
             "columns=16,rows=4,local_x=64" "columns=16,rows=8,local_x=64"; do
  S="$S,$(caps "strip[$shape,mag_float=1" "0 32 40 48 56 64")"
done
B31="" B63=""
for s in 64 128 256; do
  B31="$B31,$(caps "fused_wide[items=4,local_x=64,strip=$s,prefetch=1,mirror=1,ring=0" "0 32 40 48")"
  B63="$B63,$(caps "fused_wide[items=8,local_x=64,strip=$s,prefetch=1,mirror=1,ring=0" "0 40 48 56")"
done
BL=$(caps "unrolled[block_x=4,local_x=8,local_y=32,rows=2,soft_exp=0,table_taps=-1" "0 64 72 80 96 128")
BL="$BL,$(caps "unrolled[block_x=2,local_x=32,local_y=8,rows=2,soft_exp=0,table_taps=-1" "0 48 56 64 80")"
CLF_TAIL=80 bench/gpu-quick.sh $OUT "sobel;box_blur;bilateral" \
"bench sobel $F --params output=magnitude --variants '${S#,}';\
bench box-blur $F --params channels=4,diameter=31 --variants '${B31#,}';\
bench box-blur $F --params channels=4,diameter=63 --variants '${B63#,}';\
bench bilateral $F --params channels=4 --variants '$BL'"
