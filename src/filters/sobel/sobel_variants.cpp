// SPDX-License-Identifier: Apache-2.0
// Sobel's variants, one entry each: tunables, the calls each cannot run, build options and launch ranges, and
// the enqueue (kernels in sobel.cl and the file it includes).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "filters/image_call.hpp"
#include "filters/sobel/sobel_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {
namespace {

constexpr const char* kKernelFile = "sobel.cl";

// row_tile: a work-group is a row of local_x strips, each `columns` wide and `rows` high. Defaults for
// a large GPU: 128 work-items x 8 columns cover 1024 contiguous pixels of a row.
const std::vector<Tunable> kRowTile = {
    {"local_x", {128, 64, 256, 32}, "work-items per work-group, side by side along the row"},
    {"columns", {8, 4, 16}, "columns per work-item (one uchar/short vector load and store per row)"},
    {"rows", {0, 4, 8, 16, 32}, "output rows per work-item (0: about two waves of work-items on the device)"},
};

// strip: a work-item owns `columns` x `rows` pixels, both built in. Defaults, the rule's shape on GPUs: 8 columns
// (one 8-byte load per input row) x 4 rows, 128 work-items covering 1024 contiguous pixels of a row; on the H100
// within 3-28% of the tuned shapes at 8k and 1080p (16 x 8, the H200's 8k shape before: 16-44%).
const std::vector<Tunable> kStrip = {
    {"local_x", {128, 64, 32, 256}, "work-items per work-group, side by side along the row"},
    {"columns", {8, 16, 4}, "columns per work-item (one 16/8/4-byte load per input row)"},
    {"rows", {4, 8, 16, 2}, "output rows per work-item, built in (its rows + 2 loads are all issued up front)"},
    {"mag_float",
     {1, 0, 2},
     "1: the magnitude in FP32 (FMA pipe) from the pixels on; 2: the magnitude or l1 as the FP32 "
     "Roberts cross of 2x2 sums; 0: the magnitude in 16-bit lanes. l1 below 2, and gradients always, "
     "take the lanes"},
};

// The one pass of a variant over items_x x items_y work-items, from its local_x and local_y tunables; local_x = 0
// lets the driver choose the work-group.
KernelPlan::Pass pass(const VariantInfo& info, const TuningConfig& config, std::size_t items_x, std::size_t items_y) {
  const int lx = tunable_value(config, info, "local_x");
  const int ly = tunable_value(config, info, "local_y", 1);
  const cl::NDRange global =
      lx > 0 ? cl::NDRange(round_up(items_x, lx), round_up(items_y, ly)) : cl::NDRange(items_x, items_y);
  const cl::NDRange local = lx > 0 ? cl::NDRange(lx, ly) : cl::NullRange;
  // The kernel of a variant is its name with the prefix.
  return {"sobel_" + info.name, global, local};
}

// On views, -D PITCHED=1 (sobel.cl) adds their layout as the kernels' last arguments; -D INTERLEAVED=1 writes
// gradient pairs.
std::string base_options(const SobelCall& call) {
  return fmt::format("-D OUTPUT={}{}{}", static_cast<int>(call.params.output), call.on_views() ? " -D PITCHED=1" : "",
                     call.interleaved ? " -D INTERLEAVED=1" : "");
}

// Sets PITCHED's arguments, the last four, on views.
void set_view_args(cl::Kernel& k, const SobelCall& call) {
  if (!call.on_views()) return;
  cl_uint i = k.getInfo<CL_KERNEL_NUM_ARGS>() - 4;
  for (int v : {call.in_stride, call.out_stride, call.in_offset, call.out_offset})
    check_cl(k.setArg(i++, v), "clSetKernelArg");
}

// Any layout: the kernels' accesses need only element alignment (scalars, vloadn/vstoren).
bool any_views(const SobelCall&) {
  return true;
}

// Whether a build with VEC `columns` takes its aligned path: whole strips on VEC-pixel boundaries of the buffer,
// which views keep only where their strides and offsets are whole strips too.
bool strips_aligned(const SobelCall& call, int columns) {
  return call.width % columns == 0 && call.in_stride % columns == 0 && call.out_stride % columns == 0 &&
         call.in_offset % columns == 0 && call.out_offset % columns == 0;
}

// Views row_tile and strip take in place, whichever of their 4, 8 or 16 columns the tuning chose (takes_views does
// not see it): where no width of strip is aligned on the packed image either (w % 4 != 0), any layout; else one of
// whole 16-pixel strips, which keeps every aligned build's vector accesses aligned. Other views keep the copies,
// so the aligned build stays aligned.
bool strip_takes_views(const SobelCall& call) {
  return call.width % 4 != 0 || strips_aligned(call, 16);
}

cl_uint constant_value(const Border& border) {
  return border.mode == BorderMode::constant ? cl_uint(border.value) : 0u;
}

cl::Kernel& kernel(Context& ctx, const KernelPlan& plan) {
  return ctx.kernel(kKernelFile, plan.options, plan.passes[0].kernel);
}

// The enqueue of the buffer variants: input, gx/gy (or the 8-bit output twice), size and border.
std::vector<cl::Event> enqueue_buffers(Context& ctx, const KernelPlan& plan, const SobelCall& call, const TuningConfig&,
                                       SobelTarget& t) {
  cl::Kernel& k = kernel(ctx, plan);
  set_kernel_args(k, t.in.buffer, t.out_a, t.out_b, call.width, call.height, int(call.params.border.mode),
                  constant_value(call.params.border));
  set_view_args(k, call);
  return launch_passes(ctx, plan, kKernelFile);
}

using Entry = SobelTable::Entry;

// A variant with the one-pixel-per-work-item work-group tunables whose work-item covers `columns` x `rows`
// pixels.
Entry per_item_block(VariantInfo info, std::size_t columns, std::size_t rows) {
  Entry e{std::move(info)};
  const VariantInfo i = e.info;
  e.unsupported = [i](const DeviceInfo& device, const SobelCall&, const TuningConfig& config) {
    return work_group_problem(device, i, config);
  };
  e.plan = [i, columns, rows](Context&, const SobelCall& call, const TuningConfig& config) {
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    return KernelPlan{base_options(call), {pass(i, config, (W + columns - 1) / columns, (H + rows - 1) / rows)}};
  };
  e.enqueue = enqueue_buffers;
  e.takes_views = any_views;
  return e;
}

Entry image() {
  Entry e{{"image", "one pixel per work-item, input read through an image object and sampler (seed 003 9.3.4)",
           local_size_tunables()},
          {DeviceFeature::images}};
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const SobelCall& call,
                         const TuningConfig& config) -> std::optional<std::string> {
    if (auto why = work_group_problem(device, info, config)) return why;
    if (std::size_t(call.width) > device.image2d_max_width || std::size_t(call.height) > device.image2d_max_height)
      return fmt::format("the image variant needs a {}x{} image, above the device's {}x{} limit", call.width,
                         call.height, device.image2d_max_width, device.image2d_max_height);
    return std::nullopt;
  };
  e.plan = [info](Context& ctx, const SobelCall& call, const TuningConfig& config) {
    if (!r8_images_supported(ctx))
      throw std::invalid_argument(
          "the image variant needs single-channel 8-bit images (CL_R, CL_UNSIGNED_INT8), "
          "which this device does not list");
    return KernelPlan{base_options(call), {pass(info, config, std::size_t(call.width), std::size_t(call.height))}};
  };
  e.enqueue = [](Context& ctx, const KernelPlan& plan, const SobelCall& call, const TuningConfig&, SobelTarget& t) {
    cl::Kernel& k = kernel(ctx, plan);
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    // OpenCL 1.2 has no image view of a buffer, so the input is copied into a fresh image; the copy is
    // part of this variant's cost, so its event is returned with the kernel's. The image is released
    // here; OpenCL keeps it alive until the commands that use it have finished.
    cl_int err = CL_SUCCESS;
    cl::Image2D image(ctx.context(), CL_MEM_READ_ONLY, cl::ImageFormat(CL_R, CL_UNSIGNED_INT8), W, H, 0, nullptr, &err);
    check_cl(err, "clCreateImage");
    cl::Event copied;
    check_cl(ctx.queue().enqueueCopyBufferToImage(t.in.buffer, image, 0, {0, 0, 0}, {W, H, 1}, nullptr, &copied),
             "clEnqueueCopyBufferToImage");
    set_kernel_args(k, image, t.out_a, t.out_b, call.width, call.height, int(call.params.border.mode),
                    constant_value(call.params.border));
    std::vector<cl::Event> events = {copied};
    for (cl::Event& launched : launch_passes(ctx, plan, kKernelFile)) events.push_back(std::move(launched));
    return events;
  };
  return e;
}

