// SPDX-License-Identifier: Apache-2.0
// The box blur's variants, one entry each: tunables, the calls each cannot run, build options and launch
// ranges, and the enqueue (kernels in box_blur.cl and the files it includes).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <limits>

#include "filters/box_blur/box_blur_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {
namespace {

constexpr const char* kKernelFile = "box_blur.cl";

// The strip order and leaving rows of fused_prefix, fused_packed and fused_wide (see box_blur_bands.cl's mirror
// and RING). On the H200 mirrored strips tied or won everywhere (up to 10% with 64-row strips); the ring won at
// d = 3..11 with 32-48-row strips and lost at d >= 15, where its local memory (d rows) costs work-groups per SM.
const Tunable kMirrorTunable = {
    "mirror", {1, 0}, "odd strips run upwards (1) so neighbours share their edge rows in L2"};
Tunable ring_tunable(int default_value) {
  return {"ring",
          {default_value, 1 - default_value},
          "leaving rows from a local-memory ring of d rows (1) instead of global memory"};
}

// fused_packed's and fused_wide's tunables: one kernel body, so the same work-group shapes; the strips,
// prefetch depths and the ring's default are each one's own measurements.
std::vector<Tunable> per_d_band_tunables(std::vector<int> strips, std::vector<int> prefetch, int ring_default,
                                         int pair_default) {
  return {{"local_x", {64, 128, 32, 96}, "work-items per work-group"},
          {"items", {4, 8}, "consecutive columns per work-item"},
          {"strip", std::move(strips), "rows per strip"},
          {"prefetch", std::move(prefetch), "rows loaded ahead per work-item (1: the next row only)"},
          kMirrorTunable,
          ring_tunable(ring_default),
          {"pair",
           {pair_default, 1 - pair_default},
           "two mirrored strips per work-group, one per row lane, summing their shared start once (1; needs "
           "mirror=1, ring=0)"},
          // A tunable: it gains in pair's short strips and loses a little in long ones.
          {"direct", {1, 0}, "strips whose rows are all inside the image load them with no border test (1)"}};
}

std::size_t pixel_bytes(const BoxBlurCall& call) {
  return std::size_t(call.channels) * sample_size(call.type);
}

bool is_u16(const BoxBlurCall& call) {
  return call.type == SampleType::u16;
}

// The border constant as the kernels take it: 8-bit RGBA packs it into each byte; 16-bit kernels take the sample
// value itself (each channel's, `(pix_t)cval`).
cl_uint border_bits(const BoxBlurCall& call) {
  return constant_bits(call.params.border, is_u16(call) ? 1 : call.channels);
}

// What the band variants ask of the device: fused_blocks, fused_prefix, fused_packed and fused_wide, each
// one work-group row of local_x work-items, halo of them producing no output, with entry and block buffers
// and the leaving-row ring in dynamic local memory and a ring of `prefetch` rows in registers.
std::optional<std::string> blocks_shape_problem(const DeviceInfo& device, std::string_view variant,
                                                const BlocksShape& shape, int d) {
  if (std::size_t(shape.local_x) * shape.row_lanes() > device.max_work_group_size)
    return fmt::format("work-group of {}x{} exceeds the device's {} work-items", shape.local_x, shape.row_lanes(),
                       device.max_work_group_size);
  if (shape.local_x <= shape.halo)
    return fmt::format("{} needs more than {} work-items per group for d={}", variant, shape.halo, d);
  // At least one byte to spare: the H200 refused (CL_OUT_OF_RESOURCES) a work-group asking for all
  // 49152 bytes it reports.
  const std::size_t local_bytes = shape.entry_bytes + shape.block_bytes + shape.ring_bytes;
  if (local_bytes >= device.local_mem_bytes)
    return fmt::format("{} needs {} bytes of local memory for d={}, the device has {} (some kept back)", variant,
                       local_bytes, d, device.local_mem_bytes);
  // Any depth is correct; at 8 the ring alone is 64 registers at items=4 (134 in all by clang's count for
  // fused_prefix, 249 at items=8), so deeper ones are refused. (fused_blocks has no ring: always 1.)
  if (shape.prefetch < 1 || shape.prefetch > 8)
    return fmt::format("{}'s prefetch must be 1..8 rows (got {})", variant, shape.prefetch);
  if (shape.pair && (shape.ring || !shape.mirror))
    return fmt::format("{}'s pair runs mirrored strips without the ring (mirror=1, ring=0)", variant);
  return std::nullopt;
}

std::optional<std::string> rgba_only(const BoxBlurCall& call, std::string_view variant) {
  if (call.channels != 4) return fmt::format("{} is for RGBA; fused_sliding takes grey", variant);
  return std::nullopt;
}

// The fused_blocks family: one work-group per band of (local_x - halo) * items columns and strip rows.
KernelPlan::Pass band_pass(const BoxBlurCall& call, const BlocksShape& shape, const char* kernel) {
  const std::size_t tw = std::size_t(shape.local_x - shape.halo) * std::size_t(shape.items);
  const std::size_t groups_x = (std::size_t(call.width) + tw - 1) / tw;
  const std::size_t strips = (std::size_t(call.height) + shape.strip - 1) / std::size_t(shape.strip);
  // pair: work-group j runs strips 2j - 1 and 2j, one per row lane.
  const std::size_t groups_y = shape.pair ? strips / 2 + 1 : strips;
  return {kernel, cl::NDRange(groups_x * shape.local_x, groups_y * shape.row_lanes()),
          cl::NDRange(std::size_t(shape.local_x), shape.row_lanes())};
}

// (s + n/2) / n as mul_hi(2 (s + n/2), magic) >> shift, and FLOAT_ROUND's constants (see magic_round_div and
// round_pack in box_blur.cl).
struct Rounding {
  std::uint64_t n;
  cl_uint shift, magic, twice_half;
  float inv_n, bias;
  explicit Rounding(int d) : n(std::uint64_t(d) * std::uint64_t(d)) {
    shift = cl_uint(std::bit_width(n) - 1);
    magic = cl_uint(((std::uint64_t(1) << (31 + shift)) + n - 1) / n);
    twice_half = cl_uint(2 * (n / 2));
    inv_n = float(1.0 / double(n));
    bias = float((double(n / 2) + 0.5) / double(n) - 0.5);
  }
};

cl::Kernel& kernel(Context& ctx, const KernelPlan& plan, std::size_t i) {
  return ctx.kernel(kKernelFile, plan.options, plan.passes[i].kernel);
}

// The arguments the one-pass kernels start with: in, out, w, h, d, border mode and constant; then `rest`.
template <class... Rest>
void set_args(cl::Kernel& k, const BoxBlurCall& call, ImageTarget& t, const Rest&... rest) {
  set_kernel_args(k, t.in.buffer, t.out.buffer, call.width, call.height, call.params.diameter,
                  int(call.params.border.mode), border_bits(call), rest...);
}

// set_args on the plan's first kernel, then the plan's launch.
template <class... Rest>
std::vector<cl::Event> launch_with_args(Context& ctx, const KernelPlan& plan, const BoxBlurCall& call, ImageTarget& t,
                                        const Rest&... rest) {
  set_args(kernel(ctx, plan, 0), call, t, rest...);
  return launch_passes(ctx, plan, kKernelFile);
}

// Sets the ring's local memory, where there is one (RING_ARG in box_blur_bands.cl), and on views the layout
// (PITCH_ARGS, last).
void set_ring_and_views(cl::Kernel& k, const BlocksShape& shape, const BoxBlurCall& call) {
  const cl_uint args = k.getInfo<CL_KERNEL_NUM_ARGS>(), views = call.on_views() ? 4 : 0;
  if (shape.ring_bytes) k.setArg(args - views - 1, cl::Local(shape.ring_bytes));
  if (views) {
    cl_uint i = args - views;
    for (int v : {call.in_stride, call.out_stride, call.in_offset, call.out_offset}) k.setArg(i++, v);
  }
}

// Views box_blur_bands.cl's PITCHED build reads and writes as they are: RGBA, every row start a multiple of 8
// pixels from the buffer's start, so that its vector loads and stores (up to 8 pixels) stay aligned.
bool band_takes_views(const BoxBlurCall& call) {
  return call.channels == 4 && call.in_stride % 8 == 0 && call.out_stride % 8 == 0 && call.in_offset % 8 == 0 &&
         call.out_offset % 8 == 0;
}

// Whether the cl_intel_subgroups form of block4x4 builds here. Drivers may list the extension without
// its block read/write functions (PoCL 5 does); then block4x4 falls back to plain vector loads.
constexpr const char* kSubgroupOptions = " -D USE_INTEL_SUBGROUPS=1";
bool subgroup_block4x4_builds(Context& ctx, const std::string& options) {
  return ctx.feature_works("box_blur.intel_subgroup_block_io", [&] {
    try {
      ctx.kernel(kKernelFile, options + kSubgroupOptions, "box_block4x4_subgroups");
      return true;
    } catch (const ClError& e) {
      if (e.code() != CL_BUILD_PROGRAM_FAILURE) throw;
      return false;
    }
  });
}

using Entry = ImageTable<BoxBlurParams>::Entry;

Entry naive() {
  Entry e{{"naive", "one pixel per work-item, d*d packed loads (seed 004 baseline)", local_size_tunables()}};
  e.takes_u16 = true;
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const BoxBlurCall&, const TuningConfig& config) {
    return work_group_problem(device, info, config);
  };
  e.plan = [info](Context&, const BoxBlurCall& call, const TuningConfig& config) {
    const auto [global, local] = local_ranges(info, config, std::size_t(call.width), std::size_t(call.height));
    return KernelPlan{base_options(call), {{"box_naive", global, local}}};
  };
  e.enqueue = [](Context& ctx, const KernelPlan& plan, const BoxBlurCall& call, const TuningConfig&, ImageTarget& t) {
    return launch_with_args(ctx, plan, call, t);
  };
  return e;
}

