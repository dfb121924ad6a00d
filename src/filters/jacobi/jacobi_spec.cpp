// The reconstruction's description: its variants and tunables, what each needs from the device, the
// auto rule, and the FilterSpec that tests, benchmark, tuner and command line iterate over.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "clfilters/jacobi.hpp"
#include "common/synthetic_image.hpp"
#include "filters/filter_spec.hpp"
#include "filters/jacobi/jacobi_internal.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {
namespace {

const std::vector<Tunable> kLocalSize1d = {
    {"local_size", {0, 64, 128, 256}, "work-group size (0: the driver chooses)"}};

}  // namespace

const std::vector<VariantInfo>& jacobi_variants() {
  static const std::vector<VariantInfo> all = {
      {"host_roundtrip",
       "col1d plus a copy to the host and back up after every iteration (seed 002's starting point; kept only "
       "to measure what the next step saves)",
       {}},
      {"col1d",
       "one work-item per row looping over the columns, buffers swapped on the device: uncoalesced on purpose "
       "(seed 002, no host transfers)",
       kLocalSize1d},
      {"row1d", "one work-item per column looping over the rows: coalesced (seed 002, memory access)", kLocalSize1d},
      {"tiled2d",
       "one pixel per work-item per row, 2D work-groups (seed 002, occupancy; 8x8, 16x16, 32x12, ...); "
       "rows > 1: each work-item owns rows pixels of its column, local_y apart, every load issued before "
       "the arithmetic (beyond the seed)",
       {{"local_x", {16, 8, 32, 64, 128}, "work-group width"},
        {"local_y", {16, 8, 12, 4, 2}, "work-group height"},
        {"rows", {1, 2, 4, 8}, "pixels per work-item, local_y apart (1: the seed's kernel)"}}},
      {"temporal",
       "k iterations per launch: each work-group keeps its tile plus a halo of k in local memory (overlapping "
       "ghost zones, the same iterates as one-step Jacobi)",
       {{"steps", {8, 2, 3, 4, 6, 12, 16}, "iterations per launch (k)"},
        {"tile_x", {16, 32, 8}, "tile (work-group) width"},
        {"tile_y", {16, 8}, "tile (work-group) height"}}},
      {"strip",
       "one iteration per launch, each work-item a vec x rows strip: vector loads of u and the edges, "
       "vertical neighbours in registers, horizontal ones from L1, no local memory (beyond the seed)",
       {{"local_x", {64, 32, 128}, "work-group width (work-items)"},
        {"local_y", {2, 1, 4}, "work-group height (work-items)"},
        {"vec", {4, 1}, "columns per work-item (one vector load per row)"},
        {"rows", {4, 2, 8}, "rows per work-item"}}},
      {"wavefront",
       "k iterations per launch: each work-group sweeps down a band of columns, the k iterates skewed one "
       "row per level in registers, horizontal neighbours through local memory, one barrier per row (beyond "
       "the seed: 2.5D temporal blocking)",
       {{"steps", {10, 8, 12, 4, 16}, "iterations per launch (k)"},
        {"local_x", {256, 128}, "work-items per work-group, side by side along the band"},
        {"cols", {1, 2}, "columns per work-item"},
        {"rows", {0, 96, 192, 384}, "output rows per work-group (0: 12 work-groups per compute unit)"}}},
  };
  return all;
}

std::pair<int, int> jacobi_work_group(const TuningConfig& config, const VariantInfo& variant) {
  if (variant.name == "temporal")
    return {tunable_value(config, variant, "tile_x"), tunable_value(config, variant, "tile_y")};
  if (variant.name == "wavefront") return {tunable_value(config, variant, "local_x"), 1};
  return {tunable_value(config, variant, "local_x"), tunable_value(config, variant, "local_y")};
}

