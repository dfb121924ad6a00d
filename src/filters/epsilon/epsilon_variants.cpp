// SPDX-License-Identifier: Apache-2.0
// The epsilon filter's variants, one entry each (one per step of seed 000's Table 2, plus seed 003's fp16 forms):
// tunables, what each needs from the device, the calls each cannot run, build options and launch ranges, and the
// enqueue (kernels in epsilon.cl and the files it includes).
#include <fmt/format.h>

#include <algorithm>

#include "filters/epsilon/epsilon_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {
namespace {

constexpr const char* kKernelFile = "epsilon.cl";
constexpr const char* kImageOptions = " -D HAS_IMAGES=1";
constexpr const char* kHalfOptions = " -D HAS_FP16=1";
constexpr const char* kNaiveImageKernel = "eps_naive_image";

// Work-group shape of the variants without local memory; local_x = 0 lets the driver choose.
const std::vector<Tunable> kLocalSize = {
    {"local_x", {0, 8, 16, 32, 64}, "work-group width in work-items (0: the driver chooses)"},
    {"local_y", {1, 2, 4, 8}, "work-group height"},
};

// A kernel of `per_item` outputs along a row per work-item, in a kLocalSize work-group.
KernelPlan::Pass row_pass(const VariantInfo& info, const TuningConfig& config, const EpsilonCall& call,
                          std::string kernel, std::size_t per_item) {
  const auto W = std::size_t(call.width), H = std::size_t(call.height);
  const auto [global, local] = local_ranges(info, config, (W + per_item - 1) / per_item, H);
  return {std::move(kernel), global, local};
}

cl::Kernel& kernel(Context& ctx, const KernelPlan& plan) {
  return ctx.kernel(kKernelFile, plan.options, plan.passes[0].kernel);
}

// The border constant as the kernels take it: for 8-bit samples packed a byte a channel (constant_bits); for 16-bit
// ones the value itself, which the kernels spread over the channels (cval_pixel in epsilon.cl).
cl_uint border_arg(const EpsilonCall& call) {
  if (call.type != SampleType::u16) return constant_bits(call.params.border, call.channels);
  return call.params.border.mode == BorderMode::constant ? cl_uint(call.params.border.value) : 0u;
}

// The arguments every kernel but eps_regblock takes, after its input: out, w, h, r, T, border mode and constant.
template <class Input, class... Rest>
void set_args(cl::Kernel& k, const Input& input, const EpsilonCall& call, ImageTarget& t, const Rest&... rest) {
  const cl_int r = call.params.radius, T = call.params.threshold;
  set_kernel_args(k, input, t.out.buffer, call.width, call.height, r, T, static_cast<cl_int>(call.params.border.mode),
                  border_arg(call), rest...);
}

// set_args on the plan's kernel from the target's input buffer, then the plan's launch.
template <class... Rest>
std::vector<cl::Event> launch_with_args(Context& ctx, const KernelPlan& plan, const EpsilonCall& call, ImageTarget& t,
                                        const Rest&... rest) {
  set_args(kernel(ctx, plan), t.in.buffer, call, t, rest...);
  return launch_passes(ctx, plan, kKernelFile);
}

// Whether a feature the device lists really builds here, probed once per context: a driver may list
// images or cl_khr_fp16 and still fail to compile kernels that use them. Then the variant falls back to
// its plain-buffer, integer form (eps_naive_buffer for naive; packed and vec4 for the half forms).
bool builds(Context& ctx, std::string_view feature, const std::string& options, const std::string& kernel) {
  return ctx.feature_works(feature, [&] {
    try {
      ctx.kernel(kKernelFile, options, kernel);
      return true;
    } catch (const ClError& e) {
      if (e.code() != CL_BUILD_PROGRAM_FAILURE && e.code() != CL_INVALID_KERNEL_NAME) throw;
      return false;
    }
  });
}

const cl::ImageFormat& image_format(int channels, SampleType type) {
  static const cl::ImageFormat grey(CL_R, CL_UNSIGNED_INT8), rgba(CL_RGBA, CL_UNSIGNED_INT8);
  static const cl::ImageFormat grey16(CL_R, CL_UNSIGNED_INT16), rgba16(CL_RGBA, CL_UNSIGNED_INT16);
  if (type == SampleType::u16) return channels == 4 ? rgba16 : grey16;
  return channels == 4 ? rgba : grey;
}

// Whether single-channel 16-bit unsigned images (CL_R, CL_UNSIGNED_INT16) exist on the device: OpenCL 1.2 only
// mandates RGBA ones. Asked once per context.
bool r16_images_supported(Context& ctx) {
  return ctx.feature_works("image_r_uint16", [&] {
    std::vector<cl::ImageFormat> formats;
    ctx.context().getSupportedImageFormats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, &formats);
    return std::any_of(formats.begin(), formats.end(), [](const cl::ImageFormat& f) {
      return f.image_channel_order == CL_R && f.image_channel_data_type == CL_UNSIGNED_INT16;
    });
  });
}

