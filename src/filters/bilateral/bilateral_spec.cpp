// The bilateral filter's description: its variants and tunables, what each needs from the device,
// the auto rule, and the FilterSpec that tests, benchmark, tuner and command line iterate over.
// (The error analysis of the colour range-weight table is at the top of bilateral.cl.)
#include <fmt/format.h>

#include <chrono>

#include "clfilters/bilateral.hpp"
#include "common/image_compare.hpp"
#include "common/synthetic_image.hpp"
#include "filters/bilateral/bilateral_internal.hpp"
#include "filters/filter_spec.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {

using namespace bilateral_detail;

namespace {

// Work-group shape of a pass without local memory; local_x = 0 lets the driver choose.
const std::vector<Tunable> kLocalSize = {
    {"local_x", {0, 8, 16, 32, 64}, "work-group width (0: the driver chooses)"},
    {"local_y", {1, 2, 4, 8, 16}, "work-group height"},
};
// Work-group shape of the tiled variants, which is also the tile's shape.
const std::vector<Tunable> kTileSize = {
    {"tile_x", {16, 8, 32}, "work-group (tile) width"},
    {"tile_y", {16, 8, 4}, "work-group (tile) height"},
};

// The unrolled variant: work-group shape, outputs per work-item, and the share of exp2 on the FMA pipe.
const std::vector<Tunable> kUnrolledTunables = {
    {"local_x", {16, 32, 8}, "work-group width"},
    {"local_y", {8, 4, 16, 32}, "work-group height"},
    {"block_x", {4, 2, 8}, "horizontally adjacent outputs per work-item, sharing window rows in registers"},
    {"rows", {2, 1, 4}, "output rows per work-item (local_y apart): the tile's halo is loaded once for all"},
    {"soft_exp",
     {0, 2},
     "of every 16 taps, how many compute exp2 on the FMA pipe instead of the special-function unit"},
    {"table_taps",
     {-1, 4, 6, 8},
     "grey: of every 16 taps, how many take the weight from a range table in local memory instead of "
     "exp2 (-1: 5 for grey, 0 for colour, which has no table)"},
    {"int_exp",
     {0, 1},
     "colour with the expanded exponent: -|p - c|^2 from a dp4a and an integer add on packed bytes "
     "instead of three FFMAs, with a fifth tile plane (bilateral step 9)"},
};

bool is_tiled(std::string_view variant) {
  return variant == "local" || variant == "local_image" || variant == "range_table";
}

}  // namespace

const std::vector<VariantInfo>& bilateral_variants() {
  static const std::vector<VariantInfo> all = {
      {"naive", "global memory, one pixel per work-item, exp for every tap (seed 001, phase 1)", kLocalSize},
      {"gauss_table", "spatial weights from a host-computed table in constant memory (seed 001, phase 2)", kLocalSize},
      {"local", "tile plus halo loaded once into local memory per work-group (seed 001, phase 3)", kTileSize},
      {"local_image", "as local, with the tile loaded from an image object; needs images (seed 001, phase 4)",
       kTileSize},
      {"range_table",
       "as local, with range weights from a table too: 256 entries for grey, the quantised squared distance "
       "for colour; no exp in the loop",
       kTileSize},
      {"pixels4",
       "4 vertically adjacent pixels per work-item, each loaded pixel weighed for every window holding it; "
       "spatial and range tables",
       kLocalSize},
      {"unrolled",
       "every window loop unrolled for the radius at build time (radius <= 8), several outputs per "
       "work-item from a local tile, one exp2 per tap split between the special-function unit and an "
       "FMA-pipe polynomial",
       kUnrolledTunables},
  };
  return all;
}

