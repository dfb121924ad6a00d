// Host launcher for the Sobel variants (kernels in sobel.cl).
#include "clfilters/sobel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>

#include "runtime/launch.hpp"

namespace clf {
namespace {

constexpr std::string_view kKernelFile = "sobel.cl";

void check_params(const SobelParams& p) {
  const int output = static_cast<int>(p.output);
  if (output < 0 || output > 2) throw std::invalid_argument(fmt::format("unknown Sobel output {}", output));
  if (p.border.value < 0 || p.border.value > 255)
    throw std::invalid_argument(fmt::format("border constant must be 0..255, got {}", p.border.value));
}

void check_size(int width, int height) {
  if (width < 1 || height < 1)
    throw std::invalid_argument(fmt::format("Sobel needs an image of at least 1x1, got {}x{}", width, height));
  // Kernels index pixels with 32-bit ints.
  if (std::int64_t(width) * height >= (std::int64_t(1) << 31))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (below 2^31 pixels)", width, height));
}

// The kernel names of the variants (one kernel each; the variant name without the prefix).
std::string kernel_name(const std::string& variant) {
  return "sobel_" + variant;
}

// CL_R / CL_UNSIGNED_INT8 is not in OpenCL 1.2's list of required formats, so ask once per context.
bool r8_images_work(Context& ctx) {
  std::optional<bool>& works = ctx.feature_works("sobel.r8_image");
  if (!works) {
    std::vector<cl::ImageFormat> formats;
    ctx.context().getSupportedImageFormats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, &formats);
    works = false;
    for (const auto& f : formats)
      if (f.image_channel_order == CL_R && f.image_channel_data_type == CL_UNSIGNED_INT8) works = true;
  }
  return *works;
}

struct Plan {
  std::string variant;
  TuningConfig config;  // the tunables the call runs with (requested or tuned)
  std::string options;
};

// row_tile's output rows per work-item: the `rows` tunable, or for 0 enough to give the device about
// two full waves of work-items (2048 resident per compute unit, as on NVIDIA GPUs), between 4 and 64:
// more rows per work-item reload fewer halo rows, fewer keep a large GPU busy on small images.
int row_tile_rows(const DeviceInfo& device, const TuningConfig& config, int w, int h) {
  const VariantInfo& info = *find_variant(sobel_variants(), "row_tile");
  const int rows = tunable_value(config, info, "rows");
  if (rows > 0) return rows;
  const int columns = tunable_value(config, info, "columns");
  const std::int64_t items_x = (std::int64_t(w) + columns - 1) / columns;
  const std::int64_t wave = std::int64_t(std::max(1u, device.compute_units)) * 2048 * 2;
  return static_cast<int>(std::clamp<std::int64_t>((items_x * h + wave - 1) / wave, 4, 64));
}

Plan make_plan(Context& ctx, const SobelParams& params, std::string_view variant_name, int w, int h,
               const TuningConfig& config) {
  check_params(params);
  check_size(w, h);
  Plan plan;
  VariantChoice choice = sobel_choose(ctx, params, variant_name, w, h, config);
  plan.variant = std::move(choice.variant);
  plan.config = std::move(choice.config);
  if (auto why = sobel_unsupported(ctx.info(), plan.variant, params, w, h, plan.config))
    throw std::invalid_argument(*why);
  if (plan.variant == "image" && !r8_images_work(ctx))
    throw std::invalid_argument(
        "the image variant needs single-channel 8-bit images (CL_R, CL_UNSIGNED_INT8), "
        "which this device does not list");
  plan.options = fmt::format("-D OUTPUT={}", static_cast<int>(params.output));
  if (plan.variant == "row_tile") {
    // Vector width and alignment are build options so the strip's loads and stores are whole vectors.
    const int columns = tunable_value(plan.config, *find_variant(sobel_variants(), "row_tile"), "columns");
    plan.options += fmt::format(" -D VEC={} -D ALIGNED={}", columns, w % columns == 0 ? 1 : 0);
  }
  if (plan.variant == "strip") {
    // Rows are built in too, so the row loops unroll into registers. No float in strip is a denormal
    // (integer sums and their roots), so flushing them changes nothing; on NVIDIA fast_sqrt is then the
    // one-instruction .ftz form (border.cl).
    const VariantInfo& info = *find_variant(sobel_variants(), "strip");
    const int columns = tunable_value(plan.config, info, "columns"), rows = tunable_value(plan.config, info, "rows");
    const int mag_float = tunable_value(plan.config, info, "mag_float");
    plan.options += fmt::format(" -D VEC={} -D ROWS={} -D ALIGNED={} -D MAG_FLOAT={} -cl-denorms-are-zero{}", columns,
                                rows, w % columns == 0 ? 1 : 0, mag_float, ctx.info().fast_math_options());
  }
  return plan;
}

// The enqueue shared by both output kinds: `out_a`/`out_b` are gx/gy, or the 8-bit output twice.
std::vector<cl::Event> enqueue(Context& ctx, const DeviceImage& in, const cl::Buffer& out_a, const cl::Buffer& out_b,
                               const SobelParams& params, std::string_view variant_name, const TuningConfig& config) {
  if (in.channels != 1) throw std::invalid_argument("sobel: the device input must have 1 channel (grey)");
  const int w = in.width, h = in.height;
  const Plan plan = make_plan(ctx, params, variant_name, w, h, config);
  const VariantInfo& info = *find_variant(sobel_variants(), plan.variant);
  cl::Kernel& kernel = ctx.kernel(kKernelFile, plan.options, kernel_name(plan.variant));
  const int mode = static_cast<int>(params.border.mode);
  const cl_uint cval = params.border.mode == BorderMode::constant ? cl_uint(params.border.value) : 0u;
  const auto W = std::size_t(w), H = std::size_t(h);

  // Items per pixel column / row of each variant's launch grid.
  std::size_t items_x = W, items_y = H;
  if (plan.variant == "row16") items_x = (W + 15) / 16;
  if (plan.variant == "block16x2") items_x = (W + 15) / 16, items_y = (H + 1) / 2;
  const int rows = plan.variant == "row_tile" ? row_tile_rows(ctx.info(), plan.config, w, h) : 0;
  if (plan.variant == "row_tile" || plan.variant == "strip") {
    // A work-item owns `columns` x (row_tile's computed rows, or strip's built-in ones) pixels.
    const auto columns = std::size_t(tunable_value(plan.config, info, "columns"));
    const auto per_item = std::size_t(plan.variant == "strip" ? tunable_value(plan.config, info, "rows") : rows);
    items_x = (W + columns - 1) / columns, items_y = (H + per_item - 1) / per_item;
  }
  // Variants without a local_y tunable (row_tile, strip) use one row of work-items per work-group.
  const int lx = tunable_value(plan.config, info, "local_x");
  const int ly = tunable_value(plan.config, info, "local_y", 1);
  const cl::NDRange global =
      lx > 0 ? cl::NDRange(round_up(items_x, lx), round_up(items_y, ly)) : cl::NDRange(items_x, items_y);
  const cl::NDRange local = lx > 0 ? cl::NDRange(lx, ly) : cl::NullRange;

  if (plan.variant == "row_tile") {
    set_kernel_args(kernel, in.buffer, out_a, out_b, w, h, mode, cval, rows);
    return {launch(ctx, kernel, global, local)};
  }
  if (plan.variant != "image") {
    set_kernel_args(kernel, in.buffer, out_a, out_b, w, h, mode, cval);
    return {launch(ctx, kernel, global, local)};
  }
  // OpenCL 1.2 has no image view of a buffer, so the input is copied into a fresh image; the copy is
  // part of this variant's cost, so its event is returned with the kernel's. The image is released
  // here; OpenCL keeps it alive until the commands that use it have finished.
  cl_int err = CL_SUCCESS;
  cl::Image2D image(ctx.context(), CL_MEM_READ_ONLY, cl::ImageFormat(CL_R, CL_UNSIGNED_INT8), W, H, 0, nullptr, &err);
  check_cl(err, "clCreateImage");
  cl::Event copied;
  check_cl(ctx.queue().enqueueCopyBufferToImage(in.buffer, image, 0, {0, 0, 0}, {W, H, 1}, nullptr, &copied),
           "clEnqueueCopyBufferToImage");
  set_kernel_args(kernel, image, out_a, out_b, w, h, mode, cval);
  return {copied, launch(ctx, kernel, global, local)};
}

}  // namespace

