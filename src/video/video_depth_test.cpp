// SPDX-License-Identifier: Apache-2.0
// Streams of 9 to 16 bits: the Y4M colour spaces and raw formats ffmpeg writes for them, their layouts, reading and
// writing bit for bit, P010's shift, truncated frames, refused depths, and a round trip through ffmpeg itself.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "clfilters/video.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf::video {
namespace {

using testing::read_file;
using testing::write_file;

// `n` samples drawn in 0 .. 2^bits - 1, each stored as a little-endian 16-bit word.
std::string random_samples(std::size_t n, int bits, std::mt19937_64& rng) {
  std::string s(2 * n, '\0');
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned v = unsigned(rng() & ((1u << bits) - 1));
    s[2 * i] = char(v & 0xFF);
    s[2 * i + 1] = char(v >> 8);
  }
  return s;
}

unsigned sample_at(const std::string& bytes, std::size_t i) {
  return unsigned(std::uint8_t(bytes[2 * i])) | unsigned(std::uint8_t(bytes[2 * i + 1])) << 8;
}

struct Plane {
  char name;
  int width, height;
};

// Each plane as expected: its name and size, 2 bytes a sample, one after the other from offset 0.
::testing::AssertionResult layout_is(const StreamInfo& info, int bits, const std::vector<Plane>& planes) {
  if (info.bits != bits) return ::testing::AssertionFailure() << info.bits << " bits, expected " << bits;
  if (info.planes.size() != planes.size()) return ::testing::AssertionFailure() << info.planes.size() << " planes";
  std::size_t offset = 0;
  for (std::size_t i = 0; i < planes.size(); ++i) {
    const PlaneInfo& p = info.planes[i];
    if (p.name != planes[i].name || p.width != planes[i].width || p.height != planes[i].height || p.offset != offset ||
        p.sample_bytes != 2 || p.bytes() != 2u * std::size_t(p.width * p.height))
      return ::testing::AssertionFailure() << "plane " << i << ": '" << p.name << "' " << p.width << "x" << p.height
                                           << " at " << p.offset << ", " << p.sample_bytes << " bytes a sample";
    offset += p.bytes();
  }
  if (info.frame_bytes != offset) return ::testing::AssertionFailure() << "frame_bytes " << info.frame_bytes;
  if (info.luma_bytes() != 2u * std::size_t(info.width * info.height))
    return ::testing::AssertionFailure() << "luma_bytes " << info.luma_bytes();
  return ::testing::AssertionSuccess();
}

// 7x5: odd in both directions, so the chroma sizes round up.
const std::vector<Plane> k420 = {{'y', 7, 5}, {'u', 4, 3}, {'v', 4, 3}}, k422 = {{'y', 7, 5}, {'u', 4, 5}, {'v', 4, 5}},
                         k444 = {{'y', 7, 5}, {'u', 7, 5}, {'v', 7, 5}}, kMono = {{'y', 7, 5}};

TEST(Y4mDepth, EveryColourSpaceOfNineToSixteenBits) {
  for (int bits : {9, 10, 12, 14, 16}) {
    for (const auto& [cs, planes] :
         {std::pair{fmt::format("420p{}", bits), k420}, std::pair{fmt::format("422p{}", bits), k422},
          std::pair{fmt::format("444p{}", bits), k444}, std::pair{fmt::format("mono{}", bits), kMono}}) {
      const std::string header = fmt::format("YUV4MPEG2 W7 H5 F25:1 Ip A1:1 C{} XCOLORRANGE=LIMITED", cs);
      const StreamInfo info = parse_y4m_header(header, "t.y4m");
      EXPECT_TRUE(layout_is(info, bits, planes)) << cs;
      EXPECT_EQ(info.colorspace, cs);
      EXPECT_EQ(info.header, header) << "kept verbatim";
    }
  }
  // 8-bit streams keep 1 byte a sample.
  const StreamInfo eight = parse_y4m_header("YUV4MPEG2 W7 H5 C420jpeg", "t.y4m");
  EXPECT_EQ(eight.bits, 8);
  EXPECT_EQ(eight.frame_bytes, 35u + 2 * 4 * 3);
  for (const PlaneInfo& p : eight.planes) EXPECT_EQ(p.sample_bytes, 1);
}

