// Sobel's description: its variants and tunables, what each needs from the device, the auto rule,
// and the FilterSpec that tests, benchmark, tuner and command line iterate over.
#include <fmt/format.h>

#include <chrono>
#include <optional>

#include "clfilters/sobel.hpp"
#include "common/image_compare.hpp"
#include "common/synthetic_image.hpp"
#include "filters/filter_spec.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {
namespace {

// Work-group shape over the variant's work-items; local_x = 0 lets the driver choose.
const std::vector<Tunable> kLocalSize = {
    {"local_x", {0, 8, 16, 32, 64}, "work-group width (0: the driver chooses)"},
    {"local_y", {1, 2, 4, 8, 16}, "work-group height"},
};

// row_tile: a work-group is a row of local_x strips, each `columns` wide and `rows` high. Defaults for
// a large GPU: 128 work-items x 8 columns cover 1024 contiguous pixels of a row.
const std::vector<Tunable> kRowTile = {
    {"local_x", {128, 64, 256, 32}, "work-items per work-group, side by side along the row"},
    {"columns", {8, 4, 16}, "columns per work-item (one uchar/short vector load and store per row)"},
    {"rows", {0, 4, 8, 16, 32}, "output rows per work-item (0: about two waves of work-items on the device)"},
};

// strip: a work-item owns `columns` x `rows` pixels, both built in. Defaults for the H200 at 8k: 16
// columns (one 16-byte load per input row) x 8 rows = 10 loads in flight per work-item at ~100-128
// registers; 64 work-items cover 1024 contiguous pixels of a row.
const std::vector<Tunable> kStrip = {
    {"local_x", {64, 32, 128, 256}, "work-items per work-group, side by side along the row"},
    {"columns", {16, 8, 4}, "columns per work-item (one 16/8/4-byte load per input row)"},
    {"rows", {8, 4, 16, 2}, "output rows per work-item, built in (its rows + 2 loads are all issued up front)"},
    {"mag_float",
     {1, 0, 2},
     "1: the magnitude in FP32 (FMA pipe) from the pixels on; 2: the magnitude or l1 as the FP32 "
     "Roberts cross of 2x2 sums; 0: the magnitude in 16-bit lanes. l1 below 2, and gradients always, "
     "take the lanes"},
};

}  // namespace

const std::vector<VariantInfo>& sobel_variants() {
  static const std::vector<VariantInfo> all = {
      {"naive", "one pixel per work-item, the 3x3 masks over 9 loads (seed 003 Figure 9-9)", kLocalSize},
      {"separable", "one pixel per work-item, [1 2 1] x [-1 0 1] separable arithmetic (seed 003 9.3.1)", kLocalSize},
      {"row16",
       "16x1 pixels per work-item from 18x3 inputs: uchar16 loads plus a 2-pixel tail, short16 arithmetic "
       "(seed 003 9.3.2-9.3.3)",
       kLocalSize},
      {"block16x2", "16x2 pixels per work-item from 18x4 inputs, vector loads (seed 003 Figure 9-11)", kLocalSize},
      {"image", "one pixel per work-item, input read through an image object and sampler (seed 003 9.3.4)", kLocalSize},
      {"row_tile",
       "coalesced strips: consecutive work-items own consecutive 4/8/16-column vectors of a row and walk "
       "down `rows` rows with the horizontal sums of two rows in registers (beyond the seeds)",
       kRowTile},
      {"strip",
       "register blocks: a work-item owns columns x rows pixels, loads all rows + 2 input rows up front and "
       "computes two pixels per 32-bit op in 16-bit lanes; interior work-items skip the border (beyond the "
       "seeds)",
       kStrip},
  };
  return all;
}