Entry block4x4() {
  Entry e{{"block4x4",
           "16 pixels per work-item in a 4x4 block with uint4 vector loads; cl_intel_subgroups block reads "
           "and writes where they build (seed 004)",
           local_size_tunables()}};
  e.takes_u16 = true;  // the plain path (the sub-group one reads packed RGBA8)
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const BoxBlurCall&, const TuningConfig& config) {
    return work_group_problem(device, info, config);
  };
  e.plan = [info](Context& ctx, const BoxBlurCall& call, const TuningConfig& config) {
    KernelPlan plan{base_options(call), {}};
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    if (call.channels == 4 && !is_u16(call) && ctx.info().has_intel_subgroups() &&
        ctx.info().max_work_group_size >= 64 && subgroup_block4x4_builds(ctx, plan.options)) {
      plan.options += kSubgroupOptions;
      plan.passes = {{"box_block4x4_subgroups", cl::NDRange(round_up(W, 256) / 4, (H + 3) / 4), cl::NDRange(64, 1)}};
    } else {
      const auto [global, local] = local_ranges(info, config, (W + 3) / 4, (H + 3) / 4);
      plan.passes = {{"box_block4x4", global, local}};
    }
    return plan;
  };
  e.enqueue = naive().enqueue;  // the same arguments
  return e;
}