using Entry = ImageTable<EpsilonParams>::Entry;

Entry naive() {
  Entry e{{"naive",
           "image object (CL_R or CL_RGBA, CL_UNSIGNED_INT8), one output per work-item, (2r+1)^2 integer reads "
           "(seed 000 naive; falls back to a buffer where the image form cannot run)",
           kLocalSize},
          // A device without images cannot run naive; the buffer kernel stands in only where images are listed
          // but the image kernel does not build.
          {DeviceFeature::images}};
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const EpsilonCall& call,
                         const TuningConfig& config) -> std::optional<std::string> {
    if (std::size_t(call.width) > device.image2d_max_width || std::size_t(call.height) > device.image2d_max_height)
      return fmt::format("naive needs a {}x{} image; the device's 2D images go up to {}x{}", call.width, call.height,
                         device.image2d_max_width, device.image2d_max_height);
    return work_group_problem(device, info, config);
  };
  e.plan = [info](Context& ctx, const EpsilonCall& call, const TuningConfig& config) {
    KernelPlan plan{base_options(call), {}};
    std::string kernel_name = "eps_naive_buffer";
    const std::string image_options = plan.options + kImageOptions;
    // CL_RGBA with CL_UNSIGNED_INT8 or CL_UNSIGNED_INT16 is a format every OpenCL 1.2 device with images has.
    const bool u16 = call.type == SampleType::u16;
    if ((call.channels == 4 || (u16 ? r16_images_supported(ctx) : r8_images_supported(ctx))) &&
        builds(ctx, fmt::format("epsilon.images.c{}{}", call.channels, u16 ? ".u16" : ""), image_options,
               kNaiveImageKernel)) {
      plan.options = image_options;
      kernel_name = kNaiveImageKernel;
    }
    plan.passes = {row_pass(info, config, call, std::move(kernel_name), 1)};
    return plan;
  };
  e.enqueue = [](Context& ctx, const KernelPlan& plan, const EpsilonCall& call, const TuningConfig&,
                 ImageTarget& t) -> std::vector<cl::Event> {
    if (plan.passes[0].kernel != kNaiveImageKernel) return launch_with_args(ctx, plan, call, t);
    cl::Kernel& k = kernel(ctx, plan);
    // The input lives in a buffer (DeviceImage); the image object is a copy of it, whose time counts.
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    cl_int err = CL_SUCCESS;
    cl::Image2D image(ctx.context(), CL_MEM_READ_ONLY, image_format(call.channels, call.type), W, H, 0, nullptr, &err);
    check_cl(err, "clCreateImage");
    cl::Event copied;
    check_cl(ctx.queue().enqueueCopyBufferToImage(t.in.buffer, image, 0, {0, 0, 0}, {W, H, 1}, nullptr, &copied),
             "clEnqueueCopyBufferToImage");
    set_args(k, image, call, t);
    std::vector<cl::Event> events = {copied};
    for (cl::Event& launched : launch_passes(ctx, plan, kKernelFile)) events.push_back(launched);
    return events;
  };
  e.takes_u16 = true;
  return e;
}

