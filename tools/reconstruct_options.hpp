// SPDX-License-Identifier: Apache-2.0
// What `clfilters reconstruct` and `clfilters-mpi reconstruct` share: their options, their checks and the lines they
// print about the run.
#pragma once

#include <string>

#include "clfilters/jacobi.hpp"
#include "cli_common.hpp"

namespace clf::cli {

struct ReconstructOptions {
  ImageCommandOptions image;  // input (EDGES), output, variant, device, time, quality, PNG compression
  JacobiParams params;
  double tolerance = 0;
  std::string initial;
  CLI::Option* tolerance_option = nullptr;
  CLI::Option* iterations_option = nullptr;
};

// Declares the subcommand "reconstruct" on `app` with every option but --device, which each tool describes itself.
CLI::App* add_reconstruct_command(CLI::App& app, ReconstructOptions& options);
// After parsing: the tolerance and the default iteration count, then the checks (a UsageError, one line).
void finish_reconstruct_options(ReconstructOptions& options);
// Whether `path` names a .npy file (case-insensitive).
bool is_npy(const std::string& path);
// The error for an edge map that is not float32 H x W (read from `path`), or an empty string.
std::string edge_map_problem(const std::string& path, SampleType type, int width, int height, int channels);
// 8-bit output: rounded (ties up) and clamped to 0..255; NaN becomes 0.
Image to_u8(const Image& f);
// "N iterations, largest change in the last one C (converged: <= tolerance T)".
std::string iterations_line(const JacobiParams& params, const JacobiOutcome& outcome);

}  // namespace clf::cli
