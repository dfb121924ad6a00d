// Host side of the guide samples (seed 003 section 9.1).
#include "clfilters/guide_samples.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "common/parallel.hpp"
#include "runtime/launch.hpp"

namespace clf {
namespace {
constexpr std::string_view kKernelFile = "guide_samples.cl";
}  // namespace

const std::vector<VariantInfo>& matrix_add_variants() {
  static const std::vector<VariantInfo> all = {
      {"scalar", "one float per work-item (seed 003 9.1.2, original)", {}},
      {"float4",
       "float4 loads and stores (seed 003 9.1.2, optimised)",
       {{"vectors", {1, 2, 4, 8}, "float4 per work-item"},
        {"local", {0, 64, 128, 256}, "work-group size (0: driver)"}}},
  };
  return all;
}

const std::vector<VariantInfo>& dot_product_variants() {
  static const std::vector<VariantInfo> all = {
      {"buffer", "float4 pairs from linear buffers (seed 003 9.1.3, original)", {}},
      {"image", "float4 pairs read through images with read_imagef (seed 003 9.1.3, optimised)", {}},
  };
  return all;
}

std::vector<cl::Event> matrix_add(Context& ctx, const cl::Buffer& a, const cl::Buffer& b, cl::Buffer& sum,
                                  std::size_t count, std::string_view variant, const TuningConfig& config) {
  if (count == 0 || count > 0xFFFFFFFFu) throw std::invalid_argument("matrix_add: 1 to 2^32-1 elements");
  const cl_uint n = cl_uint(count);
  if (variant == "scalar") {
    auto& k = ctx.kernel(kKernelFile, "", "matrix_add_scalar");
    set_kernel_args(k, a, b, sum, n);
    return {launch(ctx, k, cl::NDRange(count))};
  }
  if (variant == "float4" || variant == "auto") {
    const VariantInfo& info = matrix_add_variants()[1];
    const int vectors = tunable_value(config, info, "vectors"), local = tunable_value(config, info, "local");
    if (local < 0 || std::size_t(local) > ctx.info().max_work_group_size)
      throw std::invalid_argument(fmt::format("work-group size {} exceeds the device's limit", local));
    auto& k = ctx.kernel(kKernelFile, "", "matrix_add_float4");
    set_kernel_args(k, a, b, sum, n, cl_uint(vectors));
    std::size_t items = std::max<std::size_t>(1, (count / 4 + vectors - 1) / vectors);
    if (local > 0) items = round_up(items, std::size_t(local));
    return {launch(ctx, k, cl::NDRange(items), local > 0 ? cl::NDRange(std::size_t(local)) : cl::NullRange)};
  }
  throw std::invalid_argument(fmt::format("unknown matrix-add variant '{}'", variant));
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