// The columns tunable of row_tile and strip: one uchar/short vector per row.
std::optional<std::string> columns_problem(const char* variant, int columns) {
  if (columns != 4 && columns != 8 && columns != 16)
    return fmt::format("{} takes 4, 8 or 16 columns per work-item, not {}", variant, columns);
  return std::nullopt;
}

// Vector width and alignment are build options so the strip's loads and stores are whole vectors.
std::string vector_options(const SobelCall& call, int columns) {
  return fmt::format(" -D VEC={} -D ALIGNED={}", columns, strips_aligned(call, columns) ? 1 : 0);
}

// row_tile's output rows per work-item: the `rows` tunable, or for 0 enough to give the device about
// two full waves of work-items (2048 resident per compute unit, as on NVIDIA GPUs), between 4 and 64:
// more rows per work-item reload fewer halo rows, fewer keep a large GPU busy on small images.
int row_tile_rows(const DeviceInfo& device, const VariantInfo& info, const TuningConfig& config, int w, int h) {
  const int rows = tunable_value(config, info, "rows");
  if (rows > 0) return rows;
  const int columns = tunable_value(config, info, "columns");
  const std::int64_t items_x = (std::int64_t(w) + columns - 1) / columns;
  const std::int64_t wave = std::int64_t(std::max(1u, device.compute_units)) * 2048 * 2;
  return static_cast<int>(std::clamp<std::int64_t>((items_x * h + wave - 1) / wave, 4, 64));
}

