// SPDX-License-Identifier: Apache-2.0
// The clfilters command line without running anything: every subcommand declared on one CLI::App, and the
// options every subcommand takes. main() parses it and runs the chosen command; the command-line fuzzer
// (fuzz/fuzz_cli.cpp) only parses it.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "cli_common.hpp"

namespace clf::cli {

struct CliApp {
  CLI::App app{"clfilters: classic image filters on any OpenCL device (GPU, or CPU through PoCL)"};
  std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>> commands;
  std::uint64_t max_pixels = 0;  // --max-pixels; 0: not given
};

// The application with every registered subcommand, in their --help order.
std::unique_ptr<CliApp> make_cli_app();

// Applies the options every subcommand takes (after parsing, before any command runs): --max-pixels sets
// CLFILTERS_MAX_PIXELS, which the readers and the video pipeline read.
void apply_global_options(const CliApp& cli);

}  // namespace clf::cli
