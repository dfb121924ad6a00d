// The epsilon filter's description: its variants (one per step of seed 000's Table 2, plus seed 003's
// fp16 forms) and tunables, what each needs from the device, the auto rule, and the FilterSpec that
// tests, benchmark, tuner and command line iterate over.
#include <fmt/format.h>

#include <chrono>

#include "clfilters/epsilon.hpp"
#include "common/image_compare.hpp"
#include "common/synthetic_image.hpp"
#include "filters/epsilon/epsilon_internal.hpp"
#include "filters/filter_spec.hpp"
#include "runtime/launch.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {
namespace {

// Work-group shape of the variants without local memory; local_x = 0 lets the driver choose.
const std::vector<Tunable> kLocalSize = {
    {"local_x", {0, 8, 16, 32, 64}, "work-group width in work-items (0: the driver chooses)"},
    {"local_y", {1, 2, 4, 8}, "work-group height"},
};

}  // namespace

const std::vector<VariantInfo>& epsilon_variants() {
  static const std::vector<VariantInfo> all = {
      {"naive",
       "image object (CL_R or CL_RGBA, CL_UNSIGNED_INT8), one output per work-item, (2r+1)^2 integer reads "
       "(seed 000 naive; falls back to a buffer where the image form cannot run)",
       kLocalSize},
      {"packed",
       "16-bit arithmetic on 4 values per vector: grey as uchar4 loads (ceil((2r+1)/4) per row), RGBA as one "
       "pixel's 4 channels (seed 000 step 1)",
       kLocalSize},
      {"vec4", "4 outputs per work-item, one vector load per window column, rows unrolled (seed 000 step 2)",
       kLocalSize},
      {"vec8", "8 outputs per work-item (seed 000 step 3a)", kLocalSize},
      {"vec16", "16 outputs per work-item; the seeds saw this spill registers (seed 000 step 3b)", kLocalSize},
      {"local",
       "vec4 reading a tile plus halo loaded into local memory once per work-group, one barrier (seed 000 "
       "step 4: 8x16 and 8x32 groups)",
       {{"local_y", {16, 24, 32}, "work-group height (rows of the tile)"},
        {"local_x", {8, 16}, "work-group width; each work-item covers 4 columns"}}},
      {"vec4_branchless", "vec4 with the compare turned into a 0/1 multiplier (seed 000 step 5a)", kLocalSize},
      {"vec8_branchless", "vec8 with the compare turned into a 0/1 multiplier (seed 000 step 5b)", kLocalSize},
      {"packed_half",
       "packed with half4 pixels and arithmetic, exact (integers below 2048); needs cl_khr_fp16 (seed 003 9.2.2)",
       kLocalSize},
      {"vec4_half", "vec4 with half4 pixels and arithmetic, exact; needs cl_khr_fp16 (seed 003 9.2.3)", kLocalSize},
      {"regblock",
       "not from a seed: a rows x cols block of outputs per work-item from a tile in local memory, window rows "
       "read once into registers; per tap 3 float instructions with the count folded into the sum, or (form 3, "
       "NVIDIA) 2 taps per 4 f16x2 instructions; radius, block and work-group are build options",
       {{"cols", {8, 4, 2}, "outputs per work-item along a row"},
        {"rows", {4, 8, 16}, "outputs per work-item down a column"},
        {"local_x", {8, 16, 32}, "work-group width"},
        {"local_y", {8, 4, 2}, "work-group height"},
        {"form",
         {3, 2, 0, 1},
         "tap form: 3 two outputs per register in f16x2 lanes through NVIDIA inline PTX (form 2 on other "
         "devices, where the PTX does not build, and where max(T,1)(2r+1)^2 > 2048), 2 predicated float add, "
         "0 select 1.0/0.0 and multiply-add, 1 saturate T+1-|d|"}}},
  };
  return all;
}

EpsilonRegBlockShape epsilon_regblock_shape(const TuningConfig& config) {
  const VariantInfo& v = *find_variant(epsilon_variants(), "regblock");
  return {tunable_value(config, v, "cols"), tunable_value(config, v, "rows"), tunable_value(config, v, "local_x"),
          tunable_value(config, v, "local_y"), tunable_value(config, v, "form")};
}

std::size_t epsilon_regblock_tile_bytes(const EpsilonRegBlockShape& shape, int radius) {
  // epsilon.cl fills whole work-group strides: width and height rounded up to the work-group's.
  const std::size_t width = round_up(std::size_t(shape.local_x * shape.cols + 2 * radius), shape.local_x);
  const std::size_t height = round_up(std::size_t(shape.local_y * shape.rows + 2 * radius), shape.local_y);
  return round_up(width, 4) * height * sizeof(float);
}