TEST(Y4mDepth, DepthsOutsideEightToSixteenBitsAreRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"C420p7", "C420p7 is 7-bit video"}, {"C420p17", "C420p17 is 17-bit video"},
      {"C444p32", "is 32-bit video"},      {"Cmono7", "Cmono7 is 7-bit video"},
      {"Cmono17", "is 17-bit video"},      {"C420p8", "unsupported Y4M colour space 'C420p8'"},
      {"C420p010", "colour space"},        {"C444alphap10", "colour space"},
      {"Cyuv420p10", "colour space"},      {"C411p10", "colour space"},
  };
  for (const auto& [tag, why] : cases) {
    const std::string message =
        testing::thrown_message<VideoError>([&] { parse_y4m_header("YUV4MPEG2 W8 H6 " + tag, "name.y4m"); });
    EXPECT_NE(message.find(why), std::string::npos) << tag << ": " << message;
    EXPECT_EQ(message.rfind("name.y4m: ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(RawDepth, LayoutsOfEveryFormat) {
  const std::vector<Plane> p010 = {{'y', 7, 5}, {'c', 8, 3}};
  const std::vector<std::tuple<std::string, VideoFormat, int, std::vector<Plane>>> cases = {
      {"P010", VideoFormat::p010, 10, p010},
      {"yuv420p10le", VideoFormat::yuv420p10le, 10, k420},
      {"YUV420P16LE", VideoFormat::yuv420p16le, 16, k420},
      {"yuv444p10le", VideoFormat::yuv444p10le, 10, k444},
      {"yuv444p16le", VideoFormat::yuv444p16le, 16, k444},
      {"gray16le", VideoFormat::gray16le, 16, kMono},
  };
  for (const auto& [name, format, bits, planes] : cases) {
    ASSERT_EQ(parse_raw_format(name), format) << name;
    const StreamInfo info = raw_stream_info(format, 7, 5);
    EXPECT_TRUE(layout_is(info, bits, planes)) << name;
    std::string lower = name;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(info.colorspace, lower);
  }
  EXPECT_EQ(raw_stream_info(VideoFormat::p010, 8, 6).frame_bytes, 2u * (48 + 2 * 4 * 3));
  EXPECT_EQ(raw_stream_info(VideoFormat::i420, 7, 5).bits, 8);
  for (const char* bad : {"p016", "yuv420p10be", "yuv420p10", "gray10le", "yuv422p10le"}) {
    try {
      parse_raw_format(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("p010, yuv420p10le, yuv420p16le, yuv444p10le, yuv444p16le or gray16le"),
                std::string::npos)
          << e.what();
    }
  }
}

class DepthIo : public testing::TempDirTest {
 protected:
  DepthIo() : TempDirTest("clf-depth") {}

  // Writes `frames` of `info` with VideoWriter, one part per plane, and returns the file's bytes.
  std::string write_stream(const StreamInfo& info, const std::vector<std::string>& frames, const std::string& name) {
    VideoWriter writer(path(name), info);
    for (const std::string& f : frames) {
      std::vector<std::span<const std::uint8_t>> parts;
      for (const PlaneInfo& p : info.planes)
        parts.emplace_back(reinterpret_cast<const std::uint8_t*>(f.data()) + p.offset, p.bytes());
      writer.write_frame("", parts);
    }
    writer.commit();
    return read_file(path(name));
  }

  // Every frame of `reader`, as read.
  static std::vector<std::string> read_stream(VideoReader& reader) {
    std::vector<std::string> frames;
    std::vector<std::uint8_t> frame(reader.info().frame_bytes);
    std::string parameters;
    while (reader.read_frame(frame, parameters)) frames.emplace_back(frame.begin(), frame.end());
    return frames;
  }
};

TEST_F(DepthIo, SamplesRoundTripBitForBit) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  std::mt19937_64 rng(seed_);
  const int w = 9, h = 7;
  for (const std::string cs : {"420p10", "422p12", "444p16", "mono9", "420p14"}) {
    const std::string header = fmt::format("YUV4MPEG2 W{} H{} F25:1 C{}", w, h, cs);
    const StreamInfo info = parse_y4m_header(header, "in");
    std::vector<std::string> frames;
    std::string expected = header + "\n";
    for (int i = 0; i < 3; ++i) {
      frames.push_back(random_samples(info.frame_bytes / 2, info.bits, rng));
      expected += "FRAME\n" + frames.back();
    }
    EXPECT_TRUE(write_stream(info, frames, "v.y4m") == expected) << cs;
    VideoReader reader = VideoReader::open_y4m(path("v.y4m"));
    EXPECT_TRUE(read_stream(reader) == frames) << cs;
  }
  for (VideoFormat format : {VideoFormat::yuv420p10le, VideoFormat::yuv420p16le, VideoFormat::yuv444p10le,
                             VideoFormat::yuv444p16le, VideoFormat::gray16le}) {
    const StreamInfo info = raw_stream_info(format, w, h);
    std::vector<std::string> frames;
    for (int i = 0; i < 2; ++i) frames.push_back(random_samples(info.frame_bytes / 2, info.bits, rng));
    EXPECT_TRUE(write_stream(info, frames, "v.yuv") == frames[0] + frames[1]) << info.colorspace;
    VideoReader reader = VideoReader::open_raw(path("v.yuv"), format, w, h);
    EXPECT_TRUE(read_stream(reader) == frames) << info.colorspace;
  }
}

// P010 stores 10 bits in the high bits of each word: read, the samples come down to 0..1023; written, they go up
// again with the low 6 bits zero, and a sample over 1023 is written as 1023.
TEST_F(DepthIo, P010IsShiftedOnReadAndWrite) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  std::mt19937_64 rng(seed_);
  const int w = 7, h = 5;
  const StreamInfo info = raw_stream_info(VideoFormat::p010, w, h);
  const std::string values = random_samples(info.frame_bytes / 2, 10, rng);
  std::string stored(values.size(), '\0'), noisy(values.size(), '\0');
  for (std::size_t i = 0; i < values.size() / 2; ++i) {
    const unsigned high = sample_at(values, i) << 6, low = unsigned(rng() & 63);
    stored[2 * i] = char(high & 0xFF), stored[2 * i + 1] = char(high >> 8);
    noisy[2 * i] = char((high | low) & 0xFF), noisy[2 * i + 1] = char(high >> 8);
  }
  write_file(path("in.p010"), stored + noisy);
  VideoReader reader = VideoReader::open_raw(path("in.p010"), VideoFormat::p010, w, h);
  const std::vector<std::string> frames = read_stream(reader);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_TRUE(frames[0] == values) << "valid P010 read as its 10-bit values";
  EXPECT_TRUE(frames[1] == values) << "the low 6 bits are dropped";
  EXPECT_TRUE(write_stream(info, {values}, "out.p010") == stored) << "written back as valid P010";

  std::string over = values;
  over[0] = char(0xDC), over[1] = char(0x05);  // 1500
  const std::string written = write_stream(info, {over}, "over.p010");
  EXPECT_EQ(sample_at(written, 0), 1023u << 6);
  EXPECT_TRUE(written.substr(2) == stored.substr(2));
}

