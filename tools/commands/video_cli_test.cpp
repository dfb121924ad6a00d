// SPDX-License-Identifier: Apache-2.0
// Every image filter command on video as a user meets it: Y4M files and pipes, raw YUV, --planes, sobel's grey
// stream, a cut input and --progress. Streams are built and parsed with the tests' own code (testing/test_images.hpp),
// and the filtered planes checked against the CPU references (within 1 for the bilateral, its contract in
// docs/SPEC.md).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <sstream>

#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/sobel.hpp"
#include "common/image_compare.hpp"
#include "testing/cli_fixture.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::read_file;
using testing::run_shell;
using testing::write_file;

using Frame = testing::VideoFrame;
using Stream = testing::VideoStream;
using testing::parse_stream;
using testing::stream_bytes;
using testing::streams_equal;
using testing::video_planes;

// Each command with small parameters (the same in every test, so the programs come from the cache), its options and
// its reference on one plane.
struct CommandCase {
  std::string name;
  std::string options;
  std::function<Image(const Image&)> reference;
  double tolerance = 0;  // docs/SPEC.md: 0 for the integer filters, 1 for the bilateral
};

const std::map<std::string, CommandCase>& commands() {
  static const std::map<std::string, CommandCase> all = {
      {"box-blur",
       {"box-blur", "-d 5",
        [](const Image& p) {
          return box_blur_reference(p, BoxBlurParams{5, {}});
        }}},
      {"bilateral",
       {"bilateral", "--sigma-spatial 1.5 --sigma-range 20 --radius 2",
        [](const Image& p) {
          BilateralParams params;
          params.sigma_spatial = 1.5;
          params.sigma_range = 20;
          params.radius = 2;
          return bilateral_reference(p, params);
        },
        1.0}},
      {"epsilon",
       {"epsilon", "-r 2 -t 24",
        [](const Image& p) {
          return epsilon_reference(p, EpsilonParams{2, 24, {}});
        }}},
      {"sobel", {"sobel", "", [](const Image& p) { return sobel_reference(p, SobelParams{}); }}},
  };
  return all;
}

class VideoCli : public testing::CliTest {
 protected:
  Stream random_stream(const std::string& header, const std::string& cs, int w, int h, int count) {
    Stream s{header, {}};
    for (int f = 0; f < count; ++f) {
      Frame frame{header.empty() || f % 2 == 0 ? "" : fmt::format(" Ixyz XF={}", f), {}};
      int k = 0;
      for (const testing::VideoPlane& p : video_planes(cs, w, h))
        frame.planes.push_back(testing::random_image(p.width, p.height, 1, SampleType::u8, seed_ + 31 * f + k++));
      s.frames.push_back(std::move(frame));
    }
    return s;
  }

  // `in` with the planes `filtered` (indices) through `command`'s reference.
  static Stream expected(const Stream& in, const std::vector<std::size_t>& filtered, const CommandCase& command) {
    Stream out = in;
    for (Frame& f : out.frames)
      for (std::size_t i : filtered) {
        f.planes[i] = command.reference(f.planes[i]);
        f.tolerance[i] = command.tolerance;
      }
    return out;
  }

  // What sobel writes: a Cmono stream (or raw grey) of the Y plane's magnitude.
  static Stream expected_grey(const Stream& in, const std::string& grey_header) {
    Stream out{grey_header, {}};
    for (const Frame& f : in.frames)
      out.frames.push_back({f.parameters, {sobel_reference(f.planes[0], SobelParams{})}});
    return out;
  }
};

const int kW = 37, kH = 23;

TEST_F(VideoCli, EveryCommandOnAFileAndThroughPipes) {
  const std::string header = fmt::format("YUV4MPEG2 W{} H{} F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG", kW, kH);
  const Stream in = random_stream(header, "420jpeg", kW, kH, 3);
  write_file(path("in.y4m"), stream_bytes(in));
  for (const auto& [name, command] : commands()) {
    CliResult r = run_cli(fmt::format("{} {} {} {}", name, command.options, path("in.y4m"), path("out.y4m")));
    ASSERT_EQ(r.code, 0) << name << "\n" << r.output;
    EXPECT_NE(r.output.find("3 frames"), std::string::npos) << r.output;
    r = run_shell(
        fmt::format("cat {} | {} {} {} - - > {}", path("in.y4m"), cli(), name, command.options, path("piped.y4m")));
    ASSERT_EQ(r.code, 0) << name << "\n" << r.output;
    Stream want;
    if (name == "sobel") {
      want = expected_grey(in, fmt::format("YUV4MPEG2 W{} H{} F25:1 Ip A1:1 Cmono", kW, kH));
    } else {
      // The blurs filter every plane by default, epsilon Y alone.
      want = expected(in, name == "epsilon" ? std::vector<std::size_t>{0} : std::vector<std::size_t>{0, 1, 2}, command);
    }
    const auto layout = video_planes(name == "sobel" ? "mono" : "420jpeg", kW, kH);
    EXPECT_TRUE(streams_equal(want, parse_stream(read_file(path("out.y4m")), true, layout))) << name << " to a file";
    EXPECT_TRUE(streams_equal(want, parse_stream(read_file(path("piped.y4m")), true, layout)))
        << name << " through pipes";
  }
}

