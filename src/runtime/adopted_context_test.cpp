// SPDX-License-Identifier: Apache-2.0
// Working inside the caller's OpenCL: an adopted context and queue, views of the caller's buffers with an
// offset and a row pitch, and calls that wait for the caller's events.
#include <gtest/gtest.h>

#include <cstring>

#include "clfilters/device_image.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

template <class Handle, cl_uint Info, class Query>
cl_uint reference_count(Handle h, Query query) {
  cl_uint n = 0;
  query(h, Info, sizeof n, &n, nullptr);
  return n;
}
cl_uint context_refs(cl_context c) {
  return reference_count<cl_context, CL_CONTEXT_REFERENCE_COUNT>(c, clGetContextInfo);
}
cl_uint queue_refs(cl_command_queue q) {
  return reference_count<cl_command_queue, CL_QUEUE_REFERENCE_COUNT>(q, clGetCommandQueueInfo);
}

// Raw handles an application made, released when the test ends.
struct RawSetup {
  cl_device_id device = testing::test_context().device()();
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  explicit RawSetup(cl_command_queue_properties props = 0) {
    cl_int err = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    check_cl(err, "clCreateContext");
    const cl_queue_properties list[] = {CL_QUEUE_PROPERTIES, props, 0};
    queue = clCreateCommandQueueWithProperties(context, device, list, &err);
    check_cl(err, "clCreateCommandQueueWithProperties");
  }
  ~RawSetup() {
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
  }
};

TEST(AdoptedContext, RetainsAndReleasesOnlyWhatItAdopted) {
  RawSetup raw(CL_QUEUE_PROFILING_ENABLE);
  const cl_uint context_before = context_refs(raw.context), queue_before = queue_refs(raw.queue);
  {
    Context ctx(raw.context, raw.device, raw.queue);
    EXPECT_EQ(ctx.context()(), raw.context);
    EXPECT_EQ(ctx.queue()(), raw.queue);  // commands go to the caller's queue
    EXPECT_TRUE(ctx.profiling());
    EXPECT_GT(context_refs(raw.context), context_before);
    EXPECT_GT(queue_refs(raw.queue), queue_before);
    EXPECT_EQ(ctx.info().name, testing::test_context().info().name);
  }
  EXPECT_EQ(context_refs(raw.context), context_before);
  EXPECT_EQ(queue_refs(raw.queue), queue_before);
}

TEST(AdoptedContext, UsesAQueueWithoutProfilingAsItIs) {
  RawSetup raw;
  Context ctx(raw.context, raw.device, raw.queue);
  EXPECT_FALSE(ctx.profiling());
  EXPECT_EQ(ctx.queue()(), raw.queue);
}

TEST(AdoptedContext, RefusesWhatItCannotWorkWith) {
  RawSetup raw, other;
  EXPECT_THROW(Context(raw.context, raw.device, other.queue), std::invalid_argument);
  EXPECT_THROW(Context(raw.context, raw.device, nullptr), std::invalid_argument);
  cl_int err = CL_SUCCESS;
  const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_command_queue out_of_order = clCreateCommandQueueWithProperties(raw.context, raw.device, props, &err);
  if (err == CL_SUCCESS) {
    try {
      Context ctx(raw.context, raw.device, out_of_order);
      ADD_FAILURE() << "an out-of-order queue was adopted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("out of order"), std::string::npos) << e.what();
    }
    clReleaseCommandQueue(out_of_order);
  }
}

TEST(AdoptedContext, RefusesADeviceBelowOpenClC12) {
  DeviceHandle old = select_device();
  EXPECT_GE(opencl_c_version(old.info), kMinOpenClC);
  old.info.opencl_c_version = "OpenCL C 1.1 ";
  try {
    Context ctx(old);
    ADD_FAILURE() << "a device with OpenCL C 1.1 was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("OpenCL C 1.2"), std::string::npos) << e.what();
  }
}

TEST(OpenClCVersion, ReadsTheDevicesString) {
  DeviceInfo info;
  for (const auto& [text, version] : std::initializer_list<std::pair<const char*, int>>{{"OpenCL C 1.2 pocl", 12},
                                                                                        {"OpenCL C 3.0 ", 30},
                                                                                        {"OpenCL C 2.0", 20},
                                                                                        {"", 0},
                                                                                        {"OpenCL C x", 0},
                                                                                        {"OpenCL 1.2", 0},
                                                                                        {"OpenCL C 1", 0}}) {
    info.opencl_c_version = text;
    EXPECT_EQ(opencl_c_version(info), version) << text;
  }
}

// A caller's buffer holding a `width` x `height` x `channels` image at `offset` with `pitch`, the rest
// poisoned; `pixels` is what the view shows.
struct CallersBuffer {
  cl::Buffer buffer;
  std::vector<std::uint8_t> bytes;
  CallersBuffer(Context& ctx, const Image& pixels, std::size_t offset, std::size_t pitch, std::size_t slack = 0)
      : bytes(offset + pitch * pixels.height + slack, 0xA5) {
    for (int y = 0; y < pixels.height; ++y)
      std::memcpy(bytes.data() + offset + pitch * y, pixels.row(y), pixels.row_bytes());
    buffer = ctx.buffer(CL_MEM_READ_WRITE, bytes.size());
    check_cl(ctx.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes.size(), bytes.data()), "clEnqueueWriteBuffer");
  }
  std::vector<std::uint8_t> read(Context& ctx) const {
    std::vector<std::uint8_t> out(bytes.size());
    check_cl(ctx.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, out.size(), out.data()), "clEnqueueReadBuffer");
    return out;
  }
};

