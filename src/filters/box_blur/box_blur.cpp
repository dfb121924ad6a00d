// Host launcher for the box blur variants (kernels in box_blur.cl).
#include "clfilters/box_blur.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <stdexcept>

#include "filters/box_blur/box_blur_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {
namespace {

constexpr std::string_view kKernelFile = "box_blur.cl";

void check_params(const BoxBlurParams& p) {
  if (p.diameter < 1 || p.diameter > kMaxBoxDiameter)
    throw std::invalid_argument(fmt::format("diameter must be 1..{}, got {}", kMaxBoxDiameter, p.diameter));
  if (p.border.value < 0 || p.border.value > 255)
    throw std::invalid_argument(fmt::format("border constant must be 0..255, got {}", p.border.value));
}

void check_size(int width, int height) {
  // Kernels index with 32-bit ints.
  if (std::int64_t(width) * height * 4 >= (std::int64_t(1) << 31))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (at most 2^29 pixels)", width, height));
}

cl_uint constant_bits(const Border& border, int channels) {
  const cl_uint v = border.mode == BorderMode::constant ? cl_uint(border.value) : 0u;
  return channels == 4 ? v | (v << 8) | (v << 16) | (v << 24) : v;
}

}  // namespace

namespace {

// Which kernels a call runs and how they are built, so they can be built before any timing starts.
struct Plan {
  std::string variant;
  TuningConfig config;
  std::string options;
  std::vector<std::string> kernels;
};

constexpr const char* kSubgroupOptions = " -D USE_INTEL_SUBGROUPS=1";

// Whether the cl_intel_subgroups form of block4x4 builds here. Drivers may list the extension without
// its block read/write functions (PoCL 5 does); then block4x4 falls back to plain vector loads.
bool subgroup_block4x4_builds(Context& ctx, const std::string& options) {
  std::optional<bool>& works = ctx.feature_works("box_blur.intel_subgroup_block_io");
  if (!works) {
    try {
      ctx.kernel(kKernelFile, options + kSubgroupOptions, "box_block4x4_subgroups");
      works = true;
    } catch (const ClError& e) {
      if (e.code() != CL_BUILD_PROGRAM_FAILURE) throw;
      works = false;
    }
  }
  return *works;
}

Plan make_plan(Context& ctx, const BoxBlurParams& params, std::string_view variant_name, int w, int h, int c,
               const TuningConfig& config) {
  const DeviceInfo& device = ctx.info();
  check_params(params);
  if (c != 1 && c != 4) throw std::invalid_argument("box_blur: device images need 1 or 4 channels");
  check_size(w, h);
  Plan plan;
  VariantChoice choice = box_blur_choose(ctx, params, variant_name, w, h, c, config);
  plan.variant = std::move(choice.variant);
  plan.config = std::move(choice.config);
  if (auto why = box_blur_unsupported(device, plan.variant, params, w, h, c, plan.config))
    throw std::invalid_argument(*why);
  plan.options = fmt::format("-D CHANNELS={}", c);
  const std::string& v = plan.variant;
  if (v == "naive") plan.kernels = {"box_naive"};
  if (v == "block4x4") {
    if (c == 4 && device.has_intel_subgroups() && device.max_work_group_size >= 64 &&
        subgroup_block4x4_builds(ctx, plan.options)) {
      plan.options += kSubgroupOptions;
      plan.kernels = {"box_block4x4_subgroups"};
    } else {
      plan.kernels = {"box_block4x4"};
    }
  }
  if (v == "two_pass") plan.kernels = {"box_pair_sums", "box_from_pair_sums"};
  if (v == "separable_sliding") {
    if (params.diameter > 257) plan.options += " -D HSUM_WIDE=1";  // d*255 no longer fits 16 bits
    plan.kernels = {"box_row_sums", "box_column_sums"};
  }
  if (v == "local_tile") plan.kernels = {"box_local_tile"};
  if (v == "fused_sliding") {
    if (c == 4 && params.diameter > 256) plan.options += " -D CSUM_WIDE=1";  // d*255 no longer fits 16 bits
    plan.kernels = {"box_fused_sliding"};
  }
  if (v == "fused_blocks") {
    const BlocksShape shape = box_blocks_shape(plan.config, params.diameter);
    plan.options += fmt::format(" -D ITEMS={}", shape.items);
    if (shape.window_packed) plan.options += " -D WINDOW_PACKED=1";
    if (params.diameter > 256) plan.options += " -D CSUM_WIDE=1";
    if (params.diameter <= 128) plan.options += " -D FLOAT_ROUND=1";
    plan.kernels = {"box_fused_blocks"};
  }
  if (v == "fused_prefix") {
    // The window's offsets within a block, as box_fused_prefix computes them from d (see WIN_A there).
    const BlocksShape shape = box_prefix_shape(plan.config, params.diameter);
    const int items = shape.items, a = box_window_offset(items, params.diameter);
    plan.options += fmt::format(" -D ITEMS={} -D WIN_A={} -D WIN_AM={} -D PREFETCH={} -D RING={}", items, a,
                                (a + params.diameter) % items, shape.prefetch, int(shape.ring));
    plan.kernels = {"box_fused_prefix"};
  }
  if (v == "fused_packed" || v == "fused_wide") {
    const bool wide = v == "fused_wide";
    const BlocksShape shape = box_packed_shape(plan.config, params.diameter, v.c_str());
    plan.options +=
        fmt::format(" -D ITEMS={} -D WIN_A={} -D DIAMETER={} -D PREFETCH={} -D RING={}{}{}{}{}", shape.items,
                    box_window_offset(shape.items, params.diameter), params.diameter, shape.prefetch, int(shape.ring),
                    wide ? " -D WIDE=1" : "", shape.pair ? " -D PAIR=1" : "", shape.direct ? " -D DIRECT=1" : "",
                    device.fast_math_options());
    plan.kernels = {wide ? "box_fused_wide" : "box_fused_packed"};
  }
  return plan;
}

}  // namespace