int jacobi_wavefront_rows(const DeviceInfo& device, const TuningConfig& config, int width, int height) {
  const VariantInfo& info = *find_variant(jacobi_variants(), "wavefront");
  const int rows = tunable_value(config, info, "rows");
  if (rows > 0) return rows;
  // Taller blocks re-read fewer halo rows (2 * steps per block), but every work-group runs as long as
  // the others, so a last wave that is only partly full costs a whole one. Up to 12 work-groups per
  // compute unit fill whole waves when 1, 2, 3, 4 or 6 of them fit on a compute unit at once.
  const int steps = tunable_value(config, info, "steps");
  const int owned =
      std::max(1, tunable_value(config, info, "cols") * tunable_value(config, info, "local_x") - 2 * steps);
  const std::int64_t bands = (std::int64_t(width) + owned - 1) / owned;
  const std::int64_t units = std::max(1u, device.compute_units);
  const std::int64_t blocks = std::max<std::int64_t>(1, 12 * units / bands);
  return static_cast<int>(std::max<std::int64_t>((height + blocks - 1) / blocks, 4 * std::int64_t(steps)));
}

int jacobi_temporal_steps(const TuningConfig& config, const VariantInfo& variant) {
  if (variant.name != "temporal" && variant.name != "wavefront") return 1;
  return tunable_value(config, variant, "steps");
}

std::size_t jacobi_wavefront_local_bytes(const TuningConfig& config) {
  const VariantInfo& info = *find_variant(jacobi_variants(), "wavefront");
  const auto k = std::size_t(tunable_value(config, info, "steps"));
  const auto lx = std::size_t(tunable_value(config, info, "local_x"));
  const std::size_t levels = sizeof(float) * 2 * k * (lx + 2);  // two buffers of k levels
  return levels + (tunable_value(config, info, "cols") > 1 ? levels : sizeof(float));
}

std::optional<std::string> jacobi_unsupported(const DeviceInfo& device, std::string_view variant, int width, int height,
                                              const TuningConfig& config) {
  (void)width, (void)height;  // every variant takes every size
  const VariantInfo* info = find_variant(jacobi_variants(), std::string(variant));
  if (!info) return fmt::format("unknown reconstruction variant '{}'", variant);
  for (const auto& [name, value] : config) {
    const bool known =
        std::any_of(info->tunables.begin(), info->tunables.end(), [&](const Tunable& t) { return t.name == name; });
    if (!known) return fmt::format("{} has no tunable '{}'", variant, name);
    if (value < 0) return fmt::format("{} must be >= 0, got {}", name, value);
  }
  if (variant == "col1d" || variant == "row1d") {
    const int local = tunable_value(config, *info, "local_size");
    if (std::size_t(local) > device.max_work_group_size)
      return fmt::format("work-group of {} exceeds the device's {} work-items", local, device.max_work_group_size);
  }
  if (variant == "tiled2d" || variant == "temporal" || variant == "strip" || variant == "wavefront") {
    const auto [lx, ly] = jacobi_work_group(config, *info);
    if (lx < 1 || ly < 1) return fmt::format("work-group {}x{} is empty", lx, ly);
    if (std::size_t(lx) * std::size_t(ly) > device.max_work_group_size)
      return fmt::format("work-group {}x{} exceeds the device's {} work-items", lx, ly, device.max_work_group_size);
  }
  if (variant == "temporal") {
    const int k = jacobi_temporal_steps(config, *info);
    if (k < 1 || k > kMaxJacobiStepsPerLaunch)
      return fmt::format("temporal runs 1..{} iterations per launch, not {}", kMaxJacobiStepsPerLaunch, k);
    const auto [lx, ly] = jacobi_work_group(config, *info);
    // Two iterates and the edges over the tile plus a halo of k, and one uint per work-item to reduce.
    const std::size_t bytes =
        3 * sizeof(float) * std::size_t(lx + 2 * k) * std::size_t(ly + 2 * k) + 4 * std::size_t(lx) * ly;
    if (bytes > device.local_mem_bytes)
      return fmt::format("temporal with a {}x{} tile and k={} needs {} bytes of local memory, the device has {}", lx,
                         ly, k, bytes, device.local_mem_bytes);
  }
  if (variant == "tiled2d") {
    const int rows = tunable_value(config, *info, "rows");
    if (rows < 1 || rows > 16) return fmt::format("tiled2d takes 1..16 rows per work-item, not {}", rows);
  }
  if (variant == "strip") {
    const int vec = tunable_value(config, *info, "vec"), rows = tunable_value(config, *info, "rows");
    if (vec != 1 && vec != 2 && vec != 4)
      return fmt::format("strip takes 1, 2 or 4 columns per work-item, not {}", vec);
    if (rows < 1 || rows > 16) return fmt::format("strip takes 1..16 rows per work-item, not {}", rows);
  }
  if (variant == "wavefront") {
    const int k = jacobi_temporal_steps(config, *info);
    if (k < 1 || k > kMaxJacobiStepsPerLaunch)
      return fmt::format("wavefront runs 1..{} iterations per launch, not {}", kMaxJacobiStepsPerLaunch, k);
    const int cols = tunable_value(config, *info, "cols"), lx = tunable_value(config, *info, "local_x");
    if (cols != 1 && cols != 2 && cols != 4)
      return fmt::format("wavefront takes 1, 2 or 4 columns per work-item, not {}", cols);
    if (cols * lx <= 2 * k)
      return fmt::format("wavefront's {} x {} columns leave none inside halos of {}", lx, cols, k);
    const std::size_t bytes = jacobi_wavefront_local_bytes(config);
    if (bytes > device.local_mem_bytes)
      return fmt::format("wavefront (local_x {}, k={}) needs {} bytes of local memory, the device has {}", lx, k, bytes,
                         device.local_mem_bytes);
  }
  return std::nullopt;
}

