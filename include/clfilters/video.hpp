// SPDX-License-Identifier: Apache-2.0
// Video streams: Y4M (YUV4MPEG2) and raw planar YUV (NV12, I420, YUV444P, grey and their 10- and 16-bit forms, P010)
// read and written frame by frame from files or pipes ("-" = stdin/stdout), and a streaming pipeline that filters any
// set of planes of each frame on the device with any plane filter while the next frames are read and the previous ones
// written.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "clfilters/device_image.hpp"
#include "clfilters/export.hpp"
#include "clfilters/runtime.hpp"

namespace CLF_API clf {
namespace io_detail {
class RegisteredTempFile;
}
namespace video {

// Any problem with a video stream. what() is one line naming the stream and the problem, e.g.
// "in.y4m: frame 3 is truncated: 1000 of 1152 bytes before the end of the stream".
class VideoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The input stream of filter_video ended inside a frame or holds a corrupt one: what() names the stream and the
// frame. Every complete frame before it has been written when this is thrown, so the caller may commit the output.
class InputStreamError : public VideoError {
 public:
  using VideoError::VideoError;
};

// Raw formats: nv12 (Y, then U and V interleaved at half size), i420 (Y, U, V; chroma at half size), yuv444p
// (Y, U, V at full size), gray (Y alone: what sobel writes for raw input); with 16-bit little-endian samples as
// ffmpeg's pix_fmts of those names store them: yuv420p10le and yuv420p16le (as i420), yuv444p10le and yuv444p16le,
// gray16le, the value in the low bits, and p010 (as nv12, the 10-bit value in the high bits of each word).
enum class VideoFormat {
  y4m,
  nv12,
  i420,
  yuv444p,
  gray,
  p010,
  yuv420p10le,
  yuv420p16le,
  yuv444p10le,
  yuv444p16le,
  gray16le
};

// "nv12", "i420", "yuv444p", "gray", "p010", "yuv420p10le", "yuv420p16le", "yuv444p10le", "yuv444p16le" or
// "gray16le" (case-insensitive); throws std::invalid_argument for anything else.
VideoFormat parse_raw_format(const std::string& text);
// "WxH", both at least 1; throws std::invalid_argument.
std::pair<int, int> parse_frame_size(const std::string& text);

// Whether `path` is a regular file that starts with the Y4M signature "YUV4MPEG2 " (false if it cannot
// be read, and for pipes and devices, which are not read here since that would consume their bytes).
bool looks_like_y4m(const std::string& path);
// Whether `path` names an existing pipe, socket or device (/dev/stdin, a FIFO, <(ffmpeg ...)).
bool is_stream_path(const std::string& path);

// One plane of a frame: row-major and packed, 8-bit samples or, in streams of more than 8 bits, uint16 (2 bytes,
// little-endian, 0 .. 2^bits - 1). Chroma planes of 4:2:0 are (w+1)/2 x (h+1)/2, of 4:2:2 (w+1)/2 x h, of 4:4:4
// w x h. NV12's and P010's one chroma plane ('c') interleaves U and V: its width counts both, 2 samples a pixel.
struct PlaneInfo {
  char name = 'y';  // 'y', 'u', 'v', 'a' (alpha of C444alpha) or 'c' (NV12's or P010's interleaved U and V)
  int width = 0;    // in samples
  int height = 0;
  std::size_t offset = 0;  // bytes from the frame's start
  int sample_bytes = 1;    // 1, or 2 in streams of more than 8 bits

  std::size_t bytes() const { return std::size_t(width) * std::size_t(height) * std::size_t(sample_bytes); }
};

// The shape of every frame of a stream. A frame is stored as its planes one after the other, the
// full-resolution Y plane first.
struct StreamInfo {
  VideoFormat format = VideoFormat::y4m;
  int width = 0;
  int height = 0;
  std::string colorspace;  // Y4M: the C tag ("420jpeg" when absent, "420p10", ...); raw: the format's name
  std::string header;      // Y4M: the header line as read, without '\n'; written back unchanged
  int bits = 8;            // the sample depth, 8..16: samples of more than 8 bits take 2 bytes
  std::size_t frame_bytes = 0;
  std::vector<PlaneInfo> planes;  // in stream order, Y first; their bytes add up to frame_bytes
  int rate_num = 0;               // the frame rate, rate_num / rate_den frames a second (Y4M's F tag); 0 if unknown
  int rate_den = 0;

