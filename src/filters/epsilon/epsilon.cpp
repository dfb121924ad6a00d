// Host launcher for the epsilon filter variants (kernels in epsilon.cl).
#include "clfilters/epsilon.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>

#include "filters/epsilon/epsilon_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {
namespace {

constexpr std::string_view kKernelFile = "epsilon.cl";
constexpr const char* kImageOptions = " -D HAS_IMAGES=1";
constexpr const char* kHalfOptions = " -D HAS_FP16=1";

void check_params(const EpsilonParams& p) {
  if (p.radius < kMinEpsilonRadius || p.radius > kMaxEpsilonRadius)
    throw std::invalid_argument(
        fmt::format("epsilon radius must be {}..{}, got {}", kMinEpsilonRadius, kMaxEpsilonRadius, p.radius));
  if (p.threshold < 0 || p.threshold > 255)
    throw std::invalid_argument(fmt::format("epsilon threshold must be 0..255, got {}", p.threshold));
  if (p.border.value < 0 || p.border.value > 255)
    throw std::invalid_argument(fmt::format("border constant must be 0..255, got {}", p.border.value));
}

void check_size(int width, int height) {
  if (width < 1 || height < 1)
    throw std::invalid_argument(fmt::format("epsilon needs an image of at least 1x1, got {}x{}", width, height));
  // Kernels index with 32-bit ints.
  if (std::int64_t(width) * height * 4 >= (std::int64_t(1) << 31))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (at most 2^29 pixels)", width, height));
}

cl_uint constant_bits(const Border& border, int channels) {
  const cl_uint v = border.mode == BorderMode::constant ? cl_uint(border.value) : 0u;
  return channels == 4 ? v | (v << 8) | (v << 16) | (v << 24) : v;
}

// Which kernel a call runs and how it is built, so it can be built before any timing starts.
struct Plan {
  std::string variant;
  TuningConfig config;  // the tunables the call runs with (requested or tuned)
  std::string options;
  std::string kernel;
};

// Whether a feature the device lists really builds here, probed once per context: a driver may list
// images or cl_khr_fp16 and still fail to compile kernels that use them. Then the variant falls back to
// its plain-buffer, integer form (eps_naive_buffer for naive; packed and vec4 for the half forms).
bool builds(Context& ctx, std::string_view feature, const std::string& options, const std::string& kernel) {
  std::optional<bool>& works = ctx.feature_works(feature);
  if (!works) {
    try {
      ctx.kernel(kKernelFile, options, kernel);
      works = true;
    } catch (const ClError& e) {
      if (e.code() != CL_BUILD_PROGRAM_FAILURE && e.code() != CL_INVALID_KERNEL_NAME) throw;
      works = false;
    }
  }
  return *works;
}

const cl::ImageFormat& image_format(int channels) {
  static const cl::ImageFormat grey(CL_R, CL_UNSIGNED_INT8), rgba(CL_RGBA, CL_UNSIGNED_INT8);
  return channels == 4 ? rgba : grey;
}

// CL_RGBA / CL_UNSIGNED_INT8 is a format every OpenCL 1.2 device with images has; CL_R is not required
// before OpenCL 2.0, so look it up.
bool image_format_supported(Context& ctx, int channels) {
  if (channels == 4) return true;
  std::optional<bool>& known = ctx.feature_works("epsilon.image_r_uint8");
  if (!known) {
    std::vector<cl::ImageFormat> formats;
    ctx.context().getSupportedImageFormats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, &formats);
    known = false;
    for (const auto& f : formats)
      if (f.image_channel_order == CL_R && f.image_channel_data_type == CL_UNSIGNED_INT8) known = true;
  }
  return *known;
}

