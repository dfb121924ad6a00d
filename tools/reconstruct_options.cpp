// SPDX-License-Identifier: Apache-2.0
#include "reconstruct_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

namespace clf::cli {

CLI::App* add_reconstruct_command(CLI::App& app, ReconstructOptions& o) {
  auto* cmd = app.add_subcommand("reconstruct",
                                 "rebuild an image from its edge map by Jacobi iteration (reverse edge detection)");
  cmd->add_option("EDGES", o.image.input, "edge map: a float32 .npy of shape H x W")->required();
  cmd->add_option("OUT", o.image.output, "output: .npy (float32), or an 8-bit image (rounded and clamped)")->required();
  o.iterations_option = cmd->add_option("-n,--iterations", o.params.iterations,
                                        "the most iterations (default 1000, or 1000000 with --tolerance)");
  o.tolerance_option =
      cmd->add_option("-t,--tolerance", o.tolerance, "stop once the largest change in one iteration is <= T");
  cmd->add_option("--check-every", o.params.check_every,
                  "with --tolerance: read the device's per-iteration maxima back every M iterations")
      ->capture_default_str();
  cmd->add_option("--initial", o.initial, "initial iterate (same size as EDGES; any image, zeros if absent)");
  std::string help = "auto (the built-in choice) or one of:";
  for (const auto& v : jacobi_variants()) help += fmt::format("\n  {}: {}", v.name, v.summary);
  cmd->add_option("--variant", o.image.variant, help)->capture_default_str();
  cmd->add_flag("--time", o.image.time, "print kernel time (profiling events) and total time (upload to download)");
  add_output_options(cmd, o.image);
  return cmd;
}

void finish_reconstruct_options(ReconstructOptions& o) {
  if (o.tolerance_option->count() > 0) o.params.tolerance = o.tolerance;
  if (o.iterations_option->count() == 0) o.params.iterations = o.params.tolerance ? 1000000 : 1000;
  o.params.report_change = true;
  try {
    jacobi_check_params(o.params);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  check_variant_name(o.image.variant, jacobi_variants());
}

bool is_npy(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".npy";
}

std::string edge_map_problem(const std::string& path, SampleType type, int width, int height, int channels) {
  if (type == SampleType::f32 && channels == 1) return {};
  const std::string shape =
      channels == 1 ? fmt::format("{} x {}", height, width) : fmt::format("{} x {} x {}", height, width, channels);
  return fmt::format("{}: the edge map must be a float32 array of shape H x W, this file holds {} of shape {}", path,
                     sample_type_name(type), shape);
}

Image to_u8(const Image& f) {
  Image out(f.width, f.height, 1);
  const auto src = f.samples<float>();
  auto dst = out.samples<std::uint8_t>();
  for (std::size_t i = 0; i < src.size(); ++i) {
    const double v = std::floor(double(src[i]) + 0.5);
    dst[i] = static_cast<std::uint8_t>(v >= 255 ? 255 : v > 0 ? v : 0);
  }
  return out;
}

std::string iterations_line(const JacobiParams& params, const JacobiOutcome& outcome) {
  const std::string change = outcome.last_change ? fmt::format("{:.6g}", *outcome.last_change) : "n/a";
  std::string why;
  if (params.tolerance && outcome.last_change && *outcome.last_change <= *params.tolerance)
    why = fmt::format(" (converged: <= tolerance {})", *params.tolerance);
  else if (params.tolerance)
    why = fmt::format(" (stopped at the limit of {} iterations before reaching tolerance {})", params.iterations,
                      *params.tolerance);
  return fmt::format("{} iterations, largest change in the last one {}{}", outcome.iterations, change, why);
}

}  // namespace clf::cli
