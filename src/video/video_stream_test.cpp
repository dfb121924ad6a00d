// SPDX-License-Identifier: Apache-2.0
// The video layer on its own: Y4M header parsing, frame layouts, reading and writing frame by frame,
// atomic output, and the streaming pipeline's ordering with any number of frames in flight.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "clfilters/video.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf::video {
namespace {
namespace fs = std::filesystem;

using testing::read_file;
using testing::write_file;

std::string random_bytes(std::size_t n, std::mt19937_64& rng) {
  std::string s(n, '\0');
  for (char& c : s) c = char(rng() & 0xFF);
  return s;
}

class VideoIo : public testing::TempDirTest {
 protected:
  VideoIo() : TempDirTest("clf-video") {}
  std::size_t file_count() const {
    return std::size_t(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
};

TEST(Y4mHeader, FrameSizeOfEveryColourSpace) {
  // 7x5: odd in both directions, so the chroma sizes round up.
  const std::vector<std::pair<std::string, std::size_t>> cases = {{"", 35 + 2 * 4 * 3},
                                                                  {" C420jpeg", 35 + 2 * 4 * 3},
                                                                  {" C420paldv", 35 + 2 * 4 * 3},
                                                                  {" C420mpeg2", 35 + 2 * 4 * 3},
                                                                  {" C420", 35 + 2 * 4 * 3},
                                                                  {" C422", 35 + 2 * 4 * 5},
                                                                  {" C444", 3 * 35},
                                                                  {" C444alpha", 4 * 35},
                                                                  {" Cmono", 35}};
  for (const auto& [tag, bytes] : cases) {
    const std::string header = "YUV4MPEG2 W7 H5 F24:1 Ip A1:1" + tag + " XYSCSS=ANY XMORE";
    const StreamInfo info = parse_y4m_header(header, "t.y4m");
    EXPECT_EQ(info.width, 7) << tag;
    EXPECT_EQ(info.height, 5) << tag;
    EXPECT_EQ(info.frame_bytes, bytes) << tag;
    EXPECT_EQ(info.luma_bytes(), 35u);
    EXPECT_EQ(info.colorspace, tag.empty() ? "420jpeg" : tag.substr(2));
    EXPECT_EQ(info.header, header) << "kept verbatim, X tags included";
  }
}

TEST(Y4mHeader, BadHeadersSayWhy) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"YUV4MPEG2", "no width"},
      {"YUV4MPEG2 W10", "no height"},
      {"YUV4MPEG2 W-1 H2", "width"},
      {"YUV4MPEG2 W2 H99999999", "height"},
      {"YUV4MPEG2 W65536 H65536", "too large"},
      {"YUV4MPEG2 W2 H2 A1", "ratio"},
      {"YUV4MPEG2 W2 H2 F:1", "ratio"},
      {"YUV4MPEG2 W2 H2 Ipp", "interlacing"},
      {"YUV4MPEG2 W2 H2 Z", "unknown tag"},
      {"YUV4MPEG2 W2 H2 Cyuyv", "colour space"},
      {"YUV4MPEG2 W2 H2 C420p17", "17-bit"},
      {"YUV4MPEG2 W2 H2 C422p7", "7-bit"},
      {"YUV4MPEG2W2 H2", "not a Y4M stream"},
      {"RIFF", "not a Y4M stream"},
  };
  for (const auto& [header, why] : cases) {
    const std::string message = testing::thrown_message<VideoError>([&] { parse_y4m_header(header, "name.y4m"); });
    EXPECT_NE(message.find(why), std::string::npos) << header << ": " << message;
    EXPECT_EQ(message.rfind("name.y4m: ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  // Control bytes from a stream never reach the terminal.
  const std::string message =
      testing::thrown_message<VideoError>([] { parse_y4m_header("YUV4MPEG2 W2 H2 Q\x1b[31m", "x"); });
  EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
}

TEST(RawVideo, LayoutsAndOptionParsing) {
  EXPECT_EQ(raw_stream_info(VideoFormat::nv12, 7, 5).frame_bytes, 35u + 2 * 4 * 3);
  EXPECT_EQ(raw_stream_info(VideoFormat::i420, 8, 6).frame_bytes, 48u + 2 * 4 * 3);
  EXPECT_EQ(parse_raw_format("NV12"), VideoFormat::nv12);
  EXPECT_EQ(parse_raw_format("i420"), VideoFormat::i420);
  EXPECT_THROW(parse_raw_format("yv12"), std::invalid_argument);
  EXPECT_EQ(parse_frame_size("1920x1080"), std::make_pair(1920, 1080));
  for (const char* bad : {"", "x", "10x", "x10", "0x10", "10x0", "-1x5", "10*10", "1e3x2", "10x10x"})
    EXPECT_THROW(parse_frame_size(bad), std::invalid_argument) << bad;
}

// The filters take fewer than 2^29 pixels: a frame of exactly 2^29 is refused when the header is read, with the
// stream's name, as is a frame over the pixel limit (--max-pixels, CLFILTERS_MAX_PIXELS).
TEST_F(VideoIo, FramesTheFiltersCannotTakeAreRefusedAtTheHeader) {
  EXPECT_EQ(parse_y4m_header("YUV4MPEG2 W32767 H16384 Cmono", "in.y4m").luma_bytes(), (std::size_t(1) << 29) - 16384);
  for (const char* header : {"YUV4MPEG2 W32768 H16384 Cmono", "YUV4MPEG2 W16384 H32768"}) {
    const std::string message = testing::thrown_message<VideoError>([&] { parse_y4m_header(header, "in.y4m"); });
    EXPECT_EQ(message.rfind("in.y4m: frames of ", 0), 0u) << message;
    EXPECT_NE(message.find("fewer than 2^29 pixels"), std::string::npos) << message;
  }
  write_file(path("in.yuv"), "");
  const std::string raw = testing::thrown_message<VideoError>(
      [&] { VideoReader::open_raw(path("in.yuv"), VideoFormat::nv12, 32768, 16384); });
  EXPECT_EQ(raw.rfind(path("in.yuv") + ": frames of 32768x16384", 0), 0u) << raw;
  EXPECT_THROW(raw_stream_info(VideoFormat::i420, 16384, 32768), std::invalid_argument);

  ScopedEnv limit("CLFILTERS_MAX_PIXELS", "100");
  EXPECT_EQ(parse_y4m_header("YUV4MPEG2 W10 H10", "in.y4m").luma_bytes(), 100u);
  const std::string over =
      testing::thrown_message<VideoError>([&] { parse_y4m_header("YUV4MPEG2 W11 H10", "in.y4m"); });
  EXPECT_NE(over.find("in.y4m: frames of 11x10 are too large (110 pixels, the limit is 100"), std::string::npos)
      << over;
  const std::string raw_over =
      testing::thrown_message<VideoError>([&] { VideoReader::open_raw(path("in.yuv"), VideoFormat::i420, 11, 10); });
  EXPECT_NE(raw_over.find("the limit is 100"), std::string::npos) << raw_over;
}

// Frames in flight that the device cannot hold are refused with the stream's name before anything is allocated,
// whatever the device: the sizes here are chosen from its own limits.
TEST_F(VideoIo, PipelineRefusesFramesTheDeviceCannotHold) {
  Context ctx;
  const DeviceInfo& device = ctx.info();
  ASSERT_GT(device.max_alloc_bytes, 0u);
  StreamInfo info = raw_stream_info(VideoFormat::nv12, 2, 2);
  info.frame_bytes = std::size_t(device.max_alloc_bytes) + 1;  // one buffer larger than the device allocates
  std::string message = testing::thrown_message<VideoError>([&] { check_pipeline_memory(ctx, info, "big.yuv"); });
  EXPECT_EQ(message.rfind("big.yuv: a frame of 2x2 Cnv12 takes ", 0), 0u) << message;
  EXPECT_NE(message.find("can allocate at once"), std::string::npos) << message;

  // Each buffer fits, but not as many as the frames in flight need.
  info.frame_bytes = std::size_t(device.max_alloc_bytes);
  const int slots = int(device.global_mem_bytes / device.max_alloc_bytes) + 2;
  message = testing::thrown_message<VideoError>(
      [&] { check_pipeline_memory(ctx, info, "big.yuv", {.frames_in_flight = slots}); });
  EXPECT_EQ(message.rfind("big.yuv: frames of 2x2 Cnv12 need ", 0), 0u) << message;
  EXPECT_NE(message.find(fmt::format("for {} frames in flight", slots)), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;

  // filter_video checks first: a header of 2 GiB frames with thousands in flight is refused, nothing allocated.
  write_file(path("huge.y4m"), "YUV4MPEG2 W16383 H32767 C444alpha\nFRAME\n");
  VideoReader reader = VideoReader::open_y4m(path("huge.y4m"));
  VideoWriter writer(path("out.y4m"), reader.info());
  const PlaneFilter never = [](const DeviceImage&, DeviceImage&) -> std::vector<cl::Event> {
    ADD_FAILURE() << "no frame may be filtered";
    return {};
  };
  message = testing::thrown_message<VideoError>(
      [&] { filter_video(ctx, reader, writer, never, {.frames_in_flight = 4096}); });
  EXPECT_EQ(message.rfind(path("huge.y4m") + ": ", 0), 0u) << message;
  EXPECT_NE(message.find("16383x32767 C444alpha"), std::string::npos) << message;
}

TEST_F(VideoIo, WritesAndReadsBackEveryFrameAndParameter) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  std::mt19937_64 rng(seed_);
  const std::string header = "YUV4MPEG2 W9 H3 F30:1 Ib A4:3 C422 XCOLORRANGE=FULL";
  const StreamInfo info = parse_y4m_header(header, "in");
  std::vector<std::string> frames, params = {"", " Ixyz", " XTAG=1 XOTHER"};
  for (int i = 0; i < 3; ++i) frames.push_back(random_bytes(info.frame_bytes, rng));
  {
    VideoWriter writer(path("v.y4m"), info);
    for (int i = 0; i < 3; ++i) {
      const auto* p = reinterpret_cast<const std::uint8_t*>(frames[std::size_t(i)].data());
      writer.write_frame(params[std::size_t(i)], {p, info.luma_bytes()},
                         {p + info.luma_bytes(), info.frame_bytes - info.luma_bytes()});
    }
    EXPECT_FALSE(fs::exists(path("v.y4m"))) << "only a temporary file until commit";
    writer.commit();
  }
  std::string expected = header + "\n";
  for (int i = 0; i < 3; ++i) expected += "FRAME" + params[std::size_t(i)] + "\n" + frames[std::size_t(i)];
  EXPECT_EQ(read_file(path("v.y4m")), expected);
  EXPECT_EQ(file_count(), 1u);

  VideoReader reader = VideoReader::open_y4m(path("v.y4m"));
  EXPECT_EQ(reader.info().header, header);
  std::vector<std::uint8_t> frame(info.frame_bytes);
  std::string parameters;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(reader.read_frame(frame, parameters));
    EXPECT_EQ(parameters, params[std::size_t(i)]);
    EXPECT_EQ(std::string(frame.begin(), frame.end()), frames[std::size_t(i)]);
  }
  EXPECT_FALSE(reader.read_frame(frame, parameters));
  EXPECT_EQ(reader.frames_read(), 3);
}

// A pipe read as a stream gets a larger buffer than the default 64 KiB (as much as pipe-max-size lets a process ask
// for), and its frames come through unchanged.
TEST_F(VideoIo, APipesBufferIsEnlarged) {
#ifdef F_GETPIPE_SZ
  std::mt19937_64 rng(seed_);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const StreamInfo info = parse_y4m_header("YUV4MPEG2 W8 H4 F25:1 C420jpeg", "in");
  const std::string frame = random_bytes(info.frame_bytes, rng);
  const std::string stream = info.header + "\nFRAME\n" + frame;
  ASSERT_EQ(::write(fds[1], stream.data(), stream.size()), ssize_t(stream.size()));
  ::close(fds[1]);
  const int before = ::fcntl(fds[0], F_GETPIPE_SZ);
  {
    VideoReader reader = VideoReader::open_y4m(fmt::format("/dev/fd/{}", fds[0]));
    EXPECT_GT(::fcntl(fds[0], F_GETPIPE_SZ), std::max(before, 64 << 10));
    std::vector<std::uint8_t> got(info.frame_bytes);
    std::string parameters;
    ASSERT_TRUE(reader.read_frame(got, parameters));
    EXPECT_EQ(std::string(got.begin(), got.end()), frame);
    EXPECT_FALSE(reader.read_frame(got, parameters));
  }
  ::close(fds[0]);
#else
  GTEST_SKIP() << "no F_SETPIPE_SZ here";
#endif
}

TEST_F(VideoIo, UncommittedOutputLeavesNothing) {
  const StreamInfo info = raw_stream_info(VideoFormat::i420, 4, 4);
  write_file(path("old.yuv"), "previous contents");
  {
    VideoWriter writer(path("old.yuv"), info);
    const std::vector<std::uint8_t> frame(info.frame_bytes, 7);
    writer.write_frame("", {frame.data(), 16}, {frame.data() + 16, info.frame_bytes - 16});
    EXPECT_EQ(file_count(), 2u);  // the old file and the temporary one
  }
  EXPECT_EQ(read_file(path("old.yuv")), "previous contents");
  EXPECT_EQ(file_count(), 1u);
  EXPECT_NE(testing::thrown_message<VideoError>([&] {
              VideoWriter(path("no/such/dir/out.y4m"), info);
            }).find("no/such/dir/out.y4m"),
            std::string::npos);
}

// The replaced file is held open across the rename and closed on another thread: the new stream is in place at once,
// the old one no longer reachable by its name, and the folder holds nothing else.
TEST_F(VideoIo, CommittedOutputReplacesTheOldFile) {
  const StreamInfo info = raw_stream_info(VideoFormat::i420, 4, 4);
  write_file(path("old.yuv"), "previous contents");
  std::vector<std::uint8_t> frame(info.frame_bytes);
  for (std::size_t i = 0; i < frame.size(); ++i) frame[i] = std::uint8_t(3 * i + 1);
  {
    VideoWriter writer(path("old.yuv"), info);
    writer.write_frame("", {frame.data(), 16}, {frame.data() + 16, info.frame_bytes - 16});
    writer.commit();
  }
  EXPECT_EQ(read_file(path("old.yuv")), std::string(frame.begin(), frame.end()));
  EXPECT_EQ(file_count(), 1u);
}

TEST_F(VideoIo, TruncatedAndCorruptFramesAreNamed) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  std::mt19937_64 rng(seed_);
  const std::string header = "YUV4MPEG2 W6 H4 Cmono";
  const std::string frame = random_bytes(24, rng);
  const std::string two = header + "\n" + "FRAME\n" + frame + "FRAME\n" + frame;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {two + "FRAME\n" + frame.substr(0, 10), "frame 3 is truncated: 10 of 24 bytes"},
      {two + "FRAME\n", "frame 3 is truncated: 0 of 24 bytes"},
      {two + "FRA", "frame 3 is truncated: the stream ends inside its FRAME line"},
      {two + "FRAMES\n" + frame, "frame 3: expected a FRAME line, found 'FRAMES'"},
      {two + "\n", "frame 3: expected a FRAME line"},
      {two + "FRAME" + std::string(70000, ' ') + "\n" + frame, "frame 3: FRAME line longer"},
  };
  std::vector<std::uint8_t> buffer(24);
  std::string parameters;
  // Read directly, and ahead: the error stays behind the frames before it, wherever the reading ahead stops.
  for (const std::size_t ahead : {0, 1, 2, 3, 100})
    for (const auto& [bytes, why] : cases) {
      SCOPED_TRACE(fmt::format("{} frames read ahead", ahead));
      write_file(path("s.y4m"), bytes);
      VideoReader reader = VideoReader::open_y4m(path("s.y4m"));
      reader.read_ahead(ahead * 24);
      ASSERT_TRUE(reader.read_frame(buffer, parameters));
      ASSERT_TRUE(reader.read_frame(buffer, parameters));
      EXPECT_EQ(std::string(buffer.begin(), buffer.end()), frame);
      const std::string message = testing::thrown_message<VideoError>([&] { reader.read_frame(buffer, parameters); });
      EXPECT_NE(message.find(why), std::string::npos) << message;
      EXPECT_EQ(message.rfind(path("s.y4m") + ": ", 0), 0u) << message;
    }
  // Raw: a partial frame at the end.
  write_file(path("r.yuv"), random_bytes(24 * 2 + 5, rng));
  VideoReader raw = VideoReader::open_raw(path("r.yuv"), VideoFormat::i420, 4, 4);
  ASSERT_TRUE(raw.read_frame(buffer, parameters));
  ASSERT_TRUE(raw.read_frame(buffer, parameters));
  EXPECT_NE(testing::thrown_message<VideoError>([&] {
              raw.read_frame(buffer, parameters);
            }).find("frame 3 is truncated: 5 of 24 bytes"),
            std::string::npos);
  // Headers.
  write_file(path("h.y4m"), "");
  EXPECT_NE(testing::thrown_message<VideoError>([&] { VideoReader::open_y4m(path("h.y4m")); }).find("empty stream"),
            std::string::npos);
  write_file(path("h.y4m"), "YUV4MPEG2 W6 H4");
  EXPECT_NE(
      testing::thrown_message<VideoError>([&] { VideoReader::open_y4m(path("h.y4m")); }).find("truncated Y4M header"),
      std::string::npos);
  EXPECT_NE(
      testing::thrown_message<VideoError>([&] { VideoReader::open_y4m(path("missing.y4m")); }).find("cannot open"),
      std::string::npos);
}