// two_pass's intermediate a pixel: 16 bits a channel (a 2x2 sum is at most 1020), 32 for 16-bit samples.
std::size_t pair_bytes(const BoxBlurCall& call) {
  return std::size_t(call.channels) * (is_u16(call) ? 4 : 2);
}

Entry two_pass() {
  Entry e{{"two_pass", "even d only: 2x2 sums into an integer temporary, then (d/2)^2 samples (seed 003 9.1.1)",
           local_size_tunables()}};
  e.takes_u16 = true;
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const BoxBlurCall& call,
                         const TuningConfig& config) -> std::optional<std::string> {
    if (auto why = work_group_problem(device, info, config)) return why;
    const int d = call.params.diameter;
    if (d % 2 != 0) return fmt::format("two_pass needs an even diameter (got {})", d);
    return temporary_problem(device, "two_pass",
                             std::size_t(call.width + d - 2) * std::size_t(call.height + d - 2) * pair_bytes(call));
  };
  e.plan = [info](Context&, const BoxBlurCall& call, const TuningConfig& config) {
    const int d = call.params.diameter;
    const std::size_t tw = std::size_t(call.width) + d - 2, th = std::size_t(call.height) + d - 2;
    const auto [global, local] = local_ranges(info, config, std::size_t(call.width), std::size_t(call.height));
    return KernelPlan{base_options(call),
                      {{"box_pair_sums", cl::NDRange(tw, th)}, {"box_from_pair_sums", global, local}}};
  };
  e.enqueue = [](Context& ctx, const KernelPlan& plan, const BoxBlurCall& call, const TuningConfig&, ImageTarget& t) {
    const int w = call.width, h = call.height, d = call.params.diameter;
    const std::size_t tw = std::size_t(w) + d - 2, th = std::size_t(h) + d - 2;
    cl::Buffer& pairs = ctx.scratch_buffer("box_blur.pairs", tw * th * pair_bytes(call));
    set_kernel_args(kernel(ctx, plan, 0), t.in.buffer, pairs, w, h, d, int(call.params.border.mode), border_bits(call));
    set_kernel_args(kernel(ctx, plan, 1), pairs, t.out.buffer, w, h, d);
    return launch_passes(ctx, plan, kKernelFile);
  };
  return e;
}