Entry row_tile() {
  Entry e{{"row_tile",
           "coalesced strips: consecutive work-items own consecutive 4/8/16-column vectors of a row and walk "
           "down `rows` rows with the horizontal sums of two rows in registers (beyond the seeds)",
           kRowTile}};
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const SobelCall&,
                         const TuningConfig& config) -> std::optional<std::string> {
    const int columns = tunable_value(config, info, "columns"), rows = tunable_value(config, info, "rows");
    const int lx = tunable_value(config, info, "local_x");
    if (auto why = columns_problem("row_tile", columns)) return why;
    if (rows < 0) return fmt::format("row_tile needs rows >= 0 (0: automatic), not {}", rows);
    if (lx < 1) return fmt::format("row_tile needs a work-group width of at least 1, not {}", lx);
    return work_group_problem(device, info, config);
  };
  e.plan = [info](Context& ctx, const SobelCall& call, const TuningConfig& config) {
    const int columns = tunable_value(config, info, "columns");
    const int rows = row_tile_rows(ctx.info(), info, config, call.width, call.height);
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    const auto c = std::size_t(columns), r = std::size_t(rows);
    return KernelPlan{base_options(call) + vector_options(call, columns),
                      {pass(info, config, (W + c - 1) / c, (H + r - 1) / r)}};
  };
  e.enqueue = [info](Context& ctx, const KernelPlan& plan, const SobelCall& call, const TuningConfig& config,
                     SobelTarget& t) {
    cl::Kernel& k = kernel(ctx, plan);
    set_kernel_args(k, t.in.buffer, t.out_a, t.out_b, call.width, call.height, int(call.params.border.mode),
                    constant_value(call.params.border),
                    row_tile_rows(ctx.info(), info, config, call.width, call.height));
    set_view_args(k, call);
    return launch_passes(ctx, plan, kKernelFile);
  };
  e.takes_views = strip_takes_views;
  return e;
}