// Frames read ahead come back in order with their parameters, then the rest of the stream read directly, whether
// the reader is used at once, after the reading ahead has stopped, or after it was moved.
TEST_F(VideoIo, FramesReadAheadComeBackInOrder) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  std::mt19937_64 rng(seed_);
  const std::string header = "YUV4MPEG2 W5 H3 F25:1 C444";
  const StreamInfo info = parse_y4m_header(header, "in");
  std::vector<std::string> frames, params;
  std::string stream = header + "\n";
  for (int i = 0; i < 6; ++i) {
    frames.push_back(random_bytes(info.frame_bytes, rng));
    params.push_back(i % 2 ? fmt::format(" Xn={}", i) : "");
    stream += "FRAME" + params.back() + "\n" + frames.back();
  }
  write_file(path("a.y4m"), stream);
  for (const std::size_t ahead : {1, 4, 6, 7})
    for (const bool moved : {false, true}) {
      SCOPED_TRACE(fmt::format("{} frames ahead, moved {}", ahead, moved));
      VideoReader first = VideoReader::open_y4m(path("a.y4m"));
      first.read_ahead(ahead * info.frame_bytes + 1);
      VideoReader reader = moved ? std::move(first) : VideoReader::open_y4m(path("a.y4m"));
      if (!moved) reader.read_ahead(ahead * info.frame_bytes + 1);
      std::vector<std::uint8_t> frame(info.frame_bytes, 0xCD);
      std::string parameters = "poison";
      for (std::size_t i = 0; i < frames.size(); ++i) {
        ASSERT_TRUE(reader.read_frame(frame, parameters)) << i;
        EXPECT_EQ(std::string(frame.begin(), frame.end()), frames[i]) << i;
        EXPECT_EQ(parameters, params[i]) << i;
      }
      EXPECT_FALSE(reader.read_frame(frame, parameters));
      EXPECT_FALSE(reader.read_frame(frame, parameters)) << "the end stays the end";
      EXPECT_EQ(reader.frames_read(), 6);
    }
}