// separable_sliding's row sums, a channel: 16 bits while d*255 fits them, else 32 (HSUM_WIDE); 32 for 16-bit samples.
std::size_t hsum_bytes(const BoxBlurCall& call) {
  return call.params.diameter > 257 || is_u16(call) ? 4 : 2;
}

Entry separable_sliding() {
  Entry e{{"separable_sliding",
           "row pass and coalesced column pass with running sums: O(1) per pixel for any d",
           {{"row_segment", {16, 8, 32, 64}, "pixels per work-item in the row pass"},
            {"column_segment", {32, 16, 64, 128}, "rows per work-item in the column pass"}}}};
  e.takes_u16 = true;
  const VariantInfo info = e.info;
  e.unsupported = [](const DeviceInfo& device, const BoxBlurCall& call, const TuningConfig&) {
    return temporary_problem(device, "separable_sliding",
                             std::size_t(call.width) * call.height * std::size_t(call.channels) * hsum_bytes(call));
  };
  e.plan = [info](Context&, const BoxBlurCall& call, const TuningConfig& config) {
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    const auto row_segment = std::size_t(tunable_value(config, info, "row_segment"));
    const auto column_segment = std::size_t(tunable_value(config, info, "column_segment"));
    std::string options = base_options(call);
    if (call.params.diameter > 257) options += " -D HSUM_WIDE=1";  // d*255 no longer fits 16 bits
    if (call.on_views()) options += " -D PITCHED=1";
    return KernelPlan{options,
                      {{"box_row_sums", cl::NDRange((W + row_segment - 1) / row_segment, H)},
                       {"box_column_sums", cl::NDRange(W, (H + column_segment - 1) / column_segment)}}};
  };
  e.enqueue = [info](Context& ctx, const KernelPlan& plan, const BoxBlurCall& call, const TuningConfig& config,
                     ImageTarget& t) {
    const int w = call.width, h = call.height, d = call.params.diameter, mode = int(call.params.border.mode);
    const cl_uint cval = border_bits(call);
    cl::Buffer& sums = ctx.scratch_buffer(
        "box_blur.row_sums", std::size_t(w) * std::size_t(h) * std::size_t(call.channels) * hsum_bytes(call));
    cl::Kernel &rows = kernel(ctx, plan, 0), &columns = kernel(ctx, plan, 1);
    set_kernel_args(rows, t.in.buffer, sums, w, h, d, mode, cval, tunable_value(config, info, "row_segment"));
    set_kernel_args(columns, sums, t.out.buffer, w, h, d, mode, cval, tunable_value(config, info, "column_segment"));
    if (call.on_views()) {  // IN_PITCH_ARGS and OUT_PITCH_ARGS, last
      rows.setArg(8, call.in_stride), rows.setArg(9, call.in_offset);
      columns.setArg(8, call.out_stride), columns.setArg(9, call.out_offset);
    }
    return launch_passes(ctx, plan, kKernelFile);
  };
  // Scalar loads and stores: any layout of whole pixels.
  e.takes_views = [](const BoxBlurCall&) { return true; };
  return e;
}

Entry local_tile() {
  Entry e{{"local_tile", "tile plus halo loaded once into local memory per work-group", tile_tunables()}};
  e.takes_u16 = true;
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const BoxBlurCall& call,
                         const TuningConfig& config) -> std::optional<std::string> {
    const auto tile = tile_shape(device, info, config);
    const int d = call.params.diameter;
    const std::size_t bytes = std::size_t(tile.width + d - 1) * std::size_t(tile.height + d - 1) * pixel_bytes(call);
    return local_group_problem(device, "tile", tile.width, tile.height, "local_tile", bytes, fmt::format("d={}", d));
  };
  e.plan = [info](Context& ctx, const BoxBlurCall& call, const TuningConfig& config) {
    const auto tile = tile_shape(ctx.info(), info, config);
    return KernelPlan{
        base_options(call),
        {{"box_local_tile",
          cl::NDRange(round_up(std::size_t(call.width), tile.width), round_up(std::size_t(call.height), tile.height)),
          cl::NDRange(tile.width, tile.height)}}};
  };
  e.enqueue = [info](Context& ctx, const KernelPlan& plan, const BoxBlurCall& call, const TuningConfig& config,
                     ImageTarget& t) {
    const auto tile = tile_shape(ctx.info(), info, config);
    const int d = call.params.diameter;
    const std::size_t tile_bytes =
        std::size_t(tile.width + d - 1) * std::size_t(tile.height + d - 1) * pixel_bytes(call);
    return launch_with_args(ctx, plan, call, t, cl::Local(tile_bytes));
  };
  return e;
}