Entry strip() {
  Entry e{{"strip",
           "register blocks: a work-item owns columns x rows pixels, loads all rows + 2 input rows up front and "
           "computes two pixels per 32-bit op in 16-bit lanes; interior work-items skip the border (beyond the "
           "seeds)",
           kStrip}};
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const SobelCall& call,
                         const TuningConfig& config) -> std::optional<std::string> {
    const SobelOutput output = call.params.output;
    const int columns = tunable_value(config, info, "columns"), rows = tunable_value(config, info, "rows");
    const int lx = tunable_value(config, info, "local_x");
    if (auto why = columns_problem("strip", columns)) return why;
    if (rows < 1 || rows > 32) return fmt::format("strip takes 1 to 32 rows per work-item, not {}", rows);
    if (lx < 1) return fmt::format("strip needs a work-group width of at least 1, not {}", lx);
    const int mag_float = tunable_value(config, info, "mag_float");
    if (mag_float < 0 || mag_float > 2) return fmt::format("strip takes mag_float 0, 1 or 2, not {}", mag_float);
    // Where a value does not change the code, refusing it keeps the tuner from timing one program twice:
    // 0 and 1 differ for the magnitude only, and gradients have no Roberts path.
    if (output != SobelOutput::magnitude && mag_float == 0)
      return fmt::format("mag_float=0 is for output=magnitude only, not {}", to_string(output));
    if (output == SobelOutput::gradients && mag_float == 2)
      return std::string("mag_float=2 is for output=magnitude or l1, not gradients");
    // Beyond 128 pixels per work-item clang does not fully unroll the FP32 paths (its arrays go to the
    // stack), so those blocks take the lanes.
    const bool fp32 = mag_float == 2 || (output == SobelOutput::magnitude && mag_float == 1);
    if (fp32 && columns * rows > 128)
      return fmt::format("strip's FP32 paths (mag_float={} here) take at most 128 pixels per work-item, not {}x{}",
                         mag_float, columns, rows);
    return work_group_problem(device, info, config);
  };
  e.plan = [info](Context& ctx, const SobelCall& call, const TuningConfig& config) {
    // Rows are built in too, so the row loops unroll into registers. No float in strip is a denormal
    // (integer sums and their roots), so flushing them changes nothing; on NVIDIA fast_sqrt is then the
    // one-instruction .ftz form (border.cl).
    const int columns = tunable_value(config, info, "columns"), rows = tunable_value(config, info, "rows");
    const int mag_float = tunable_value(config, info, "mag_float");
    const std::string options =
        base_options(call) + fmt::format(" -D VEC={} -D ROWS={} -D ALIGNED={} -D MAG_FLOAT={} -cl-denorms-are-zero{}",
                                         columns, rows, strips_aligned(call, columns) ? 1 : 0, mag_float,
                                         ctx.info().fast_math_options());
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    const auto c = std::size_t(columns), r = std::size_t(rows);
    return KernelPlan{options, {pass(info, config, (W + c - 1) / c, (H + r - 1) / r)}};
  };
  e.enqueue = enqueue_buffers;
  e.takes_views = strip_takes_views;
  return e;
}

// cpu_rows' bands over the call's row range and their rings (sobel_cpu_rows.cl): two rows of hs and hd shorts per band,
// each `stride` shorts (whole 16-pixel steps, so every ring access is an aligned short16).
struct CpuRowsLayout {
  int band_rows, bands, stride;
  std::size_t bytes() const { return std::size_t(bands) * 4 * std::size_t(stride) * sizeof(std::int16_t); }
};