TEST_F(VideoCli, PlanesChooseWhatIsFilteredAndCopyTheRest) {
  struct Case {
    std::string command, cs, planes;
    std::vector<std::size_t> filtered;
  };
  const std::vector<Case> cases = {
      {"box-blur", "422", "u", {1}},       {"epsilon", "420mpeg2", "y,v", {0, 2}},
      {"bilateral", "444", "v,u", {1, 2}}, {"box-blur", "444alpha", "all", {0, 1, 2}},
      {"epsilon", "mono", "all", {0}},     {"bilateral", "420paldv", "y", {0}},
  };
  for (const Case& c : cases) {
    const std::string header = fmt::format("YUV4MPEG2 W{} H{} F30:1 C{}", kW, kH, c.cs);
    const Stream in = random_stream(header, c.cs, kW, kH, 3);
    write_file(path("in.y4m"), stream_bytes(in));
    const CommandCase& command = commands().at(c.command);
    const CliResult r = run_cli(fmt::format("{} {} --planes {} --quiet {} {}", c.command, command.options, c.planes,
                                            path("in.y4m"), path("out.y4m")));
    ASSERT_EQ(r.code, 0) << c.command << " " << c.cs << "\n" << r.output;
    EXPECT_EQ(r.output, "") << "--quiet";
    EXPECT_TRUE(streams_equal(expected(in, c.filtered, command),
                              parse_stream(read_file(path("out.y4m")), true, video_planes(c.cs, kW, kH))))
        << c.command << " --planes " << c.planes << " on C" << c.cs;
  }
}

TEST_F(VideoCli, PlanesAStreamLacksAreUsageErrors) {
  write_file(path("mono.y4m"),
             stream_bytes(random_stream(fmt::format("YUV4MPEG2 W{} H{} Cmono", kW, kH), "mono", kW, kH, 1)));
  write_file(path("c.y4m"),
             stream_bytes(random_stream(fmt::format("YUV4MPEG2 W{} H{} C420", kW, kH), "420", kW, kH, 1)));
  write_file(path("in.nv12"), stream_bytes(random_stream("", "nv12", 8, 6, 1)));
  write_file(path("a.pgm"), "P5\n2 2\n255\n1234");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fmt::format("box-blur {} {} --planes u", path("mono.y4m"), path("o.y4m")), "Cmono"},
      {fmt::format("epsilon {} {} --planes y,v", path("mono.y4m"), path("o.y4m")), "no V plane"},
      {fmt::format("sobel {} {} --planes u", path("c.y4m"), path("o.y4m")), "only y"},
      {fmt::format("box-blur {} {} --planes w", path("c.y4m"), path("o.y4m")), "unknown plane"},
      {fmt::format("bilateral {} {} --raw-format nv12 --size 8x6 --planes u", path("in.nv12"), path("o.nv12")), "nv12"},
      {fmt::format("box-blur {} {} --planes y", path("a.pgm"), path("b.pgm")), "--planes is for video"},
      {fmt::format("sobel {} {} --output gradients", path("c.y4m"), path("o.y4m")), "gradients"},
      {fmt::format("epsilon {} - --progress -", path("c.y4m")), "stdout"},
  };
  for (const auto& [args, why] : cases) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << args << "\n" << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(path("o.y4m")));
}