// What the kLocalSize variants but naive share: the work-group limit and the enqueue. Each sets its plan.
Entry row_entry(VariantInfo info) {
  Entry e{std::move(info)};
  const VariantInfo shared = e.info;
  e.unsupported = [shared](const DeviceInfo& device, const EpsilonCall&, const TuningConfig& config) {
    return work_group_problem(device, shared, config);
  };
  e.enqueue = [](Context& ctx, const KernelPlan& plan, const EpsilonCall& call, const TuningConfig&, ImageTarget& t) {
    return launch_with_args(ctx, plan, call, t);
  };
  return e;
}

// One kernel of `per_item` outputs along a row per work-item; `u16`: it has a 16-bit form (epsilon.cl).
Entry row_kernel(VariantInfo info, std::string kernel_name, std::size_t per_item, bool u16 = true) {
  Entry e = row_entry(std::move(info));
  e.takes_u16 = u16;
  const VariantInfo shared = e.info;
  e.plan = [shared, kernel_name, per_item](Context&, const EpsilonCall& call, const TuningConfig& config) {
    return KernelPlan{base_options(call), {row_pass(shared, config, call, kernel_name, per_item)}};
  };
  return e;
}

// packed_half and vec4_half: the half kernel where cl_khr_fp16 builds, else the integer kernel of the same shape
// (`fallback`, as many outputs per work-item).
Entry half_kernel(VariantInfo info, std::string half_name, std::string fallback, std::size_t per_item) {
  Entry e = row_entry(std::move(info));
  e.needs = {DeviceFeature::fp16};
  const VariantInfo shared = e.info;
  e.plan = [shared, half_name, fallback, per_item](Context& ctx, const EpsilonCall& call, const TuningConfig& config) {
    KernelPlan plan{base_options(call), {}};
    const std::string half_options = plan.options + kHalfOptions;
    std::string kernel_name = fallback;
    if (builds(ctx, fmt::format("epsilon.fp16.c{}", call.channels), half_options, half_name)) {
      plan.options = half_options;
      kernel_name = half_name;
    }
    plan.passes = {row_pass(shared, config, call, std::move(kernel_name), per_item)};
    return plan;
  };
  return e;
}

Entry local() {
  Entry e{{"local",
           "vec4 reading a tile plus halo loaded into local memory once per work-group, one barrier (seed 000 "
           "step 4: 8x16 and 8x32 groups)",
           {{"local_y", {16, 24, 32}, "work-group height (rows of the tile)"},
            {"local_x", {8, 16}, "work-group width; each work-item covers 4 columns"}}}};
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const EpsilonCall& call,
                         const TuningConfig& config) -> std::optional<std::string> {
    const TileShape group = epsilon_local_shape(info, config);
    const int r = std::max(call.params.radius, 0);
    const std::size_t bytes = std::size_t(4 * group.width + 2 * r) * std::size_t(group.height + 2 * r) *
                              std::size_t(call.channels == 4 ? 4 : 1) * sample_size(call.type);
    return local_group_problem(device, "local work-group", group.width, group.height, "local", bytes,
                               fmt::format("r={}", r));
  };
  e.plan = [info](Context&, const EpsilonCall& call, const TuningConfig& config) {
    const TileShape group = epsilon_local_shape(info, config);
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    return KernelPlan{base_options(call),
                      {{"eps_local", cl::NDRange(round_up((W + 3) / 4, group.width), round_up(H, group.height)),
                        cl::NDRange(group.width, group.height)}}};
  };
  e.enqueue = [info](Context& ctx, const KernelPlan& plan, const EpsilonCall& call, const TuningConfig& config,
                     ImageTarget& t) {
    const TileShape group = epsilon_local_shape(info, config);
    const int r = call.params.radius;
    const std::size_t tile_bytes = std::size_t(4 * group.width + 2 * r) * std::size_t(group.height + 2 * r) *
                                   std::size_t(call.channels) * sample_size(call.type);
    return launch_with_args(ctx, plan, call, t, cl::Local(tile_bytes));
  };
  e.takes_u16 = true;
  return e;
}