EpsilonLocalShape epsilon_local_shape(const TuningConfig& config) {
  const VariantInfo& v = *find_variant(epsilon_variants(), "local");
  return {tunable_value(config, v, "local_x"), tunable_value(config, v, "local_y")};
}

std::optional<std::string> epsilon_unsupported(const DeviceInfo& device, std::string_view variant,
                                               const EpsilonParams& params, int width, int height, int channels,
                                               const TuningConfig& config) {
  const VariantInfo* info = find_variant(epsilon_variants(), std::string(variant));
  if (!info) return fmt::format("unknown epsilon variant '{}'", variant);
  if (variant == "naive") {
    if (!device.image_support) return std::string("naive reads an image object; the device has no image support");
    if (std::size_t(width) > device.image2d_max_width || std::size_t(height) > device.image2d_max_height)
      return fmt::format("naive needs a {}x{} image; the device's 2D images go up to {}x{}", width, height,
                         device.image2d_max_width, device.image2d_max_height);
  }
  if ((variant == "packed_half" || variant == "vec4_half") && !device.has_fp16())
    return fmt::format("{} computes in half precision and needs cl_khr_fp16, which the device does not list", variant);
  if (variant == "local") {
    const EpsilonLocalShape group = epsilon_local_shape(config);
    if (std::size_t(group.width) * std::size_t(group.height) > device.max_work_group_size)
      return fmt::format("local work-group {}x{} exceeds the device's {} work-items", group.width, group.height,
                         device.max_work_group_size);
    const int r = std::max(params.radius, 0);
    const std::size_t bytes =
        std::size_t(4 * group.width + 2 * r) * std::size_t(group.height + 2 * r) * std::size_t(channels == 4 ? 4 : 1);
    if (bytes > device.local_mem_bytes)
      return fmt::format("local needs {} bytes of local memory for r={}, the device has {}", bytes, r,
                         device.local_mem_bytes);
    return std::nullopt;
  }
  if (variant == "regblock") {
    const EpsilonRegBlockShape shape = epsilon_regblock_shape(config);
    if (std::size_t(shape.local_x) * std::size_t(shape.local_y) > device.max_work_group_size)
      return fmt::format("regblock work-group {}x{} exceeds the device's {} work-items", shape.local_x, shape.local_y,
                         device.max_work_group_size);
    const std::size_t bytes = epsilon_regblock_tile_bytes(shape, std::max(params.radius, 0));
    if (bytes > device.local_mem_bytes)
      return fmt::format("regblock needs {} bytes of local memory for r={}, the device has {}", bytes, params.radius,
                         device.local_mem_bytes);
    return std::nullopt;
  }
  const int lx = tunable_value(config, *info, "local_x"), ly = tunable_value(config, *info, "local_y");
  if (lx > 0 && std::size_t(lx) * std::size_t(ly) > device.max_work_group_size)
    return fmt::format("work-group {}x{} exceeds the device's {} work-items", lx, ly, device.max_work_group_size);
  return std::nullopt;
}

// The rule until the tuner has measured this device. GPUs: regblock, 3.7x the tuned local variant on an
// H200 at 8192x8192 (9x9, T = 20: 0.57 ms against 2.17) where it fits the device's local memory. Other
// devices: vec4_branchless, the fastest step of seed 000's Table 2 on Adreno 630 (5a), which needs no
// device feature.
std::string epsilon_auto_variant(const DeviceInfo& device, const EpsilonParams& params, int width, int height,
                                 int channels) {
  const bool gpu = device.type & CL_DEVICE_TYPE_GPU;
  if (gpu && !epsilon_unsupported(device, "regblock", params, width, height, channels)) return "regblock";
  return "vec4_branchless";
}

std::string epsilon_param_class(const EpsilonParams& params, int channels) {
  return fmt::format("c{} {}", channels, params.radius <= 2 ? "r<=2" : params.radius <= 4 ? "r<=4" : "r>4");
}

VariantChoice epsilon_choose(Context& ctx, const EpsilonParams& params, std::string_view variant, int width, int height,
                             int channels, const TuningConfig& config) {
  return choose_variant(
      ctx, variant, config, "epsilon", "epsilon.cl", epsilon_param_class(params, channels), width, height,
      [&](const std::string& v, const TuningConfig& c) {
        return !epsilon_unsupported(ctx.info(), v, params, width, height, channels, c);
      },
      [&] { return epsilon_auto_variant(ctx.info(), params, width, height, channels); });
}