namespace bilateral_detail {

UnrolledShape unrolled_shape(const VariantInfo& variant, const TuningConfig& config, int channels) {
  UnrolledShape s;
  s.local_x = tunable_value(config, variant, "local_x");
  s.local_y = tunable_value(config, variant, "local_y");
  s.block_x = tunable_value(config, variant, "block_x");
  s.rows = tunable_value(config, variant, "rows");
  s.soft_exp = tunable_value(config, variant, "soft_exp");
  // Every exp2 on the SFU by default (soft_exp 0): colour is bound by FP32 instructions (9-11 a tap),
  // not by exp2, and grey, once exp2 was one MUFU (fast_exp2), measured slower with soft_exp 3 (1.546
  // against 1.437 ms, bench/results/2026-11-23-nvidia-h200-fast-math.md); grey moves taps off the SFU
  // to the range table instead (bench/NOTES.md, bilateral step 4).
  s.table_taps = tunable_value(config, variant, "table_taps");
  if (s.table_taps < 0) s.table_taps = channels == 1 ? 5 : 0;
  s.int_exp = tunable_value(config, variant, "int_exp");
  return s;
}

std::size_t unrolled_tile_bytes(const UnrolledShape& s, int radius, int planes) {
  const std::size_t width = std::size_t(s.local_x * s.block_x + 2 * radius);
  const std::size_t stride = (width + 3) / 4 * 4;
  const std::size_t height = std::size_t(s.local_y * s.rows + 2 * radius);
  return stride * height * sizeof(float) * std::size_t(planes);
}

int unrolled_planes(const BilateralParams& params, int channels, const UnrolledShape& shape) {
  const bool expanded = unrolled_expanded(params, channels);
  return (channels == 4 ? 3 : 1) + (expanded ? 1 : 0) + (shape.table_taps > 0 ? 1 : 0) +
         (expanded && shape.int_exp ? 1 : 0);
}

TileShape tile_shape(const DeviceInfo& device, const VariantInfo& variant, const TuningConfig& config) {
  TileShape tile{tunable_value(config, variant, "tile_x"), tunable_value(config, variant, "tile_y")};
  // The default 16x16 needs 256 work-items; smaller devices get 8x8.
  if (config.empty() && device.max_work_group_size < 256) tile = {8, 8};
  return tile;
}

}  // namespace bilateral_detail

std::optional<std::string> bilateral_unsupported(const DeviceInfo& device, std::string_view variant,
                                                 const BilateralParams& params, int width, int height, int channels,
                                                 const TuningConfig& config) {
  const VariantInfo* info = find_variant(bilateral_variants(), std::string(variant));
  if (!info) return fmt::format("unknown bilateral variant '{}'", variant);
  try {
    check_bilateral_params(params);
  } catch (const std::invalid_argument& e) {
    return std::string(e.what());
  }
  if (channels != 1 && channels != 4) return fmt::format("bilateral runs on 1 or 4 channels, not {}", channels);
  const int r = bilateral_radius(params);
  const std::size_t pixel_bytes = std::size_t(channels);
  const int lx = tunable_value(config, *info, "local_x"), ly = tunable_value(config, *info, "local_y");
  if (lx > 0 && std::size_t(lx) * std::size_t(ly) > device.max_work_group_size)
    return fmt::format("work-group {}x{} exceeds the device's {} work-items", lx, ly, device.max_work_group_size);
  if (variant == "local_image") {
    if (!device.image_support) return std::string("local_image needs image support, which this device lacks");
    if (std::size_t(width) > device.image2d_max_width || std::size_t(height) > device.image2d_max_height)
      return fmt::format("local_image: {}x{} exceeds the device's largest 2D image, {}x{}", width, height,
                         device.image2d_max_width, device.image2d_max_height);
  }
  if (variant == "unrolled") {
    if (r > kMaxUnrolledRadius)
      return fmt::format("unrolled is built for radius <= {} (its code grows with the window), not {}",
                         kMaxUnrolledRadius, r);
    const UnrolledShape shape = unrolled_shape(*info, config, channels);
    if (shape.local_x < 1 || shape.local_y < 1 || shape.block_x < 1 || shape.rows < 1 || shape.soft_exp < 0 ||
        shape.soft_exp + shape.table_taps > 16)
      return fmt::format(
          "unrolled: local_x, local_y, block_x, rows must be >= 1, 0 <= soft_exp, soft_exp + table_taps <= "
          "16; got {} {} {} {} "
          "{} {}",
          shape.local_x, shape.local_y, shape.block_x, shape.rows, shape.soft_exp, shape.table_taps);
    if (channels != 1 && shape.table_taps > 0)
      return fmt::format("unrolled: table_taps applies to grey images only, not {} channels", channels);
    if (shape.int_exp != 0 && shape.int_exp != 1)
      return fmt::format("unrolled: int_exp is 0 or 1, got {}", shape.int_exp);
    if (shape.int_exp && !unrolled_expanded(params, channels))
      return std::string(
          "unrolled: int_exp needs the expanded colour exponent (RGBA with sigma_range large enough, about "
          "24 and up)");
    if (std::size_t(shape.local_x) * std::size_t(shape.local_y) > device.max_work_group_size)
      return fmt::format("work-group {}x{} exceeds the device's {} work-items", shape.local_x, shape.local_y,
                         device.max_work_group_size);
    // The tile is a static local array: NVIDIA refuses those above the 48 KiB it reports here.
    const std::size_t bytes = unrolled_tile_bytes(shape, r, unrolled_planes(params, channels, shape)) +
                              (shape.table_taps > 0 ? 511 * sizeof(float) : 0);
    if (bytes > device.local_mem_bytes)
      return fmt::format(
          "unrolled needs {} bytes of local memory for this shape at radius {}, the device "
          "has {}",
          bytes, r, device.local_mem_bytes);
  }
  if (is_tiled(variant)) {
    const TileShape tile = tile_shape(device, *info, config);
    if (std::size_t(tile.width) * std::size_t(tile.height) > device.max_work_group_size)
      return fmt::format("tile {}x{} exceeds the device's {} work-items", tile.width, tile.height,
                         device.max_work_group_size);
    const std::size_t bytes = std::size_t(tile.width + 2 * r) * std::size_t(tile.height + 2 * r) * pixel_bytes;
    if (bytes > device.local_mem_bytes)
      return fmt::format("{} needs {} bytes of local memory for radius {}, the device has {}", variant, bytes, r,
                         device.local_mem_bytes);
  }
  // range_table and pixels4 read at most 36 KiB of constant memory (8192 + 33^2 floats), within the
  // 64 KiB OpenCL 1.2 guarantees every full-profile device.
  return std::nullopt;
}