  std::size_t sample_bytes() const { return bits > 8 ? 2 : 1; }
  std::size_t luma_bytes() const { return std::size_t(width) * std::size_t(height) * sample_bytes(); }
  // Seconds of video in `frames` frames, or a negative number when the rate is unknown.
  double seconds_of(std::int64_t frames) const {
    return rate_num > 0 && rate_den > 0 ? double(frames) * rate_den / rate_num : -1.0;
  }
};

// Parses a Y4M header line (without its '\n'). `name` labels errors. Throws VideoError for a bad header, an
// unknown colour space or a depth outside 8..16 bits. The depths are ffmpeg's tags: C420p10, C422p12, C444p16,
// Cmono16, ... (9 to 16 bits).
StreamInfo parse_y4m_header(const std::string& line, const std::string& name);
// The layout of a raw stream; throws std::invalid_argument for a bad size.
StreamInfo raw_stream_info(VideoFormat format, int width, int height);
// The grey stream of `input`'s size: Y4M with the header's C tag made Cmono (frame rate, aspect, interlacing and
// other tags kept, ffmpeg's XYSCSS chroma tag dropped), raw `gray` for raw input. 8-bit: throws
// std::invalid_argument for a deeper input.
StreamInfo grey_stream_info(const StreamInfo& input);

// The planes `text` names in `info`, as indices into info.planes, in stream order: "y", "u", "v", "all" (Y, U and
// V, never alpha), or a comma list such as "y,u". Throws std::invalid_argument, naming the stream (`name`), for an
// unknown name, a plane the stream lacks (U or V of Cmono or gray) and NV12's or P010's chroma (U and V interleaved
// in one plane, which the filters do not take).
std::vector<int> select_planes(const StreamInfo& info, const std::string& text, const std::string& name);

// Reads a stream frame by frame. Only the current frame is held (and those read ahead), so memory stays bounded.
class VideoReader {
 public:
  // Opens `path` ("-" = stdin) as Y4M and reads its header. Throws VideoError.
  static VideoReader open_y4m(const std::string& path);
  // Opens `path` ("-" = stdin) as raw planar YUV of the given layout. Throws VideoError.
  static VideoReader open_raw(const std::string& path, VideoFormat format, int width, int height);

  VideoReader(VideoReader&& other) noexcept;
  VideoReader& operator=(VideoReader&&) = delete;
  ~VideoReader();

  const StreamInfo& info() const { return info_; }
  const std::string& name() const { return name_; }
  // Reads the next frame into `frame` (info().frame_bytes) and, for Y4M, the text after "FRAME" on
  // its frame line into `parameters` (e.g. " Ixyz", kept for the output). Returns false at a clean end
  // of the stream. Throws VideoError naming the frame (counted from 1) if it is truncated or corrupt.
  // P010's samples come shifted down to 0..1023, as the other 10-bit formats hold them.
  bool read_frame(std::span<std::uint8_t> frame, std::string& parameters);
  std::int64_t frames_read() const { return frames_read_; }
  // Reads frames ahead from now on, on a thread of its own, up to `max_bytes` of them (and no more than a quarter of
  // the memory available), so that a slow start (a device's context and programs) overlaps reading the stream
  // instead of holding back whatever writes it. read_frame returns those frames first and then reads on; an error
  // met ahead is thrown by the read_frame that reaches it. The thread stops at max_bytes, at the end of the stream
  // or at an error; destroying or moving the reader stops it after the frame it is reading.
  void read_ahead(std::size_t max_bytes);

 private:
  struct ReadAhead;
  VideoReader(std::FILE* file, bool owned, std::string name);
  void read_header();
  // The next frame from the stream itself.
  bool read_next_frame(std::span<std::uint8_t> frame, std::string& parameters);
  void join_read_ahead();
  [[noreturn]] void fail(const std::string& problem) const;

  std::FILE* file_ = nullptr;
  bool owned_ = false;
  std::string name_;
  StreamInfo info_;
  std::int64_t frames_read_ = 0;    // returned by read_frame
  std::int64_t frames_parsed_ = 0;  // read from the stream, ahead or not: the number in error messages
  std::unique_ptr<ReadAhead> read_ahead_;
};

// Writes a stream frame by frame. "-" streams to stdout; any other path is written to a temporary
// file in the same folder that commit() renames into place, so a failed run leaves no partial output
// (an existing FIFO or character device, such as /dev/null, is written directly; a symbolic link is written
// through; a directory, another kind of file or a file the user may not write is refused with a VideoError).
class VideoWriter {
 public:
  // Creates the output and writes the Y4M header (the input's header line, unchanged).
  VideoWriter(const std::string& path, const StreamInfo& info);
  ~VideoWriter();
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  // Writes one frame: the FRAME line with `parameters` (Y4M), then `parts` one after the other (their sizes must
  // add up to the stream's frame_bytes), and flushes it. Throws VideoError naming the output. P010's samples,
  // 0..1023 (larger ones are written as 1023), are shifted into the high bits of each word.
  void write_frame(const std::string& parameters, std::span<const std::span<const std::uint8_t>> parts);
  // The same with two parts: the Y plane, then the rest of the frame.
  void write_frame(const std::string& parameters, std::span<const std::uint8_t> luma,
                   std::span<const std::uint8_t> rest);
  // Flushes and renames the temporary file into place (not fsync'ed, as ffmpeg's outputs).
  void commit();
  std::int64_t frames_written() const { return frames_written_; }