SobelOutput parse_sobel_output(std::string_view text) {
  if (text == "magnitude") return SobelOutput::magnitude;
  if (text == "l1") return SobelOutput::l1;
  if (text == "gradients") return SobelOutput::gradients;
  throw std::invalid_argument(fmt::format("unknown Sobel output '{}' (expected magnitude, l1 or gradients)", text));
}

std::string to_string(SobelOutput output) {
  switch (output) {
    case SobelOutput::magnitude: return "magnitude";
    case SobelOutput::l1: return "l1";
    case SobelOutput::gradients: return "gradients";
  }
  return "?";
}

DeviceGradients DeviceGradients::allocate(Context& ctx, int width, int height) {
  if (width < 1 || height < 1)
    throw std::invalid_argument(fmt::format("gradient planes need a size of at least 1x1 (got {}x{})", width, height));
  DeviceGradients g;
  g.width = width;
  g.height = height;
  g.gx = ctx.buffer(CL_MEM_READ_WRITE, g.plane_bytes());
  g.gy = ctx.buffer(CL_MEM_READ_WRITE, g.plane_bytes());
  return g;
}

Image DeviceGradients::download(Context& ctx) const {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  std::vector<std::int16_t> x(n), y(n);
  check_cl(ctx.queue().enqueueReadBuffer(gx, CL_TRUE, 0, plane_bytes(), x.data()), "clEnqueueReadBuffer");
  check_cl(ctx.queue().enqueueReadBuffer(gy, CL_TRUE, 0, plane_bytes(), y.data()), "clEnqueueReadBuffer");
  Image out(width, height, 2, SampleType::i16);
  auto s = out.samples<std::int16_t>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    s[2 * i] = x[i];
    s[2 * i + 1] = y[i];
  }
  return out;
}