// The pipeline with a filter of its own (255 - p) so that its output cannot be confused with its input,
// on more frames than slots, so that slots are reused in every position.
TEST_F(VideoIo, PipelineKeepsOrderWithAnyNumberOfFramesInFlight) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  std::mt19937_64 rng(seed_);
  Context ctx;
  cl::Program& program = ctx.program_from_source("invert",
                                                 "kernel void invert(global const uchar* in, global uchar* out) {\n"
                                                 "  out[get_global_id(0)] = (uchar)(255 - in[get_global_id(0)]);\n}\n",
                                                 "");
  cl_int err = CL_SUCCESS;
  cl::Kernel invert(program, "invert", &err);
  check_cl(err, "clCreateKernel");
  const PlaneFilter filter = [&](const DeviceImage& in, DeviceImage& out) {
    check_cl(invert.setArg(0, in.buffer), "clSetKernelArg");
    check_cl(invert.setArg(1, out.buffer), "clSetKernelArg");
    cl::Event e;
    check_cl(ctx.queue().enqueueNDRangeKernel(invert, cl::NullRange, cl::NDRange(in.byte_size()), cl::NullRange,
                                              nullptr, &e),
             "clEnqueueNDRangeKernel");
    return std::vector<cl::Event>{e};
  };

  const int w = 33, h = 17, frames = 11;
  const std::string header = fmt::format("YUV4MPEG2 W{} H{} F25:1 C420mpeg2", w, h);
  const StreamInfo info = parse_y4m_header(header, "in");
  std::string input = header + "\n", expected = header + "\n";
  for (int i = 0; i < frames; ++i) {
    const std::string frame = random_bytes(info.frame_bytes, rng);
    const std::string params = i % 3 ? fmt::format(" XN={}", i) : "";
    std::string out = frame;
    for (std::size_t k = 0; k < info.luma_bytes(); ++k) out[k] = char(255 - std::uint8_t(frame[k]));
    input += "FRAME" + params + "\n" + frame;
    expected += "FRAME" + params + "\n" + out;
  }
  write_file(path("in.y4m"), input);
  for (int slots : {1, 2, 3, 5, 16}) {
    SCOPED_TRACE(fmt::format("{} frames in flight", slots));
    VideoReader reader = VideoReader::open_y4m(path("in.y4m"));
    VideoWriter writer(path("out.y4m"), reader.info());
    const PipelineStats stats = filter_video(ctx, reader, writer, filter, {.frames_in_flight = slots});
    writer.commit();
    EXPECT_EQ(stats.frames, frames);
    EXPECT_GE(stats.kernel_ms, 0.0);
    EXPECT_TRUE(read_file(path("out.y4m")) == expected) << "output differs from the frames inverted in order";
  }

  // A truncated frame: every complete frame before it is written, then the error comes out.
  const std::size_t cut = input.size() - info.frame_bytes / 3;
  write_file(path("cut.y4m"), input.substr(0, cut));
  VideoReader reader = VideoReader::open_y4m(path("cut.y4m"));
  VideoWriter writer(path("cut-out.y4m"), reader.info());
  const std::string message = testing::thrown_message<VideoError>([&] { filter_video(ctx, reader, writer, filter); });
  EXPECT_NE(message.find(fmt::format("frame {} is truncated", frames)), std::string::npos) << message;
  EXPECT_EQ(writer.frames_written(), frames - 1);
}

}  // namespace
}  // namespace clf::video