Entry regblock() {
  Entry e{{"regblock",
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
             "0 select 1.0/0.0 and multiply-add, 1 saturate T+1-|d|"}}}};
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const EpsilonCall& call,
                         const TuningConfig& config) -> std::optional<std::string> {
    const EpsilonRegBlockShape shape = epsilon_regblock_shape(info, config);
    const std::size_t bytes = epsilon_regblock_tile_bytes(shape, std::max(call.params.radius, 0));
    return local_group_problem(device, "regblock work-group", shape.local_x, shape.local_y, "regblock", bytes,
                               fmt::format("r={}", call.params.radius));
  };
  e.plan = [info](Context& ctx, const EpsilonCall& call, const TuningConfig& config) {
    // Radius, block and work-group are compile-time so the block's taps unroll into registers (on GPUs).
    const DeviceInfo& device = ctx.info();
    const EpsilonParams& params = call.params;
    EpsilonRegBlockShape shape = epsilon_regblock_shape(info, config);
    const int unroll = device.type & CL_DEVICE_TYPE_CPU ? 0 : 1;
    const auto options = [&](int form) {
      return base_options(call) + fmt::format(
                                      " -D RB_RADIUS={} -D RB_COLS={} -D RB_ROWS={} -D RB_LX={} -D RB_LY={} "
                                      "-D RB_FORM={} -D RB_UNROLL={}",
                                      params.radius, shape.cols, shape.rows, shape.local_x, shape.local_y, form,
                                      unroll);
    };
    const std::string kernel_name = "eps_regblock";
    if (shape.form == 3) {
      // f16x2 sums are exact up to 2048 (epsilon.cl); past that, off NVIDIA and where the PTX does not
      // build, form 2 computes the same result. 16-bit samples never fit f16x2 lanes: their form 2.
      const int window = (2 * params.radius + 1) * (2 * params.radius + 1);
      const bool exact = std::max(params.threshold, 1) * window <= 2048;
      if (!exact || call.type == SampleType::u16 || !device.takes_nvidia_ptx() ||
          !builds(ctx, fmt::format("epsilon.ptx_f16x2.{}", options(3)), options(3), kernel_name))
        shape.form = 2;
    }
    const std::size_t lx = shape.local_x, ly = shape.local_y;
    const std::size_t groups_x = (std::size_t(call.width) + lx * shape.cols - 1) / (lx * shape.cols);
    const std::size_t groups_y = (std::size_t(call.height) + ly * shape.rows - 1) / (ly * shape.rows);
    return KernelPlan{options(shape.form) + (call.on_views() ? " -D PITCHED=1" : ""),
                      {{kernel_name, cl::NDRange(groups_x * lx, groups_y * ly), cl::NDRange(lx, ly)}}};
  };
  e.enqueue = [](Context& ctx, const KernelPlan& plan, const EpsilonCall& call, const TuningConfig&, ImageTarget& t) {
    cl::Kernel& k = kernel(ctx, plan);
    set_kernel_args(k, t.in.buffer, t.out.buffer, call.width, call.height, cl_int(call.params.threshold),
                    static_cast<cl_int>(call.params.border.mode), border_arg(call));
    if (call.on_views())  // -D PITCHED=1's last arguments
      set_kernel_args_from(k, 7, call.in_stride, call.out_stride, call.in_offset, call.out_offset);
    return launch_passes(ctx, plan, kKernelFile);
  };
  // Its loads and stores are a pixel each, so any whole-pixel layout reads and writes in place.
  e.takes_views = [](const EpsilonCall&) { return true; };
  e.takes_u16 = true;
  return e;
}

