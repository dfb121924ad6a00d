// SPDX-License-Identifier: Apache-2.0
// The streaming video pipeline (see filter_video in clfilters/video.hpp).
//
// Each frame goes through three stages on three in-order queues: upload on `upload`, the filter on
// ctx.queue(), download on `download`, chained with events. A frame occupies one of N slots (host
// staging memory and a pair of device images per filtered plane) from its read until it is written, so while
// the host reads frame n+2 and writes frame n-1, the device uploads, filters and downloads frames n+1 and n.
// Memory is N frames whatever the length of the stream. Each stage handles the frame's filtered planes one after
// the other; the frame's last upload and last download stand for all of them, the queues being in order. Frames are
// read on a thread of their own (FrameReader) and written on the calling thread, so that reading and writing
// overlap, as they do in `cat IN | cat > OUT`.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

#include "clfilters/video.hpp"
#include "io/image_io_internal.hpp"
#include "runtime/fault_injection.hpp"

namespace clf::video {
namespace {

using Clock = std::chrono::steady_clock;

// Host memory the device can copy from and to directly (pinned on discrete GPUs, which is what lets
// copies run alongside kernels there): a buffer allocated with CL_MEM_ALLOC_HOST_PTR and kept mapped.
struct StagingBuffer {
  cl::Buffer buffer;
  std::uint8_t* data = nullptr;
};

StagingBuffer make_staging(Context& ctx, cl::CommandQueue& queue, std::size_t bytes) {
  StagingBuffer s;
  s.buffer = ctx.buffer(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
  cl_int err = CL_SUCCESS;
  if (injected_fault(FaultPoint::map))
    err = CL_MAP_FAILURE;
  else
    s.data = static_cast<std::uint8_t*>(
        queue.enqueueMapBuffer(s.buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, &err));
  if (err != CL_SUCCESS) throw ClError(err, fmt::format("clEnqueueMapBuffer({} bytes)", bytes));
  return s;
}

// Where the filtered planes of a plan are: their plane in the input frame and their place in the slot's
// `filtered` staging buffer (one after the other).
struct FilteredPlane {
  PlaneInfo plane;             // in the input frame
  std::size_t staging_offset;  // in Slot::filtered
};

std::vector<FilteredPlane> filtered_planes(const StreamInfo& info, const VideoPlan& plan) {
  std::vector<FilteredPlane> planes;
  std::size_t offset = 0;
  for (const OutputPlane& p : plan.planes)
    if (p.filtered) {
      planes.push_back({info.planes[std::size_t(p.source)], offset});
      offset += planes.back().plane.bytes();
    }
  return planes;
}

std::size_t filtered_bytes(const StreamInfo& info, const VideoPlan& plan) {
  std::size_t bytes = 0;
  for (const FilteredPlane& p : filtered_planes(info, plan)) bytes += p.plane.bytes();
  return bytes;
}

// The plan must fit the stream: every source plane exists and has the output plane's size.
void check_plan(const StreamInfo& info, const VideoPlan& plan) {
  if (plan.planes.size() != plan.output.planes.size())
    throw std::invalid_argument("filter_video: the plan has one entry per output plane");
  for (std::size_t i = 0; i < plan.planes.size(); ++i) {
    const OutputPlane& p = plan.planes[i];
    if (p.source < 0 || std::size_t(p.source) >= info.planes.size())
      throw std::invalid_argument(fmt::format("filter_video: output plane {} names no input plane", i));
    const PlaneInfo &from = info.planes[std::size_t(p.source)], &to = plan.output.planes[i];
    if (from.width != to.width || from.height != to.height)
      throw std::invalid_argument(fmt::format("filter_video: output plane {} is {}x{}, its source {}x{}", i, to.width,
                                              to.height, from.width, from.height));
  }
}

// The plan of the Y-only calls: the stream's layout, Y filtered.
VideoPlan luma_plan(const StreamInfo& info) {
  return same_layout_plan(info, {0});
}

struct Slot {
  StagingBuffer frame;                       // the frame as read (its copied planes are written from here unchanged)
  StagingBuffer filtered;                    // the filtered planes as downloaded, one after the other
  std::vector<DeviceImage> inputs, outputs;  // one pair per filtered plane
  std::string parameters;
  cl::Event downloaded;
  std::vector<cl::Event> kernels;
};

class Pipeline {
 public:
  Pipeline(Context& ctx, const StreamInfo& info, const std::vector<FilteredPlane>& planes, std::size_t filtered_bytes,
           int slot_count)
      : ctx_(ctx) {
    cl_int err = CL_SUCCESS;
    upload_ = cl::CommandQueue(ctx.context(), ctx.device(), 0, &err);
    check_cl(err, "clCreateCommandQueue");
    download_ = cl::CommandQueue(ctx.context(), ctx.device(), 0, &err);
    check_cl(err, "clCreateCommandQueue");
    slots_.resize(std::size_t(slot_count));
    try {
      for (Slot& s : slots_) {
        s.frame = make_staging(ctx, upload_, info.frame_bytes);
        if (filtered_bytes) s.filtered = make_staging(ctx, upload_, filtered_bytes);
        for (const FilteredPlane& p : planes) {
          // Streams of more than 8 bits hold uint16 samples: their planes are u16 images.
          const SampleType type = p.plane.sample_bytes == 2 ? SampleType::u16 : SampleType::u8;
          s.inputs.push_back(DeviceImage::allocate(ctx, p.plane.width, p.plane.height, 1, type));
          s.outputs.push_back(DeviceImage::allocate(ctx, p.plane.width, p.plane.height, 1, type));
        }
      }
    } catch (...) {
      release();  // an allocation or map refused part way: what was mapped is unmapped
      throw;
    }
  }

  ~Pipeline() { release(); }

  // Whatever happened, no copy may still be using the staging memory when it is unmapped and freed.
  void release() {
    ctx_.queue().finish();
    upload_.finish();
    download_.finish();
    for (Slot& s : slots_) {
      for (StagingBuffer* b : {&s.frame, &s.filtered})
        if (b->data) upload_.enqueueUnmapMemObject(b->buffer, b->data), b->data = nullptr;
    }
    upload_.finish();
  }

  Context& ctx_;
  cl::CommandQueue upload_, download_;
  std::vector<Slot> slots_;
};

// Reads frame n into slot n % slots on a thread of its own once frame n - slots has been written (release), so that
// the calling thread's writes overlap the reads: on the NVIDIA H100 machine, 60 frames of 3840x2160 4:2:0 through
// epsilon file to file took 1.30 s read and written in turn, against 0.75 s for cat IN | cat > OUT.
class FrameReader {
 public:
  FrameReader(VideoReader& reader, std::vector<Slot>& slots, std::size_t frame_bytes)
      : thread_([this, &reader, &slots, frame_bytes] { run(reader, slots, frame_bytes); }) {}
  ~FrameReader() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
  }
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;

  // Waits until frame `n` is in its slot (true) or the stream ended before it (false); rethrows what reading it threw.
  bool wait_for(std::int64_t n) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return read_ > n || ended_; });
    if (read_ > n) return true;
    if (error_) std::rethrow_exception(error_);
    return false;
  }
  // Frame `n` is written: its slot may take frame n + slots.
  void release(std::int64_t n) {
    {
      std::lock_guard lock(mutex_);
      released_ = n + 1;
    }
    changed_.notify_all();
  }

 private:
  void run(VideoReader& reader, std::vector<Slot>& slots, std::size_t frame_bytes) {
    const auto count = std::int64_t(slots.size());
    for (std::int64_t n = 0;; ++n) {
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || n < released_ + count; });
        if (stop_) return;
      }
      Slot& s = slots[std::size_t(n % count)];
      bool got = false;
      std::exception_ptr error;
      try {
        got = reader.read_frame({s.frame.data, frame_bytes}, s.parameters);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard lock(mutex_);
        if (got) ++read_;
        ended_ = !got, error_ = error;
      }
      changed_.notify_all();
      if (!got) return;
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::int64_t read_ = 0, released_ = 0;  // frames read; frames written, whose slots are free again
  bool ended_ = false, stop_ = false;
  std::exception_ptr error_;
  std::jthread thread_;  // last: it starts once the members it uses are
};

