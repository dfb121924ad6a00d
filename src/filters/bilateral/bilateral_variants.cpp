// SPDX-License-Identifier: Apache-2.0
// The bilateral filter's variants, one entry each: tunables, the calls each cannot run, build options and
// launch ranges, the weight tables it uploads, and the enqueue (kernels in bilateral.cl and the files it
// includes).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "filters/bilateral/bilateral_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {

using namespace bilateral_detail;

namespace {

constexpr const char* kKernelFile = "bilateral.cl";

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
     "instead of three FFMAs, with a fifth tile plane"},
};

// The border constant as the kernels take it: 8-bit RGBA packed in a word's bytes (constant_bits), 16-bit samples
// the value itself, which the kernels widen to every channel of a ushort4.
cl_uint border_constant(const BilateralCall& call) {
  if (call.type != SampleType::u16) return constant_bits(call.params.border, call.channels);
  return call.params.border.mode == BorderMode::constant ? cl_uint(call.params.border.value) : 0u;
}

// The kernel's arguments every variant but unrolled starts with. The distance is an argument, not a build
// option, so that l1 and l2 share one program (a uniform branch in the loop).
struct CommonArgs {
  int w, h, r, mode;
  cl_uint cval;
  int l1;
  explicit CommonArgs(const BilateralCall& call)
      : w(call.width),
        h(call.height),
        r(bilateral_radius(call.params)),
        mode(static_cast<int>(call.params.border.mode)),
        cval(border_constant(call)),
        l1(call.params.distance == BilateralDistance::l1 ? 1 : 0) {}
};

cl_float range_coefficient(const BilateralCall& call) {
  return static_cast<cl_float>(gaussian_coefficient(call.params.sigma_range));
}

cl::Kernel& kernel(Context& ctx, const KernelPlan& plan) {
  return ctx.kernel(kKernelFile, plan.options, plan.passes[0].kernel);
}

// Sets the arguments every variant but unrolled starts with (input, output, size, radius, border, distance),
// then `rest`.
template <class Input, class... Rest>
void set_common_args(Context& ctx, const KernelPlan& plan, const BilateralCall& call, const Input& input,
                     ImageTarget& t, const Rest&... rest) {
  const CommonArgs a(call);
  set_kernel_args(kernel(ctx, plan), input, t.out.buffer, a.w, a.h, a.r, a.mode, a.cval, a.l1, rest...);
}

// The same from the target's input buffer, then the plan's launch.
template <class... Rest>
std::vector<cl::Event> launch_with_common_args(Context& ctx, const KernelPlan& plan, const BilateralCall& call,
                                               ImageTarget& t, const Rest&... rest) {
  set_common_args(ctx, plan, call, t.in.buffer, t, rest...);
  return launch_passes(ctx, plan, kKernelFile);
}

// Uploads a weight table into the context's scratch buffer `name`. The write is blocking and the
// queue in order, so a previous call's kernels have finished with the buffer before it changes.
cl::Buffer& upload_table(Context& ctx, std::string_view name, const std::vector<float>& table) {
  const std::size_t bytes = table.size() * sizeof(float);
  cl::Buffer& buffer = ctx.scratch_buffer(name, bytes);
  check_cl(ctx.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, table.data()), "clEnqueueWriteBuffer");
  return buffer;
}

cl::Buffer& upload_spatial_table(Context& ctx, const BilateralCall& call) {
  return upload_table(ctx, "bilateral.spatial",
                      spatial_table(call.params.sigma_spatial, bilateral_radius(call.params), call.params.window));
}

// The range-weight table of range_table and pixels4: the colour table and its scale for RGBA, the 766
// entries of |dR| + |dG| + |dB| for RGBA with the L1 distance, the 256 entries of |p - c| for grey (scale 0).
struct RangeTable {
  cl::Buffer* buffer;
  cl_uint scale;
};
RangeTable upload_range_table(Context& ctx, const BilateralCall& call) {
  // 16-bit samples: no table (bilateral.cl); the kernel takes exp with 1 / (2 sr^2) in range_scale's bits, and a
  // one-entry buffer stands for the table argument.
  if (call.type == SampleType::u16) {
    const float coef = range_coefficient(call);
    cl_uint bits = 0;
    std::memcpy(&bits, &coef, sizeof bits);
    return {&upload_table(ctx, "bilateral.range", {0.0f}), bits};
  }
  if (call.channels == 4 && call.params.distance == BilateralDistance::l1)
    return {&upload_table(ctx, "bilateral.range", l1_range_table(call.params.sigma_range)), 0};
  if (call.channels == 4) {
    ColourRangeTable table = colour_range_table(call.params.sigma_range);
    return {&upload_table(ctx, "bilateral.range", table.weights), table.scale};
  }
  return {&upload_table(ctx, "bilateral.range", grey_range_table(call.params.sigma_range)), 0};
}

