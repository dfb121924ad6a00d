// Host launcher for the bilateral variants (kernels in bilateral.cl) and the weight tables it uploads.
#include "clfilters/bilateral.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "filters/bilateral/bilateral_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {

using namespace bilateral_detail;

namespace {

constexpr std::string_view kKernelFile = "bilateral.cl";

void check_size(int width, int height) {
  // Kernels index with 32-bit ints.
  if (std::int64_t(width) * height * 4 >= (std::int64_t(1) << 31))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (at most 2^29 pixels)", width, height));
}

cl_uint constant_bits(const Border& border, int channels) {
  const cl_uint v = border.mode == BorderMode::constant ? cl_uint(border.value) : 0u;
  return channels == 4 ? v | (v << 8) | (v << 16) | (v << 24) : v;
}

// 1 / (2 sigma^2) as the kernels use it.
double gaussian_coefficient(double sigma) {
  return 1.0 / (2.0 * sigma * sigma);
}

}  // namespace

int bilateral_radius(const BilateralParams& params) {
  if (params.radius >= 0) return params.radius;
  return static_cast<int>(std::min<double>(kMaxBilateralRadius, std::ceil(2.0 * params.sigma_spatial)));
}

void check_bilateral_params(const BilateralParams& p) {
  // Written as !(a >= b) so that NaN is refused too.
  if (!(p.sigma_spatial >= kMinBilateralSigma) || !std::isfinite(p.sigma_spatial))
    throw std::invalid_argument(
        fmt::format("sigma_spatial must be finite and at least {}, got {}", kMinBilateralSigma, p.sigma_spatial));
  if (!(p.sigma_range >= kMinBilateralSigma) || !std::isfinite(p.sigma_range))
    throw std::invalid_argument(
        fmt::format("sigma_range must be finite and at least {}, got {}", kMinBilateralSigma, p.sigma_range));
  if (p.radius < -1 || p.radius > kMaxBilateralRadius)
    throw std::invalid_argument(fmt::format("radius must be 0..{}, got {}", kMaxBilateralRadius, p.radius));
  if (p.border.value < 0 || p.border.value > 255)
    throw std::invalid_argument(fmt::format("border constant must be 0..255, got {}", p.border.value));
}

namespace bilateral_detail {

ColourRangeTable colour_range_table(double sigma_range) {
  const double coef = gaussian_coefficient(sigma_range);
  // Bin width q (bilateral.cl): bins of one distance each while 8192 of them reach exp(-16); wider
  // bins beyond, never wider than the whole distance range needs.
  const double extent = std::min(32.0 * sigma_range * sigma_range, double(kMaxColourDistance2) + 1.0);
  const double q = std::max(1.0, extent / kColourTableSize);
  ColourRangeTable table;
  table.scale = static_cast<std::uint32_t>(std::floor(double(1u << 18) / q));
  // Each entry is the weight at the middle of the distances that land in it (smallest relative error).
  std::vector<std::uint32_t> lo(kColourTableSize, UINT32_MAX), hi(kColourTableSize, 0);
  for (std::uint32_t d2 = 0; d2 <= kMaxColourDistance2; ++d2) {
    const std::uint32_t bin = colour_bin(d2, table.scale);
    if (bin >= std::uint32_t(kColourTableSize)) break;  // bins grow with d2: the rest are dropped too
    lo[bin] = std::min(lo[bin], d2);
    hi[bin] = std::max(hi[bin], d2);
  }
  table.weights.assign(kColourTableSize, 0.0f);
  for (int k = 0; k < kColourTableSize; ++k)
    if (lo[k] <= hi[k]) table.weights[k] = static_cast<float>(std::exp(-0.5 * (double(lo[k]) + hi[k]) * coef));
  return table;
}

std::vector<float> grey_range_table(double sigma_range) {
  const double coef = gaussian_coefficient(sigma_range);
  std::vector<float> table(256);
  for (int k = 0; k < 256; ++k) table[k] = static_cast<float>(std::exp(-double(k) * k * coef));
  return table;
}

std::vector<float> spatial_table(double sigma_spatial, int radius) {
  const double coef = gaussian_coefficient(sigma_spatial);
  const int d = 2 * radius + 1;
  std::vector<float> table(std::size_t(d) * d);
  for (int j = 0; j < d; ++j)
    for (int i = 0; i < d; ++i) {
      const int dx = i - radius, dy = j - radius;
      table[std::size_t(j) * d + i] = static_cast<float>(std::exp(-double(dx * dx + dy * dy) * coef));
    }
  return table;
}

// log2(e): the unrolled variant computes exp as exp2.
const double kLog2e = std::log2(std::exp(1.0));

float unrolled_range_scale(double sigma_range) {
  const double scale = std::sqrt(kLog2e * gaussian_coefficient(sigma_range));
  int exponent = 0;
  std::frexp(scale, &exponent);  // scale = m 2^exponent, m in [0.5, 1)
  return static_cast<float>(std::ldexp(std::round(std::ldexp(scale, 16 - exponent)), exponent - 16));
}

bool unrolled_needs_clamp(double sigma_spatial, double sigma_range, int radius, int channels) {
  const double colours = channels == 4 ? 3 : 1;
  const double lowest = colours * 255.0 * 255.0 * kLog2e * gaussian_coefficient(sigma_range) +
                        2.0 * radius * radius * kLog2e * gaussian_coefficient(sigma_spatial);
  return lowest > 120.0;  // margin below -125 for the float rounding of the exponent
}

bool unrolled_expanded(const BilateralParams& params, int channels) {
  if (channels != 4) return false;
  const double scale = unrolled_range_scale(params.sigma_range);
  const int r = bilateral_radius(params);
  const double colour = 3.0 * 255.0 * 255.0 * scale * scale;
  const double spatial = 2.0 * r * r * kLog2e * gaussian_coefficient(params.sigma_spatial);
  return colour + spatial <= 256.0;
}

}  // namespace bilateral_detail