std::string box_blur_build_key(Context& ctx, const BoxBlurParams& params, std::string_view variant, int width,
                               int height, int channels, const TuningConfig& config) {
  const Plan plan = make_plan(ctx, params, variant, width, height, channels, config);
  std::string key = plan.options;
  for (const auto& name : plan.kernels) key += " " + name;
  return key;
}

void box_blur_prepare(Context& ctx, const BoxBlurParams& params, std::string_view variant, int width, int height,
                      int channels, const TuningConfig& config) {
  const Plan plan = make_plan(ctx, params, variant, width, height, channels, config);
  for (const auto& name : plan.kernels) ctx.kernel(kKernelFile, plan.options, name);
}

std::vector<cl::Event> box_blur(Context& ctx, const DeviceImage& in, DeviceImage& out, const BoxBlurParams& params,
                                std::string_view variant_name, const TuningConfig& config) {
  if (in.width != out.width || in.height != out.height || in.channels != out.channels)
    throw std::invalid_argument("box_blur: output must have the input's size and channels");
  const int w = in.width, h = in.height, c = in.channels, d = params.diameter;
  const Plan plan = make_plan(ctx, params, variant_name, w, h, c, config);
  const VariantInfo& info = *find_variant(box_blur_variants(), plan.variant);
  const TuningConfig& tunables = plan.config;
  const int mode = static_cast<int>(params.border.mode);
  const cl_uint cval = constant_bits(params.border, c);
  const auto W = std::size_t(w), H = std::size_t(h);
  auto kernel = [&](std::size_t i) -> cl::Kernel& { return ctx.kernel(kKernelFile, plan.options, plan.kernels[i]); };
  const std::string& variant = plan.variant;

  if (variant == "naive") {
    set_kernel_args(kernel(0), in.buffer, out.buffer, w, h, d, mode, cval);
    const auto [global, local] = local_ranges(info, tunables, W, H);
    return {launch(ctx, kernel(0), global, local)};
  }
  if (variant == "block4x4") {
    set_kernel_args(kernel(0), in.buffer, out.buffer, w, h, d, mode, cval);
    if (plan.kernels[0] == "box_block4x4_subgroups")
      return {launch(ctx, kernel(0), cl::NDRange(round_up(W, 256) / 4, (H + 3) / 4), cl::NDRange(64, 1))};
    const auto [global, local] = local_ranges(info, tunables, (W + 3) / 4, (H + 3) / 4);
    return {launch(ctx, kernel(0), global, local)};
  }
  if (variant == "two_pass") {
    const std::size_t tw = W + d - 2, th = H + d - 2;
    cl::Buffer& pairs = ctx.scratch_buffer("box_blur.pairs", tw * th * 2 * std::size_t(c));
    set_kernel_args(kernel(0), in.buffer, pairs, w, h, d, mode, cval);
    set_kernel_args(kernel(1), pairs, out.buffer, w, h, d);
    const auto [global, local] = local_ranges(info, tunables, W, H);
    return {launch(ctx, kernel(0), cl::NDRange(tw, th)), launch(ctx, kernel(1), global, local)};
  }
  if (variant == "separable_sliding") {
    const int row_segment = tunable_value(tunables, info, "row_segment");
    const int column_segment = tunable_value(tunables, info, "column_segment");
    const std::size_t sum_bytes = d > 257 ? 4 : 2;
    cl::Buffer& sums = ctx.scratch_buffer("box_blur.row_sums", W * H * std::size_t(c) * sum_bytes);
    set_kernel_args(kernel(0), in.buffer, sums, w, h, d, mode, cval, row_segment);
    set_kernel_args(kernel(1), sums, out.buffer, w, h, d, mode, cval, column_segment);
    return {launch(ctx, kernel(0), cl::NDRange((W + row_segment - 1) / row_segment, H)),
            launch(ctx, kernel(1), cl::NDRange(W, (H + column_segment - 1) / column_segment))};
  }
  // (s + n/2) / n as mul_hi(2 (s + n/2), magic) >> shift; see magic_round_div in box_blur.cl.
  const std::uint64_t n = std::uint64_t(d) * std::uint64_t(d);
  const cl_uint shift = cl_uint(std::bit_width(n) - 1);
  const auto magic = cl_uint(((std::uint64_t(1) << (31 + shift)) + n - 1) / n);
  const auto twice_half = cl_uint(2 * (n / 2));
  // FLOAT_ROUND's constants (see round_pack in box_blur.cl).
  const auto inv_n = float(1.0 / double(n)), bias = float((double(n / 2) + 0.5) / double(n) - 0.5);
  // The fused_blocks family: one work-group per band of (local_x - halo) * items columns and strip rows.
  auto launch_bands = [&](const BlocksShape& shape) {
    // The ring, where there is one, is the last argument (RING_ARG in box_blur.cl).
    if (shape.ring_bytes) kernel(0).setArg(kernel(0).getInfo<CL_KERNEL_NUM_ARGS>() - 1, cl::Local(shape.ring_bytes));
    const std::size_t tw = std::size_t(shape.local_x - shape.halo) * std::size_t(shape.items);
    const std::size_t groups_x = (W + tw - 1) / tw, strips = (H + shape.strip - 1) / std::size_t(shape.strip);
    // pair: work-group j runs strips 2j - 1 and 2j, one per row lane.
    const std::size_t groups_y = shape.pair ? strips / 2 + 1 : strips;
    return launch(ctx, kernel(0), cl::NDRange(groups_x * shape.local_x, groups_y * shape.row_lanes()),
                  cl::NDRange(std::size_t(shape.local_x), shape.row_lanes()));
  };
  if (variant == "fused_blocks") {
    const BlocksShape shape = box_blocks_shape(tunables, d);
    set_kernel_args(kernel(0), in.buffer, out.buffer, w, h, d, mode, cval, shape.strip, twice_half, magic, shift, inv_n,
                    bias, cl::Local(shape.entry_bytes), cl::Local(shape.block_bytes));
    return {launch_bands(shape)};
  }
  if (variant == "fused_prefix") {
    const BlocksShape shape = box_prefix_shape(tunables, d);
    // One-FMA rounding (see box_fused_prefix): 0.5 for even n, 0 for odd.
    const auto half_fix = float(double(n / 2) + 0.5 - 0.5 * double(n));
    set_kernel_args(kernel(0), in.buffer, out.buffer, w, h, d, mode, cval, shape.strip, shape.mirror, inv_n, half_fix,
                    cl::Local(shape.entry_bytes), cl::Local(shape.block_bytes));
    return {launch_bands(shape)};
  }
  if (variant == "fused_packed" || variant == "fused_wide") {
    const BlocksShape shape = box_packed_shape(tunables, d, variant.c_str());
    // ceil(2^32 / n) and n/2 in both 16-bit lanes (see box_fused_packed; box_fused_wide splits them).
    const auto packed_magic = cl_uint(((std::uint64_t(1) << 32) + n - 1) / n);
    const auto half_n = cl_uint(n / 2 * 0x10001u);
    set_kernel_args(kernel(0), in.buffer, out.buffer, w, h, d, mode, cval, shape.strip, shape.mirror, packed_magic,
                    half_n, cl::Local(shape.entry_bytes));
    return {launch_bands(shape)};
  }
  if (variant == "fused_sliding") {
    const FusedShape shape = box_fused_shape(ctx.info(), tunables, d, c);
    set_kernel_args(kernel(0), in.buffer, out.buffer, w, h, d, mode, cval, shape.items, shape.strip, twice_half, magic,
                    shift, cl::Local(shape.column_sum_bytes), cl::Local(shape.row_out_bytes));
    const std::size_t tw = std::size_t(shape.local_x) * std::size_t(shape.items);
    const std::size_t groups_x = (W + tw - 1) / tw, groups_y = (H + shape.strip - 1) / std::size_t(shape.strip);
    return {launch(ctx, kernel(0), cl::NDRange(groups_x * shape.local_x, groups_y),
                   cl::NDRange(std::size_t(shape.local_x), 1))};
  }
  // local_tile
  const auto tile = box_local_tile_shape(ctx.info(), tunables);
  const std::size_t tile_bytes = std::size_t(tile.width + d - 1) * std::size_t(tile.height + d - 1) * c;
  set_kernel_args(kernel(0), in.buffer, out.buffer, w, h, d, mode, cval, cl::Local(tile_bytes));
  return {launch(ctx, kernel(0), cl::NDRange(round_up(W, tile.width), round_up(H, tile.height)),
                 cl::NDRange(tile.width, tile.height))};
}