using Entry = ImageTable<BilateralParams>::Entry;

// One pixel per work-item over the image, local_x x local_y work-groups (naive, gauss_table); pixels4 runs
// one work-item per 4 rows.
std::function<KernelPlan(Context&, const BilateralCall&, const TuningConfig&)> pixel_plan(const VariantInfo& info,
                                                                                          int rows_per_item) {
  return [info, rows_per_item](Context&, const BilateralCall& call, const TuningConfig& config) {
    const auto H = std::size_t(call.height), rows = std::size_t(rows_per_item);
    const auto [global, local] = local_ranges(info, config, std::size_t(call.width), (H + rows - 1) / rows);
    return KernelPlan{base_options(call), {{"bilateral_" + info.name, global, local}}};
  };
}

Entry naive() {
  Entry e{{"naive", "global memory, one pixel per work-item, exp for every tap (seed 001, phase 1)",
           local_size_tunables()}};
  e.plan = pixel_plan(e.info, 1);
  e.takes_u16 = true;
  e.enqueue = [](Context& ctx, const KernelPlan& plan, const BilateralCall& call, const TuningConfig&, ImageTarget& t) {
    const auto spatial_coef = static_cast<cl_float>(gaussian_coefficient(call.params.sigma_spatial));
    const int max_distance2 = window_max_distance2(bilateral_radius(call.params), call.params.window);
    return launch_with_common_args(ctx, plan, call, t, max_distance2, spatial_coef, range_coefficient(call));
  };
  return e;
}

Entry gauss_table() {
  Entry e{{"gauss_table", "spatial weights from a host-computed table in constant memory (seed 001, phase 2)",
           local_size_tunables()}};
  e.plan = pixel_plan(e.info, 1);
  e.takes_u16 = true;
  e.enqueue = [](Context& ctx, const KernelPlan& plan, const BilateralCall& call, const TuningConfig&, ImageTarget& t) {
    cl::Buffer& spatial = upload_spatial_table(ctx, call);
    return launch_with_common_args(ctx, plan, call, t, spatial, range_coefficient(call));
  };
  return e;
}

// The tiled variants (local, local_image, range_table): one work-group per tile, the tile plus its halo
// in local memory, `c` bytes a pixel.
std::optional<std::string> tile_problem(const DeviceInfo& device, const VariantInfo& info, const BilateralCall& call,
                                        const TuningConfig& config) {
  const int r = bilateral_radius(call.params);
  const TileShape tile = tile_shape(device, info, config);
  const std::size_t bytes =
      std::size_t(tile.width + 2 * r) * std::size_t(tile.height + 2 * r) * std::size_t(call.channels);
  return local_group_problem(device, "tile", tile.width, tile.height, info.name, bytes, fmt::format("radius {}", r));
}

KernelPlan tile_plan(Context& ctx, const VariantInfo& info, const BilateralCall& call, const TuningConfig& config) {
  const TileShape tile = tile_shape(ctx.info(), info, config);
  return KernelPlan{
      base_options(call),
      {{"bilateral_" + info.name,
        cl::NDRange(round_up(std::size_t(call.width), tile.width), round_up(std::size_t(call.height), tile.height)),
        cl::NDRange(tile.width, tile.height)}}};
}

cl::LocalSpaceArg tile_bytes(Context& ctx, const VariantInfo& info, const BilateralCall& call,
                             const TuningConfig& config) {
  const int r = bilateral_radius(call.params);
  const TileShape tile = tile_shape(ctx.info(), info, config);
  return cl::Local(std::size_t(tile.width + 2 * r) * std::size_t(tile.height + 2 * r) * std::size_t(call.channels));
}

Entry tiled(VariantInfo info) {
  Entry e{std::move(info)};
  const VariantInfo& i = e.info;
  e.unsupported = [i](const DeviceInfo& device, const BilateralCall& call, const TuningConfig& config) {
    return tile_problem(device, i, call, config);
  };
  e.plan = [i](Context& ctx, const BilateralCall& call, const TuningConfig& config) {
    return tile_plan(ctx, i, call, config);
  };
  return e;
}