TEST_F(DepthIo, TruncatedTenBitFramesAreNamed) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  std::mt19937_64 rng(seed_);
  const std::string header = "YUV4MPEG2 W6 H4 C420p10";
  const std::size_t bytes = 2 * (24 + 2 * 3 * 2);
  ASSERT_EQ(parse_y4m_header(header, "x").frame_bytes, bytes);
  const std::string frame = random_samples(bytes / 2, 10, rng);
  // Cut inside a sample: an odd number of bytes.
  write_file(path("cut.y4m"), header + "\nFRAME\n" + frame + "FRAME\n" + frame + "FRAME\n" + frame.substr(0, 11));
  VideoReader reader = VideoReader::open_y4m(path("cut.y4m"));
  std::vector<std::uint8_t> buffer(bytes);
  std::string parameters;
  ASSERT_TRUE(reader.read_frame(buffer, parameters));
  ASSERT_TRUE(reader.read_frame(buffer, parameters));
  std::string message = testing::thrown_message<VideoError>([&] { reader.read_frame(buffer, parameters); });
  EXPECT_EQ(message, fmt::format("{}: frame 3 is truncated: 11 of {} bytes before the end of the stream",
                                 path("cut.y4m"), bytes));
  write_file(path("cut.yuv"), frame + frame.substr(0, 7));
  VideoReader raw = VideoReader::open_raw(path("cut.yuv"), VideoFormat::yuv420p10le, 6, 4);
  ASSERT_TRUE(raw.read_frame(buffer, parameters));
  message = testing::thrown_message<VideoError>([&] { raw.read_frame(buffer, parameters); });
  EXPECT_NE(message.find(fmt::format("frame 2 is truncated: 7 of {} bytes", bytes)), std::string::npos) << message;
}