namespace {

// Which kernel a call runs and how it is built, so it can be built before any timing starts.
struct Plan {
  std::string variant;
  TuningConfig config;  // the tunables the call runs with (requested or tuned)
  std::string options;
  std::string kernel;
};

// Whether single-channel 8-bit unsigned images exist here (OpenCL 1.2 only mandates RGBA ones).
bool grey_images_supported(Context& ctx) {
  std::optional<bool>& works = ctx.feature_works("bilateral.image_r_uint8");
  if (!works) {
    std::vector<cl::ImageFormat> formats;
    ctx.context().getSupportedImageFormats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, &formats);
    works = std::any_of(formats.begin(), formats.end(), [](const cl::ImageFormat& f) {
      return f.image_channel_order == CL_R && f.image_channel_data_type == CL_UNSIGNED_INT8;
    });
  }
  return *works;
}

Plan make_plan(Context& ctx, const BilateralParams& params, std::string_view variant_name, int w, int h, int c,
               const TuningConfig& config) {
  check_bilateral_params(params);
  if (c != 1 && c != 4) throw std::invalid_argument("bilateral: device images need 1 or 4 channels");
  check_size(w, h);
  Plan plan;
  VariantChoice choice = bilateral_choose(ctx, params, variant_name, w, h, c, config);
  plan.variant = std::move(choice.variant);
  plan.config = std::move(choice.config);
  if (auto why = bilateral_unsupported(ctx.info(), plan.variant, params, w, h, c, plan.config))
    throw std::invalid_argument(*why);
  if (plan.variant == "local_image" && c == 1 && !grey_images_supported(ctx))
    throw std::invalid_argument("local_image: this device has no CL_R / CL_UNSIGNED_INT8 images for grey input");
  plan.options = fmt::format("-D CHANNELS={}", c);
  if (plan.variant == "unrolled") {
    // Everything the unrolled loops need is fixed at build time; a program per shape and radius.
    const UnrolledShape shape = unrolled_shape(*find_variant(bilateral_variants(), plan.variant), plan.config, c);
    const int r = bilateral_radius(params);
    plan.options += fmt::format(
        " -D RADIUS={} -D LOCAL_X={} -D LOCAL_Y={} -D BLOCK_X={} -D ROWS={} -D SOFT_EXP={} -D CLAMP_EXP={} "
        "-D EXPANDED={} -D TABLE_TAPS={} -D INT_EXP={} -cl-denorms-are-zero{}",
        r, shape.local_x, shape.local_y, shape.block_x, shape.rows, shape.soft_exp,
        shape.soft_exp > 0 && unrolled_needs_clamp(params.sigma_spatial, params.sigma_range, r, c) ? 1 : 0,
        unrolled_expanded(params, c) ? 1 : 0, shape.table_taps, shape.int_exp, ctx.info().fast_math_options());
  }
  plan.kernel = "bilateral_" + plan.variant;
  return plan;
}