Entry local() {
  Entry e = tiled(
      {"local", "tile plus halo loaded once into local memory per work-group (seed 001, phase 3)", tile_tunables()});
  e.enqueue = [info = e.info](Context& ctx, const KernelPlan& plan, const BilateralCall& call,
                              const TuningConfig& config, ImageTarget& t) {
    cl::Buffer& spatial = upload_spatial_table(ctx, call);
    return launch_with_common_args(ctx, plan, call, t, spatial, range_coefficient(call),
                                   tile_bytes(ctx, info, call, config));
  };
  return e;
}

Entry local_image() {
  Entry e =
      tiled({"local_image", "as local, with the tile loaded from an image object; needs images (seed 001, phase 4)",
             tile_tunables()});
  e.needs = {DeviceFeature::images};
  e.unsupported = [info = e.info](const DeviceInfo& device, const BilateralCall& call,
                                  const TuningConfig& config) -> std::optional<std::string> {
    if (std::size_t(call.width) > device.image2d_max_width || std::size_t(call.height) > device.image2d_max_height)
      return fmt::format("local_image: {}x{} exceeds the device's largest 2D image, {}x{}", call.width, call.height,
                         device.image2d_max_width, device.image2d_max_height);
    return tile_problem(device, info, call, config);
  };
  e.plan = [info = e.info](Context& ctx, const BilateralCall& call, const TuningConfig& config) {
    if (call.channels == 1 && !r8_images_supported(ctx))
      throw std::invalid_argument("local_image: this device has no CL_R / CL_UNSIGNED_INT8 images for grey input");
    return tile_plan(ctx, info, call, config);
  };
  // Device images live in buffers, so the call copies the input into an image object first; the copy is
  // part of the call's device work and its event is returned with the kernel's. The image is released
  // when this returns; OpenCL keeps it until the commands using it finish.
  e.enqueue = [info = e.info](Context& ctx, const KernelPlan& plan, const BilateralCall& call,
                              const TuningConfig& config, ImageTarget& t) {
    cl::Buffer& spatial = upload_spatial_table(ctx, call);
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    cl_int err = CL_SUCCESS;
    cl::Image2D image(ctx.context(), CL_MEM_READ_ONLY,
                      cl::ImageFormat(call.channels == 4 ? CL_RGBA : CL_R, CL_UNSIGNED_INT8), W, H, 0, nullptr, &err);
    check_cl(err, "clCreateImage");
    cl::Event copied;
    check_cl(ctx.queue().enqueueCopyBufferToImage(t.in.buffer, image, 0, {0, 0, 0}, {W, H, 1}, nullptr, &copied),
             "clEnqueueCopyBufferToImage");
    set_common_args(ctx, plan, call, image, t, spatial, range_coefficient(call), tile_bytes(ctx, info, call, config));
    std::vector<cl::Event> events = {copied};
    for (cl::Event& launched : launch_passes(ctx, plan, kKernelFile)) events.push_back(std::move(launched));
    return events;
  };
  return e;
}

// range_table and pixels4 read at most 36 KiB of constant memory (8192 + 33^2 floats), within the 64 KiB
// OpenCL 1.2 guarantees every full-profile device.
Entry range_table() {
  Entry e = tiled({"range_table",
                   "as local, with range weights from a table too: 256 entries for grey, the quantised squared "
                   "distance for colour (766 entries of the L1 distance); no exp in the loop",
                   tile_tunables()});
  e.enqueue = [info = e.info](Context& ctx, const KernelPlan& plan, const BilateralCall& call,
                              const TuningConfig& config, ImageTarget& t) {
    cl::Buffer& spatial = upload_spatial_table(ctx, call);
    const RangeTable range = upload_range_table(ctx, call);
    return launch_with_common_args(ctx, plan, call, t, spatial, *range.buffer, range.scale,
                                   tile_bytes(ctx, info, call, config));
  };
  return e;
}

