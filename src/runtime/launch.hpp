// Small helpers for enqueueing kernels with checked errors.
#pragma once

#include <string>

#include "clfilters/runtime.hpp"

namespace clf {

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

template <class... Args>
void set_kernel_args(cl::Kernel& kernel, const Args&... args) {
  cl_uint index = 0;
  (check_cl(kernel.setArg(index++, args), "clSetKernelArg"), ...);
}

// Enqueues `kernel` on ctx.queue(); errors name the kernel and the sizes.
cl::Event launch(Context& ctx, cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local = cl::NullRange);

}  // namespace clf
