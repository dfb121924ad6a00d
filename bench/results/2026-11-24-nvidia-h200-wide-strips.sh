# H200 call of 2026-11-24 (fourth session), after ...-wide.sh: fused_wide at d = 31 (items 4) and 63
# (items 8) over strips between and beyond the listed ones (the number of work-groups against the number
# resident at once: the last wave) and local_x, prefetch 1, mirrored strips.
# Through the device tool: bash THIS_FILE (OUT set).
set -u
F='--sizes 8192x8192 --warmup 5 --runs 20 --total-runs 1 --cpu-runs 0'
k() {
  local out="" l s
  for l in $2; do for s in $3; do
    out="$out,fused_wide[items=$1,local_x=$l,strip=$s,prefetch=1,mirror=1,ring=0]"
  done; done
  echo "${out#,}"
}
CLF_TAIL=60 bench/gpu-quick.sh $OUT "box_blur" \
"bench box-blur $F --params channels=4,diameter=31 --variants '$(k 4 "64 96 128" "96 112 128 144 160 192 256 384")';\
bench box-blur $F --params channels=4,diameter=63 --variants '$(k 8 "64 96" "96 112 128 144 160 192 256 384")'"