Entry pixels4() {
  Entry e{{"pixels4",
           "4 vertically adjacent pixels per work-item, each loaded pixel weighed for every window holding it; "
           "spatial and range tables",
           local_size_tunables()}};
  e.plan = pixel_plan(e.info, 4);
  e.takes_u16 = true;  // with exp for the range weights (no table at 16 bits)
  e.enqueue = [](Context& ctx, const KernelPlan& plan, const BilateralCall& call, const TuningConfig&, ImageTarget& t) {
    cl::Buffer& spatial = upload_spatial_table(ctx, call);
    const RangeTable range = upload_range_table(ctx, call);
    return launch_with_common_args(ctx, plan, call, t, spatial, *range.buffer, range.scale);
  };
  return e;
}

std::optional<std::string> unrolled_problem(const DeviceInfo& device, const VariantInfo& info,
                                            const BilateralCall& call, const TuningConfig& config) {
  const BilateralParams& params = call.params;
  const int r = bilateral_radius(params), channels = call.channels;
  if (r > kMaxUnrolledRadius)
    return fmt::format("unrolled is built for radius <= {} (its code grows with the window), not {}",
                       kMaxUnrolledRadius, r);
  // Its window loops are straight-line code for the square, and its colour exponent is built from the
  // expanded Euclidean distance; grey's |p - c| is both distances.
  if (params.window != BilateralWindow::square)
    return std::string("unrolled computes the square window only; window=disk runs on the other variants");
  if (channels == 4 && params.distance != BilateralDistance::l2)
    return std::string(
        "unrolled computes the colour distance as l2 only; distance=l1 on RGBA runs on the other variants");
  const UnrolledShape shape = unrolled_shape(info, config, channels, call.type);
  if (shape.local_x < 1 || shape.local_y < 1 || shape.block_x < 1 || shape.rows < 1 || shape.soft_exp < 0 ||
      shape.soft_exp + shape.table_taps > 16)
    return fmt::format(
        "unrolled: local_x, local_y, block_x, rows must be >= 1, 0 <= soft_exp, soft_exp + table_taps <= "
        "16; got {} {} {} {} "
        "{} {}",
        shape.local_x, shape.local_y, shape.block_x, shape.rows, shape.soft_exp, shape.table_taps);
  if (channels != 1 && shape.table_taps > 0)
    return fmt::format("unrolled: table_taps applies to grey images only, not {} channels", channels);
  if (call.type == SampleType::u16 && (shape.table_taps > 0 || shape.int_exp != 0))
    return std::string(
        "unrolled: table_taps and int_exp need 8-bit samples (a table entry, a byte per 8-bit value); 16-bit "
        "samples take neither");
  if (shape.int_exp != 0 && shape.int_exp != 1)
    return fmt::format("unrolled: int_exp is 0 or 1, got {}", shape.int_exp);
  if (shape.int_exp && !unrolled_expanded(params, channels))
    return std::string(
        "unrolled: int_exp needs the expanded colour exponent (RGBA with sigma_range large enough, about "
        "24 and up)");
  // (Its work-group, local_x x local_y, is checked with every variant's in bilateral_unsupported.)
  // The tile is a static local array: NVIDIA refuses those above the 48 KiB it reports here.
  const std::size_t bytes = unrolled_tile_bytes(shape, r, unrolled_planes(params, channels, shape, call.type)) +
                            (shape.table_taps > 0 ? 511 * sizeof(float) : 0);
  if (bytes > device.local_mem_bytes)
    return fmt::format(
        "unrolled needs {} bytes of local memory for this shape at radius {}, the device "
        "has {}",
        bytes, r, device.local_mem_bytes);
  return std::nullopt;
}

