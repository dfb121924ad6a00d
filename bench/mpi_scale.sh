#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Strong and weak scaling of clfilters-mpi reconstruct over ranks on this machine, and its exchange cost on a GPU.
#   Usage: bench/mpi_scale.sh OUT_DIR
#   CPU (PoCL): each rank gets cores / ranks of the cores (bound, PoCL held to as many threads);
#     strong: one SIZE x SIZE edge map; weak: SIZE / 4 rows of SIZE a rank. Ranks: $CLF_MPI_RANKS (default
#     "1 2 4 8"), SIZE $CLF_MPI_SIZE (4096), $CLF_MPI_ITERATIONS (300) iterations, $CLF_MPI_RUNS (2) runs each.
#   GPU (with nvidia-smi): 8192x8192, 1000 iterations, one rank and two ranks sharing the GPU, K = 8 and 16; the
#     difference is what a pass's exchange costs.
# Every run's output is compared with clfilters reconstruct on one device, byte for byte. Logs go to OUT_DIR, the
# table to OUT_DIR/mpi-scale.md. Needs clfilters and clfilters-mpi built (build/release), mpirun and numpy.
set -uo pipefail
out="${1:?usage: bench/mpi_scale.sh OUT_DIR}"
mkdir -p "$out" && out="$(cd "$out" && pwd)"
cd "$(dirname "$0")/.."
bin=build/release/tools
ranks_list=${CLF_MPI_RANKS:-"1 2 4 8"} size=${CLF_MPI_SIZE:-4096} n=${CLF_MPI_ITERATIONS:-300} runs=${CLF_MPI_RUNS:-2}
cores=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpi=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
table="$out/mpi-scale.md"
{
  echo "clfilters-mpi reconstruct, $(mpirun --version | head -1), $cores cores, $n iterations; total ms per run"
  echo
  echo "| case | ranks | runs (total ms) | kernel ms | exchange ms | output |"
  echo "|---|---|---|---|---|---|"
} > "$table"

gpu=$(nvidia-smi > /dev/null 2>&1 && echo 1 || echo 0)
python3 - "$work" "$size" "$gpu" $ranks_list <<'EOF'
import sys, numpy as np
work, size, gpu, ranks = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", [int(r) for r in sys.argv[4:]]
rng = np.random.default_rng()
np.save(f"{work}/strong.npy", rng.uniform(-100, 100, (size, size)).astype(np.float32))
for r in ranks:
    np.save(f"{work}/weak{r}.npy", rng.uniform(-100, 100, (r * size // 4, size)).astype(np.float32))
if gpu:
    np.save(f"{work}/gpu.npy", rng.uniform(-100, 100, (8192, 8192)).astype(np.float32))
EOF

ms() { sed -n "s/.*$1 \([0-9.]*\) ms.*/\1/p" "$2" | head -1; }

# case ranks one-device-output ARGS...: $runs runs, one row.
row() {
  local name=$1 ranks=$2 expected=$3 totals="" same=same
  shift 3
  for run in $(seq "$runs"); do
    local log="$out/$name-$ranks-$run.log"
    "$@" > "$log" 2>&1 || { echo "$name $ranks: failed, see $log"; same=failed; }
    totals+="${totals:+, }$(ms total "$log")"
    cmp -s "$expected" "$work/out.npy" || same=DIFFERS
  done
  echo "| $name | $ranks | $totals | $(ms kernel "$log") | $(ms exchange "$log") | $same |" >> "$table"
}

cpu_ranks() {  # RANKS INPUT ARGS...
  local r=$1 per=$(($cores / $1)) input=$2
  shift 2
  "${mpi[@]}" -np "$r" --map-by "slot:PE=$per" --bind-to core -x POCL_CPU_MAX_CU_COUNT=$per \
    -x POCL_MAX_PTHREAD_COUNT=$per "$bin/clfilters-mpi" reconstruct "$input" "$work/out.npy" -n "$n" --device pocl \
    --time "$@"
}

$bin/clfilters reconstruct "$work/strong.npy" "$work/strong-one.npy" -n "$n" --device pocl > "$out/strong-one.log"
for r in $ranks_list; do
  $bin/clfilters reconstruct "$work/weak$r.npy" "$work/weak$r-one.npy" -n "$n" --device pocl > /dev/null
done
for r in $ranks_list; do row "strong ${size}x$size" "$r" "$work/strong-one.npy" cpu_ranks "$r" "$work/strong.npy"; done
for r in $ranks_list; do
  row "weak $((size / 4)) rows a rank" "$r" "$work/weak$r-one.npy" cpu_ranks "$r" "$work/weak$r.npy"
done
for k in 1 8 16; do
  r=${ranks_list##* }
  row "strong, --exchange-every $k" "$r" "$work/strong-one.npy" cpu_ranks "$r" "$work/strong.npy" --exchange-every "$k"
done

if [ "$gpu" = 1 ]; then
  $bin/clfilters reconstruct "$work/gpu.npy" "$work/gpu-one.npy" -n 1000 --device nvidia --time > "$out/gpu-one.log"
  echo "| GPU 8192x8192, one device, no MPI | - | $(ms total "$out/gpu-one.log") | $(ms kernel "$out/gpu-one.log") | | |" \
    >> "$table"
  for k in 8 16; do
    for r in 1 2; do
      row "GPU 8192x8192, --exchange-every $k" "$r" "$work/gpu-one.npy" "${mpi[@]}" -np "$r" \
        "$bin/clfilters-mpi" reconstruct "$work/gpu.npy" "$work/out.npy" -n 1000 --device nvidia --time \
        --exchange-every "$k"
    done
  done
fi
cat "$table"
