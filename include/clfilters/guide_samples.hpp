// SPDX-License-Identifier: Apache-2.0
// The small samples of the guide (seed 003 section 9.1): element-wise float32 matrix add, scalar and
// float4 (9.1.2), and dot products of N float4 pairs from buffers or through images (9.1.3).
#pragma once

#include <string_view>
#include <vector>

#include "clfilters/export.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace CLF_API clf {

const std::vector<VariantInfo>& matrix_add_variants();   // scalar, float4
const std::vector<VariantInfo>& dot_product_variants();  // buffer, image

// sum = a + b for `count` floats in device buffers. Exact (IEEE addition, no fast-math).
std::vector<cl::Event> matrix_add(Context& ctx, const cl::Buffer& a, const cl::Buffer& b, cl::Buffer& sum,
                                  std::size_t count, std::string_view variant = "auto",
                                  const TuningConfig& config = {});

// result[i] = dot(a[i], b[i]) for `count` float4 pairs held in buffers of 4*count floats ("buffer").
std::vector<cl::Event> dot_product(Context& ctx, const cl::Buffer& a, const cl::Buffer& b, cl::Buffer& result,
                                   std::size_t count);

// The "image" variant: the pairs held in CL_RGBA/CL_FLOAT images, as the seed keeps them, read with
// read_imagef. Pair i is pixel (i % width, i / width). Needs image support.
struct Float4Image {
  cl::Image2D image;
  std::size_t width = 0, height = 0;
};
// An image holding `count` float4 (4*count floats from `data`), width at most the device's limit.
Float4Image make_float4_image(Context& ctx, const float* data, std::size_t count);
std::vector<cl::Event> dot_product(Context& ctx, const Float4Image& a, const Float4Image& b, cl::Buffer& result,
                                   std::size_t count);

std::vector<float> matrix_add_reference(const std::vector<float>& a, const std::vector<float>& b);
std::vector<double> dot_product_reference(const std::vector<float>& a, const std::vector<float>& b, int threads = 0);

}  // namespace clf
