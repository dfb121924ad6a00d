// SPDX-License-Identifier: Apache-2.0
// Small helpers for enqueueing kernels with checked errors.
#pragma once

#include <string>

#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace clf {

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Sets the kernel's arguments `first`, `first` + 1, ... to `args`.
template <class... Args>
void set_kernel_args_from(cl::Kernel& kernel, cl_uint first, const Args&... args) {
  (check_cl(kernel.setArg(first++, args), "clSetKernelArg"), ...);
}
template <class... Args>
void set_kernel_args(cl::Kernel& kernel, const Args&... args) {
  set_kernel_args_from(kernel, 0, args...);
}

// Global and local range of a pass over `width` x `height` work-items, from the variant's `local_x` and
// `local_y` tunables; local_x <= 0 lets the driver choose the work-group.
inline std::pair<cl::NDRange, cl::NDRange> local_ranges(const VariantInfo& variant, const TuningConfig& config,
                                                        std::size_t width, std::size_t height) {
  const int lx = tunable_value(config, variant, "local_x"), ly = tunable_value(config, variant, "local_y");
  if (lx <= 0) return {cl::NDRange(width, height), cl::NullRange};
  return {cl::NDRange(round_up(width, lx), round_up(height, ly)), cl::NDRange(lx, ly)};
}

// Enqueues `kernel` on ctx.queue(); errors name the kernel and the sizes.
cl::Event launch(Context& ctx, cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local = cl::NullRange);

}  // namespace clf
