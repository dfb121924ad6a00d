// SPDX-License-Identifier: Apache-2.0
#include "filters/image_call.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace clf {

void check_image_size(int width, int height) {
  if (std::int64_t(width) * height * 4 >= (std::int64_t(1) << 31))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (at most 2^29 pixels)", width, height));
}

bool is_variant_refusal(const ClError& e) {
  const std::string& call = e.call();
  if (call.starts_with("clBuildProgram")) return e.code() == CL_BUILD_PROGRAM_FAILURE;
  if (!call.starts_with("clEnqueueNDRangeKernel")) return false;
  return e.code() == CL_OUT_OF_RESOURCES || e.code() == CL_INVALID_WORK_GROUP_SIZE ||
         e.code() == CL_INVALID_WORK_ITEM_SIZE || e.code() == CL_MEM_OBJECT_ALLOCATION_FAILURE;
}

std::vector<std::string> fallback_variants(const std::string& rule, const std::vector<VariantInfo>& variants,
                                           const std::string& failed) {
  std::vector<std::string> out;
  for (const std::string& v : {rule, variants.empty() ? rule : variants.front().name})
    if (v != failed && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

void warn_fallback(Context& ctx, std::string_view filter, const std::string& failed, const ClError& why,
                   const std::string& ran) {
  const std::string reason =
      fmt::format("{} in {}", cl_error_name(why.code()), why.call().substr(0, why.call().find('(')));
  if (ctx.record_fallback({std::string(filter), failed, ran, reason}))
    fmt::print(stderr, "clfilters: warning: {} variant {} was refused ({}); ran {} instead\n", filter, failed, reason,
               ran);
}

cl_uint constant_bits(const Border& border, int channels) {
  const cl_uint v = border.mode == BorderMode::constant ? cl_uint(border.value) : 0u;
  return channels == 4 ? v | (v << 8) | (v << 16) | (v << 24) : v;
}

}  // namespace clf