class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled), start_(Clock::now()), last_(start_) {}
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  void frame_done(std::int64_t frames) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    print(frames, false);
  }
  void finish(std::int64_t frames) {
    if (enabled_) print(frames, true);
  }

 private:
  void print(std::int64_t frames, bool last) {
    const double s = elapsed();
    // \r and clear-to-end-of-line: the line is rewritten in place on the terminal.
    std::fprintf(stderr, "\r%lld frames, %.1f fps, %.1f s elapsed\x1b[K%s", static_cast<long long>(frames),
                 s > 0 ? double(frames) / s : 0.0, s, last ? "\n" : "");
    std::fflush(stderr);
  }
  bool enabled_;
  Clock::time_point start_, last_;
};

std::size_t frames_in_flight(const PipelineOptions& options) {
  return std::size_t(std::max(1, options.frames_in_flight));
}

// Refuses `needed` bytes of `what` for the stream's frames in flight, over `limit`.
[[noreturn]] void refuse_frames_in_flight(const StreamInfo& info, const std::string& name, std::uint64_t slots,
                                          std::uint64_t needed, const std::string& what, std::uint64_t limit) {
  throw VideoError(fmt::format(
      "{}: frames of {}x{} C{} need {} of {} for {} frames in flight, more than the {} available", name, info.width,
      info.height, info.colorspace, io_detail::readable_bytes(needed), what, slots, io_detail::readable_bytes(limit)));
}

}  // namespace

