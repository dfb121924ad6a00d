// SPDX-License-Identifier: Apache-2.0
// Host side of the guide samples (seed 003 section 9.1).
#include "clfilters/guide_samples.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "common/parallel.hpp"
#include "filters/guide_samples/guide_samples_internal.hpp"
#include "filters/image_call.hpp"
#include "runtime/launch.hpp"

namespace clf {
namespace {

constexpr const char* kKernelFile = "guide_samples.cl";

cl::Kernel& kernel(Context& ctx, const KernelPlan& plan, std::size_t i) {
  return ctx.kernel(kKernelFile, plan.options, plan.passes[i].kernel);
}

MatrixAddTable::Entry matrix_add_scalar() {
  MatrixAddTable::Entry e{{"scalar", "one float per work-item (seed 003 9.1.2, original)", {}}};
  e.plan = [](Context&, const MatrixAddCall& call, const TuningConfig&) {
    return KernelPlan{"", {{"matrix_add_scalar", cl::NDRange(call.count)}}};
  };
  e.enqueue = [](Context& ctx, const KernelPlan& plan, const MatrixAddCall& call, const TuningConfig&,
                 MatrixAddTarget& t) {
    set_kernel_args(kernel(ctx, plan, 0), t.a, t.b, t.sum, cl_uint(call.count));
    return launch_passes(ctx, plan, kKernelFile);
  };
  return e;
}

MatrixAddTable::Entry matrix_add_float4() {
  MatrixAddTable::Entry e{{"float4",
                           "float4 loads and stores (seed 003 9.1.2, optimised)",
                           {{"vectors", {1, 2, 4, 8}, "float4 per work-item"},
                            {"local", {0, 64, 128, 256}, "work-group size (0: driver)"}}}};
  const VariantInfo info = e.info;
  e.unsupported = [info](const DeviceInfo& device, const MatrixAddCall&,
                         const TuningConfig& config) -> std::optional<std::string> {
    const int local = tunable_value(config, info, "local");
    if (local < 0 || std::size_t(local) > device.max_work_group_size)
      return fmt::format("work-group size {} exceeds the device's limit", local);
    return std::nullopt;
  };
  e.plan = [info](Context&, const MatrixAddCall& call, const TuningConfig& config) {
    const int vectors = tunable_value(config, info, "vectors"), local = tunable_value(config, info, "local");
    std::size_t items = std::max<std::size_t>(1, (call.count / 4 + vectors - 1) / vectors);
    if (local > 0) items = round_up(items, std::size_t(local));
    return KernelPlan{
        "", {{"matrix_add_float4", cl::NDRange(items), local > 0 ? cl::NDRange(std::size_t(local)) : cl::NullRange}}};
  };
  e.enqueue = [info](Context& ctx, const KernelPlan& plan, const MatrixAddCall& call, const TuningConfig& config,
                     MatrixAddTarget& t) {
    set_kernel_args(kernel(ctx, plan, 0), t.a, t.b, t.sum, cl_uint(call.count),
                    cl_uint(tunable_value(config, info, "vectors")));
    return launch_passes(ctx, plan, kKernelFile);
  };
  return e;
}

// The dot product's variants run the public calls, on the copies of the pairs they read.
DotProductTable::Entry dot_buffer() {
  DotProductTable::Entry e{{"buffer", "float4 pairs from linear buffers (seed 003 9.1.3, original)", {}}};
  e.enqueue = [](Context& ctx, const KernelPlan&, const DotProductCall& call, const TuningConfig&,
                 DotProductTarget& t) {
    DotProductInputs& in = t.inputs;
    if (!in.a_buffer) in.a_buffer = upload_floats(ctx, in.a), in.b_buffer = upload_floats(ctx, in.b);
    return dot_product(ctx, *in.a_buffer, *in.b_buffer, t.result, call.count);
  };
  return e;
}

DotProductTable::Entry dot_image() {
  DotProductTable::Entry e{
      {"image", "float4 pairs read through images with read_imagef (seed 003 9.1.3, optimised)", {}},
      {DeviceFeature::images}};
  e.unsupported = [](const DeviceInfo& d, const DotProductCall& call,
                     const TuningConfig&) -> std::optional<std::string> {
    if ((call.count + d.image2d_max_width - 1) / d.image2d_max_width > d.image2d_max_height)
      return std::string("too many pairs for the device's largest 2D image");
    return std::nullopt;
  };
  e.enqueue = [](Context& ctx, const KernelPlan&, const DotProductCall& call, const TuningConfig&,
                 DotProductTarget& t) {
    DotProductInputs& in = t.inputs;
    if (!in.a_image)
      in.a_image = make_float4_image(ctx, in.a.data(), call.count),
      in.b_image = make_float4_image(ctx, in.b.data(), call.count);
    return dot_product(ctx, *in.a_image, *in.b_image, t.result, call.count);
  };
  return e;
}

}  // namespace

const MatrixAddTable& matrix_add_table() {
  static const MatrixAddTable table("matrix-add", {matrix_add_scalar(), matrix_add_float4()});
  return table;
}

const DotProductTable& dot_product_table() {
  static const DotProductTable table("dot-product", {dot_buffer(), dot_image()});
  return table;
}

cl::Buffer upload_floats(Context& ctx, const std::vector<float>& v) {
  cl::Buffer b = ctx.buffer(CL_MEM_READ_WRITE, v.size() * sizeof(float));
  check_cl(ctx.queue().enqueueWriteBuffer(b, CL_TRUE, 0, v.size() * sizeof(float), v.data()), "clEnqueueWriteBuffer");
  return b;
}

const std::vector<VariantInfo>& matrix_add_variants() {
  return matrix_add_table().infos();
}

const std::vector<VariantInfo>& dot_product_variants() {
  return dot_product_table().infos();
}

std::vector<cl::Event> matrix_add(Context& ctx, const cl::Buffer& a, const cl::Buffer& b, cl::Buffer& sum,
                                  std::size_t count, std::string_view variant, const TuningConfig& config) {
  if (count == 0 || count > 0xFFFFFFFFu) throw std::invalid_argument("matrix_add: 1 to 2^32-1 elements");
  const MatrixAddTable& table = matrix_add_table();
  const std::string_view name = variant == "auto" ? kMatrixAddAuto : variant;
  const MatrixAddCall call{count};
  if (auto why = table.unsupported(name, ctx.info(), call, config)) throw std::invalid_argument(*why);
  const MatrixAddTable::Entry& entry = table.at(name);
  MatrixAddTarget target{a, b, sum};
  try {
    return entry.enqueue(ctx, entry.plan(ctx, call, config), call, config, target);
  } catch (const ClError& e) {
    // "auto" falls back to the scalar kernel when the device refuses float4's build or launch.
    if (variant != "auto" || !is_variant_refusal(e)) throw;
    const MatrixAddTable::Entry& scalar = table.at("scalar");
    auto events = scalar.enqueue(ctx, scalar.plan(ctx, call, {}), call, {}, target);
    warn_fallback(ctx, "matrix_add", entry.info.name, e, scalar.info.name);
    return events;
  }
}

std::vector<cl::Event> dot_product(Context& ctx, const cl::Buffer& a, const cl::Buffer& b, cl::Buffer& result,
                                   std::size_t count) {
  if (count == 0 || count > 0xFFFFFFFFu) throw std::invalid_argument("dot_product: 1 to 2^32-1 pairs");
  auto& k = ctx.kernel(kKernelFile, "", "dot_buffer");
  set_kernel_args(k, a, b, result, cl_uint(count));
  return {launch(ctx, k, cl::NDRange(count))};
}

Float4Image make_float4_image(Context& ctx, const float* data, std::size_t count) {
  if (!ctx.info().image_support) throw std::invalid_argument("the device has no image support");
  Float4Image img;
  img.width = std::min(count, ctx.info().image2d_max_width);
  img.height = (count + img.width - 1) / img.width;
  if (img.height > ctx.info().image2d_max_height)
    throw std::invalid_argument(fmt::format("{} pairs do not fit a 2D image on this device", count));
  cl_int err = CL_SUCCESS;
  img.image = cl::Image2D(ctx.context(), CL_MEM_READ_ONLY, cl::ImageFormat(CL_RGBA, CL_FLOAT), img.width, img.height, 0,
                          nullptr, &err);
  check_cl(err, "clCreateImage");
  // Whole rows, then the partial last row, so the upload never reads past `data`.
  const std::size_t full_rows = count / img.width, tail = count % img.width;
  if (full_rows)
    check_cl(ctx.queue().enqueueWriteImage(img.image, CL_TRUE, {0, 0, 0}, {img.width, full_rows, 1}, 0, 0,
                                           const_cast<float*>(data)),
             "clEnqueueWriteImage");
  if (tail)
    check_cl(ctx.queue().enqueueWriteImage(img.image, CL_TRUE, {0, full_rows, 0}, {tail, 1, 1}, 0, 0,
                                           const_cast<float*>(data + 4 * full_rows * img.width)),
             "clEnqueueWriteImage");
  return img;
}

std::vector<cl::Event> dot_product(Context& ctx, const Float4Image& a, const Float4Image& b, cl::Buffer& result,
                                   std::size_t count) {
  if (count == 0 || count > a.width * a.height || a.width != b.width || a.height != b.height)
    throw std::invalid_argument("dot_product: images do not hold `count` pairs");
  auto& k = ctx.kernel(kKernelFile, "", "dot_image");
  set_kernel_args(k, a.image, b.image, result, cl_uint(count), int(a.width));
  return {launch(ctx, k, cl::NDRange(a.width, a.height))};
}

std::vector<float> matrix_add_reference(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
  return out;
}

std::vector<double> dot_product_reference(const std::vector<float>& a, const std::vector<float>& b, int threads) {
  std::vector<double> out(a.size() / 4);
  parallel_rows(int(out.size()), threads, [&](int i0, int i1) {
    for (int i = i0; i < i1; ++i) {
      double s = 0;
      for (int c = 0; c < 4; ++c) s += double(a[4 * std::size_t(i) + c]) * double(b[4 * std::size_t(i) + c]);
      out[std::size_t(i)] = s;
    }
  });
  return out;
}

}  // namespace clf
