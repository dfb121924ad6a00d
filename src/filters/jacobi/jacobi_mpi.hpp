// SPDX-License-Identifier: Apache-2.0
// The reconstruction across the ranks of an MPI communicator (seed 002's stencil at cluster scale): the image in
// bands of rows, one a rank, each on the rank's own OpenCL device. Built only where MPI is found.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string_view>

#include "clfilters/jacobi.hpp"
#include "clfilters/variant.hpp"

namespace clf {

// A rank's rows of the image: its own [y0, y1), whose result it gives, and those it holds [in0, in1): its own and
// `depth` halo rows on each side within the image.
struct RankRows {
  int y0 = 0, y1 = 0;
  int in0 = 0, in1 = 0;
};

// An even split of `height` rows over `ranks` (the first height % ranks take one row more), with halos `depth` deep.
RankRows jacobi_rank_rows(int height, int ranks, int rank, int depth);

// The iterations between two halo exchanges, which is also the halos' depth: `wanted`, at most
// kMaxJacobiStepsPerLaunch and the smallest band's rows (each halo comes from the next rank alone). Throws
// std::invalid_argument where a rank would get no row, or `wanted` < 1.
int jacobi_exchange_depth(int height, int ranks, int wanted);

// What a rank's run cost.
struct JacobiMpiTiming {
  double total_ms = 0;           // the run, from the inputs on the device to the result on the host
  double kernel_ms = 0;          // its kernels (profiling events): the band's and the boundary strips'
  double exchange_ms = 0;        // the host's time in the halo exchanges, while the band's kernels run
  double reduce_ms = 0;          // in the tolerance's and the last change's MPI_Allreduce
  std::uint64_t halo_bytes = 0;  // sent
  int exchanges = 0;
};

// What a rank's band of `held` rows runs: `variant` ("auto": the tuned or built-in choice, moving past one the device
// refuses to build, as the one-device calls do), with its programs built. Not collective: each rank may run another
// variant, since all give the same bits. Throws std::invalid_argument where the variant cannot run on this device.
VariantChoice jacobi_mpi_prepare(Context& ctx, std::string_view variant, int width, int held);

// Collective over `comm`: this rank's part of jacobi_reconstruct on a width x `height` edge map, exchanging halos
// every `depth` iterations (jacobi_exchange_depth), with `choice` from jacobi_mpi_prepare. `edges` and `initial`
// (empty: zeros) are f32 rows [in0, in1) of jacobi_rank_rows(height, size, rank, depth). Returns this rank's own rows
// of the result, and the whole run's count and change (the same on every rank): bit for bit the one-device call's.
// Every rank must pass the same parameters. A rank's failure during the run leaves the others waiting: the caller
// ends the job (MPI_Abort).
JacobiResult jacobi_reconstruct_mpi(MPI_Comm comm, Context& ctx, const Image& edges, const Image& initial, int height,
                                    const JacobiParams& params, int depth, const VariantChoice& choice,
                                    JacobiMpiTiming* timing = nullptr);

}  // namespace clf