// The rule until the tuner has measured this device. GPUs: wavefront (fewest passes over device memory,
// a halo in x only) where its default fits: on the H200 at 8k, 100 iterations, 8.1 ms against strip 18.8,
// tiled2d 29.5 and temporal 44.8 (bench/results/2026-11-23-nvidia-h200-epsilon-bilateral-jacobi.md). CPUs: strip, as
// PoCL runs wavefront's barrier per row slowly (2-core PoCL, 1024x1024, 100 iterations: strip 169 ms, tiled2d 648,
// wavefront 1348). Else tiled2d, the seed's last step.
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
  // Each iteration reads u and the edge map and writes u: 12 bytes per pixel (issue 8).
  std::uint64_t bytes_moved() const override { return 12 * pixels() * std::uint64_t(params_.iterations); }
  std::uint64_t pixels() const override { return edges_.pixel_count(); }

 private:
  Context& ctx_;
  Image edges_;
  JacobiParams params_;
  DeviceFloatImage d_edges_, d_u_;
  std::optional<JacobiReference> expected_;
  int last_iterations_ = -1;
};

class JacobiSpec : public FilterSpec {
 public:
  std::string name() const override { return "reconstruct"; }
  std::string kernel_file() const override { return "jacobi.cl"; }
  const std::vector<VariantInfo>& variants() const override { return jacobi_variants(); }
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
    for (const auto& [key, value] : params)
      if (key != "iterations" && key != "tolerance" && key != "check_every")
        throw std::invalid_argument(fmt::format("reconstruct has no parameter '{}'", key));
    JacobiParams p;
    p.iterations = param_int(params, "iterations", 100);
    if (params.count("tolerance")) p.tolerance = param_double(params, "tolerance", 0);
    p.check_every = param_int(params, "check_every", p.check_every);
    if (p.iterations < 0 || p.check_every < 1 || (p.tolerance && !(*p.tolerance >= 0)))
      throw std::invalid_argument("reconstruct needs iterations >= 0, check_every >= 1 and tolerance >= 0");
    return std::make_unique<JacobiInstance>(ctx, synthetic_photo(width, height, 1, seed), p);
  }
};

}  // namespace

const FilterSpec& jacobi_filter_spec() {
  static const JacobiSpec spec;
  return spec;
}

}  // namespace clf