void check_pipeline_host_memory(const StreamInfo& info, const std::string& name, const PipelineOptions& options) {
  check_pipeline_host_memory(info, luma_plan(info), name, options);
}

void check_pipeline_host_memory(const StreamInfo& info, const VideoPlan& plan, const std::string& name,
                                const PipelineOptions& options) {
  check_plan(info, plan);
  const std::uint64_t slots = frames_in_flight(options),
                      staging = slots * (info.frame_bytes + filtered_bytes(info, plan));
  if (const std::uint64_t available = io_detail::allocatable_bytes(); staging > available)
    refuse_frames_in_flight(info, name, slots, staging, "host memory", available);
}

void check_pipeline_memory(const Context& ctx, const StreamInfo& info, const std::string& name,
                           const PipelineOptions& options) {
  check_pipeline_memory(ctx, info, luma_plan(info), name, options);
}

void check_pipeline_memory(const Context& ctx, const StreamInfo& info, const VideoPlan& plan, const std::string& name,
                           const PipelineOptions& options) {
  check_plan(info, plan);
  const DeviceInfo& device = ctx.info();
  const std::uint64_t slots = frames_in_flight(options), frame = info.frame_bytes,
                      filtered = filtered_bytes(info, plan);
  // Per slot: the frame's staging buffer, the filtered planes', and two device images of each filtered plane.
  const std::uint64_t staging = slots * (frame + filtered), images = slots * 2 * filtered;
  auto refuse = [&](std::uint64_t needed, const std::string& what, std::uint64_t limit) {
    refuse_frames_in_flight(info, name, slots, needed, what, limit);
  };
  if (device.max_alloc_bytes != 0 && frame > device.max_alloc_bytes)
    throw VideoError(fmt::format("{}: a frame of {}x{} C{} takes {}, more than {} can allocate at once ({})", name,
                                 info.width, info.height, info.colorspace, io_detail::readable_bytes(frame),
                                 device.name, io_detail::readable_bytes(device.max_alloc_bytes)));
  if (device.global_mem_bytes != 0 && staging + images > device.global_mem_bytes)
    refuse(staging + images, "device memory", device.global_mem_bytes);
  // The staging buffers are host memory; on a CPU device, so are the images.
  const std::uint64_t host = staging + ((device.type & CL_DEVICE_TYPE_CPU) != 0 ? images : 0);
  if (const std::uint64_t available = io_detail::allocatable_bytes(); host > available)
    refuse(host, "host memory", available);
}

PipelineStats filter_video(Context& ctx, VideoReader& reader, VideoWriter& writer, const PlaneFilter& filter,
                           const PipelineOptions& options) {
  return filter_video(ctx, reader, writer, filter, luma_plan(reader.info()), options);
}