Plan make_plan(Context& ctx, const EpsilonParams& params, std::string_view variant_name, int w, int h, int c,
               const TuningConfig& config) {
  check_params(params);
  if (c != 1 && c != 4) throw std::invalid_argument("epsilon: device images need 1 or 4 channels");
  check_size(w, h);
  const DeviceInfo& device = ctx.info();
  Plan plan;
  VariantChoice choice = epsilon_choose(ctx, params, variant_name, w, h, c, config);
  plan.variant = std::move(choice.variant);
  plan.config = std::move(choice.config);
  if (auto why = epsilon_unsupported(device, plan.variant, params, w, h, c, plan.config))
    throw std::invalid_argument(*why);
  plan.options = fmt::format("-D CHANNELS={}", c);
  const std::string& v = plan.variant;
  if (v == "naive") {
    plan.kernel = "eps_naive_buffer";
    const std::string image_options = plan.options + kImageOptions;
    if (image_format_supported(ctx, c) &&
        builds(ctx, fmt::format("epsilon.images.c{}", c), image_options, "eps_naive_image")) {
      plan.options = image_options;
      plan.kernel = "eps_naive_image";
    }
  } else if (v == "packed_half" || v == "vec4_half") {
    const std::string half_options = plan.options + kHalfOptions;
    const std::string half_kernel = "eps_" + v;
    if (builds(ctx, fmt::format("epsilon.fp16.c{}", c), half_options, half_kernel)) {
      plan.options = half_options;
      plan.kernel = half_kernel;
    } else {
      plan.kernel = v == "packed_half" ? "eps_packed" : "eps_vec4_select";
    }
  } else if (v == "regblock") {
    // Radius, block and work-group are compile-time so the block's taps unroll into registers (on GPUs).
    EpsilonRegBlockShape shape = epsilon_regblock_shape(plan.config);
    const int unroll = device.type & CL_DEVICE_TYPE_CPU ? 0 : 1;
    const auto options = [&](int form) {
      return plan.options + fmt::format(
                                " -D RB_RADIUS={} -D RB_COLS={} -D RB_ROWS={} -D RB_LX={} -D RB_LY={} "
                                "-D RB_FORM={} -D RB_UNROLL={}",
                                params.radius, shape.cols, shape.rows, shape.local_x, shape.local_y, form, unroll);
    };
    plan.kernel = "eps_regblock";
    if (shape.form == 3) {
      // f16x2 sums are exact up to 2048 (epsilon.cl); past that, off NVIDIA and where the PTX does not
      // build, form 2 computes the same result.
      const int window = (2 * params.radius + 1) * (2 * params.radius + 1);
      const bool exact = std::max(params.threshold, 1) * window <= 2048;
      if (!exact || !device.takes_nvidia_ptx() ||
          !builds(ctx, fmt::format("epsilon.ptx_f16x2.{}", options(3)), options(3), plan.kernel))
        shape.form = 2;
    }
    plan.options = options(shape.form);
  } else if (v == "packed" || v == "local") {
    plan.kernel = "eps_" + v;
  } else if (v == "vec4" || v == "vec8" || v == "vec16") {
    plan.kernel = "eps_" + v + "_select";
  } else {  // vec4_branchless, vec8_branchless
    plan.kernel = "eps_" + v;
  }
  return plan;
}

}  // namespace

int epsilon_pixels_per_item(std::string_view variant) {
  if (variant == "vec4" || variant == "vec4_branchless" || variant == "vec4_half" || variant == "local") return 4;
  if (variant == "vec8" || variant == "vec8_branchless") return 8;
  if (variant == "vec16") return 16;
  return 1;
}

void epsilon_prepare(Context& ctx, const EpsilonParams& params, std::string_view variant, int width, int height,
                     int channels, const TuningConfig& config) {
  const Plan plan = make_plan(ctx, params, variant, width, height, channels, config);
  ctx.kernel(kKernelFile, plan.options, plan.kernel);
}