CpuRowsLayout cpu_rows_layout(const DeviceInfo& device, const VariantInfo& info, const SobelCall& call,
                              const TuningConfig& config) {
  // Each band computes the horizontal pass of two rows above it again, a small share of its work.
  const RowBands bands = row_bands(device, info, config, call.rows.count_in(call.height));
  return {bands.rows, bands.count, int(round_up(std::size_t(call.width), 16))};
}

Entry cpu_rows() {
  Entry e{{"cpu_rows",
           "for CPUs: one work-item per band of rows; each input row's [1 2 1] and [-1 0 1] along x computed once "
           "into a ring of two short rows, short16 vectors along the row",
           row_band_tunables()}};
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const SobelCall& call,
                         const TuningConfig& config) -> std::optional<std::string> {
    if (tunable_value(config, info, "bands_per_unit") < 1)
      return fmt::format("cpu_rows needs bands_per_unit >= 1, not {}", tunable_value(config, info, "bands_per_unit"));
    return temporary_problem(device, "cpu_rows", cpu_rows_layout(device, info, call, config).bytes());
  };
  // Layout and size are arguments, so one build per output (not base_options' PITCHED build).
  e.plan = [info](Context& ctx, const SobelCall& call, const TuningConfig& config) {
    const CpuRowsLayout layout = cpu_rows_layout(ctx.info(), info, call, config);
    return KernelPlan{fmt::format("-D OUTPUT={}{} -D CPU_ROWS=1", static_cast<int>(call.params.output),
                                  call.interleaved ? " -D INTERLEAVED=1" : ""),
                      {{"sobel_cpu_rows", cl::NDRange(std::size_t(layout.bands)), cl::NDRange(1)}}};
  };
  e.enqueue = [info](Context& ctx, const KernelPlan& plan, const SobelCall& call, const TuningConfig& config,
                     SobelTarget& t) {
    const CpuRowsLayout layout = cpu_rows_layout(ctx.info(), info, call, config);
    cl::Buffer& scratch = ctx.scratch_buffer("sobel.cpu_rows", layout.bytes());
    cl::Kernel& k = kernel(ctx, plan);
    const bool views = call.on_views();
    set_kernel_args(k, t.in.buffer, t.out_a, t.out_b, call.width, call.height, int(call.params.border.mode),
                    constant_value(call.params.border), layout.band_rows, layout.stride, scratch,
                    views ? call.in_stride : call.width, views ? call.in_offset : 0,
                    views ? call.out_stride : call.width, views ? call.out_offset : 0, call.row_begin(),
                    call.row_end());
    return launch_passes(ctx, plan, kKernelFile);
  };
  // Row pointers from the strides and offsets, unaligned vector accesses: any layout, at no cost.
  e.takes_views = any_views;
  e.takes_row_range = true;
  return e;
}

}  // namespace

const SobelTable& sobel_table() {
  static const SobelTable table(
      "Sobel",
      {per_item_block({"naive", "one pixel per work-item, the 3x3 masks over 9 loads (seed 003 Figure 9-9)",
                       local_size_tunables()},
                      1, 1),
       per_item_block({"separable", "one pixel per work-item, [1 2 1] x [-1 0 1] separable arithmetic (seed 003 9.3.1)",
                       local_size_tunables()},
                      1, 1),
       per_item_block({"row16",
                       "16x1 pixels per work-item from 18x3 inputs: uchar16 loads plus a 2-pixel tail, short16 "
                       "arithmetic (seed 003 9.3.2-9.3.3)",
                       local_size_tunables()},
                      16, 1),
       per_item_block({"block16x2", "16x2 pixels per work-item from 18x4 inputs, vector loads (seed 003 Figure 9-11)",
                       local_size_tunables()},
                      16, 2),
       image(), row_tile(), strip(), cpu_rows()});
  return table;
}

}  // namespace clf