PipelineStats filter_video(Context& ctx, VideoReader& reader, VideoWriter& writer, const PlaneFilter& filter,
                           const VideoPlan& plan, const PipelineOptions& options) {
  const StreamInfo& info = reader.info();
  check_plan(info, plan);
  const std::vector<FilteredPlane> planes = filtered_planes(info, plan);
  const std::size_t frame_bytes = info.frame_bytes, staged_bytes = filtered_bytes(info, plan);
  const std::size_t slot_count = frames_in_flight(options);
  check_pipeline_memory(ctx, info, plan, reader.name(), options);
  // Within the limits, a device or host that still cannot allocate is named with the sizes, in one line.
  std::optional<Pipeline> pipe_storage;
  try {
    pipe_storage.emplace(ctx, info, planes, staged_bytes, int(slot_count));
  } catch (const ClError& e) {
    if (e.code() != CL_MEM_OBJECT_ALLOCATION_FAILURE && e.code() != CL_OUT_OF_RESOURCES &&
        e.code() != CL_OUT_OF_HOST_MEMORY && e.code() != CL_INVALID_BUFFER_SIZE)
      throw;
    throw VideoError(fmt::format("{}: {} could not allocate {} frames in flight of {}x{} C{} ({}): {}", reader.name(),
                                 ctx.info().name, slot_count, info.width, info.height, info.colorspace,
                                 io_detail::readable_bytes(slot_count * (frame_bytes + 3 * staged_bytes)), e.what()));
  } catch (const std::bad_alloc&) {
    throw VideoError(fmt::format("{}: not enough memory for {} frames in flight of {}x{} C{} ({})", reader.name(),
                                 slot_count, info.width, info.height, info.colorspace,
                                 io_detail::readable_bytes(slot_count * (frame_bytes + 3 * staged_bytes))));
  }
  Pipeline& pipe = *pipe_storage;
  Progress progress(options.progress);
  PipelineStats stats;

  std::vector<std::span<const std::uint8_t>> parts(plan.planes.size());
  std::int64_t next_read = 0, next_write = 0;  // frames are written in the order they were read
  FrameReader frames(reader, pipe.slots_, frame_bytes);
  auto write_oldest = [&] {
    Slot& s = pipe.slots_[std::size_t(next_write) % slot_count];
    if (!planes.empty()) {
      check_cl(s.downloaded.wait(), "clWaitForEvents");
      stats.kernel_ms += kernel_milliseconds(s.kernels);
    }
    for (std::size_t i = 0, k = 0; i < plan.planes.size(); ++i) {
      const OutputPlane& p = plan.planes[i];
      const PlaneInfo& source = info.planes[std::size_t(p.source)];
      parts[i] = p.filtered
                     ? std::span<const std::uint8_t>(s.filtered.data + planes[k++].staging_offset, source.bytes())
                     : std::span<const std::uint8_t>(s.frame.data + source.offset, source.bytes());
    }
    writer.write_frame(s.parameters, parts);
    frames.release(next_write);
    ++next_write;
    ++stats.frames;
    progress.frame_done(stats.frames);
    if (options.on_frame) options.on_frame(stats.frames);
  };

  for (;;) {
    Slot& s = pipe.slots_[std::size_t(next_read) % slot_count];
    bool got_frame = false;
    try {
      got_frame = frames.wait_for(next_read);
    } catch (const VideoError& e) {
      // A truncated or corrupt frame: everything before it is written and flushed first.
      while (next_write < next_read) write_oldest();
      progress.finish(stats.frames);
      throw InputStreamError(e.what());
    }
    if (!got_frame) break;
    if (!planes.empty()) {
      cl::Event uploaded, computed;
      for (std::size_t k = 0; k < planes.size(); ++k)
        check_cl(pipe.upload_.enqueueWriteBuffer(s.inputs[k].buffer, CL_FALSE, 0, planes[k].plane.bytes(),
                                                 s.frame.data + planes[k].plane.offset, nullptr, &uploaded),
                 "clEnqueueWriteBuffer");
      check_cl(pipe.upload_.flush(), "clFlush");
      const std::vector<cl::Event> after_upload{uploaded};  // the last upload: the queue is in order
      check_cl(ctx.queue().enqueueBarrierWithWaitList(&after_upload), "clEnqueueBarrierWithWaitList");
      s.kernels.clear();
      for (std::size_t k = 0; k < planes.size(); ++k) {
        std::vector<cl::Event> events = filter(s.inputs[k], s.outputs[k]);
        s.kernels.insert(s.kernels.end(), events.begin(), events.end());
      }
      // A marker covers every command the filter enqueued, whatever events it returned.
      check_cl(ctx.queue().enqueueMarkerWithWaitList(nullptr, &computed), "clEnqueueMarkerWithWaitList");
      check_cl(ctx.queue().flush(), "clFlush");
      const std::vector<cl::Event> after_compute{computed};
      for (std::size_t k = 0; k < planes.size(); ++k)
        check_cl(pipe.download_.enqueueReadBuffer(s.outputs[k].buffer, CL_FALSE, 0, planes[k].plane.bytes(),
                                                  s.filtered.data + planes[k].staging_offset,
                                                  k == 0 ? &after_compute : nullptr, &s.downloaded),
                 "clEnqueueReadBuffer");
      check_cl(pipe.download_.flush(), "clFlush");
    }
    ++next_read;
    // One slot stays free for the reader to fill while the device has the others; with one slot, read and write
    // take turns.
    if (next_read - next_write >= std::max<std::int64_t>(1, std::int64_t(slot_count) - 1)) write_oldest();
  }
  while (next_write < next_read) write_oldest();
  progress.finish(stats.frames);
  stats.seconds = progress.elapsed();
  return stats;
}

}  // namespace clf::video