Image box_blur(Context& ctx, const Image& input, const BoxBlurParams& params, std::string_view variant,
               Timing* timing) {
  if (input.type != SampleType::u8)
    throw std::invalid_argument(fmt::format("box blur needs 8-bit samples, got {}", sample_type_name(input.type)));
  if (input.channels < 1 || input.channels > 4)
    throw std::invalid_argument(fmt::format("box blur takes 1 to 4 channels, got {}", input.channels));
  if (input.width < 1 || input.height < 1) throw std::invalid_argument("box blur needs an image of at least 1x1");
  // Grey+alpha and RGB travel as RGBA (SPEC: RGB gets alpha 255 on the way in, dropped on the way out).
  const Image staged = to_filter_layout(input);
  // Program builds are one-off costs, not part of the call's time (SPEC "Total time").
  box_blur_prepare(ctx, params, variant, input.width, input.height, staged.channels);
  const auto start = std::chrono::steady_clock::now();
  DeviceImage d_in = DeviceImage::upload(ctx, staged);
  DeviceImage d_out = DeviceImage::allocate(ctx, input.width, input.height, staged.channels);
  const auto events = box_blur(ctx, d_in, d_out, params, variant);
  Image result = from_filter_layout(d_out.download(ctx), input.channels);
  if (timing) {
    timing->kernel_ms = kernel_milliseconds(events);
    timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return result;
}

}  // namespace clf
