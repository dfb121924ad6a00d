#!/usr/bin/env bash
# Box blur step 29 (bench/NOTES.md), third call: Nsight Compute's counters for fused_wide at d = 31 and 63 (8k),
# lanes=1 at the device's tuned shapes against the best lanes shapes of the second call: DRAM bytes, L2 hit rate,
# issue and memory throughput. Whether ncu reads an OpenCL program's kernels is itself checked here (it does not:
# "No kernels were profiled"). Needs commit 67871cb (the lanes were removed after step 29).
# Through the device tool: bash THIS_FILE (OUT set). Output: OUT/ncu.txt; a summary last.
set -u
cd "$(dirname "$0")/../.."
CLF_TAIL=0 bench/gpu-quick.sh "$OUT" box_blur "" || exit 1
export XDG_CACHE_HOME="${CLF_GPU_CACHE:-/tmp/clfilters-gpu-cache}" CLFILTERS_DEVICE=nvidia
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,\
lts__t_sectors_srcunit_tex_op_read.sum,sm__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,\
sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,\
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.avg.per_cycle_active,launch__registers_per_thread,\
launch__occupancy_limit_registers,sm__cycles_elapsed.avg.per_second
run() {  # d variant
  ncu --clock-control none --kernel-name regex:box_fused --launch-skip 2 --launch-count 1 --metrics "$metrics" \
    build/release/tools/clfilters bench box-blur --sizes 8192x8192 --params channels=4,diameter=$1 --variants "$2" \
    --warmup 2 --runs 1 --total-runs 1 --cpu-runs 0 --unchecked 2>&1
}
{
  for v in 'fused_wide[items=4,local_x=96,mirror=0,prefetch=2,ring=0,strip=16]' \
           'fused_wide[items=4,local_x=64,mirror=1,prefetch=1,ring=0,strip=128]' \
           'fused_wide[items=4,lanes=2,local_x=64,mirror=1,prefetch=1,ring=0,strip=32]' \
           'fused_wide[items=4,lanes=4,local_x=64,mirror=1,prefetch=2,ring=0,strip=128]' \
           'fused_wide[items=4,lanes=4,local_x=64,mirror=1,prefetch=2,ring=0,strip=512]'; do
    echo "=== d=31 $v"; run 31 "$v"
  done
  for v in 'fused_wide[items=4,local_x=128,mirror=1,prefetch=1,ring=0,strip=144]' \
           'fused_wide[items=8,lanes=2,local_x=64,mirror=1,prefetch=1,ring=0,strip=256]'; do
    echo "=== d=63 $v"; run 63 "$v"
  done
  echo "=== a copy: d=1 is not fused_wide's; fused_packed d=3 for the bytes of a near-copy"
  run 3 'fused_packed[items=4,local_x=32,mirror=0,prefetch=4,ring=1,strip=8]'
} > "$OUT/ncu.txt" 2>&1
grep -E "^===|ERROR|==PROF==|Warning|gpu__time|dram__bytes|hit_rate|sm__inst_executed.sum|warps_active|sm__throughput|compute_memory|wavefronts|per_cycle|registers|occupancy_limit" "$OUT/ncu.txt" | head -150
