// SPDX-License-Identifier: Apache-2.0
// Plane layouts and plane choice, and every filter through the streaming pipeline on small streams of every Y4M
// colour space and raw layout: the filtered planes must equal the filter's CPU reference on that plane (within 1
// for the bilateral, its contract in docs/SPEC.md), the others be copied bit for bit. Plane sizes and output
// streams are computed and parsed here with code of their own.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>

#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/sobel.hpp"
#include "clfilters/video.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf::video {
namespace {
namespace fs = std::filesystem;

using Plane = testing::VideoPlane;
using Frame = testing::VideoFrame;
using testing::video_planes;

std::size_t frame_bytes(const std::vector<Plane>& planes) {
  std::size_t n = 0;
  for (const Plane& p : planes) n += std::size_t(p.width) * std::size_t(p.height);
  return n;
}

TEST(VideoPlanes, LayoutsOfEveryColourSpace) {
  for (const char* cs : {"420jpeg", "420paldv", "420mpeg2", "420", "422", "444", "444alpha", "mono"}) {
    const StreamInfo info = parse_y4m_header(fmt::format("YUV4MPEG2 W7 H5 C{}", cs), "t.y4m");
    const std::vector<Plane> expected = video_planes(cs, 7, 5);
    ASSERT_EQ(info.planes.size(), expected.size()) << cs;
    std::size_t offset = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(info.planes[i].name, expected[i].name) << cs << " plane " << i;
      EXPECT_EQ(info.planes[i].width, expected[i].width) << cs << " plane " << i;
      EXPECT_EQ(info.planes[i].height, expected[i].height) << cs << " plane " << i;
      EXPECT_EQ(info.planes[i].offset, offset) << cs << " plane " << i;
      offset += std::size_t(expected[i].width) * std::size_t(expected[i].height);
    }
    EXPECT_EQ(info.frame_bytes, offset) << cs;
  }
  for (const auto& [format, cs] : {std::pair{VideoFormat::nv12, "nv12"}, std::pair{VideoFormat::i420, "i420"},
                                   std::pair{VideoFormat::yuv444p, "yuv444p"}, std::pair{VideoFormat::gray, "gray"}}) {
    const StreamInfo info = raw_stream_info(format, 7, 5);
    EXPECT_EQ(info.colorspace, cs);
    EXPECT_EQ(info.planes.size(), video_planes(cs, 7, 5).size()) << cs;
    EXPECT_EQ(info.frame_bytes, frame_bytes(video_planes(cs, 7, 5))) << cs;
  }
  EXPECT_EQ(parse_raw_format("YUV444P"), VideoFormat::yuv444p);
}