Entry fused_sliding() {
  Entry e{{"fused_sliding",
           "one pass: column running sums in local memory, a sliding row window over them; input read once, "
           "no intermediate",
           {{"local_x", {64, 32, 128, 256}, "work-items per work-group"},
            {"items", {0, 1, 2, 4, 8, 16}, "consecutive output columns per work-item (0: from d)"},
            {"strip", {0, 16, 32, 64, 128, 256}, "rows per work-group (0: from d)"}}}};
  e.takes_u16 = true;
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const BoxBlurCall& call,
                         const TuningConfig& config) -> std::optional<std::string> {
    const int d = call.params.diameter;
    if (d > kMaxFusedDiameter)
      return fmt::format("fused_sliding's divide-free rounding needs d <= {} (got {})", kMaxFusedDiameter, d);
    const FusedShape shape = box_fused_shape(device, info, config, d, call.channels, call.type);
    if (std::size_t(shape.local_x) > device.max_work_group_size)
      return fmt::format("work-group of {} exceeds the device's {} work-items", shape.local_x,
                         device.max_work_group_size);
    const std::size_t bytes = shape.column_sum_bytes + shape.row_out_bytes;
    if (bytes > device.local_mem_bytes)
      return fmt::format("fused_sliding needs {} bytes of local memory for d={}, the device has {}", bytes, d,
                         device.local_mem_bytes);
    return std::nullopt;
  };
  e.plan = [info](Context& ctx, const BoxBlurCall& call, const TuningConfig& config) {
    const FusedShape shape = box_fused_shape(ctx.info(), info, config, call.params.diameter, call.channels, call.type);
    std::string options = base_options(call);
    // d*255 no longer fits 16 bits
    if (call.channels == 4 && call.params.diameter > 256 && !is_u16(call)) options += " -D CSUM_WIDE=1";
    const std::size_t tw = std::size_t(shape.local_x) * std::size_t(shape.items);
    const std::size_t groups_x = (std::size_t(call.width) + tw - 1) / tw;
    const std::size_t groups_y = (std::size_t(call.height) + shape.strip - 1) / std::size_t(shape.strip);
    if (call.on_views()) options += " -D PITCHED=1";
    return KernelPlan{options,
                      {{"box_fused_sliding", cl::NDRange(groups_x * shape.local_x, groups_y),
                        cl::NDRange(std::size_t(shape.local_x), 1)}}};
  };
  e.enqueue = [info](Context& ctx, const KernelPlan& plan, const BoxBlurCall& call, const TuningConfig& config,
                     ImageTarget& t) {
    const int d = call.params.diameter;
    const FusedShape shape = box_fused_shape(ctx.info(), info, config, d, call.channels, call.type);
    const Rounding r(d);
    cl::Kernel& k = kernel(ctx, plan, 0);
    // 16-bit samples round by dividing by n, which takes magic's place (magic_round_div in box_blur.cl).
    set_args(k, call, t, shape.items, shape.strip, r.twice_half, is_u16(call) ? cl_uint(r.n) : r.magic, r.shift,
             cl::Local(shape.column_sum_bytes), cl::Local(shape.row_out_bytes));
    if (call.on_views())  // -D PITCHED=1's last arguments (IN_PITCH_ARGS, OUT_PITCH_ARGS)
      set_kernel_args_from(k, k.getInfo<CL_KERNEL_NUM_ARGS>() - 4, call.in_stride, call.in_offset, call.out_stride,
                           call.out_offset);
    return launch_passes(ctx, plan, kKernelFile);
  };
  // Scalar loads and stores: any whole-pixel layout, grey or RGBA.
  e.takes_views = [](const BoxBlurCall&) { return true; };
  return e;
}