TEST(DeviceImageView, ReadsAPitchedOffsetRegion) {
  Context& ctx = testing::test_context();
  for (const int channels : {1, 4}) {
    const Image pixels = testing::random_image(13, 7, channels, SampleType::u8, testing::fresh_seed());
    const std::size_t offset = 3 * channels + 2 * 64, pitch = 64;
    CallersBuffer callers(ctx, pixels, offset, pitch);
    const auto view = DeviceImage::view(ctx, callers.buffer(), 13, 7, channels, offset, pitch);
    EXPECT_FALSE(view.packed());
    EXPECT_EQ(view.download(ctx).data, pixels.data);
    EXPECT_TRUE(DeviceImage::view(ctx, callers.buffer(), 13, 7, channels).packed());
  }
}

TEST(DeviceImageView, RefusesWhatDoesNotFit) {
  Context& ctx = testing::test_context();
  const cl::Buffer small = ctx.buffer(CL_MEM_READ_WRITE, 100);
  auto message = [&](auto&& make) {
    try {
      make();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { DeviceImage::view(ctx, small(), 10, 11, 1); }).find("reaches 110"), std::string::npos);
  EXPECT_NE(message([&] { DeviceImage::view(ctx, small(), 10, 5, 1, 60); }).find("reaches 110"), std::string::npos);
  EXPECT_NE(message([&] { DeviceImage::view(ctx, small(), 10, 2, 4, 0, 20); }).find("row pitch 20"), std::string::npos);
  EXPECT_NE(message([&] { DeviceImage::view(ctx, small(), 10, 2, 3); }).find("1 or 4 channels"), std::string::npos);
  EXPECT_NO_THROW(DeviceImage::view(ctx, small(), 10, 10, 1));
  RawSetup other;
  cl_int err = CL_SUCCESS;
  cl_mem foreign = clCreateBuffer(other.context, CL_MEM_READ_WRITE, 100, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_NE(message([&] { DeviceImage::view(ctx, foreign, 10, 10, 1); }).find("another OpenCL context"),
            std::string::npos);
  clReleaseMemObject(foreign);
}

// on_packed_images hands the filter packed images and puts its output into the caller's region, nothing else.
TEST(DeviceImageView, FiltersRunOnPackedCopiesOfPitchedViews) {
  Context& ctx = testing::test_context();
  const Image pixels = testing::random_image(9, 5, 4, SampleType::u8, testing::fresh_seed());
  CallersBuffer in(ctx, pixels, 4 * 40 + 8, 40 * 4), out(ctx, Image(9, 5, 4), 12, 44, 7);
  std::fill(out.bytes.begin(), out.bytes.end(), 0x5A);
  check_cl(ctx.queue().enqueueWriteBuffer(out.buffer, CL_TRUE, 0, out.bytes.size(), out.bytes.data()), "write");
  auto in_view = DeviceImage::view(ctx, in.buffer(), 9, 5, 4, 4 * 40 + 8, 160);
  auto out_view = DeviceImage::view(ctx, out.buffer(), 9, 5, 4, 12, 44);
  const auto events = on_packed_images(ctx, in_view, out_view, {}, [&](const DeviceImage& a, DeviceImage& b) {
    EXPECT_TRUE(a.packed() && b.packed());
    cl::Event e;
    check_cl(ctx.queue().enqueueCopyBuffer(a.buffer, b.buffer, 0, 0, a.byte_size(), nullptr, &e), "copy");
    return std::vector<cl::Event>{e};
  });
  EXPECT_EQ(events.size(), 3u);  // copy in, the "filter", copy out
  std::vector<std::uint8_t> want = out.bytes;
  for (int y = 0; y < 5; ++y) std::memcpy(want.data() + 12 + 44 * y, pixels.row(y), pixels.row_bytes());
  EXPECT_EQ(out.read(ctx), want);
}

TEST(DeviceImageView, CallsWaitForTheCallersEvents) {
  Context& ctx = testing::test_context();
  const Image pixels = testing::random_image(8, 8, 1, SampleType::u8, testing::fresh_seed());
  auto in = DeviceImage::upload(ctx, pixels);
  auto out = DeviceImage::allocate(ctx, 8, 8, 1);
  cl_int err = CL_SUCCESS;
  cl::UserEvent gate(ctx.context(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const auto events = on_packed_images(ctx, in, out, {gate}, [&](const DeviceImage& a, DeviceImage& b) {
    cl::Event e;
    check_cl(ctx.queue().enqueueCopyBuffer(a.buffer, b.buffer, 0, 0, a.byte_size(), nullptr, &e), "copy");
    return std::vector<cl::Event>{e};
  });
  ASSERT_EQ(events.size(), 2u);  // the barrier, the "filter"
  check_cl(ctx.queue().flush(), "clFlush");
  cl_int status = CL_COMPLETE;
  events.back().getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status);
  EXPECT_NE(status, CL_COMPLETE);  // it cannot have run: the caller's event is not complete
  gate.setStatus(CL_COMPLETE);
  check_cl(events.back().wait(), "clWaitForEvents");
  EXPECT_EQ(out.download(ctx).data, pixels.data);
}

}  // namespace
}  // namespace clf