// The rule until the tuner has measured this device: range_table (no exp in the loop, tile in local
// memory) where it fits, else pixels4, which needs neither images nor local memory.
// The rule until the tuner has measured this device. GPUs: unrolled where its radius is built, 2.2x
// range_table (grey) and 1.9x local (RGBA) on the H200 at 8k with its default shape
// (bench/results/2026-11-23-nvidia-h200-epsilon-bilateral-jacobi.md). Else range_table, the seed's
// table step, or pixels4 where the tables do not fit.
std::string bilateral_auto_variant(const DeviceInfo& device, const BilateralParams& params, int width, int height,
                                   int channels) {
  if ((device.type & CL_DEVICE_TYPE_GPU) && !bilateral_unsupported(device, "unrolled", params, width, height, channels))
    return "unrolled";
  if (!bilateral_unsupported(device, "range_table", params, width, height, channels)) return "range_table";
  return "pixels4";
}

std::string bilateral_param_class(const BilateralParams& params, int channels) {
  const int r = bilateral_radius(params);
  return fmt::format("c{} {}", channels, r <= 2 ? "r<=2" : r <= 6 ? "r<=6" : "r>6");
}

VariantChoice bilateral_choose(Context& ctx, const BilateralParams& params, std::string_view variant, int width,
                               int height, int channels, const TuningConfig& config) {
  return choose_variant(
      ctx, variant, config, "bilateral", "bilateral.cl", bilateral_param_class(params, channels), width, height,
      [&](const std::string& v, const TuningConfig& c) {
        return !bilateral_unsupported(ctx.info(), v, params, width, height, channels, c);
      },
      [&] { return bilateral_auto_variant(ctx.info(), params, width, height, channels); });
}

// ---- FilterSpec -----------------------------------------------------------------------------------
namespace {

class BilateralInstance : public FilterInstance {
 public:
  BilateralInstance(Context& ctx, Image input, BilateralParams params)
      : ctx_(ctx),
        input_(std::move(input)),
        params_(params),
        d_in_(DeviceImage::upload(ctx, input_)),
        d_out_(DeviceImage::allocate(ctx, input_.width, input_.height, input_.channels)) {}