// The pipeline hands the filter u16 images of each filtered plane; the others are copied bit for bit. The filter is
// one of the test's own (1023 - p on uint16), so that its output cannot be confused with its input.
TEST_F(DepthIo, PipelineFiltersSixteenBitPlanes) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  std::mt19937_64 rng(seed_);
  Context& ctx = testing::test_context();
  cl::Program& program =
      ctx.program_from_source("invert10",
                              "kernel void invert10(global const ushort* in, global ushort* out) {\n"
                              "  out[get_global_id(0)] = (ushort)(1023 - in[get_global_id(0)]);\n}\n",
                              "");
  cl_int err = CL_SUCCESS;
  cl::Kernel invert(program, "invert10", &err);
  check_cl(err, "clCreateKernel");
  int calls = 0;
  const PlaneFilter filter = [&](const DeviceImage& in, DeviceImage& out) {
    EXPECT_EQ(in.type, SampleType::u16);
    EXPECT_EQ(out.type, SampleType::u16);
    ++calls;
    check_cl(invert.setArg(0, in.buffer), "clSetKernelArg");
    check_cl(invert.setArg(1, out.buffer), "clSetKernelArg");
    cl::Event e;
    check_cl(ctx.queue().enqueueNDRangeKernel(invert, cl::NullRange, cl::NDRange(std::size_t(in.width) * in.height),
                                              cl::NullRange, nullptr, &e),
             "clEnqueueNDRangeKernel");
    return std::vector<cl::Event>{e};
  };
  const std::string header = "YUV4MPEG2 W13 H7 F25:1 C422p10";
  const StreamInfo info = parse_y4m_header(header, "in");
  std::string input = header + "\n", expected = header + "\n";
  const int frames = 4;
  for (int i = 0; i < frames; ++i) {
    const std::string frame = random_samples(info.frame_bytes / 2, 10, rng);
    std::string out = frame;
    const PlaneInfo& v = info.planes[2];  // V filtered, Y and U copied
    for (std::size_t k = v.offset / 2; k < (v.offset + v.bytes()) / 2; ++k) {
      const unsigned inverted = 1023 - sample_at(frame, k);
      out[2 * k] = char(inverted & 0xFF), out[2 * k + 1] = char(inverted >> 8);
    }
    input += "FRAME\n" + frame;
    expected += "FRAME\n" + out;
  }
  write_file(path("in.y4m"), input);
  VideoReader reader = VideoReader::open_y4m(path("in.y4m"));
  VideoWriter writer(path("out.y4m"), reader.info());
  const PipelineStats stats =
      filter_video(ctx, reader, writer, filter, same_layout_plan(reader.info(), {2}), {.frames_in_flight = 2});
  writer.commit();
  EXPECT_EQ(stats.frames, frames);
  EXPECT_EQ(calls, frames);
  EXPECT_TRUE(read_file(path("out.y4m")) == expected) << "V inverted, Y and U copied";
}

