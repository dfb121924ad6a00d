// SPDX-License-Identifier: Apache-2.0
// The reconstruction's auto rule and the FilterSpec that tests, benchmark, tuner and command line iterate over
// (its variants are the entries of jacobi_variants.cpp).
#include <fmt/format.h>

#include <chrono>
#include <cstdint>

#include "clfilters/jacobi.hpp"
#include "common/synthetic_image.hpp"
#include "filters/filter_spec.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {

// The rule until the tuner has measured this device. GPUs: wavefront (fewest passes over device memory,
// a halo in x only) where its default fits: on the H200 at 8k, 100 iterations, 8.1 ms against strip 18.8,
// tiled2d 29.5 and temporal 44.8. CPUs: strip, as PoCL runs wavefront's barrier per row slowly (2-core PoCL,
// 1024x1024, 100 iterations: strip 169 ms, tiled2d 648, wavefront 1348). Else tiled2d, the seed's last step.
std::string jacobi_auto_variant(const DeviceInfo& device, int width, int height) {
  const bool gpu = (device.type & CL_DEVICE_TYPE_GPU) != 0;
  for (const char* v : {gpu ? "wavefront" : "strip", "strip", "tiled2d"})
    if (!jacobi_unsupported(device, v, width, height)) return v;
  return "row1d";
}

VariantChoice jacobi_choose(Context& ctx, std::string_view variant, int width, int height, const TuningConfig& config) {
  return choose_variant(
      ctx, variant, config, "reconstruct", "jacobi.cl", "", width, height,
      [&](const std::string& v, const TuningConfig& c) { return !jacobi_unsupported(ctx.info(), v, width, height, c); },
      [&] { return jacobi_auto_variant(ctx.info(), width, height); });
}

// ---- FilterSpec -----------------------------------------------------------------------------------
namespace {

class JacobiInstance : public FilterInstance {
 public:
  JacobiInstance(Context& ctx, const Image& photo, JacobiParams params)
      : ctx_(ctx),
        edges_(jacobi_edges_reference(photo)),
        params_(params),
        d_edges_(DeviceFloatImage::upload(ctx, edges_)),
        d_u_(DeviceFloatImage::allocate(ctx, edges_.width, edges_.height)) {}

  std::optional<std::string> unsupported(const std::string& variant, const TuningConfig& config) const override {
    return jacobi_unsupported(ctx_.info(), variant, edges_.width, edges_.height, config);
  }
  std::vector<cl::Event> enqueue(const std::string& variant, const TuningConfig& config) override {
    // Every call starts from the same zero iterate; the fill is set-up, not part of the call's events.
    check_cl(ctx_.queue().enqueueFillBuffer(d_u_.buffer, 0.0f, 0, d_u_.byte_size()), "clEnqueueFillBuffer");
    JacobiDeviceRun run = jacobi_reconstruct(ctx_, d_edges_, d_u_, params_, variant, config);
    last_iterations_ = run.iterations;
    return std::move(run.events);
  }
  double run_host_to_host(const std::string& variant, const TuningConfig& config) override {
    jacobi_prepare(ctx_, variant, edges_.width, edges_.height, config);
    const auto start = std::chrono::steady_clock::now();
    const DeviceFloatImage edges = DeviceFloatImage::upload(ctx_, edges_);
    check_cl(ctx_.queue().enqueueFillBuffer(d_u_.buffer, 0.0f, 0, d_u_.byte_size()), "clEnqueueFillBuffer");
    last_iterations_ = jacobi_reconstruct(ctx_, edges, d_u_, params_, variant, config).iterations;
    const Image out = d_u_.download(ctx_);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  // SPEC: relative L2 <= 1e-5 against the double reference running the same iterations, and with a
  // tolerance the same iteration count.
  std::optional<std::string> check_output() override {
    if (!expected_) expected_ = jacobi_reference(edges_, params_);
    const double error = jacobi_relative_l2(*expected_, d_u_.download(ctx_));
    if (last_iterations_ != expected_->iterations)
      return fmt::format("ran {} iterations, the reference {}", last_iterations_, expected_->iterations);
    if (!(error <= 1e-5))
      return fmt::format("relative L2 error {:.3g} > 1e-5 after {} iterations", error, last_iterations_);
    return std::nullopt;
  }
  void run_reference(int threads) override { jacobi_reference(edges_, params_, {}, threads); }
  std::string auto_variant() const override {
    return describe(jacobi_choose(ctx_, "auto", edges_.width, edges_.height));
  }
  // Each iteration reads u and the edge map and writes u: 12 bytes per pixel.
  std::uint64_t bytes_moved() const override { return 12 * pixels() * std::uint64_t(params_.iterations); }
  std::uint64_t pixels() const override { return edges_.pixel_count(); }
  // The edge map up and the reconstruction down, float32 each.
  std::pair<std::uint64_t, std::uint64_t> host_bytes() const override { return {4 * pixels(), 4 * pixels()}; }

 private:
  Context& ctx_;
  Image edges_;
  JacobiParams params_;
  DeviceFloatImage d_edges_, d_u_;
  std::optional<JacobiReference> expected_;
  int last_iterations_ = -1;
};

class JacobiSpec : public BasicFilterSpec {
 public:
  JacobiSpec() : BasicFilterSpec("reconstruct", "jacobi.cl", jacobi_variants) {}
  // Keys: iterations (100), tolerance (none), check_every (48). The input is the edge map of a
  // synthetic photograph; the iterate starts at zero.
  std::vector<ParamMap> bench_cases() const override {
    ParamMap fixed, measured;
    fixed.emplace("iterations", "100");
    // Tolerance 0 stops only on an exact fixed point: all 100 iterations with the device-side maxima and
    // their read-backs, i.e. what the tolerance stop costs.
    measured.emplace("iterations", "100");
    measured.emplace("tolerance", "0");
    measured.emplace("check_every", "48");
    return {fixed, measured};
  }
  std::unique_ptr<FilterInstance> instantiate(Context& ctx, int width, int height, const ParamMap& params,
                                              std::uint64_t seed) const override {
    check_param_keys(params, "reconstruct", {"iterations", "tolerance", "check_every"});
    JacobiParams p;
    p.iterations = param_int(params, "iterations", 100);
    if (params.count("tolerance")) p.tolerance = param_double(params, "tolerance", 0);
    p.check_every = param_int(params, "check_every", p.check_every);
    jacobi_check_params(p);
    return std::make_unique<JacobiInstance>(ctx, synthetic_photo(width, height, 1, seed), p);
  }
};

}  // namespace

const FilterSpec& jacobi_filter_spec() {
  static const JacobiSpec spec;
  return spec;
}

}  // namespace clf