TEST_F(VideoCli, SobelWritesAGreyStream) {
  const std::string header =
      fmt::format("YUV4MPEG2 W{} H{} F30000:1001 It A10:11 C422 XYSCSS=422 XCUSTOM=kept", kW, kH);
  const Stream in = random_stream(header, "422", kW, kH, 3);
  write_file(path("in.y4m"), stream_bytes(in));
  CliResult r = run_cli(fmt::format("sobel {} {}", path("in.y4m"), path("out.y4m")));
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string grey = fmt::format("YUV4MPEG2 W{} H{} F30000:1001 It A10:11 Cmono XCUSTOM=kept", kW, kH);
  EXPECT_TRUE(streams_equal(expected_grey(in, grey),
                            parse_stream(read_file(path("out.y4m")), true, video_planes("mono", kW, kH))));
  // Raw input: raw grey frames, W x H bytes each.
  for (const std::string format : {"i420", "yuv444p", "nv12"}) {
    const Stream raw = random_stream("", format, kW, kH, 2);
    write_file(path("in.yuv"), stream_bytes(raw));
    r = run_cli(
        fmt::format("sobel --raw-format {} --size {}x{} {} {}", format, kW, kH, path("in.yuv"), path("out.gray")));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_TRUE(
        streams_equal(expected_grey(raw, ""), parse_stream(read_file(path("out.gray")), false, {{'y', kW, kH}})))
        << format;
  }
}

TEST_F(VideoCli, RawLayoutsFilterEveryPlaneOrYAlone) {
  const CommandCase& box = commands().at("box-blur");
  for (const std::string format : {"i420", "yuv444p", "nv12"}) {
    const Stream in = random_stream("", format, kW, kH, 2);
    write_file(path("in.yuv"), stream_bytes(in));
    const CliResult r = run_cli(fmt::format("box-blur {} --raw-format {} --size {}x{} {} {}", box.options, format, kW,
                                            kH, path("in.yuv"), path("out.yuv")));
    ASSERT_EQ(r.code, 0) << r.output;
    // nv12's interleaved chroma is copied, with a note; the planar layouts have every plane filtered.
    const std::vector<std::size_t> filtered =
        format == "nv12" ? std::vector<std::size_t>{0} : std::vector<std::size_t>{0, 1, 2};
    if (format == "nv12") {
      EXPECT_NE(r.output.find("only Y is filtered"), std::string::npos) << r.output;
    }
    EXPECT_TRUE(streams_equal(expected(in, filtered, box),
                              parse_stream(read_file(path("out.yuv")), false, video_planes(format, kW, kH))))
        << format;
  }
}

TEST_F(VideoCli, TruncatedFinalFrameKeepsTheFramesBefore) {
  const std::string header = fmt::format("YUV4MPEG2 W{} H{} F25:1 C420jpeg", kW, kH);
  const Stream in = random_stream(header, "420jpeg", kW, kH, 3);
  const std::string bytes = stream_bytes(in);
  write_file(path("cut.y4m"), bytes.substr(0, bytes.size() - 100));
  for (const std::string name : {"bilateral", "sobel"}) {
    const CommandCase& command = commands().at(name);
    const CliResult r = run_cli(fmt::format("{} {} --progress {} {} {}", name, command.options, path("p.txt"),
                                            path("cut.y4m"), path("out.y4m")));
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find("frame 3 is truncated"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("cut.y4m"), std::string::npos) << r.output;
    Stream two = in;
    two.frames.pop_back();
    const Stream want = name == "sobel" ? expected_grey(two, fmt::format("YUV4MPEG2 W{} H{} F25:1 Cmono", kW, kH))
                                        : expected(two, {0, 1, 2}, command);
    EXPECT_TRUE(streams_equal(want, parse_stream(read_file(path("out.y4m")), true,
                                                 video_planes(name == "sobel" ? "mono" : "420jpeg", kW, kH))))
        << name;
    const std::string progress = read_file(path("p.txt"));
    EXPECT_NE(progress.find("frame=2\n"), std::string::npos) << progress;
    EXPECT_EQ(progress.substr(progress.size() - 13), "progress=end\n") << progress;
  }
}

// ---------------------------------------------------------------------------------------------------
// Streams of more than 8 bits: their planes are filtered as u16 images.

// A stream of `cs`'s layout with random samples of `bits` bits, each plane a u16 image.
Stream deep_stream(const std::string& header, const std::string& cs, int w, int h, int bits, int count,
                   std::uint64_t seed) {
  Stream s{header, {}};
  for (int f = 0; f < count; ++f) {
    Frame frame{header.empty() || f % 2 == 0 ? "" : " XF=1", {}};  // raw frames have no parameters
    int k = 0;
    for (const testing::VideoPlane& p : video_planes(cs, w, h)) {
      Image plane = testing::random_image(p.width, p.height, 1, SampleType::u16, seed + 31 * f + k++);
      for (std::uint16_t& v : plane.samples<std::uint16_t>()) v = std::uint16_t(v & ((1u << bits) - 1));
      frame.planes.push_back(std::move(plane));
    }
    s.frames.push_back(std::move(frame));
  }
  return s;
}