std::optional<std::string> sobel_unsupported(const DeviceInfo& device, std::string_view variant,
                                             const SobelParams& params, int width, int height,
                                             const TuningConfig& config) {
  const VariantInfo* info = find_variant(sobel_variants(), std::string(variant));
  if (!info) return fmt::format("unknown Sobel variant '{}'", variant);
  const int lx = tunable_value(config, *info, "local_x"), ly = tunable_value(config, *info, "local_y", 1);
  if (variant == "row_tile") {
    const int columns = tunable_value(config, *info, "columns"), rows = tunable_value(config, *info, "rows");
    if (columns != 4 && columns != 8 && columns != 16)
      return fmt::format("row_tile takes 4, 8 or 16 columns per work-item, not {}", columns);
    if (rows < 0) return fmt::format("row_tile needs rows >= 0 (0: automatic), not {}", rows);
    if (lx < 1) return fmt::format("row_tile needs a work-group width of at least 1, not {}", lx);
  }
  if (variant == "strip") {
    const int columns = tunable_value(config, *info, "columns"), rows = tunable_value(config, *info, "rows");
    if (columns != 4 && columns != 8 && columns != 16)
      return fmt::format("strip takes 4, 8 or 16 columns per work-item, not {}", columns);
    if (rows < 1 || rows > 32) return fmt::format("strip takes 1 to 32 rows per work-item, not {}", rows);
    if (lx < 1) return fmt::format("strip needs a work-group width of at least 1, not {}", lx);
    const int mag_float = tunable_value(config, *info, "mag_float");
    if (mag_float < 0 || mag_float > 2) return fmt::format("strip takes mag_float 0, 1 or 2, not {}", mag_float);
    // Where a value does not change the code, refusing it keeps the tuner from timing one program twice:
    // 0 and 1 differ for the magnitude only, and gradients have no Roberts path.
    if (params.output != SobelOutput::magnitude && mag_float == 0)
      return fmt::format("mag_float=0 is for output=magnitude only, not {}", to_string(params.output));
    if (params.output == SobelOutput::gradients && mag_float == 2)
      return std::string("mag_float=2 is for output=magnitude or l1, not gradients");
    // Beyond 128 pixels per work-item clang does not fully unroll the FP32 paths (its arrays went to
    // the stack in bench/sass.py), so those blocks take the lanes.
    const bool fp32 = mag_float == 2 || (params.output == SobelOutput::magnitude && mag_float == 1);
    if (fp32 && columns * rows > 128)
      return fmt::format("strip's FP32 paths (mag_float={} here) take at most 128 pixels per work-item, not {}x{}",
                         mag_float, columns, rows);
  }
  if (lx > 0 && std::size_t(lx) * std::size_t(ly) > device.max_work_group_size)
    return fmt::format("work-group {}x{} exceeds the device's {} work-items", lx, ly, device.max_work_group_size);
  if (variant == "image") {
    if (!device.image_support) return std::string("the image variant needs image support, which this device lacks");
    if (std::size_t(width) > device.image2d_max_width || std::size_t(height) > device.image2d_max_height)
      return fmt::format("the image variant needs a {}x{} image, above the device's {}x{} limit", width, height,
                         device.image2d_max_width, device.image2d_max_height);
  }
  return std::nullopt;
}

// The rule until the tuner has measured this device: block16x2 loads the fewest bytes per pixel
// (seed 003 Table 9-4) and needs nothing from the device. Not yet backed by a measurement here.
// GPUs: row_tile's coalesced loads and stores (H200 8k: gradients 0.143 ms against 1.22 for block16x2
// and 0.32 for separable; bench/results/2026-11-22-nvidia-h200-sobel-row-tile.md). CPUs: block16x2,
// whose explicit 16-wide vectors PoCL keeps (row_tile is 2-6x slower there).
std::string sobel_auto_variant(const DeviceInfo& device, const SobelParams& /*params*/, int /*width*/, int /*height*/) {
  return (device.type & CL_DEVICE_TYPE_GPU) ? "row_tile" : "block16x2";
}

VariantChoice sobel_choose(Context& ctx, const SobelParams& params, std::string_view variant, int width, int height,
                           const TuningConfig& config) {
  return choose_variant(
      ctx, variant, config, "sobel", "sobel.cl", to_string(params.output), width, height,
      [&](const std::string& v, const TuningConfig& c) {
        return !sobel_unsupported(ctx.info(), v, params, width, height, c);
      },
      [&] { return sobel_auto_variant(ctx.info(), params, width, height); });
}