std::vector<cl::Event> epsilon(Context& ctx, const DeviceImage& in, DeviceImage& out, const EpsilonParams& params,
                               std::string_view variant_name, const TuningConfig& config) {
  if (in.width != out.width || in.height != out.height || in.channels != out.channels)
    throw std::invalid_argument("epsilon: output must have the input's size and channels");
  if (in.buffer() == out.buffer()) throw std::invalid_argument("epsilon: output must not be the input");
  const int w = in.width, h = in.height, c = in.channels;
  const Plan plan = make_plan(ctx, params, variant_name, w, h, c, config);
  const VariantInfo& info = *find_variant(epsilon_variants(), plan.variant);
  const cl_int mode = static_cast<cl_int>(params.border.mode);
  const cl_int r = params.radius, T = params.threshold;
  const cl_uint cval = constant_bits(params.border, c);
  const auto W = std::size_t(w), H = std::size_t(h);
  cl::Kernel& kernel = ctx.kernel(kKernelFile, plan.options, plan.kernel);

  if (plan.kernel == "eps_naive_image") {
    // The input lives in a buffer (DeviceImage); the image object is a copy of it, whose time counts.
    cl_int err = CL_SUCCESS;
    cl::Image2D image(ctx.context(), CL_MEM_READ_ONLY, image_format(c), W, H, 0, nullptr, &err);
    check_cl(err, "clCreateImage");
    cl::Event copied;
    check_cl(ctx.queue().enqueueCopyBufferToImage(in.buffer, image, 0, {0, 0, 0}, {W, H, 1}, nullptr, &copied),
             "clEnqueueCopyBufferToImage");
    set_kernel_args(kernel, image, out.buffer, w, h, r, T, mode, cval);
    const auto [global, local] = local_ranges(info, plan.config, W, H);
    return {copied, launch(ctx, kernel, global, local)};
  }
  if (plan.variant == "regblock") {
    const EpsilonRegBlockShape shape = epsilon_regblock_shape(plan.config);
    const std::size_t lx = shape.local_x, ly = shape.local_y;
    const std::size_t groups_x = (W + lx * shape.cols - 1) / (lx * shape.cols);
    const std::size_t groups_y = (H + ly * shape.rows - 1) / (ly * shape.rows);
    set_kernel_args(kernel, in.buffer, out.buffer, w, h, T, mode, cval);
    return {launch(ctx, kernel, cl::NDRange(groups_x * lx, groups_y * ly), cl::NDRange(lx, ly))};
  }
  if (plan.variant == "local") {
    const EpsilonLocalShape group = epsilon_local_shape(plan.config);
    const std::size_t tile_bytes =
        std::size_t(4 * group.width + 2 * r) * std::size_t(group.height + 2 * r) * std::size_t(c);
    set_kernel_args(kernel, in.buffer, out.buffer, w, h, r, T, mode, cval, cl::Local(tile_bytes));
    return {launch(ctx, kernel, cl::NDRange(round_up((W + 3) / 4, group.width), round_up(H, group.height)),
                   cl::NDRange(group.width, group.height))};
  }
  // The kernel that runs decides the pixels per work-item (a half form may have fallen back).
  const std::size_t per_item = plan.kernel == "eps_packed" || plan.kernel == "eps_naive_buffer"
                                   ? 1
                                   : std::size_t(epsilon_pixels_per_item(plan.variant));
  set_kernel_args(kernel, in.buffer, out.buffer, w, h, r, T, mode, cval);
  const auto [global, local] = local_ranges(info, plan.config, (W + per_item - 1) / per_item, H);
  return {launch(ctx, kernel, global, local)};
}

Image epsilon(Context& ctx, const Image& input, const EpsilonParams& params, std::string_view variant, Timing* timing) {
  if (input.type != SampleType::u8)
    throw std::invalid_argument(fmt::format("epsilon needs 8-bit samples, got {}", sample_type_name(input.type)));
  if (input.channels < 1 || input.channels > 4)
    throw std::invalid_argument(fmt::format("epsilon takes 1 to 4 channels, got {}", input.channels));
  check_size(input.width, input.height);
  // RGB travels as RGBA (alpha 255, dropped again on the way out). Grey+alpha filters the grey plane
  // alone and keeps alpha, as RGBA does.
  Image staged;
  if (input.channels == 2) {
    staged = Image(input.width, input.height, 1);
    for (std::size_t i = 0; i < input.pixel_count(); ++i) staged.data[i] = input.data[2 * i];
  } else {
    staged = to_filter_layout(input);
  }
  // Program builds are one-off costs, not part of the call's time (SPEC "Total time").
  epsilon_prepare(ctx, params, variant, staged.width, staged.height, staged.channels);
  const auto start = std::chrono::steady_clock::now();
  DeviceImage d_in = DeviceImage::upload(ctx, staged);
  DeviceImage d_out = DeviceImage::allocate(ctx, staged.width, staged.height, staged.channels);
  const auto events = epsilon(ctx, d_in, d_out, params, variant);
  Image filtered = d_out.download(ctx);
  Image result;
  if (input.channels == 2) {
    result = input;
    for (std::size_t i = 0; i < input.pixel_count(); ++i) result.data[2 * i] = filtered.data[i];
  } else {
    result = from_filter_layout(filtered, input.channels);
  }
  if (timing) {
    timing->kernel_ms = kernel_milliseconds(events);
    timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return result;
}

}  // namespace clf
