#include "clfilters/device_image.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "runtime/launch.hpp"

namespace clf {

DeviceImage DeviceImage::allocate(Context& ctx, int width, int height, int channels) {
  if (width < 1 || height < 1 || (channels != 1 && channels != 4))
    throw std::invalid_argument(
        fmt::format("device images are u8 with 1 or 4 channels and a size of at least "
                    "1x1 (got {}x{}x{})",
                    width, height, channels));
  DeviceImage img;
  img.width = width;
  img.height = height;
  img.channels = channels;
  img.buffer = ctx.buffer(CL_MEM_READ_WRITE, img.byte_size());
  return img;
}

DeviceImage DeviceImage::upload(Context& ctx, const Image& image) {
  if (image.type != SampleType::u8)
    throw std::invalid_argument(fmt::format("device images hold 8-bit samples, not {}", sample_type_name(image.type)));
  DeviceImage img = allocate(ctx, image.width, image.height, image.channels);
  check_cl(ctx.queue().enqueueWriteBuffer(img.buffer, CL_TRUE, 0, img.byte_size(), image.data.data()),
           "clEnqueueWriteBuffer");
  return img;
}

Image DeviceImage::download(Context& ctx) const {
  Image out(width, height, channels);
  check_cl(ctx.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, byte_size(), out.data.data()), "clEnqueueReadBuffer");
  return out;
}

void wait_for(Context& ctx, const std::vector<cl::Event>& events, WaitMode mode) {
  if (mode == WaitMode::finish || events.empty()) {
    check_cl(ctx.queue().finish(), "clFinish");
    return;
  }
  check_cl(ctx.queue().flush(), "clFlush");
  // The queue is in order, so the last event completing means every command has.
  cl_int status = CL_QUEUED;
  do {
    check_cl(events.back().getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status), "clGetEventInfo");
  } while (status > CL_COMPLETE);
  if (status < 0) throw ClError(status, "a command of the call failed");
}

ProfilingOff::ProfilingOff(Context& ctx) : ctx_(ctx) {
  ctx_.set_profiling(false);
}

ProfilingOff::~ProfilingOff() {
  try {
    ctx_.set_profiling(true);
  } catch (const std::exception&) {
    // The device failed while finishing; whatever got us here reports that failure.
  }
}

double kernel_milliseconds(const std::vector<cl::Event>& events) {
  double ms = 0;
  for (const auto& e : events) {
    check_cl(e.wait(), "clWaitForEvents");
    cl_ulong start = 0, end = 0;
    // A command from a queue without profiling (Context::set_profiling(false)) has no times.
    const cl_int got = e.getProfilingInfo(CL_PROFILING_COMMAND_START, &start);
    if (got == CL_PROFILING_INFO_NOT_AVAILABLE) return std::numeric_limits<double>::quiet_NaN();
    check_cl(got, "clGetEventProfilingInfo");
    check_cl(e.getProfilingInfo(CL_PROFILING_COMMAND_END, &end), "clGetEventProfilingInfo");
    ms += double(end - start) * 1e-6;
  }
  return ms;
}

namespace {
std::string kernel_name(const cl::Kernel& kernel) {
  std::string name;
  kernel.getInfo(CL_KERNEL_FUNCTION_NAME, &name);
  while (!name.empty() && name.back() == '\0') name.pop_back();
  return name;
}

std::string range_text(const cl::NDRange& r) {
  std::string sizes;
  for (std::size_t i = 0; i < r.dimensions(); ++i) sizes += fmt::format("{}{}", i ? "x" : "", r.get()[i]);
  return sizes;
}
}  // namespace

cl::Event launch(Context& ctx, cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local) {
  if (local.dimensions() > 0) {
    // A kernel's own limit (registers, local memory) can be below the device's; say so plainly
    // instead of the driver's CL_OUT_OF_RESOURCES.
    std::size_t limit = 0, items = 1;
    for (std::size_t i = 0; i < local.dimensions(); ++i) items *= local.get()[i];
    if (kernel.getWorkGroupInfo(ctx.device(), CL_KERNEL_WORK_GROUP_SIZE, &limit) == CL_SUCCESS && items > limit)
      throw ClError(CL_INVALID_WORK_GROUP_SIZE,
                    fmt::format("clEnqueueNDRangeKernel({}, local {}: {} work-items, above this kernel's limit of {} "
                                "on this device)",
                                kernel_name(kernel), range_text(local), items, limit));
  }
  cl::Event event;
  const cl_int err = ctx.queue().enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &event);
  if (err != CL_SUCCESS)
    throw ClError(err, fmt::format("clEnqueueNDRangeKernel({}, global {}{})", kernel_name(kernel), range_text(global),
                                   local.dimensions() ? ", local " + range_text(local) : ""));
  return event;
}

}  // namespace clf