Entry cpu_rows_of(RingRowsShape shape) {
  return ring_rows_entry<EpsilonParams>(
      "for CPUs: one work-item per band of rows; the window's rows border-padded in a ring of byte rows, 16 outputs a "
      "ushort16 step, exact integer sums and a float-estimated, integer-corrected division",
      "eps_cpu_rows", shape, [](const EpsilonParams& p) { return p.radius; },
      [](Context& ctx, const KernelPlan& plan, const EpsilonCall& call, ImageTarget& t, const RingRowsLayout& layout) {
        cl::Buffer& scratch = ctx.scratch_buffer("epsilon.cpu_rows", layout.bytes());
        const bool views = call.on_views();
        return launch_with_args(ctx, plan, call, t, cl_int(layout.band_rows), cl_int(layout.stride), scratch,
                                cl_int(views ? call.in_stride : call.width), cl_int(views ? call.in_offset : 0),
                                cl_int(views ? call.out_stride : call.width), cl_int(views ? call.out_offset : 0),
                                cl_int(call.row_begin()), cl_int(call.row_end()));
      });
}

Entry cpu_rows() {
  // The ring's rows are byte planes (epsilon_cpu_rows.cl): 16 bytes of overrun, 64-byte aligned; for 16-bit
  // samples ushort planes, 16 elements of overrun, 64-byte aligned too. Each call runs the entry of its type.
  Entry e = cpu_rows_of({16, 64, 1});
  const Entry wide = cpu_rows_of({16, 32, 2});
  e.unsupported = [eight = e.unsupported, sixteen = wide.unsupported](const DeviceInfo& device, const EpsilonCall& call,
                                                                      const TuningConfig& config) {
    return (call.type == SampleType::u16 ? sixteen : eight)(device, call, config);
  };
  e.plan = [eight = e.plan, sixteen = wide.plan](Context& ctx, const EpsilonCall& call, const TuningConfig& config) {
    return (call.type == SampleType::u16 ? sixteen : eight)(ctx, call, config);
  };
  e.enqueue = [eight = e.enqueue, sixteen = wide.enqueue](Context& ctx, const KernelPlan& plan, const EpsilonCall& call,
                                                          const TuningConfig& config, ImageTarget& t) {
    return (call.type == SampleType::u16 ? sixteen : eight)(ctx, plan, call, config, t);
  };
  e.takes_u16 = true;
  return e;
}

}  // namespace

const ImageTable<EpsilonParams>& epsilon_table() {
  static const ImageTable<EpsilonParams> table(
      "epsilon",
      {naive(),
       row_kernel({"packed",
                   "16-bit arithmetic on 4 values per vector: grey as uchar4 loads (ceil((2r+1)/4) per row), RGBA as "
                   "one pixel's 4 channels (seed 000 step 1)",
                   kLocalSize},
                  "eps_packed", 1, false),
       row_kernel(
           {"vec4", "4 outputs per work-item, one vector load per window column, rows unrolled (seed 000 step 2)",
            kLocalSize},
           "eps_vec4_select", 4),
       row_kernel({"vec8", "8 outputs per work-item (seed 000 step 3a)", kLocalSize}, "eps_vec8_select", 8),
       row_kernel(
           {"vec16", "16 outputs per work-item; the seeds saw this spill registers (seed 000 step 3b)", kLocalSize},
           "eps_vec16_select", 16),
       local(),
       row_kernel(
           {"vec4_branchless", "vec4 with the compare turned into a 0/1 multiplier (seed 000 step 5a)", kLocalSize},
           "eps_vec4_branchless", 4),
       row_kernel(
           {"vec8_branchless", "vec8 with the compare turned into a 0/1 multiplier (seed 000 step 5b)", kLocalSize},
           "eps_vec8_branchless", 8),
       half_kernel({"packed_half",
                    "packed with half4 pixels and arithmetic, exact (integers below 2048); needs cl_khr_fp16 (seed "
                    "003 9.2.2)",
                    kLocalSize},
                   "eps_packed_half", "eps_packed", 1),
       half_kernel({"vec4_half", "vec4 with half4 pixels and arithmetic, exact; needs cl_khr_fp16 (seed 003 9.2.3)",
                    kLocalSize},
                   "eps_vec4_half", "eps_vec4_select", 4),
       regblock(), cpu_rows()});
  return table;
}

const std::vector<VariantInfo>& epsilon_variants() {
  return epsilon_table().infos();
}

}  // namespace clf
