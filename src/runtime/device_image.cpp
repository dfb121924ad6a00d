// SPDX-License-Identifier: Apache-2.0
#include "clfilters/device_image.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "runtime/fault_injection.hpp"
#include "runtime/host_transfer.hpp"
#include "runtime/launch.hpp"

namespace clf {

namespace {
// Why a device image of this shape cannot be, or "".
std::string shape_problem(int width, int height, int channels, SampleType type) {
  if (type != SampleType::u8 && type != SampleType::u16)
    return fmt::format("device images hold u8 or u16 samples, not {}", sample_type_name(type));
  if (width < 1 || height < 1 || (channels != 1 && channels != 4))
    return fmt::format("device images have 1 or 4 channels and a size of at least 1x1 (got {}x{}x{})", width, height,
                       channels);
  return "";
}

DeviceImage packed_shape(int width, int height, int channels, SampleType type) {
  if (const std::string why = shape_problem(width, height, channels, type); !why.empty())
    throw std::invalid_argument(why);
  DeviceImage img;
  img.width = width;
  img.height = height;
  img.channels = channels;
  img.type = type;
  return img;
}
}  // namespace

DeviceImage DeviceImage::allocate(Context& ctx, int width, int height, int channels, SampleType type) {
  DeviceImage img = packed_shape(width, height, channels, type);
  img.buffer = ctx.buffer(CL_MEM_READ_WRITE, img.byte_size());
  return img;
}

namespace {
// Where the device's memory is its own (a GPU), large copies go through pinned staging (host_transfer.hpp).
bool stages_copies(const Context& ctx, std::size_t bytes) {
  return !ctx.works_in_host_memory() && bytes >= kStagingMinimum;
}

// A copy of `bytes` from `data` into `buffer`, done reading `data` when it returns.
void write_from_host(Context& ctx, const cl::Buffer& buffer, const void* data, std::size_t bytes) {
  if (stages_copies(ctx, bytes))
    write_staged(ctx, buffer, data, bytes);
  else
    check_cl(ctx.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, data), "clEnqueueWriteBuffer");
}

void read_into_host(Context& ctx, const cl::Buffer& buffer, void* data, std::size_t bytes) {
  if (stages_copies(ctx, bytes))
    read_staged(ctx, buffer, data, bytes);
  else
    check_cl(ctx.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, data), "clEnqueueReadBuffer");
}
}  // namespace

DeviceImage DeviceImage::upload(Context& ctx, const Image& image) {
  DeviceImage img = allocate(ctx, image.width, image.height, image.channels, image.type);
  write_from_host(ctx, img.buffer, image.data.data(), img.byte_size());
  return img;
}

DeviceImage DeviceImage::view(Context& ctx, cl_mem mem, int width, int height, int channels, std::size_t offset,
                              std::size_t row_pitch, SampleType type) {
  if (!mem) throw std::invalid_argument("device image view: the buffer is null");
  if (const std::string why = shape_problem(width, height, channels, type); !why.empty())
    throw std::invalid_argument("device image view: " + why);
  DeviceImage img;
  img.buffer = cl::Buffer(mem, true);
  img.width = width;
  img.height = height;
  img.channels = channels;
  img.type = type;
  img.offset = offset;
  img.row_pitch = row_pitch;
  if (img.pitch() < img.row_bytes())
    throw std::invalid_argument(
        fmt::format("device image view: row pitch {} is below a row's {} bytes", row_pitch, img.row_bytes()));
  cl_context owner = nullptr;
  check_cl(img.buffer.getInfo(CL_MEM_CONTEXT, &owner), "clGetMemObjectInfo");
  if (owner != ctx.context()())
    throw std::invalid_argument("device image view: the buffer belongs to another OpenCL context");
  std::size_t size = 0;
  check_cl(img.buffer.getInfo(CL_MEM_SIZE, &size), "clGetMemObjectInfo");
  const std::size_t reach = offset + img.pitch() * std::size_t(height - 1) + img.row_bytes();
  if (size < reach)
    throw std::invalid_argument(fmt::format(
        "device image view: the buffer has {} bytes, the view ({}x{}x{}, offset {}, row pitch {}) reaches {}", size,
        width, height, channels, offset, img.pitch(), reach));
  return img;
}

namespace {
// The rectangle of a view's pixels, for clEnqueue{Read,Write,Copy}BufferRect.
cl::array<cl::size_type, 3> rect_origin(const DeviceImage& img) {
  return {img.offset % img.pitch(), img.offset / img.pitch(), 0};
}
cl::array<cl::size_type, 3> rect_region(const DeviceImage& img) {
  return {img.row_bytes(), cl::size_type(img.height), 1};
}
}  // namespace

cl::Buffer buffer_over_host(Context& ctx, void* data, std::size_t bytes, bool upload, std::string_view scratch) {
  if (ctx.works_in_host_memory() && reinterpret_cast<std::uintptr_t>(data) % kHostBufferAlignment == 0) {
    return ctx.buffer(CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, data);
  }
  cl::Buffer b = scratch.empty() ? ctx.buffer(CL_MEM_READ_WRITE, bytes) : ctx.scratch_buffer(scratch, bytes);
  if (upload) write_from_host(ctx, b, data, bytes);
  return b;
}