Entry unrolled() {
  Entry e{{"unrolled",
           "every window loop unrolled for the radius at build time (radius <= 8), several outputs per "
           "work-item from a local tile, one exp2 per tap split between the special-function unit and an "
           "FMA-pipe polynomial",
           kUnrolledTunables}};
  e.unsupported = [info = e.info](const DeviceInfo& device, const BilateralCall& call, const TuningConfig& config) {
    return unrolled_problem(device, info, call, config);
  };
  // Everything the unrolled loops need is fixed at build time; a program per shape and radius.
  e.plan = [info = e.info](Context& ctx, const BilateralCall& call, const TuningConfig& config) {
    const BilateralParams& params = call.params;
    const int c = call.channels, r = bilateral_radius(params);
    const UnrolledShape shape = unrolled_shape(info, config, c, call.type);
    KernelPlan plan{base_options(call), {}};
    plan.options += fmt::format(
        " -D RADIUS={} -D LOCAL_X={} -D LOCAL_Y={} -D BLOCK_X={} -D ROWS={} -D SOFT_EXP={} -D CLAMP_EXP={} "
        "-D EXPANDED={} -D TABLE_TAPS={} -D INT_EXP={} -cl-denorms-are-zero{}",
        r, shape.local_x, shape.local_y, shape.block_x, shape.rows, shape.soft_exp,
        shape.soft_exp > 0 && unrolled_needs_clamp(params.sigma_spatial, params.sigma_range, r, c, call.type) ? 1 : 0,
        unrolled_expanded(params, c, call.type) ? 1 : 0, shape.table_taps, shape.int_exp,
        ctx.info().fast_math_options());
    if (call.on_views()) plan.options += " -D PITCHED=1";
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    const auto per_x = std::size_t(shape.local_x * shape.block_x), per_y = std::size_t(shape.local_y * shape.rows);
    plan.passes = {{"bilateral_unrolled",
                    cl::NDRange((W + per_x - 1) / per_x * std::size_t(shape.local_x),
                                (H + per_y - 1) / per_y * std::size_t(shape.local_y)),
                    cl::NDRange(shape.local_x, shape.local_y)}};
    return plan;
  };
  e.enqueue = [](Context& ctx, const KernelPlan& plan, const BilateralCall& call, const TuningConfig&, ImageTarget& t) {
    const auto spatial_log2 = static_cast<cl_float>(kLog2e * gaussian_coefficient(call.params.sigma_spatial));
    const float scale = range_scale(call.params.sigma_range, call.type);
    // 16-bit tiles hold the samples unscaled (bilateral_unrolled.cl): the means need no scaling back.
    const float inv_scale = call.type == SampleType::u16 ? 1.0f : 1.0f / scale;
    cl::Kernel& k = kernel(ctx, plan);
    set_kernel_args(k, t.in.buffer, t.out.buffer, call.width, call.height, static_cast<int>(call.params.border.mode),
                    border_constant(call), scale, inv_scale, spatial_log2);
    if (call.on_views())  // -D PITCHED=1's last arguments
      set_kernel_args_from(k, 9, call.in_stride, call.out_stride, call.in_offset, call.out_offset);
    return launch_passes(ctx, plan, kKernelFile);
  };
  // Scalar loads, and vector stores only where the input's and output's positions are aligned: any layout.
  e.takes_views = [](const BilateralCall&) { return true; };
  e.takes_u16 = true;  // the difference form on unscaled samples (bilateral_unrolled.cl)
  return e;
}

// The spatial weights as exponents of 2 (cpu_rows takes each weight as one exp2 with the range term): log2 of
// spatial_table's weights, -1e30 for the taps the window leaves out; then, for each window row j, the first and
// one past the last tap it takes (the window is convex: its taps in a row are one span), so the tap loop skips
// the disk's corners without a test a tap; then pairs=1's list of taps.
std::vector<float> spatial_log2_table(const BilateralParams& params) {
  const int d = 2 * bilateral_radius(params) + 1;
  std::vector<float> table = spatial_table(params.sigma_spatial, bilateral_radius(params), params.window);
  for (float& w : table) w = w > 0 ? static_cast<float>(std::log2(double(w))) : -1e30f;
  for (int j = 0; j < d; ++j) {
    const auto row = table.begin() + std::ptrdiff_t(j) * d;
    const auto taken = [](float s) { return s > -1e29f; };
    const auto first = std::find_if(row, row + d, taken);
    const auto last = std::find_if(std::make_reverse_iterator(row + d), std::make_reverse_iterator(first), taken);
    // A skipped tap inside a span would be weighed: its -1e30 wrecks the unclamped exp2.
    if (!std::all_of(first, last.base(), taken)) throw std::logic_error("cpu_rows: a window row's taps have a gap");
    table.push_back(static_cast<float>(first - row));
    table.push_back(static_cast<float>(last.base() - row));
  }
  // pairs=1 (bilateral_cpu_pairs.cl): the window's forward half (dy > 0, or dy == 0 and dx > 0) as a list of taps
  // (dy, column i = dx + r, spatial exponent), a column at a time from dx = r down, dy rising in each: a tap's
  // accumulator row is then a column's taps apart from the next tap that overlaps it (same row, dx one less).
  const int r = bilateral_radius(params);
  const std::size_t count_at = table.size();
  table.push_back(0.0f);
  for (int i = d - 1; i >= 0; --i)
    for (int j = i > r ? r : r + 1; j < d; ++j)
      if (const float s = table[std::size_t(j) * d + i]; s > -1e29f) {
        table.insert(table.end(), {static_cast<float>(j - r), static_cast<float>(i), s});
        table[count_at] += 1.0f;
      }
  return table;
}