// Uploads a weight table into the context's scratch buffer `name`. The write is blocking and the
// queue in order, so a previous call's kernels have finished with the buffer before it changes.
cl::Buffer& upload_table(Context& ctx, std::string_view name, const std::vector<float>& table) {
  const std::size_t bytes = table.size() * sizeof(float);
  cl::Buffer& buffer = ctx.scratch_buffer(name, bytes);
  check_cl(ctx.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, table.data()), "clEnqueueWriteBuffer");
  return buffer;
}

}  // namespace

void bilateral_prepare(Context& ctx, const BilateralParams& params, std::string_view variant, int width, int height,
                       int channels, const TuningConfig& config) {
  const Plan plan = make_plan(ctx, params, variant, width, height, channels, config);
  ctx.kernel(kKernelFile, plan.options, plan.kernel);
}

std::vector<cl::Event> bilateral(Context& ctx, const DeviceImage& in, DeviceImage& out, const BilateralParams& params,
                                 std::string_view variant_name, const TuningConfig& config) {
  if (in.width != out.width || in.height != out.height || in.channels != out.channels)
    throw std::invalid_argument("bilateral: output must have the input's size and channels");
  const int w = in.width, h = in.height, c = in.channels, r = bilateral_radius(params);
  const Plan plan = make_plan(ctx, params, variant_name, w, h, c, config);
  const TuningConfig& tunables = plan.config;
  const VariantInfo& info = *find_variant(bilateral_variants(), plan.variant);
  const int mode = static_cast<int>(params.border.mode);
  const cl_uint cval = constant_bits(params.border, c);
  const auto spatial_coef = static_cast<cl_float>(gaussian_coefficient(params.sigma_spatial));
  const auto range_coef = static_cast<cl_float>(gaussian_coefficient(params.sigma_range));
  const auto W = std::size_t(w), H = std::size_t(h);
  cl::Kernel& kernel = ctx.kernel(kKernelFile, plan.options, plan.kernel);
  const std::string& variant = plan.variant;

  if (variant == "naive") {
    set_kernel_args(kernel, in.buffer, out.buffer, w, h, r, mode, cval, spatial_coef, range_coef);
    const auto [global, local] = local_ranges(info, tunables, W, H);
    return {launch(ctx, kernel, global, local)};
  }
  if (variant == "unrolled") {
    const UnrolledShape shape = unrolled_shape(info, tunables, c);
    const auto spatial_log2 = static_cast<cl_float>(kLog2e * gaussian_coefficient(params.sigma_spatial));
    const float range_scale = unrolled_range_scale(params.sigma_range);
    set_kernel_args(kernel, in.buffer, out.buffer, w, h, mode, cval, range_scale, 1.0f / range_scale, spatial_log2);
    const auto per_x = std::size_t(shape.local_x * shape.block_x), per_y = std::size_t(shape.local_y * shape.rows);
    const cl::NDRange global((W + per_x - 1) / per_x * std::size_t(shape.local_x),
                             (H + per_y - 1) / per_y * std::size_t(shape.local_y));
    return {launch(ctx, kernel, global, cl::NDRange(shape.local_x, shape.local_y))};
  }
  cl::Buffer& spatial = upload_table(ctx, "bilateral.spatial", spatial_table(params.sigma_spatial, r));
  if (variant == "gauss_table") {
    set_kernel_args(kernel, in.buffer, out.buffer, w, h, r, mode, cval, spatial, range_coef);
    const auto [global, local] = local_ranges(info, tunables, W, H);
    return {launch(ctx, kernel, global, local)};
  }
  cl_uint range_scale = 0;
  cl::Buffer* range = nullptr;
  if (variant == "range_table" || variant == "pixels4") {
    if (c == 4) {
      ColourRangeTable table = colour_range_table(params.sigma_range);
      range_scale = table.scale;
      range = &upload_table(ctx, "bilateral.range", table.weights);
    } else {
      range = &upload_table(ctx, "bilateral.range", grey_range_table(params.sigma_range));
    }
  }
  if (variant == "pixels4") {
    set_kernel_args(kernel, in.buffer, out.buffer, w, h, r, mode, cval, spatial, *range, range_scale);
    const auto [global, local] = local_ranges(info, tunables, W, (H + 3) / 4);
    return {launch(ctx, kernel, global, local)};
  }
  // The tiled variants: local, local_image, range_table.
  const TileShape tile = tile_shape(ctx.info(), info, tunables);
  const auto tile_bytes =
      cl::Local(std::size_t(tile.width + 2 * r) * std::size_t(tile.height + 2 * r) * std::size_t(c));
  const cl::NDRange global(round_up(W, tile.width), round_up(H, tile.height)), local(tile.width, tile.height);
  if (variant == "local") {
    set_kernel_args(kernel, in.buffer, out.buffer, w, h, r, mode, cval, spatial, range_coef, tile_bytes);
    return {launch(ctx, kernel, global, local)};
  }
  if (variant == "range_table") {
    set_kernel_args(kernel, in.buffer, out.buffer, w, h, r, mode, cval, spatial, *range, range_scale, tile_bytes);
    return {launch(ctx, kernel, global, local)};
  }
  // local_image: device images live in buffers, so the call copies the input into an image object
  // first; the copy is part of the call's device work and its event is returned with the kernel's.
  // The image is released when this returns; OpenCL keeps it until the commands using it finish.
  cl_int err = CL_SUCCESS;
  cl::Image2D image(ctx.context(), CL_MEM_READ_ONLY, cl::ImageFormat(c == 4 ? CL_RGBA : CL_R, CL_UNSIGNED_INT8), W, H,
                    0, nullptr, &err);
  check_cl(err, "clCreateImage");
  cl::Event copied;
  check_cl(ctx.queue().enqueueCopyBufferToImage(in.buffer, image, 0, {0, 0, 0}, {W, H, 1}, nullptr, &copied),
           "clEnqueueCopyBufferToImage");
  set_kernel_args(kernel, image, out.buffer, w, h, r, mode, cval, spatial, range_coef, tile_bytes);
  return {copied, launch(ctx, kernel, global, local)};
}