void read_to_host(Context& ctx, const cl::Buffer& buffer, void* data, std::size_t bytes) {
  void* host = nullptr;
  cl_mem_flags flags = 0;
  check_cl(buffer.getInfo(CL_MEM_HOST_PTR, &host), "clGetMemObjectInfo");
  check_cl(buffer.getInfo(CL_MEM_FLAGS, &flags), "clGetMemObjectInfo");
  if (!(flags & CL_MEM_USE_HOST_PTR) || host != data) {
    read_into_host(ctx, buffer, data, bytes);
    return;
  }
  // The buffer is `data`: mapping it is what makes the device's writes visible there (OpenCL 1.2, 5.4.3).
  cl_int err = CL_SUCCESS;
  void* mapped = ctx.queue().enqueueMapBuffer(buffer, CL_TRUE, CL_MAP_READ, 0, bytes, nullptr, nullptr, &err);
  check_cl(err, "clEnqueueMapBuffer");
  cl::Event unmapped;
  check_cl(ctx.queue().enqueueUnmapMemObject(buffer, mapped, nullptr, &unmapped), "clEnqueueUnmapMemObject");
  check_cl(unmapped.wait(), "clWaitForEvents");
}

DeviceImage DeviceImage::over_host(Context& ctx, void* data, int width, int height, int channels, bool upload,
                                   std::string_view scratch, SampleType type) {
  DeviceImage img = packed_shape(width, height, channels, type);
  img.buffer = buffer_over_host(ctx, data, img.byte_size(), upload, scratch);
  return img;
}

Image DeviceImage::download(Context& ctx) const {
  Image out = Image::uninitialized(width, height, channels, type);
  if (packed()) {
    read_into_host(ctx, buffer, out.data.data(), byte_size());
  } else {
    check_cl(ctx.queue().enqueueReadBufferRect(buffer, CL_TRUE, rect_origin(*this), {0, 0, 0}, rect_region(*this),
                                               pitch(), 0, row_bytes(), 0, out.data.data()),
             "clEnqueueReadBufferRect");
  }
  return out;
}

void enqueue_wait(Context& ctx, const std::vector<cl::Event>& wait, std::vector<cl::Event>& events) {
  if (wait.empty()) return;
  // Nothing after the barrier starts before the caller's commands are done.
  cl::Event barrier;
  check_cl(ctx.queue().enqueueBarrierWithWaitList(&wait, &barrier), "clEnqueueBarrierWithWaitList");
  events.push_back(std::move(barrier));
}

namespace {
// A packed image of `view`'s size in a scratch buffer kept between calls.
DeviceImage packed_twin(Context& ctx, const DeviceImage& view, std::string_view name) {
  DeviceImage twin;
  twin.width = view.width;
  twin.height = view.height;
  twin.channels = view.channels;
  twin.type = view.type;
  twin.buffer = ctx.scratch_buffer(name, view.byte_size());
  return twin;
}

void copy_rect(Context& ctx, const DeviceImage& from, const DeviceImage& to, std::vector<cl::Event>& events) {
  cl::Event e;
  check_cl(ctx.queue().enqueueCopyBufferRect(from.buffer, to.buffer, rect_origin(from), rect_origin(to),
                                             rect_region(from), from.pitch(), 0, to.pitch(), 0, nullptr, &e),
           "clEnqueueCopyBufferRect");
  events.push_back(std::move(e));
}
}  // namespace

DeviceImage packed_input(Context& ctx, const DeviceImage& view, std::vector<cl::Event>& events,
                         std::string_view scratch) {
  if (view.packed()) return view;
  DeviceImage twin = packed_twin(ctx, view, scratch);
  copy_rect(ctx, view, twin, events);
  return twin;
}

std::vector<cl::Event> on_packed_images(
    Context& ctx, const DeviceImage& input, DeviceImage& output, const std::vector<cl::Event>& wait,
    const std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>& enqueue) {
  std::vector<cl::Event> events;
  enqueue_wait(ctx, wait, events);
  const DeviceImage in = packed_input(ctx, input, events);
  DeviceImage out = output.packed() ? output : packed_twin(ctx, output, "view output");
  for (auto& e : enqueue(in, out)) events.push_back(std::move(e));
  unpack_output(ctx, out, output, events);
  return events;
}

void unpack_output(Context& ctx, const DeviceImage& packed, const DeviceImage& view, std::vector<cl::Event>& events) {
  if (packed.buffer() != view.buffer()) copy_rect(ctx, packed, view, events);
}

void wait_for(Context& ctx, const std::vector<cl::Event>& events, WaitMode mode) {
  // On a CPU device a polling host thread takes a core from the device's own threads (PoCL on 2 cores: a 1080p
  // box blur call 13.9 ms polling, 7.3 ms in clFinish, its kernel 6.9 ms).
  const bool cpu = (ctx.info().type & CL_DEVICE_TYPE_CPU) != 0;
  if (mode == WaitMode::finish || events.empty() || cpu) {
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
  const cl_int err = injected_fault(FaultPoint::enqueue)
                         ? CL_OUT_OF_RESOURCES
                         : ctx.queue().enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &event);
  if (err != CL_SUCCESS)
    throw ClError(err, fmt::format("clEnqueueNDRangeKernel({}, global {}{})", kernel_name(kernel), range_text(global),
                                   local.dimensions() ? ", local " + range_text(local) : ""));
  return event;
}

}  // namespace clf
