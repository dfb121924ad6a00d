// SPDX-License-Identifier: Apache-2.0
// The kernel the program-cache tests build, and the check that a program built from it works.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "clfilters/runtime.hpp"

namespace clf::testing {

inline constexpr const char* kAddOneSource = "__kernel void add_one(__global int* p) { p[get_global_id(0)] += 1; }";

// The kernel of `p` adds one to each of a few ints; the result is checked against that.
inline void expect_adds_one(Context& ctx, cl::Program& p) {
  cl_int err = CL_SUCCESS;
  cl::Kernel k(p, "add_one", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<int> host = {5, -7, 1000};
  cl::Buffer buf(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(int), host.data());
  k.setArg(0, buf);
  ctx.queue().enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(host.size()));
  ctx.queue().enqueueReadBuffer(buf, CL_TRUE, 0, host.size() * sizeof(int), host.data());
  EXPECT_EQ(host, (std::vector<int>{6, -6, 1001}));
}

}  // namespace clf::testing