// `bytes` as a stream of u16 planes of `cs`'s layout (each read as twice as many bytes, then retyped).
Stream parse_deep_stream(const std::string& bytes, bool y4m, const std::string& cs, int w, int h) {
  std::vector<testing::VideoPlane> wide = video_planes(cs, w, h);
  for (testing::VideoPlane& p : wide) p.width *= 2;
  Stream s = parse_stream(bytes, y4m, wide);
  for (Frame& f : s.frames)
    for (Image& p : f.planes) {
      Image deep(p.width / 2, p.height, 1, SampleType::u16);
      std::copy(p.data.begin(), p.data.end(), deep.data.begin());
      p = std::move(deep);
    }
  return s;
}

TEST_F(VideoCli, TenBitStreamsAreFilteredAsSixteenBitPlanes) {
  const std::string header = fmt::format("YUV4MPEG2 W{} H{} F25:1 Ip A1:1 C420p10 XYSCSS=420P10", kW, kH);
  const Stream in = deep_stream(header, "420", kW, kH, 10, 3, seed_);
  write_file(path("in.y4m"), stream_bytes(in));
  // Box blur: every plane by default; its diameter is no sample value.
  CliResult r = run_cli(fmt::format("box-blur -d 5 {} {}", path("in.y4m"), path("box.y4m")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("C420p10"), std::string::npos) << r.output;
  Stream want = in;
  for (Frame& f : want.frames)
    for (Image& p : f.planes) p = box_blur_reference(p, BoxBlurParams{5, {}});
  EXPECT_TRUE(streams_equal(want, parse_deep_stream(read_file(path("box.y4m")), true, "420", kW, kH))) << "box-blur";

  // Epsilon: Y alone; -t 24 in 8-bit units is 96 on 10 bits, and --sample-units takes it as given.
  for (const auto& [units, threshold] : {std::pair{"", 96}, std::pair{" --sample-units", 24}}) {
    r = run_cli(fmt::format("epsilon -r 2 -t 24{} {} {}", units, path("in.y4m"), path("eps.y4m")));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find(fmt::format("T={}", threshold)), std::string::npos) << r.output;
    want = in;
    for (Frame& f : want.frames) f.planes[0] = epsilon_reference(f.planes[0], EpsilonParams{2, threshold, {}});
    EXPECT_TRUE(streams_equal(want, parse_deep_stream(read_file(path("eps.y4m")), true, "420", kW, kH)))
        << "epsilon" << units;
  }
}

// Every filter on every deeper Y4M layout: box blur and the bilateral on Y, U and V (the bilateral within 1, SPEC),
// epsilon on Y with its threshold scaled to the depth; the other planes copied; frames and header as they were.
TEST_F(VideoCli, EveryFilterOnEveryDeepColourSpace) {
  for (const auto& [cs, bits] : {std::pair{"422", 12}, std::pair{"444", 16}, std::pair{"mono", 16}}) {
    const std::string header =
        fmt::format("YUV4MPEG2 W{} H{} F25:1 C{}{}{}", kW, kH, cs, cs == std::string("mono") ? "" : "p", bits);
    SCOPED_TRACE(header);
    const Stream in = deep_stream(header, cs, kW, kH, bits, 2, seed_ + std::uint64_t(bits));
    write_file(path("in.y4m"), stream_bytes(in));
    const int threshold = int(std::lround(30.0 * double(1 << (bits - 8))));
    const double sigma_range = 20.0 * double(1 << (bits - 8));
    const std::map<std::string, std::function<Image(const Image&, std::size_t)>> filters{
        {"box-blur -d 4",
         [](const Image& p, std::size_t) {
           return box_blur_reference(p, BoxBlurParams{4, {}});
         }},
        {"epsilon -r 1 -t 30",
         [&](const Image& p, std::size_t k) {
           return k == 0 ? epsilon_reference(p, EpsilonParams{1, threshold, {}}) : p;
         }},
        {"bilateral --sigma-spatial 1.5 --sigma-range 20", [&](const Image& p, std::size_t) {
           BilateralParams params;
           params.sigma_spatial = 1.5, params.sigma_range = sigma_range;
           return bilateral_reference(p, params);
         }}};
    for (const auto& [command, reference] : filters) {
      SCOPED_TRACE(command);
      const CliResult r = run_cli(fmt::format("{} {} {}", command, path("in.y4m"), path("out.y4m")));
      ASSERT_EQ(r.code, 0) << r.output;
      const Stream got = parse_deep_stream(read_file(path("out.y4m")), true, cs, kW, kH);
      ASSERT_EQ(got.header, header);
      ASSERT_EQ(got.frames.size(), in.frames.size());
      for (std::size_t f = 0; f < in.frames.size(); ++f)
        for (std::size_t k = 0; k < in.frames[f].planes.size(); ++k) {
          const double tolerance = command.starts_with("bilateral") ? 1.0 : 0.0;
          const auto why = compare_images(reference(in.frames[f].planes[k], k), got.frames[f].planes[k], tolerance);
          EXPECT_FALSE(why) << "frame " << f << " plane " << k << ": " << *why;
        }
    }
  }
}