// ---- FilterSpec -----------------------------------------------------------------------------------
namespace {

class EpsilonInstance : public FilterInstance {
 public:
  EpsilonInstance(Context& ctx, Image input, EpsilonParams params)
      : ctx_(ctx),
        input_(std::move(input)),
        params_(params),
        d_in_(DeviceImage::upload(ctx, input_)),
        d_out_(DeviceImage::allocate(ctx, input_.width, input_.height, input_.channels)) {}

  std::optional<std::string> unsupported(const std::string& variant, const TuningConfig& config) const override {
    return epsilon_unsupported(ctx_.info(), variant, params_, input_.width, input_.height, input_.channels, config);
  }
  std::vector<cl::Event> enqueue(const std::string& variant, const TuningConfig& config) override {
    return epsilon(ctx_, d_in_, d_out_, params_, variant, config);
  }
  double run_host_to_host(const std::string& variant, const TuningConfig& config) override {
    epsilon_prepare(ctx_, params_, variant, input_.width, input_.height, input_.channels, config);
    const auto start = std::chrono::steady_clock::now();
    DeviceImage in = DeviceImage::upload(ctx_, input_);
    epsilon(ctx_, in, d_out_, params_, variant, config);
    Image out = d_out_.download(ctx_);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  std::optional<std::string> check_output() override {
    if (expected_.empty()) expected_ = epsilon_reference(input_, params_);
    return compare_images(expected_, d_out_.download(ctx_));
  }
  void run_reference(int threads) override { epsilon_reference(input_, params_, threads); }
  std::string auto_variant() const override {
    return describe(epsilon_choose(ctx_, params_, "auto", input_.width, input_.height, input_.channels));
  }
  std::uint64_t bytes_moved() const override { return 2 * input_.byte_size(); }
  std::uint64_t pixels() const override { return input_.pixel_count(); }

 private:
  Context& ctx_;
  Image input_;
  EpsilonParams params_;
  DeviceImage d_in_, d_out_;
  Image expected_;
};

ParamMap epsilon_case(const char* radius, const char* threshold, const char* channels) {
  ParamMap m;
  m.emplace(std::string("radius"), std::string(radius));
  m.emplace(std::string("threshold"), std::string(threshold));
  m.emplace(std::string("channels"), std::string(channels));
  return m;
}

class EpsilonSpec : public FilterSpec {
 public:
  std::string name() const override { return "epsilon"; }
  std::string kernel_file() const override { return "epsilon.cl"; }
  const std::vector<VariantInfo>& variants() const override { return epsilon_variants(); }
  // Keys: radius (4), threshold (20), channels (1: a Y plane or grey; 4: RGBA), border (replicate |
  // reflect101 | constant[=V]). The first case is seed 000's: 9x9, T = 20, one plane.
  std::vector<ParamMap> bench_cases() const override {
    return {epsilon_case("4", "20", "1"), epsilon_case("4", "20", "4"), epsilon_case("2", "20", "1"),
            epsilon_case("8", "20", "1")};
  }
  std::string param_class(const ParamMap& params) const override {
    EpsilonParams p;
    p.radius = param_int(params, "radius", 4);
    return epsilon_param_class(p, param_int(params, "channels", 1));
  }
  std::unique_ptr<FilterInstance> instantiate(Context& ctx, int width, int height, const ParamMap& params,
                                              std::uint64_t seed) const override {
    for (const auto& [key, value] : params)
      if (key != "radius" && key != "threshold" && key != "channels" && key != "border")
        throw std::invalid_argument(fmt::format("epsilon has no parameter '{}'", key));
    EpsilonParams p;
    p.radius = param_int(params, "radius", 4);
    p.threshold = param_int(params, "threshold", 20);
    p.border = parse_border(param_text(params, "border", "replicate"));
    if (p.radius < kMinEpsilonRadius || p.radius > kMaxEpsilonRadius)
      throw std::invalid_argument(
          fmt::format("epsilon radius must be {}..{}, got {}", kMinEpsilonRadius, kMaxEpsilonRadius, p.radius));
    if (p.threshold < 0 || p.threshold > 255)
      throw std::invalid_argument(fmt::format("epsilon threshold must be 0..255, got {}", p.threshold));
    const int channels = param_int(params, "channels", 1);
    if (channels != 1 && channels != 4) throw std::invalid_argument("epsilon channels must be 1 or 4");
    return std::make_unique<EpsilonInstance>(ctx, synthetic_photo(width, height, channels, seed), p);
  }
};

}  // namespace

const FilterSpec& epsilon_filter_spec() {
  static const EpsilonSpec spec;
  return spec;
}

}  // namespace clf