 private:
  void write(const void* data, std::size_t size);
  [[noreturn]] void fail(const std::string& problem) const;

  std::string path_;
  std::string temp_path_;    // empty when writing stdout or a non-regular file directly
  std::string target_path_;  // what temp_path_ is renamed to: the path, or the file a symbolic link points to
  std::unique_ptr<io_detail::RegisteredTempFile> temp_registration_;  // removes temp_path_ on SIGINT/SIGTERM
  std::FILE* file_ = nullptr;
  bool owned_ = false;
  StreamInfo info_;
  std::int64_t frames_written_ = 0;
  std::vector<std::uint8_t> shifted_;  // P010: the frame with its samples shifted up
};

// Filters one plane of one frame on the device: `input` and `output` are 1-channel images of the plane's size
// (the chroma planes of 4:2:0 and 4:2:2 are smaller than Y), u8, or u16 in streams of more than 8 bits. Enqueues on
// ctx.queue() and returns the kernels' events without waiting.
using PlaneFilter = std::function<std::vector<cl::Event>(const DeviceImage& input, DeviceImage& output)>;

// How one plane of an output frame is made from the input frame: plane `source` of the input, filtered or copied
// bit for bit. A filtered plane has its source's size; so has a copied one.
struct OutputPlane {
  int source = 0;
  bool filtered = false;
};

// What filter_video makes of each frame: the output stream's layout (the VideoWriter's StreamInfo) and, for each
// of its planes, where it comes from.
struct VideoPlan {
  StreamInfo output = {};
  std::vector<OutputPlane> planes = {};  // one per output.planes
};

// The input's own layout, the planes `filtered` (indices into input.planes, e.g. from select_planes) filtered and
// the others copied. Throws std::invalid_argument for an index out of range.
VideoPlan same_layout_plan(const StreamInfo& input, const std::vector<int>& filtered);
// A grey stream (grey_stream_info) of the filtered Y plane: what sobel writes for video.
VideoPlan grey_output_plan(const StreamInfo& input);

struct PipelineOptions {
  int frames_in_flight = 3;  // host and device buffers; frame n+2 is read while n+1 computes, n downloads
  bool progress = false;     // frames, fps and elapsed time on stderr, updated in place
  // Called after each frame is written with the number written so far (on the calling thread): for progress
  // reports of the caller's own, which decide themselves how often to print.
  std::function<void(std::int64_t frames)> on_frame = nullptr;
};

struct PipelineStats {
  std::int64_t frames = 0;
  double kernel_ms = 0;  // profiling intervals of every kernel, summed
  double seconds = 0;    // wall clock of the whole stream
};

// Refuses, before anything is allocated, a stream whose frames in flight do not fit: each buffer within the
// device's largest allocation, all of them within its global memory, and the host memory they take within what
// this process may allocate (the address space left under `ulimit -v`, the machine's memory). Throws VideoError
// naming the stream (`name`), the frame size and the limit. filter_video checks this first.
void check_pipeline_memory(const Context& ctx, const StreamInfo& info, const std::string& name,
                           const PipelineOptions& options = {});
// The same for a plan's filtered planes (the call above checks the Y-only plan). Both throw std::invalid_argument for a
// plan that does not fit the stream.
void check_pipeline_memory(const Context& ctx, const StreamInfo& info, const VideoPlan& plan, const std::string& name,
                           const PipelineOptions& options = {});
// The part of that check that needs no device, the host staging buffers: a caller runs it before opening one, whose
// driver may itself need more address space than is left (PoCL's threads on a 16-core machine under `ulimit -v`).
void check_pipeline_host_memory(const StreamInfo& info, const std::string& name, const PipelineOptions& options = {});
void check_pipeline_host_memory(const StreamInfo& info, const VideoPlan& plan, const std::string& name,
                                const PipelineOptions& options = {});

// Reads every frame of `reader`, filters its Y plane with `filter` and writes the frame to `writer`
// with everything else copied bit for bit. Upload, compute and download of successive frames overlap:
// uploads and downloads go on their own queues, chained to ctx.queue() with events. When a frame
// cannot be read, every frame before it is written and flushed, then its error is thrown as an InputStreamError;
// whether to commit the complete frames is the caller's choice (the clfilters tool does). Device and output
// errors leave the writer uncommitted.
PipelineStats filter_video(Context& ctx, VideoReader& reader, VideoWriter& writer, const PlaneFilter& filter,
                           const PipelineOptions& options = {});
// The same for any plan: each filtered plane of `plan` goes through `filter` at its own size (one upload, filter
// and download per plane, on the same queues), the other planes are copied from the frame as read. `writer` must
// have been opened with plan.output. Throws std::invalid_argument for a plan that does not fit the reader's stream.
PipelineStats filter_video(Context& ctx, VideoReader& reader, VideoWriter& writer, const PlaneFilter& filter,
                           const VideoPlan& plan, const PipelineOptions& options = {});

}  // namespace video
}  // namespace clf