// Whether an exponent of cpu_rows can fall below -125, where its exp2 needs the clamp (bilateral_cpu_rows.cl):
// the largest colour term (l1 on RGBA: (3 * top)^2) plus the farthest tap's spatial term, as
// unrolled_needs_clamp's margin takes them.
int cpu_rows_needs_clamp(const BilateralCall& call) {
  const BilateralParams& p = call.params;
  const double top = max_sample_value(call.type), r = bilateral_radius(p);
  const double colours = call.channels == 1 ? 1 : p.distance == BilateralDistance::l1 ? 9 : 3;
  const double lowest = colours * top * top * kLog2e * gaussian_coefficient(p.sigma_range) +
                        2.0 * r * r * kLog2e * gaussian_coefficient(p.sigma_spatial);
  return lowest > 120.0 ? 1 : 0;
}

// Sets cpu_rows' arguments (its kernel's or, pairs=1, bilateral_cpu_pairs', the same list) and launches it: bands of
// `band_rows` over the call's row range, ring rows `stride` floats a plane in `scratch`.
std::vector<cl::Event> launch_cpu_rows(Context& ctx, const KernelPlan& plan, const BilateralCall& call, ImageTarget& t,
                                       int band_rows, int stride, cl::Buffer& scratch) {
  cl::Buffer& spatial = upload_table(ctx, "bilateral.spatial_log2", spatial_log2_table(call.params));
  const bool views = call.on_views();
  return launch_with_common_args(
      ctx, plan, call, t, spatial, range_scale(call.params.sigma_range, call.type), cpu_rows_needs_clamp(call),
      band_rows, stride, scratch, views ? call.in_stride : call.width, views ? call.in_offset : 0,
      views ? call.out_stride : call.width, views ? call.out_offset : 0, call.row_begin(), call.row_end());
}

const Tunable kLanesTunable = {
    "lanes",
    {0, 8, 16},
    "outputs a vector step: 8 (float8) or 16 (float16); 0: 16 where the device's native float "
    "vectors are 16 wide (AVX-512), else 8"};

// cpu_rows' outputs a vector step for this device and config.
int cpu_rows_lanes(Context& ctx, const VariantInfo& info, const TuningConfig& config) {
  const int lanes = tunable_value(config, info, "lanes");
  if (lanes != 0) return lanes;
  return ctx.device().getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT>() >= 16 ? 16 : 8;
}

const Tunable kPairsTunable = {
    "pairs",
    {-1, 0, 1},
    "1: each pair of pixels weighed once, for the window's forward half, and added to both pixels' sums (the other "
    "half through accumulator rows); 0: every tap of the window weighed; -1: 1 from radius 3 up, else 0"};

// Whether cpu_rows weighs pairs (bilateral_cpu_pairs.cl) for this call and config. The default's radius 3: PoCL
// 3.1 on the 2-core AVX-512 Xeon, 960x540 on one thread, kernel medians pairs=1 against pairs=0: radius 1 2.1
// against 2.0 ms (RGBA), 1.4 against 0.9 (grey); radius 2 3.4 / 3.5 and 1.7 / 1.7; radius 3 5.6 / 6.1 and 2.9 / 3.2.
bool cpu_rows_pairs(const VariantInfo& info, const TuningConfig& config, const BilateralCall& call) {
  const int pairs = tunable_value(config, info, "pairs");
  return pairs < 0 ? bilateral_radius(call.params) >= 3 : pairs == 1;
}