// Raw 16-bit layouts, and P010, whose samples the filters see shifted down to 10 bits.
TEST_F(VideoCli, RawSixteenBitAndP010Streams) {
  const Stream in = deep_stream("", "444", kW, kH, 16, 2, seed_);
  write_file(path("in.yuv"), stream_bytes(in));
  CliResult r = run_cli(fmt::format("epsilon -r 2 -t 24 --planes y,v --raw-format yuv444p16le --size {}x{} {} {}", kW,
                                    kH, path("in.yuv"), path("out.yuv")));
  ASSERT_EQ(r.code, 0) << r.output;
  Stream want = in;
  for (Frame& f : want.frames)
    for (std::size_t i : {0, 2}) f.planes[i] = epsilon_reference(f.planes[i], EpsilonParams{2, 24 * 256, {}});
  EXPECT_TRUE(streams_equal(want, parse_deep_stream(read_file(path("out.yuv")), false, "444", kW, kH)));

  // P010: 10-bit values in the high bits; the interleaved chroma is copied, with a note.
  Stream p010 = deep_stream("", "nv12", kW, kH, 10, 2, seed_ + 7);
  Stream shifted = p010;
  for (Frame& f : shifted.frames)
    for (Image& p : f.planes)
      for (std::uint16_t& v : p.samples<std::uint16_t>()) v = std::uint16_t(v << 6);
  write_file(path("in.p010"), stream_bytes(shifted));
  r = run_cli(
      fmt::format("box-blur -d 5 --raw-format p010 --size {}x{} {} {}", kW, kH, path("in.p010"), path("out.p010")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("p010 interleaves U and V"), std::string::npos) << r.output;
  want = shifted;
  for (std::size_t f = 0; f < want.frames.size(); ++f) {
    Image& y = want.frames[f].planes[0];
    y = box_blur_reference(p010.frames[f].planes[0], BoxBlurParams{5, {}});
    for (std::uint16_t& v : y.samples<std::uint16_t>()) v = std::uint16_t(v << 6);
  }
  EXPECT_TRUE(streams_equal(want, parse_deep_stream(read_file(path("out.p010")), false, "nv12", kW, kH)));
}

TEST_F(VideoCli, SobelAndOtherDepthsAreRefusedNamingTheStream) {
  const std::string header = fmt::format("YUV4MPEG2 W{} H{} F25:1 C420p10", kW, kH);
  write_file(path("ten.y4m"), stream_bytes(deep_stream(header, "420", kW, kH, 10, 1, seed_)));
  CliResult r = run_cli(fmt::format("sobel {} {}", path("ten.y4m"), path("out.y4m")));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(path("ten.y4m") + ": sobel takes 8-bit video; this stream is 10-bit (C420p10)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(testing::line_count(r.output), 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("out.y4m")));

  // Sample values beyond the stream's depth: the threshold in sample units, the border constant.
  for (const char* options :
       {"epsilon --sample-units -t 1024", "epsilon --border constant=1024", "box-blur --border constant=1024"}) {
    r = run_cli(fmt::format("{} {} {}", options, path("ten.y4m"), path("out.y4m")));
    EXPECT_EQ(r.code, 2) << options << ": " << r.output;
    EXPECT_NE(r.output.find(path("ten.y4m") + ": "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("must be 0..1023 for these samples, got 1024"), std::string::npos) << r.output;
    EXPECT_EQ(testing::line_count(r.output), 1) << r.output;
    EXPECT_FALSE(std::filesystem::exists(path("out.y4m")));
  }
  r = run_cli(
      fmt::format("epsilon --sample-units -t 1023 --border constant=1023 {} {}", path("ten.y4m"), path("out.y4m")));
  EXPECT_EQ(r.code, 0) << r.output;

  write_file(path("deep.y4m"), "YUV4MPEG2 W8 H6 F25:1 C420p17\nFRAME\n" + std::string(8 * 6 * 3, 'x'));
  r = run_cli(fmt::format("box-blur {} {}", path("deep.y4m"), path("out.y4m")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("deep.y4m: C420p17 is 17-bit video"), std::string::npos) << r.output;
  EXPECT_EQ(testing::line_count(r.output), 1) << r.output;
}

// The blocks of ffmpeg's -progress output, each as its keys and values; a line that is not key=value fails.
std::vector<std::map<std::string, std::string>> progress_blocks(const std::string& text) {
  std::vector<std::map<std::string, std::string>> blocks(1);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) {
      ADD_FAILURE() << "not key=value: '" << line << "'";
      continue;
    }
    blocks.back()[line.substr(0, eq)] = line.substr(eq + 1);
    if (line.rfind("progress=", 0) == 0) blocks.emplace_back();
  }
  if (!blocks.back().empty()) ADD_FAILURE() << "the last block has no progress= line";
  blocks.pop_back();
  return blocks;
}

TEST_F(VideoCli, ProgressWritesFfmpegStyleBlocks) {
  const std::string header = fmt::format("YUV4MPEG2 W{} H{} F25:1 C420jpeg", kW, kH);
  write_file(path("in.y4m"), stream_bytes(random_stream(header, "420jpeg", kW, kH, 5)));
  // To a file, with --quiet (which silences the terminal line and the summary, not --progress).
  CliResult r = run_cli(
      fmt::format("epsilon -r 2 -t 24 --quiet --progress {} {} {}", path("p.txt"), path("in.y4m"), path("out.y4m")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "");
  // To stdout, the summary then on stderr.
  r = run_shell(fmt::format("{} box-blur -d 5 --progress - {} {} 2>/dev/null", cli(), path("in.y4m"), path("o2.y4m")));
  ASSERT_EQ(r.code, 0) << r.output;
  for (const std::string& text : {read_file(path("p.txt")), r.output}) {
    const auto blocks = progress_blocks(text);
    ASSERT_FALSE(blocks.empty()) << text;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      for (const char* key : {"frame", "fps", "out_time_us", "speed", "progress"})
        EXPECT_EQ(blocks[i].count(key), 1u) << key << " in block " << i << "\n" << text;
      EXPECT_EQ(blocks[i].at("progress"), i + 1 == blocks.size() ? "end" : "continue") << text;
    }
    EXPECT_EQ(blocks.back().at("frame"), "5") << text;
    EXPECT_EQ(blocks.back().at("out_time_us"), "200000") << "5 frames at 25 fps\n" << text;
    EXPECT_EQ(blocks.back().at("speed").back(), 'x') << text;
  }
  // Raw video has no frame rate: no video time, no speed.
  write_file(path("in.yuv"), stream_bytes(random_stream("", "i420", 8, 6, 2)));
  r = run_cli(fmt::format("sobel --raw-format i420 --size 8x6 --quiet --progress {} {} {}", path("p.txt"),
                          path("in.yuv"), path("out.gray")));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto blocks = progress_blocks(read_file(path("p.txt")));
  ASSERT_FALSE(blocks.empty());
  EXPECT_EQ(blocks.back().at("frame"), "2");
  EXPECT_EQ(blocks.back().at("out_time_us"), "N/A");
  EXPECT_EQ(blocks.back().at("speed"), "N/A");
}

TEST_F(VideoCli, TerminalLineShowsFramesFpsSpeedAndElapsed) {
  // `script` gives the command a terminal; without it (util-linux) this check cannot run.
  if (run_shell("command -v script").code != 0) GTEST_SKIP() << "script (util-linux) is not installed";
  write_file(path("in.y4m"),
             stream_bytes(random_stream(fmt::format("YUV4MPEG2 W{} H{} F25:1", kW, kH), "420jpeg", kW, kH, 3)));
  const std::string command = fmt::format("{} box-blur -d 5 {} {}", cli(), path("in.y4m"), path("out.y4m"));
  CliResult r = run_shell(fmt::format("script -qec \"{}\" /dev/null", command));
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* word : {"3 frames, ", " fps, ", "x realtime, ", " s elapsed"})
    EXPECT_NE(r.output.find(word), std::string::npos) << word << "\n" << r.output;
  r = run_shell(fmt::format("script -qec \"{} --quiet\" /dev/null", command));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.find("fps"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace clf