// A band variant (fused_blocks, fused_prefix, fused_packed, fused_wide): RGBA, the diameters it is exact for,
// its shape's demands on the device, one band pass, and its kernel's arguments with the ring's local memory last.
struct Band {
  VariantInfo info;
  const char* kernel;
  int min_d, max_d;
  std::string range;  // the limit on d as its refusal states it
  std::function<BlocksShape(const VariantInfo&, const TuningConfig&, int d)> shape;
  // Build options beyond base_options.
  std::function<std::string(Context&, const BoxBlurCall&, const BlocksShape&)> options;
  std::function<void(cl::Kernel&, const BoxBlurCall&, ImageTarget&, const BlocksShape&, const Rounding&)> set_args;
  bool pitched_build = false;  // box_blur_bands.cl's kernels: -D PITCHED=1 reads and writes views as they are
};

Entry band_entry(Band band) {
  Entry e{band.info};
  e.unsupported = [band](const DeviceInfo& device, const BoxBlurCall& call,
                         const TuningConfig& config) -> std::optional<std::string> {
    const int d = call.params.diameter;
    const std::string& name = band.info.name;
    if (auto why = rgba_only(call, name)) return why;
    if (d < band.min_d || d > band.max_d) return fmt::format("{} (got {})", band.range, d);
    return blocks_shape_problem(device, name, band.shape(band.info, config, d), d);
  };
  if (band.pitched_build) e.takes_views = band_takes_views;
  e.plan = [band](Context& ctx, const BoxBlurCall& call, const TuningConfig& config) {
    const BlocksShape shape = band.shape(band.info, config, call.params.diameter);
    return KernelPlan{base_options(call) + band.options(ctx, call, shape) + (call.on_views() ? " -D PITCHED=1" : ""),
                      {band_pass(call, shape, band.kernel)}};
  };
  e.enqueue = [band](Context& ctx, const KernelPlan& plan, const BoxBlurCall& call, const TuningConfig& config,
                     ImageTarget& t) {
    const BlocksShape shape = band.shape(band.info, config, call.params.diameter);
    cl::Kernel& k = kernel(ctx, plan, 0);
    band.set_args(k, call, t, shape, Rounding(call.params.diameter));
    set_ring_and_views(k, shape, call);
    return launch_passes(ctx, plan, kKernelFile);
  };
  return e;
}

constexpr int kNoMinDiameter = std::numeric_limits<int>::min();

Entry fused_blocks() {
  return band_entry(
      {{"fused_blocks",
        "RGBA: fused_sliding with column sums in registers, aligned vector loads, block sums for the row "
        "window and one barrier per row",
        {{"local_x", {64, 128, 32}, "work-items per work-group"},
         {"items", {4, 8, 2}, "consecutive columns per work-item"},
         // Short strips for small images: each row waits on its loads, so rows per work-group set the
         // critical path when there are few work-groups per SM.
         {"strip", {32, 16, 64, 128, 8, 4}, "rows per work-group"}}},
       "box_fused_blocks",
       kNoMinDiameter,
       kMaxFusedDiameter,
       fmt::format("fused_blocks' divide-free rounding needs d <= {}", kMaxFusedDiameter),
       box_blocks_shape,
       [](Context&, const BoxBlurCall& call, const BlocksShape& shape) {
         const int d = call.params.diameter;
         std::string options = fmt::format(" -D ITEMS={}", shape.items);
         if (shape.window_packed) options += " -D WINDOW_PACKED=1";
         if (d > 256) options += " -D CSUM_WIDE=1";
         if (d <= 128) options += " -D FLOAT_ROUND=1";
         return options;
       },
       [](cl::Kernel& k, const BoxBlurCall& call, ImageTarget& t, const BlocksShape& shape, const Rounding& r) {
         set_args(k, call, t, shape.strip, r.twice_half, r.magic, r.shift, r.inv_n, r.bias,
                  cl::Local(shape.entry_bytes), cl::Local(shape.block_bytes));
       }});
}