void sobel_prepare(Context& ctx, const SobelParams& params, std::string_view variant, int width, int height,
                   const TuningConfig& config) {
  const Plan plan = make_plan(ctx, params, variant, width, height, config);
  ctx.kernel(kKernelFile, plan.options, kernel_name(plan.variant));
}

std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& in, DeviceImage& out, const SobelParams& params,
                             std::string_view variant, const TuningConfig& config) {
  if (params.output == SobelOutput::gradients)
    throw std::invalid_argument("sobel: gradients go to a DeviceGradients, not an 8-bit image");
  if (out.width != in.width || out.height != in.height || out.channels != 1)
    throw std::invalid_argument("sobel: the output must be a 1-channel image of the input's size");
  return enqueue(ctx, in, out.buffer, out.buffer, params, variant, config);
}

std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& in, DeviceGradients& out, const SobelParams& params,
                             std::string_view variant, const TuningConfig& config) {
  if (params.output != SobelOutput::gradients)
    throw std::invalid_argument(
        fmt::format("sobel: a DeviceGradients output needs output=gradients, not {}", to_string(params.output)));
  if (out.width != in.width || out.height != in.height)
    throw std::invalid_argument("sobel: the gradient planes must have the input's size");
  return enqueue(ctx, in, out.gx, out.gy, params, variant, config);
}

Image sobel(Context& ctx, const Image& input, const SobelParams& params, std::string_view variant, Timing* timing) {
  if (input.type != SampleType::u8 || input.channels < 1 || input.channels > 4)
    throw std::invalid_argument(fmt::format("Sobel takes 8-bit images with 1 to 4 channels, got {} channel(s) of {}",
                                            input.channels, sample_type_name(input.type)));
  // Program builds are one-off costs, not part of the call's time (SPEC "Total time"); the grey
  // conversion on the host is part of it.
  sobel_prepare(ctx, params, variant, input.width, input.height);
  const auto start = std::chrono::steady_clock::now();
  const Image grey = sobel_grey(input);
  DeviceImage d_in = DeviceImage::upload(ctx, grey);
  std::vector<cl::Event> events;
  Image result;
  if (params.output == SobelOutput::gradients) {
    DeviceGradients d_out = DeviceGradients::allocate(ctx, grey.width, grey.height);
    events = sobel(ctx, d_in, d_out, params, variant);
    result = d_out.download(ctx);
  } else {
    DeviceImage d_out = DeviceImage::allocate(ctx, grey.width, grey.height, 1);
    events = sobel(ctx, d_in, d_out, params, variant);
    result = d_out.download(ctx);
  }
  if (timing) {
    timing->kernel_ms = kernel_milliseconds(events);
    timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return result;
}

}  // namespace clf
