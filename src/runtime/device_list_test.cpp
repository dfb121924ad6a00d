// SPDX-License-Identifier: Apache-2.0
// Device lists (select_devices) and sub-devices (split_device).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "clfilters/runtime.hpp"
#include "testing/test_files.hpp"

namespace clf {
namespace {

// The message of the std::invalid_argument that select_devices(list) throws, or "" where it throws none.
std::string refusal(const std::string& list) {
  try {
    select_devices(list);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The first device whose driver splits it in two, or nullopt.
std::optional<DeviceHandle> splittable() {
  for (const DeviceHandle& d : list_devices()) {
    try {
      if (split_device(d, 2).size() == 2) return d;
    } catch (const std::invalid_argument&) {
    }
  }
  return std::nullopt;
}

TEST(DeviceList, EmptyIsTheDefaultDeviceAndClassesListTheirDevices) {
  ScopedEnv clear("CLFILTERS_DEVICE", nullptr);
  const auto one = select_devices("");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].device(), select_device().device());
  const auto all = list_devices();
  const auto listed = select_devices("all");
  ASSERT_EQ(listed.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(listed[i].device(), all[i].device());
  for (const char* kind : {"all-gpus", "all-cpus"}) {
    const cl_device_type type = std::string(kind) == "all-gpus" ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
    std::size_t expected = 0;
    for (const auto& d : all) expected += (d.info.type & type) ? 1 : 0;
    if (expected == 0) {
      EXPECT_TRUE(mentions(refusal(kind), fmt::format("device list item '{}': no such device", kind))) << refusal(kind);
    } else {
      EXPECT_EQ(select_devices(kind).size(), expected);
    }
  }
  EXPECT_EQ(select_devices("0")[0].device(), all[0].device());
}

TEST(DeviceList, RefusesBadItemsNamingThem) {
  EXPECT_TRUE(mentions(refusal("0,,0"), "empty item")) << refusal("0,,0");
  EXPECT_TRUE(mentions(refusal("0,99"), "device list item '99': no device with index 99")) << refusal("0,99");
  EXPECT_TRUE(mentions(refusal("no-such-device"), "item 'no-such-device'")) << refusal("no-such-device");
  EXPECT_TRUE(mentions(refusal("0/x"), "item '0/x': 'x' is not a count")) << refusal("0/x");
  EXPECT_TRUE(mentions(refusal("0/0"), "item '0/0'")) << refusal("0/0");
}

TEST(DeviceList, RefusesADeviceNamedTwice) {
  const std::string twice = refusal("0,0");
  EXPECT_TRUE(mentions(twice, "device list item '0': device 0:0")) << twice;
  EXPECT_TRUE(mentions(twice, "already in the list (as '0')")) << twice;
  const auto all = list_devices();
  const std::string by_name = refusal(fmt::format("0,{}", all[0].info.index_name()));
  EXPECT_TRUE(mentions(by_name, "already in the list")) << by_name;
  if (!splittable()) GTEST_SKIP() << "no device here splits into sub-devices";
  // A device split and also named whole, or split twice, would run on the same compute units twice.
  EXPECT_TRUE(mentions(refusal("0/2,0"), "already in the list (as '0/2')")) << refusal("0/2,0");
  EXPECT_TRUE(mentions(refusal("0/2,0/2"), "already in the list")) << refusal("0/2,0/2");
}

TEST(DeviceList, SplitsADeviceIntoSubDevicesThatRunKernels) {
  const auto parent = splittable();
  if (!parent) GTEST_SKIP() << "no device here splits into sub-devices";
  const auto parts = select_devices(parent->info.index_name() + "/2");
  ASSERT_EQ(parts.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const DeviceInfo& info = parts[std::size_t(i)].info;
    EXPECT_EQ(info.sub_device_index, i);
    EXPECT_EQ(info.index_name(), fmt::format("{}.{}", parent->info.index_name(), i));
    EXPECT_EQ(info.name, parent->info.name);  // the tuning database keys by name: a part uses its parent's entries
    EXPECT_EQ(info.compute_units, parent->info.compute_units / 2);
    EXPECT_NE(parts[std::size_t(i)].device(), parent->device());
  }
  EXPECT_NE(parts[0].device(), parts[1].device());
  // A Context over a part builds and runs a program.
  Context ctx(parts[1]);
  cl::Program& p =
      ctx.program_from_source("add_one", "__kernel void add_one(__global int* p) { p[get_global_id(0)] += 1; }", "");
  cl::Kernel k(p, "add_one");
  std::vector<int> host = {5, -7, 1000};
  cl::Buffer buf = ctx.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(int), host.data());
  k.setArg(0, buf);
  ASSERT_EQ(ctx.queue().enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(host.size())), CL_SUCCESS);
  ASSERT_EQ(ctx.queue().enqueueReadBuffer(buf, CL_TRUE, 0, host.size() * sizeof(int), host.data()), CL_SUCCESS);
  EXPECT_EQ(host, (std::vector<int>{6, -6, 1001}));
}

TEST(DeviceList, SplitRefusesMorePartsThanComputeUnits) {
  const DeviceHandle d = list_devices().front();
  try {
    split_device(d, int(d.info.compute_units) + 1);
    ADD_FAILURE() << "split into more parts than compute units";
  } catch (const std::invalid_argument& e) {
    // Either reason is one line naming the device.
    EXPECT_TRUE(mentions(e.what(), d.info.index_name())) << e.what();
  }
}

}  // namespace
}  // namespace clf