Entry fused_prefix() {
  return band_entry(
      {{"fused_prefix",
        "RGBA, d <= 128: fused_blocks' column sums, the row window from FP32 prefix sums in local memory (two "
        "reads per output whatever d is, the adds on the FP32 lanes)",
        {{"local_x", {64, 128, 32, 256}, "work-items per work-group"},
         // items=4 by default: the H200 tuner picked it at every d (items=8 needs ~100 registers at
         // prefetch=1, ~146 by clang's count at prefetch=2).
         {"items", {4, 8, 2}, "consecutive columns per work-item"},
         {"strip", {64, 32, 16, 128, 256, 8, 4, 48, 96}, "rows per work-group"},
         // Each work-item has `prefetch` rows of loads in flight; on the H200 2 gained 2-7% over 1 and 4 lost.
         // More rows cost registers (ring of 2 * items * prefetch pixels).
         {"prefetch", {2, 1, 4}, "rows loaded ahead per work-item (1: the next row only)"},
         kMirrorTunable,
         ring_tunable(0)}},
       "box_fused_prefix",
       kNoMinDiameter,
       kMaxPrefixDiameter,
       fmt::format("fused_prefix's FP32 sums are exact for d <= {}", kMaxPrefixDiameter),
       box_prefix_shape,
       [](Context&, const BoxBlurCall& call, const BlocksShape& shape) {
         // The window's offsets within a block, as box_fused_prefix computes them from d (see WIN_A there).
         const int d = call.params.diameter, items = shape.items, a = box_window_offset(items, d);
         return fmt::format(" -D ITEMS={} -D WIN_A={} -D WIN_AM={} -D PREFETCH={} -D RING={}", items, a,
                            (a + d) % items, shape.prefetch, int(shape.ring));
       },
       [](cl::Kernel& k, const BoxBlurCall& call, ImageTarget& t, const BlocksShape& shape, const Rounding& r) {
         // One-FMA rounding (see box_fused_prefix): 0.5 for even n, 0 for odd.
         const auto half_fix = float(double(r.n / 2) + 0.5 - 0.5 * double(r.n));
         set_args(k, call, t, shape.strip, shape.mirror, r.inv_n, half_fix, cl::Local(shape.entry_bytes),
                  cl::Local(shape.block_bytes));
       },
       true});
}

// fused_packed and fused_wide: one kernel body (box_blur_bands.cl) built with -D DIAMETER, and -D WIDE for
// fused_wide.
Entry packed_window(VariantInfo info, bool wide) {
  const int most = wide ? kMaxWideDiameter : kMaxPackedDiameter;
  return band_entry(
      {std::move(info), wide ? "box_fused_wide" : "box_fused_packed", kMinPackedDiameter, most,
       fmt::format("{}'s {} d = {}..{}", wide ? "fused_wide" : "fused_packed",
                   wide ? "rounding is exact for" : "16-bit window sums take", kMinPackedDiameter, most),
       [wide](const VariantInfo& v, const TuningConfig& config, int d) { return box_packed_shape(v, config, d, wide); },
       [wide](Context& ctx, const BoxBlurCall& call, const BlocksShape& shape) {
         const int d = call.params.diameter;
         return fmt::format(" -D ITEMS={} -D WIN_A={} -D DIAMETER={} -D PREFETCH={} -D RING={}{}{}{}{}", shape.items,
                            box_window_offset(shape.items, d), d, shape.prefetch, int(shape.ring),
                            wide ? " -D WIDE=1" : "", shape.pair ? " -D PAIR=1" : "",
                            shape.direct ? " -D DIRECT=1" : "", ctx.info().fast_math_options());
       },
       [](cl::Kernel& k, const BoxBlurCall& call, ImageTarget& t, const BlocksShape& shape, const Rounding& r) {
         // ceil(2^32 / n) and n/2 in both 16-bit lanes (see box_fused_packed; box_fused_wide splits them).
         const auto packed_magic = cl_uint(((std::uint64_t(1) << 32) + r.n - 1) / r.n);
         const auto half_n = cl_uint(r.n / 2 * 0x10001u);
         set_args(k, call, t, shape.strip, shape.mirror, packed_magic, half_n, cl::Local(shape.entry_bytes));
       },
       true});
}

// cpu_bands' scratch: one row of column sums per band, `lead` pixels before the w columns (r rounded up to 16, so
// the columns' vectors stay aligned), d - 1 - r halo pixels after them and one spare; rows 16 uints apart.
struct CpuBandsLayout {
  int rows, bands, lead, stride;
  std::size_t bytes() const { return std::size_t(bands) * std::size_t(stride) * 4; }
};

CpuBandsLayout cpu_bands_layout(const VariantInfo& info, const BoxBlurCall& call, const TuningConfig& config) {
  const int d = call.params.diameter, r = d / 2, rows = call.rows.count_in(call.height);
  CpuBandsLayout layout{};
  layout.rows = tunable_value(config, info, "rows");
  // 0: d rows (each band first sums d rows; 2-core PoCL, d = 63: 64-128-row bands 15% ahead of 32), at least 32
  // and at most an eighth of the rows it computes, so that the cores share at least 8 bands.
  if (layout.rows == 0) layout.rows = std::max(32, std::min(d, rows / 8));
  layout.bands = (rows + layout.rows - 1) / layout.rows;
  layout.lead = int(round_up(std::size_t(r), 16));
  layout.stride = int(round_up(std::size_t(layout.lead + call.width + d - r) * std::size_t(call.channels), 16));
  return layout;
}