// cpu_rows with pairs=1 (bilateral_cpu_pairs.cl): a band's r + 1 ring rows and as many accumulator rows (one plane
// more), each with CPU_PAIRS_PAD(r) columns on the left and room for the rightmost step's q on the right.
struct PairsLayout {
  RowBands bands;
  int stride;
  std::size_t bytes;
};
PairsLayout cpu_pairs_layout(const DeviceInfo& device, const VariantInfo& info, const TuningConfig& config,
                             const BilateralCall& call) {
  const int r = bilateral_radius(call.params), planes = call.channels == 4 ? 3 : 1;
  const int pad = (r + 15) / 16 * 16 + r;  // CPU_PAIRS_PAD
  const RowBands bands = row_bands(device, info, config, call.rows.count_in(call.height));
  // An odd number of 64-byte lines a row: rows (and planes) a multiple of 4 KiB apart share the L1's sets and alias
  // in its store forwarding (960 wide at radius 8: 1024 floats, 2.6x slower than cpu_rows).
  std::size_t stride = round_up(std::size_t(call.width + 2 * r + pad + 16), 16);
  if (stride / 16 % 2 == 0) stride += 16;
  return {bands, int(stride),
          std::size_t(bands.count) * std::size_t(r + 1) * std::size_t(2 * planes + 1) * stride * sizeof(float)};
}

Entry cpu_rows() {
  // The ring's rows are scaled float planes (bilateral_cpu_rows.cl): 16 floats of overrun (a float16 step's
  // unused lanes), 16-float aligned.
  Entry e = ring_rows_entry<BilateralParams>(
      "for CPUs: one work-item per band of rows; the window's rows scaled and border-padded in a ring of float rows, 8 "
      "or 16 outputs a vector step, one polynomial exp2 per tap of the window's row spans (or, pairs=1, per pair of "
      "pixels)",
      "bilateral_cpu_rows", {16, 16, sizeof(float)}, bilateral_radius,
      [](Context& ctx, const KernelPlan& plan, const BilateralCall& call, ImageTarget& t,
         const RingRowsLayout& layout) {
        cl::Buffer& scratch = ctx.scratch_buffer("bilateral.cpu_rows", layout.bytes());
        return launch_cpu_rows(ctx, plan, call, t, layout.band_rows, layout.stride, scratch);
      });
  e.info.tunables.push_back(kLanesTunable);
  e.info.tunables.push_back(kPairsTunable);
  e.unsupported = [ring = e.unsupported, info = e.info](const DeviceInfo& device, const BilateralCall& call,
                                                        const TuningConfig& config) -> std::optional<std::string> {
    const int lanes = tunable_value(config, info, "lanes"), pairs = tunable_value(config, info, "pairs");
    if (lanes != 0 && lanes != 8 && lanes != 16)
      return fmt::format("cpu_rows: lanes is 0 (from the device), 8 or 16, not {}", lanes);
    if (pairs < -1 || pairs > 1) return fmt::format("cpu_rows: pairs is -1 (from the radius), 0 or 1, not {}", pairs);
    if (cpu_rows_pairs(info, config, call))
      return temporary_problem(device, "cpu_rows", cpu_pairs_layout(device, info, config, call).bytes);
    return ring(device, call, config);
  };
  e.plan = [ring = e.plan, info = e.info](Context& ctx, const BilateralCall& call, const TuningConfig& config) {
    KernelPlan plan = ring(ctx, call, config);
    plan.options += fmt::format(" -D LANES={}", cpu_rows_lanes(ctx, info, config));
    if (cpu_rows_pairs(info, config, call)) {
      plan.options += " -D CPU_PAIRS=1";
      plan.passes[0].kernel = "bilateral_cpu_pairs";
    }
    return plan;
  };
  e.enqueue = [ring = e.enqueue, info = e.info](Context& ctx, const KernelPlan& plan, const BilateralCall& call,
                                                const TuningConfig& config, ImageTarget& t) {
    if (!cpu_rows_pairs(info, config, call)) return ring(ctx, plan, call, config, t);
    const PairsLayout layout = cpu_pairs_layout(ctx.info(), info, config, call);
    cl::Buffer& scratch = ctx.scratch_buffer("bilateral.cpu_pairs", layout.bytes);
    return launch_cpu_rows(ctx, plan, call, t, layout.bands.rows, layout.stride, scratch);
  };
  e.takes_u16 = true;  // 16-bit samples unscaled in the ring, exact differences scaled (bilateral_cpu_rows.cl)
  return e;
}

}  // namespace

const ImageTable<BilateralParams>& bilateral_table() {
  static const ImageTable<BilateralParams> table(
      "bilateral", {naive(), gauss_table(), local(), local_image(), range_table(), pixels4(), unrolled(), cpu_rows()});
  return table;
}

const std::vector<VariantInfo>& bilateral_variants() {
  return bilateral_table().infos();
}

}  // namespace clf