  std::optional<std::string> unsupported(const std::string& variant, const TuningConfig& config) const override {
    return bilateral_unsupported(ctx_.info(), variant, params_, input_.width, input_.height, input_.channels, config);
  }
  std::vector<cl::Event> enqueue(const std::string& variant, const TuningConfig& config) override {
    return bilateral(ctx_, d_in_, d_out_, params_, variant, config);
  }
  double run_host_to_host(const std::string& variant, const TuningConfig& config) override {
    bilateral_prepare(ctx_, params_, variant, input_.width, input_.height, input_.channels, config);
    const auto start = std::chrono::steady_clock::now();
    DeviceImage in = DeviceImage::upload(ctx_, input_);
    bilateral(ctx_, in, d_out_, params_, variant, config);
    Image out = d_out_.download(ctx_);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  // SPEC: within 1 of the double-precision reference at every pixel.
  std::optional<std::string> check_output() override {
    if (expected_.empty()) expected_ = bilateral_reference(input_, params_);
    return compare_images(expected_, d_out_.download(ctx_), 1.0);
  }
  void run_reference(int threads) override { bilateral_reference(input_, params_, threads); }
  std::string auto_variant() const override {
    return describe(bilateral_choose(ctx_, params_, "auto", input_.width, input_.height, input_.channels));
  }
  std::uint64_t bytes_moved() const override { return 2 * input_.byte_size(); }
  std::uint64_t pixels() const override { return input_.pixel_count(); }

 private:
  Context& ctx_;
  Image input_;
  BilateralParams params_;
  DeviceImage d_in_, d_out_;
  Image expected_;
};

class BilateralSpec : public FilterSpec {
 public:
  std::string name() const override { return "bilateral"; }
  std::string kernel_file() const override { return "bilateral.cl"; }
  const std::vector<VariantInfo>& variants() const override { return bilateral_variants(); }
  // Keys: sigma_spatial (3), sigma_range (30), radius (ceil(2 sigma_spatial)), channels (4),
  // border (replicate | reflect101 | constant[=V]).
  std::vector<ParamMap> bench_cases() const override {
    std::vector<ParamMap> cases;
    for (const char* channels : {"1", "4"}) {
      ParamMap m;
      m.emplace("sigma_spatial", std::string("3"));
      m.emplace("sigma_range", std::string("30"));
      m.emplace("radius", std::string("4"));
      m.emplace("channels", std::string(channels));
      cases.push_back(std::move(m));
    }
    return cases;
  }
  std::string param_class(const ParamMap& params) const override {
    BilateralParams p;
    p.sigma_spatial = param_double(params, "sigma_spatial", 3.0);
    p.radius = param_int(params, "radius", -1);
    return bilateral_param_class(p, param_int(params, "channels", 4));
  }
  std::unique_ptr<FilterInstance> instantiate(Context& ctx, int width, int height, const ParamMap& params,
                                              std::uint64_t seed) const override {
    for (const auto& [key, value] : params)
      if (key != "sigma_spatial" && key != "sigma_range" && key != "radius" && key != "channels" && key != "border")
        throw std::invalid_argument(fmt::format("bilateral has no parameter '{}'", key));
    BilateralParams p;
    p.sigma_spatial = param_double(params, "sigma_spatial", 3.0);
    p.sigma_range = param_double(params, "sigma_range", 30.0);
    p.radius = param_int(params, "radius", -1);
    p.border = parse_border(param_text(params, "border", "replicate"));
    check_bilateral_params(p);
    const int channels = param_int(params, "channels", 4);
    if (channels != 1 && channels != 4) throw std::invalid_argument("bilateral channels must be 1 or 4");
    return std::make_unique<BilateralInstance>(ctx, synthetic_photo(width, height, channels, seed), p);
  }
};

}  // namespace

const FilterSpec& bilateral_filter_spec() {
  static const BilateralSpec spec;
  return spec;
}

}  // namespace clf