Entry cpu_bands() {
  Entry e{{"cpu_bands",
           "for CPUs: one work-item per band of rows; running column sums in a scratch row, then a running row "
           "window along it, 16 channels a vector step",
           {{"rows", {0, 16, 32, 64, 128, 8}, "rows per band, one work-item each (0: from d and the height)"}}}};
  e.takes_u16 = true;  // box_blur_cpu_bands16.cl
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const BoxBlurCall& call, const TuningConfig& config) {
    return temporary_problem(device, "cpu_bands", cpu_bands_layout(info, call, config).bytes());
  };
  e.plan = [info](Context&, const BoxBlurCall& call, const TuningConfig& config) {
    const CpuBandsLayout layout = cpu_bands_layout(info, call, config);
    return KernelPlan{base_options(call) + " -D CPU_BANDS=1",
                      {{"box_cpu_bands", cl::NDRange(std::size_t(layout.bands)), cl::NDRange(1)}}};
  };
  e.enqueue = [info](Context& ctx, const KernelPlan& plan, const BoxBlurCall& call, const TuningConfig& config,
                     ImageTarget& t) {
    const CpuBandsLayout layout = cpu_bands_layout(info, call, config);
    cl::Buffer& scratch = ctx.scratch_buffer("box_blur.cpu_bands", layout.bytes());
    const Rounding r(call.params.diameter);
    const bool views = call.on_views();
    set_args(kernel(ctx, plan, 0), call, t, layout.rows, scratch, layout.stride, layout.lead, r.inv_n, r.bias,
             r.twice_half, r.magic, r.shift, views ? call.in_stride : call.width, views ? call.in_offset : 0,
             views ? call.out_stride : call.width, views ? call.out_offset : 0, call.row_begin(), call.row_end());
    return launch_passes(ctx, plan, kKernelFile);
  };
  // Row pointers from the strides and offsets: any layout of whole pixels, at no cost.
  e.takes_views = [](const BoxBlurCall&) { return true; };
  e.takes_row_range = true;
  return e;
}

}  // namespace

const ImageTable<BoxBlurParams>& box_blur_table() {
  static const ImageTable<BoxBlurParams> table(
      "box blur",
      {naive(), block4x4(), two_pass(), separable_sliding(), local_tile(), fused_sliding(), fused_blocks(),
       fused_prefix(),
       // Defaults (what runs untuned): paired 6-row strips, which the tuner picks at 1080p on the H200 and the
       // H100 and at 8k on the H100; on the H100 they run d = 3 / 9 / 11 within 0-8% of the tuned shapes at 8k and
       // 1080p, where 32-row strips with the ring took up to 1.8x (1080p d = 9: 23 against 13 us). Strips between
       // the powers of two: shorter ones re-read more rows to start, longer ones leave a larger last wave.
       packed_window({"fused_packed",
                      "RGBA, 2 <= d <= 15: fused_prefix's column sums, the row window slid in packed 16-bit lanes "
                      "from the column sums in local memory and rounded by one mul_hi per channel (built per d)",
                      per_d_band_tunables({6, 32, 16, 8, 10, 12, 24, 40, 48, 64, 56, 80, 4}, {2, 4, 1}, 0, 1)},
                     false),
       // Defaults: paired 14-row strips with 2 rows of prefetch, the tuned strip at 8k on the H100 (d = 31, 63) and
       // near the H200's (14-16); untuned they run within 5-12% of the tuned shapes on the H100 at 8k and 1080p,
       // where unpaired 128-row strips took 1.5x at 8k and 4x at 1080p (too few work-groups for the SMs).
       packed_window(
           {"fused_wide",
            "RGBA, 2 <= d <= 64: fused_packed for wide windows, each kept as whole 32-bit words plus the "
            "sum of their high lanes, the first one from published block sums (built per d)",
            per_d_band_tunables({14, 128, 120, 64, 144, 96, 32, 160, 48, 16, 8, 12, 24, 10, 20}, {2, 1, 4}, 0, 1)},
           true),
       cpu_bands()});
  return table;
}

const std::vector<VariantInfo>& box_blur_variants() {
  return box_blur_table().infos();
}

}  // namespace clf