TEST(VideoPlanes, PlaneChoice) {
  const StreamInfo c420 = parse_y4m_header("YUV4MPEG2 W7 H5 C420", "a.y4m");
  const StreamInfo mono = parse_y4m_header("YUV4MPEG2 W7 H5 Cmono", "m.y4m");
  const StreamInfo alpha = parse_y4m_header("YUV4MPEG2 W7 H5 C444alpha", "a.y4m");
  EXPECT_EQ(select_planes(c420, "y", "a"), std::vector<int>({0}));
  EXPECT_EQ(select_planes(c420, "v,y", "a"), std::vector<int>({0, 2}));
  EXPECT_EQ(select_planes(c420, "u,u,", "a"), std::vector<int>({1}));
  EXPECT_EQ(select_planes(c420, "all", "a"), std::vector<int>({0, 1, 2}));
  EXPECT_EQ(select_planes(alpha, "all", "a"), std::vector<int>({0, 1, 2})) << "alpha is never filtered";
  EXPECT_EQ(select_planes(mono, "all", "m"), std::vector<int>({0}));
  auto message = [](const StreamInfo& info, const std::string& text) {
    try {
      select_planes(info, text, "name.y4m");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(mono, "u").find("Cmono"), std::string::npos) << message(mono, "u");
  EXPECT_NE(message(mono, "y,v").find("name.y4m"), std::string::npos) << message(mono, "y,v");
  EXPECT_NE(message(raw_stream_info(VideoFormat::nv12, 8, 6), "all").find("nv12"), std::string::npos);
  EXPECT_EQ(select_planes(raw_stream_info(VideoFormat::nv12, 8, 6), "y", "n"), std::vector<int>({0}));
  EXPECT_NE(message(c420, "z").find("unknown plane"), std::string::npos);
  EXPECT_NE(message(c420, "").find("no plane"), std::string::npos);
}

TEST(VideoPlanes, GreyStreamKeepsTheHeadersOtherTags) {
  const StreamInfo in =
      parse_y4m_header("YUV4MPEG2 W7 H5 F30000:1001 It A10:11 C420jpeg XYSCSS=420JPEG XCUSTOM=kept", "a.y4m");
  EXPECT_EQ(in.rate_num, 30000);
  EXPECT_EQ(in.rate_den, 1001);
  EXPECT_DOUBLE_EQ(in.seconds_of(30), 30 * 1001 / 30000.0);
  const StreamInfo grey = grey_stream_info(in);
  EXPECT_EQ(grey.header, "YUV4MPEG2 W7 H5 F30000:1001 It A10:11 Cmono XCUSTOM=kept");
  EXPECT_EQ(grey.frame_bytes, 35u);
  EXPECT_EQ(grey_stream_info(parse_y4m_header("YUV4MPEG2 W7 H5 F25:1", "b")).header, "YUV4MPEG2 W7 H5 F25:1 Cmono");
  const StreamInfo raw = grey_stream_info(raw_stream_info(VideoFormat::i420, 7, 5));
  EXPECT_EQ(raw.format, VideoFormat::gray);
  EXPECT_EQ(raw.frame_bytes, 35u);
  EXPECT_LT(raw_stream_info(VideoFormat::i420, 7, 5).seconds_of(3), 0) << "raw video has no rate";
}

// ---------------------------------------------------------------------------------------------------
// Every filter through the pipeline

// The filter of one case: its device call on a plane, and its CPU reference on the same plane.
struct PlaneCase {
  std::string name;
  std::function<std::vector<cl::Event>(Context&, const DeviceImage&, DeviceImage&)> device;
  std::function<Image(const Image&)> reference;
  double tolerance = 0;  // docs/SPEC.md: 0 for the integer filters, 1 for the bilateral

  PlaneFilter device_filter() const {
    return [call = device](const DeviceImage& in, DeviceImage& out) { return call(testing::test_context(), in, out); };
  }
};

// The same parameters in every case, so that each program is built once for the whole suite.
// A border of each kind, so that the chroma planes' edges are checked with more than one rule.
const BoxBlurParams kBox{.diameter = 5, .border = {.mode = BorderMode::reflect101, .value = 0}};
const EpsilonParams kEpsilon{.radius = 2, .threshold = 24, .border = {}};
const BilateralParams kBilateral{.sigma_spatial = 1.5,
                                 .sigma_range = 20,
                                 .radius = 2,
                                 .border = {.mode = BorderMode::constant, .value = 77},
                                 .window = BilateralWindow::square,
                                 .distance = BilateralDistance::l2};
const SobelParams kSobel{};

std::vector<PlaneCase> plane_cases() {
  return {
      {"box-blur", [](Context& c, const DeviceImage& i, DeviceImage& o) { return box_blur(c, i, o, kBox); },
       [](const Image& p) { return box_blur_reference(p, kBox); }},
      {"epsilon", [](Context& c, const DeviceImage& i, DeviceImage& o) { return epsilon(c, i, o, kEpsilon); },
       [](const Image& p) { return epsilon_reference(p, kEpsilon); }},
      {"bilateral", [](Context& c, const DeviceImage& i, DeviceImage& o) { return bilateral(c, i, o, kBilateral); },
       [](const Image& p) { return bilateral_reference(p, kBilateral); }, 1.0},
      {"sobel", [](Context& c, const DeviceImage& i, DeviceImage& o) { return sobel(c, i, o, kSobel); },
       [](const Image& p) { return sobel_reference(p, kSobel); }},
  };
}

class VideoPlanesPipeline : public testing::TempDirTest {
 protected:
  VideoPlanesPipeline() : TempDirTest("clf-planes") {}

  // Random frames of `planes`, each frame different; every other frame has FRAME parameters.
  std::vector<Frame> random_frames(const std::vector<Plane>& planes, int count) {
    std::vector<Frame> frames;
    for (int f = 0; f < count; ++f) {
      Frame frame{f % 2 ? fmt::format(" Ixyz XFRAME={}", f) : "", {}};
      for (const Plane& p : planes)
        frame.planes.push_back(testing::random_image(p.width, p.height, 1, SampleType::u8, seed_ + 17 * f + p.name));
      frames.push_back(std::move(frame));
    }
    return frames;
  }

  // Runs `filter` over the stream at `in_path` with `plan`, poisoning every device output first so that a pixel
  // the filter leaves unwritten shows. Returns the output file's bytes.
  std::string run(VideoReader& reader, const VideoPlan& plan, const PlaneCase& filter, const std::string& out_name,
                  int frames_in_flight = 2) {
    Context& ctx = testing::test_context();
    VideoWriter writer(path(out_name), plan.output);
    const auto poisoned = [&](const DeviceImage& in, DeviceImage& out) {
      const cl_uchar poison = 0xA5;
      check_cl(ctx.queue().enqueueFillBuffer(out.buffer, poison, 0, out.byte_size()), "clEnqueueFillBuffer");
      return filter.device(ctx, in, out);
    };
    const PipelineStats stats =
        filter_video(ctx, reader, writer, poisoned, plan, {.frames_in_flight = frames_in_flight});
    writer.commit();
    EXPECT_EQ(stats.frames, reader.frames_read());
    return testing::read_file(path(out_name));
  }
};

// What the output must hold: `filtered` planes (indices) through the reference, the others as they were.
std::vector<Frame> expected_frames(const std::vector<Frame>& in, const std::vector<int>& filtered,
                                   const PlaneCase& filter) {
  std::vector<Frame> out = in;
  for (Frame& f : out)
    for (int i : filtered) {
      f.planes[std::size_t(i)] = filter.reference(f.planes[std::size_t(i)]);
      f.tolerance[std::size_t(i)] = filter.tolerance;
    }
  return out;
}

TEST_F(VideoPlanesPipeline, EveryFilterOnEveryY4mColourSpace) {
  const int w = 37, h = 23;
  const std::vector<PlaneCase> cases = plane_cases();
  for (const char* cs : {"420jpeg", "420paldv", "420mpeg2", "420", "422", "444", "444alpha", "mono"}) {
    const std::vector<Plane> planes = video_planes(cs, w, h);
    const std::string header = fmt::format("YUV4MPEG2 W{} H{} F25:1 It A1:1 C{} XYSCSS=ANY XCUSTOM=kept", w, h, cs);
    const std::vector<Frame> frames = random_frames(planes, 3);
    testing::write_file(path("in.y4m"), testing::stream_bytes({header, frames}));
    for (const PlaneCase& filter : cases) {
      const std::string label = fmt::format("{} on C{}", filter.name, cs);
      VideoReader reader = VideoReader::open_y4m(path("in.y4m"));
      if (filter.name == "sobel") {
        // A grey stream of the Y plane's magnitude, the header's other tags kept.
        const std::string bytes = run(reader, grey_output_plan(reader.info()), filter, "out.y4m");
        const std::string grey_header = fmt::format("YUV4MPEG2 W{} H{} F25:1 It A1:1 Cmono XCUSTOM=kept", w, h);
        std::vector<Frame> expected = expected_frames(frames, {0}, filter);
        for (Frame& f : expected) f.planes.resize(1);
        EXPECT_TRUE(testing::streams_equal({grey_header, expected},
                                           testing::parse_stream(bytes, true, video_planes("mono", w, h))))
            << label;
        continue;
      }
      // Every plane for the blurs; Y and V for epsilon, where there is a V.
      const std::vector<int> filtered =
          select_planes(reader.info(), filter.name == "epsilon" && planes.size() > 1 ? "y,v" : "all", reader.name());
      const std::string bytes = run(reader, same_layout_plan(reader.info(), filtered), filter, "out.y4m");
      EXPECT_TRUE(testing::streams_equal({header, expected_frames(frames, filtered, filter)},
                                         testing::parse_stream(bytes, true, planes)))
          << label;
    }
  }
}

TEST_F(VideoPlanesPipeline, APlanThatDoesNotFitTheStreamIsRefused) {
  const StreamInfo info = raw_stream_info(VideoFormat::i420, 8, 6);
  VideoPlan no_source = same_layout_plan(info, {0});
  no_source.planes[1].source = 7;
  EXPECT_THROW(check_pipeline_host_memory(info, no_source, "a.yuv"), std::invalid_argument);
  EXPECT_THROW(same_layout_plan(info, {3}), std::invalid_argument);
  // U's 4x3 plane cannot be the 8x6 Y plane of a grey output.
  VideoPlan wrong_size = grey_output_plan(info);
  wrong_size.planes[0].source = 1;
  testing::write_file(path("in.yuv"), std::string(info.frame_bytes, 'x'));
  VideoReader reader = VideoReader::open_raw(path("in.yuv"), VideoFormat::i420, 8, 6);
  VideoWriter writer(path("out.yuv"), wrong_size.output);
  EXPECT_THROW(filter_video(testing::test_context(), reader, writer, plane_cases()[0].device_filter(), wrong_size),
               std::invalid_argument);
}

TEST_F(VideoPlanesPipeline, RawLayoutsAndAChromaPlaneAlone) {
  const int w = 21, h = 13;
  const PlaneCase box = plane_cases()[0];
  for (const auto& [format, cs] : {std::pair{VideoFormat::i420, "i420"}, std::pair{VideoFormat::yuv444p, "yuv444p"},
                                   std::pair{VideoFormat::nv12, "nv12"}}) {
    const std::vector<Plane> planes = video_planes(cs, w, h);
    std::vector<Frame> frames = random_frames(planes, 3);
    for (Frame& f : frames) f.parameters.clear();  // raw frames have no FRAME line
    testing::write_file(path("in.yuv"), testing::stream_bytes({"", frames}));
    for (const std::string text : {"y", "u"}) {
      if (format == VideoFormat::nv12 && text == "u") continue;  // interleaved: refused by select_planes
      VideoReader reader = VideoReader::open_raw(path("in.yuv"), format, w, h);
      const std::vector<int> filtered = select_planes(reader.info(), text, reader.name());
      // One frame in flight as well as several: the chroma's copies and downloads keep their order.
      const std::string bytes = run(reader, same_layout_plan(reader.info(), filtered), box, "out.yuv", 1);
      EXPECT_TRUE(testing::streams_equal({"", expected_frames(frames, filtered, box)},
                                         testing::parse_stream(bytes, false, planes)))
          << fmt::format("box-blur --planes {} on {}", text, cs);
    }
  }
}

}  // namespace
}  // namespace clf::video
