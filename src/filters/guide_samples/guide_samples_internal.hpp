// SPDX-License-Identifier: Apache-2.0
// The guide samples' internals: each sample's calls and its variant table (guide_samples.cpp).
#pragma once

#include <optional>
#include <vector>

#include "clfilters/guide_samples.hpp"
#include "clfilters/runtime.hpp"
#include "filters/variant_table.hpp"

namespace clf {

// sum = a + b for `count` floats in device buffers.
struct MatrixAddCall {
  std::size_t count = 0;
};

struct MatrixAddTarget {
  const cl::Buffer& a;
  const cl::Buffer& b;
  cl::Buffer& sum;
};

using MatrixAddTable = VariantTable<MatrixAddCall, MatrixAddTarget>;
const MatrixAddTable& matrix_add_table();
// The variant "auto" runs.
inline constexpr const char* kMatrixAddAuto = "float4";

// result[i] = dot(a[i], b[i]) for `count` float4 pairs.
struct DotProductCall {
  std::size_t count = 0;
};

// The pairs on the host (4 floats each) and their device copies as the variants read them: in buffers
// (buffer) or in images (image). A variant makes the copies it reads on first use.
struct DotProductInputs {
  const std::vector<float>& a;
  const std::vector<float>& b;
  std::optional<cl::Buffer> a_buffer = {}, b_buffer = {};
  std::optional<Float4Image> a_image = {}, b_image = {};
};

struct DotProductTarget {
  DotProductInputs& inputs;
  cl::Buffer& result;
};

using DotProductTable = VariantTable<DotProductCall, DotProductTarget>;
const DotProductTable& dot_product_table();
// The variant "auto" runs.
inline constexpr const char* kDotProductAuto = "buffer";

// A new device buffer holding `v` (blocking upload).
cl::Buffer upload_floats(Context& ctx, const std::vector<float>& v);

}  // namespace clf