namespace {

// Grey+alpha: the grey channel is filtered as a grey image and alpha copied (filtering it as RGBA
// would put alpha into the colour distance).
Image split_channel(const Image& image, int channel) {
  Image out(image.width, image.height, 1);
  const auto src = image.samples<std::uint8_t>();
  auto dst = out.samples<std::uint8_t>();
  const std::size_t c = std::size_t(image.channels);
  for (std::size_t i = 0; i < image.pixel_count(); ++i) dst[i] = src[i * c + std::size_t(channel)];
  return out;
}

}  // namespace

Image bilateral(Context& ctx, const Image& input, const BilateralParams& params, std::string_view variant,
                Timing* timing) {
  if (input.type != SampleType::u8)
    throw std::invalid_argument(fmt::format("bilateral needs 8-bit samples, got {}", sample_type_name(input.type)));
  if (input.channels < 1 || input.channels > 4)
    throw std::invalid_argument(fmt::format("bilateral takes 1 to 4 channels, got {}", input.channels));
  if (input.width < 1 || input.height < 1) throw std::invalid_argument("bilateral needs an image of at least 1x1");
  // RGB travels as RGBA (alpha 255 in, dropped out); grey+alpha as grey with alpha put back.
  const Image staged = input.channels == 2 ? split_channel(input, 0) : to_filter_layout(input);
  // Program builds are one-off costs, not part of the call's time (SPEC "Total time").
  bilateral_prepare(ctx, params, variant, input.width, input.height, staged.channels);
  const auto start = std::chrono::steady_clock::now();
  DeviceImage d_in = DeviceImage::upload(ctx, staged);
  DeviceImage d_out = DeviceImage::allocate(ctx, input.width, input.height, staged.channels);
  const auto events = bilateral(ctx, d_in, d_out, params, variant);
  Image filtered = d_out.download(ctx);
  if (timing) {
    timing->kernel_ms = kernel_milliseconds(events);
    timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  if (input.channels != 2) return from_filter_layout(filtered, input.channels);
  Image result = input;
  const auto grey = filtered.samples<std::uint8_t>();
  auto dst = result.samples<std::uint8_t>();
  for (std::size_t i = 0; i < result.pixel_count(); ++i) dst[i * 2] = grey[i];
  return result;
}

}  // namespace clf