// ffmpeg's own 10-bit streams: read and written back byte for byte, and what is written decodes.
TEST_F(DepthIo, FfmpegStreamsRoundTripByteForByte) {
  if (std::system("command -v ffmpeg >/dev/null 2>&1") != 0) GTEST_SKIP() << "ffmpeg is not installed";
  const std::string ffmpeg = "ffmpeg -hide_banner -loglevel error -nostdin -y";
  const auto run = [&](const std::string& args) {
    return std::system(fmt::format("{} {} 2>>{}", ffmpeg, args, path("ffmpeg.log")).c_str());
  };
  // ffmpeg writes Y4M of more than 8 bits only with -strict -1 (they are not in the Y4M specification).
  ASSERT_EQ(run(fmt::format("-f lavfi -i testsrc2=size=66x34:rate=5 -frames:v 3 -pix_fmt yuv420p10le -strict -1 "
                            "-f yuv4mpegpipe {}",
                            path("in.y4m"))),
            0)
      << read_file(path("ffmpeg.log"));
  VideoReader reader = VideoReader::open_y4m(path("in.y4m"));
  EXPECT_EQ(reader.info().colorspace, "420p10");
  const std::vector<std::string> frames = read_stream(reader);
  ASSERT_EQ(frames.size(), 3u);
  unsigned largest = 0;
  for (std::size_t i = 0; i < frames[0].size() / 2; ++i) largest = std::max(largest, sample_at(frames[0], i));
  EXPECT_GT(largest, 255u) << "10-bit samples";
  EXPECT_LE(largest, 1023u);
  const std::string input = read_file(path("in.y4m"));
  EXPECT_TRUE(write_stream(reader.info(), frames, "out.y4m") == input) << "the stream written back differs";
  EXPECT_EQ(run(fmt::format("-i {} -f null -", path("out.y4m"))), 0) << read_file(path("ffmpeg.log"));

  // P010 against ffmpeg's own conversion of the same frames to planar 10-bit: the same samples, U and V interleaved.
  ASSERT_EQ(run(fmt::format("-i {} -pix_fmt yuv420p10le -f rawvideo {}", path("in.y4m"), path("planar.yuv"))), 0);
  ASSERT_EQ(run(fmt::format("-f rawvideo -pix_fmt yuv420p10le -s 66x34 -i {} -pix_fmt p010le -f rawvideo {}",
                            path("planar.yuv"), path("in.p010"))),
            0)
      << read_file(path("ffmpeg.log"));
  VideoReader planar_reader = VideoReader::open_raw(path("planar.yuv"), VideoFormat::yuv420p10le, 66, 34);
  VideoReader p010_reader = VideoReader::open_raw(path("in.p010"), VideoFormat::p010, 66, 34);
  const std::vector<std::string> planar = read_stream(planar_reader), p010 = read_stream(p010_reader);
  ASSERT_EQ(p010.size(), 3u);
  ASSERT_EQ(planar.size(), 3u);
  const std::size_t luma = 66 * 34, chroma = 33 * 17;
  for (std::size_t f = 0; f < 3; ++f) {
    EXPECT_TRUE(p010[f].substr(0, 2 * luma) == planar[f].substr(0, 2 * luma)) << "Y of frame " << f + 1;
    for (std::size_t i = 0; i < chroma; ++i) {
      ASSERT_EQ(sample_at(p010[f], luma + 2 * i), sample_at(planar[f], luma + i)) << "U " << i;
      ASSERT_EQ(sample_at(p010[f], luma + 2 * i + 1), sample_at(planar[f], luma + chroma + i)) << "V " << i;
    }
  }
  EXPECT_TRUE(write_stream(p010_reader.info(), p010, "out.p010") == read_file(path("in.p010")))
      << "P010 written back differs";
}

}  // namespace
}  // namespace clf::video