// ---- FilterSpec -----------------------------------------------------------------------------------
namespace {

class SobelInstance : public FilterInstance {
 public:
  SobelInstance(Context& ctx, Image input, SobelParams params)
      : ctx_(ctx), input_(std::move(input)), params_(params), d_in_(DeviceImage::upload(ctx, input_)) {
    if (params_.output == SobelOutput::gradients)
      d_gradients_ = DeviceGradients::allocate(ctx, input_.width, input_.height);
    else
      d_out_ = DeviceImage::allocate(ctx, input_.width, input_.height, 1);
  }

  std::optional<std::string> unsupported(const std::string& variant, const TuningConfig& config) const override {
    return sobel_unsupported(ctx_.info(), variant, params_, input_.width, input_.height, config);
  }
  std::vector<cl::Event> enqueue(const std::string& variant, const TuningConfig& config) override {
    return d_gradients_ ? sobel(ctx_, d_in_, *d_gradients_, params_, variant, config)
                        : sobel(ctx_, d_in_, *d_out_, params_, variant, config);
  }
  double run_host_to_host(const std::string& variant, const TuningConfig& config) override {
    sobel_prepare(ctx_, params_, variant, input_.width, input_.height, config);
    const auto start = std::chrono::steady_clock::now();
    DeviceImage in = DeviceImage::upload(ctx_, input_);
    if (d_gradients_) {
      sobel(ctx_, in, *d_gradients_, params_, variant, config);
      const Image out = d_gradients_->download(ctx_);
    } else {
      sobel(ctx_, in, *d_out_, params_, variant, config);
      const Image out = d_out_->download(ctx_);
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  std::optional<std::string> check_output() override {
    if (expected_.empty()) expected_ = sobel_reference(input_, params_);
    return compare_images(expected_, d_gradients_ ? d_gradients_->download(ctx_) : d_out_->download(ctx_));
  }
  void run_reference(int threads) override { sobel_reference(input_, params_, threads); }
  std::string auto_variant() const override {
    return describe(sobel_choose(ctx_, params_, "auto", input_.width, input_.height));
  }
  std::uint64_t bytes_moved() const override {
    const std::uint64_t out_bytes = params_.output == SobelOutput::gradients ? 4 : 1;
    return input_.pixel_count() * (1 + out_bytes);
  }
  std::uint64_t pixels() const override { return input_.pixel_count(); }

 private:
  Context& ctx_;
  Image input_;
  SobelParams params_;
  DeviceImage d_in_;
  std::optional<DeviceImage> d_out_;
  std::optional<DeviceGradients> d_gradients_;
  Image expected_;
};

class SobelSpec : public FilterSpec {
 public:
  std::string name() const override { return "sobel"; }
  std::string kernel_file() const override { return "sobel.cl"; }
  const std::vector<VariantInfo>& variants() const override { return sobel_variants(); }
  // Keys: output (magnitude | l1 | gradients; default magnitude), border (replicate | reflect101 |
  // constant[=V]; default replicate). The input is a grey synthetic photograph.
  std::vector<ParamMap> bench_cases() const override {
    std::vector<ParamMap> cases;
    for (const char* output : {"magnitude", "gradients", "l1"}) {
      ParamMap p;
      p.emplace(std::string("output"), std::string(output));
      cases.push_back(std::move(p));
    }
    return cases;
  }
  std::string param_class(const ParamMap& params) const override {
    return to_string(parse_sobel_output(param_text(params, "output", "magnitude")));
  }
  std::unique_ptr<FilterInstance> instantiate(Context& ctx, int width, int height, const ParamMap& params,
                                              std::uint64_t seed) const override {
    for (const auto& [key, value] : params)
      if (key != "output" && key != "border")
        throw std::invalid_argument(fmt::format("sobel has no parameter '{}'", key));
    const SobelParams p{parse_sobel_output(param_text(params, "output", "magnitude")),
                        parse_border(param_text(params, "border", "replicate"))};
    return std::make_unique<SobelInstance>(ctx, synthetic_photo(width, height, 1, seed), p);
  }
};

}  // namespace

const FilterSpec& sobel_filter_spec() {
  static const SobelSpec spec;
  return spec;
}

}  // namespace clf
