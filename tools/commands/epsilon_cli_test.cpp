// SPDX-License-Identifier: Apache-2.0
// `clfilters epsilon` as a user meets it: images of every layout, Y4M files and pipes, raw YUV, ffmpeg
// pipelines, exit codes (0 ok, 1 bad input, 2 usage error) and no partial output files. Streams are
// built and parsed with the tests' own code (testing::VideoStream), so the command's Y4M code is not checked
// against itself.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "clfilters/epsilon.hpp"
#include "clfilters/image_io.hpp"
#include "common/synthetic_image.hpp"
#include "testing/cli_fixture.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {
namespace fs = std::filesystem;

using testing::line_count;
using testing::read_file;
using testing::run_shell;
using testing::write_file;

using testing::parse_stream;
using testing::stream_bytes;
using testing::streams_equal;
using testing::video_planes;
using testing::VideoStream;

// A clip of colour space `cs` (a Y4M C tag or a raw layout) with photo-like Y planes (epsilon has structure to keep
// and noise to remove) and random other planes, each frame different; every other frame has FRAME parameters.
VideoStream make_video(const std::string& header, const std::string& cs, int w, int h, int frames, std::uint64_t seed) {
  VideoStream v{header, {}};
  std::mt19937_64 rng(seed);
  for (int i = 0; i < frames; ++i) {
    testing::VideoFrame& f = v.frames.emplace_back();
    f.parameters = i % 2 ? fmt::format(" Ixyz XFRAME_TAG={}", i) : "";
    for (const testing::VideoPlane& p : video_planes(cs, w, h))
      f.planes.push_back(p.name == 'y' ? synthetic_photo(w, h, 1, rng())
                                       : testing::random_image(p.width, p.height, 1, SampleType::u8, rng()));
  }
  return v;
}

// What the command must produce: each Y plane through epsilon_reference, the rest unchanged.
VideoStream expected_output(VideoStream v, const EpsilonParams& params) {
  for (testing::VideoFrame& f : v.frames) f.planes[0] = epsilon_reference(f.planes[0], params);
  return v;
}

using EpsilonCli = testing::CliTest;

TEST_F(EpsilonCli, HelpNamesVideoOptionsAndVariants) {
  const CliResult r = run_cli("epsilon --help");
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* word : {"--radius", "--threshold", "--raw-format", "--size", "--quiet", "--border", "--variant"})
    EXPECT_NE(r.output.find(word), std::string::npos) << word;
  for (const auto& v : epsilon_variants()) EXPECT_NE(r.output.find(v.name), std::string::npos) << v.name;
}

// ---------------------------------------------------------------------------------------------------
// Y4M

// A cold build prints nothing of the compiler's: PoCL's clang would print "5 warnings generated." (its -Wpsabi note on
// the uint16 kernels) on stderr without -w. The command's output is its result line alone.
TEST_F(EpsilonCli, AColdBuildPrintsOnlyTheResultLine) {
  write_random_image(37, 11, 1);
  const CliResult r = run_shell(fmt::format("POCL_CACHE_DIR={0} XDG_CACHE_HOME={0} {1} epsilon {2} {3} --variant vec16",
                                            path("cache"), cli(), path("in.png"), path("out.png")));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(line_count(r.output), 1) << r.output;
}

TEST_F(EpsilonCli, EveryY4mColourSpaceFiltersYAndKeepsTheRest) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const std::vector<std::string> colour_spaces = {"",    "420jpeg", "420paldv", "420mpeg2", "420",
                                                  "422", "444",     "mono",     "444alpha"};
  const std::vector<std::string> borders = {"replicate", "reflect101", "constant=37"};
  std::mt19937_64 rng(seed_);
  for (std::size_t i = 0; i < colour_spaces.size(); ++i) {
    const std::string& cs = colour_spaces[i];
    SCOPED_TRACE("C" + cs);
    const int w = 13 + int(rng() % 12), h = 7 + int(rng() % 10);  // odd sizes included
    const std::string header = fmt::format("YUV4MPEG2 W{} H{} F30000:1001 It A1:1{} XYSCSS=TEST XCUSTOM=kept", w, h,
                                           cs.empty() ? "" : " C" + cs);
    const VideoStream in = make_video(header, cs, w, h, 3, rng());
    write_file(path("in.y4m"), stream_bytes(in));
    EpsilonParams params;
    params.radius = 1 + int(i % 3);
    params.threshold = std::array{0, 1, 20, 255}[i % 4];
    params.border = parse_border(borders[i % 3]);
    const CliResult r = run_cli(fmt::format("epsilon {} {} --radius {} --threshold {} --border {}", path("in.y4m"),
                                            path("out.y4m"), params.radius, params.threshold, borders[i % 3]));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("3 frames"), std::string::npos) << r.output;
    EXPECT_TRUE(streams_equal(expected_output(in, params),
                              parse_stream(read_file(path("out.y4m")), true, video_planes(cs, w, h))));
  }
  EXPECT_EQ(files(), (std::vector<std::string>{"in.y4m", "out.y4m"}));  // no temporary files left
}

TEST_F(EpsilonCli, StdinToStdoutMatchesFiles) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const int w = 40, h = 22;
  const VideoStream in =
      make_video(fmt::format("YUV4MPEG2 W{} H{} F25:1 Ip A0:0 C420jpeg", w, h), "420", w, h, 7, seed_);
  write_file(path("in.y4m"), stream_bytes(in));
  const VideoStream expected = expected_output(in, {});
  // Through two pipes, as in `ffmpeg ... | clfilters epsilon - - | ffmpeg ...`.
  CliResult r = run_shell(fmt::format("cat {} | ( {} epsilon - - --quiet; echo $? > {} ) | cat > {}", path("in.y4m"),
                                      cli(), path("rc"), path("piped.y4m")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(read_file(path("rc")), "0\n") << "the exit status of clfilters in the pipe";
  EXPECT_EQ(r.output, "") << "--quiet prints nothing";
  EXPECT_TRUE(streams_equal(expected, parse_stream(read_file(path("piped.y4m")), true, video_planes("420", w, h))));
  // Redirections; without --quiet the summary goes to stderr, never into the video on stdout.
  r = run_shell(
      fmt::format("{} epsilon - - < {} > {} 2> {}", cli(), path("in.y4m"), path("redirected.y4m"), path("stderr.txt")));
  ASSERT_EQ(r.code, 0) << r.output << read_file(path("stderr.txt"));
  EXPECT_EQ(read_file(path("redirected.y4m")), read_file(path("piped.y4m")));
  EXPECT_NE(read_file(path("stderr.txt")).find("7 frames"), std::string::npos);
  EXPECT_EQ(read_file(path("stderr.txt")).find("fps, "), std::string::npos) << "no progress unless on a terminal";
  // Pipes given by name are read as streams, never sniffed (which would eat their first bytes), and
  // written directly.
  r = run_shell(fmt::format("cat {} | {} epsilon /dev/stdin /dev/stdout -q | cat > {}", path("in.y4m"), cli(),
                            path("by-name.y4m")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(read_file(path("by-name.y4m")), read_file(path("piped.y4m")));
}

TEST_F(EpsilonCli, TruncatedFinalFrameNamesItAndKeepsTheFramesBefore) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const int w = 24, h = 10;
  const std::size_t frame_bytes = std::size_t(w) * h * 3 / 2;  // 4:2:0 of even sizes
  const VideoStream in = make_video(fmt::format("YUV4MPEG2 W{} H{} F25:1", w, h), "420", w, h, 5, seed_);
  const std::string whole = stream_bytes(in);
  VideoStream complete = in;  // the first four frames
  complete.frames.pop_back();
  const VideoStream expected = expected_output(complete, {});
  // Cut inside the fifth frame's pixels, then inside its FRAME line.
  for (const std::size_t cut : {whole.size() - frame_bytes / 2, whole.size() - frame_bytes - 3}) {
    SCOPED_TRACE(fmt::format("cut at {} of {} bytes", cut, whole.size()));
    write_file(path("cut.y4m"), whole.substr(0, cut));
    const CliResult r = run_shell(
        fmt::format("{} epsilon {} - > {} 2> {}", cli(), path("cut.y4m"), path("streamed.y4m"), path("err.txt")));
    const std::string err = read_file(path("err.txt"));
    EXPECT_EQ(r.code, 1) << err;
    EXPECT_NE(err.find("frame 5"), std::string::npos) << err;
    EXPECT_NE(err.find("truncated"), std::string::npos) << err;
    EXPECT_NE(err.find("cut.y4m"), std::string::npos) << err;
    EXPECT_EQ(line_count(err), 1) << err;
    EXPECT_TRUE(streams_equal(expected, parse_stream(read_file(path("streamed.y4m")), true, video_planes("420", w, h))))
        << "the four complete frames are written before the error";

    // To a file: the complete frames are renamed into place, as they reach a pipe, and the exit is still 1.
    const CliResult f = run_cli(fmt::format("epsilon {} {}", path("cut.y4m"), path("out.y4m")));
    EXPECT_EQ(f.code, 1) << f.output;
    EXPECT_NE(f.output.find("frame 5"), std::string::npos) << f.output;
    EXPECT_EQ(line_count(f.output), 1) << f.output;
    EXPECT_EQ(read_file(path("out.y4m")), read_file(path("streamed.y4m")));
    EXPECT_EQ(files(), (std::vector<std::string>{"cut.y4m", "err.txt", "out.y4m", "streamed.y4m"}));
  }
}

TEST_F(EpsilonCli, CorruptFrameMarkerNamesTheFrame) {
  const int w = 8, h = 6;
  std::string bytes = stream_bytes(make_video(fmt::format("YUV4MPEG2 W{} H{}", w, h), "420", w, h, 3, seed_));
  const std::size_t third = bytes.rfind("FRAME");
  bytes.replace(third, 5, "FRAMX");
  write_file(path("bad.y4m"), bytes);
  const CliResult r = run_cli(fmt::format("epsilon {} {}", path("bad.y4m"), path("out.y4m")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("frame 3"), std::string::npos) << r.output;
  EXPECT_EQ(line_count(r.output), 1) << r.output;
  // The two frames before the corrupt one are the output.
  EXPECT_EQ(parse_stream(read_file(path("out.y4m")), true, video_planes("420", w, h)).frames.size(), 2u);
}

TEST_F(EpsilonCli, BadHeadersAndOtherDepthsAreRefused) {
  const std::string frame = "FRAME\n" + std::string(8 * 6 * 3 / 2, '\x40');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"YUV4MPEG2 H6 C420", "no width"},
      {"YUV4MPEG2 W8 C420", "no height"},
      {"YUV4MPEG2 W0 H6", "width"},
      {"YUV4MPEG2 Wabc H6", "width"},
      {"YUV4MPEG2 W8 H6 F30", "ratio"},
      {"YUV4MPEG2 W8 H6 Iz", "interlacing"},
      {"YUV4MPEG2 W8 H6 Q1", "unknown tag"},
      {"YUV4MPEG2 W8 H6 C411", "colour space"},
      {"YUV4MPEG2 W8 H6 C420p17 XYSCSS=420P17", "17-bit"},
      {"YUV4MPEG2 W8 H6 C444p7", "7-bit"},
      {"YUV4MPEG2 W8 H6 Cmono32", "32-bit"},
      {"YUV4MPEG W8 H6", "not a Y4M stream"},
      {"YUV4MPEG2 W8 H6 C420", "truncated"},  // no end of line: the header itself is cut
  };
  for (const auto& [header, why] : cases) {
    SCOPED_TRACE(header);
    const bool cut = why == "truncated";
    write_file(path("bad.y4m"), cut ? header : header + "\n" + frame);
    // Through stdin, since a file that does not start with the signature would be taken for an image.
    const CliResult r = run_shell(fmt::format("{} epsilon - {} < {}", cli(), path("out.y4m"), path("bad.y4m")));
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("<stdin>"), std::string::npos) << r.output;
    if (why.find("-bit") != std::string::npos) {
      EXPECT_NE(r.output.find("8 to 16 bits"), std::string::npos) << r.output;
    }
    EXPECT_EQ(line_count(r.output), 1) << r.output;
  }
  write_file(path("empty.y4m"), "");
  EXPECT_EQ(run_shell(fmt::format("{} epsilon - - < {}", cli(), path("empty.y4m"))).code, 1);
  // A 17-bit file given by name is recognised as video and refused the same way.
  write_file(path("deep.y4m"), "YUV4MPEG2 W8 H6 F25:1 C420p17\n" + frame);
  const CliResult r = run_cli(fmt::format("epsilon {} {}", path("deep.y4m"), path("out.y4m")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("17-bit"), std::string::npos) << r.output;
  EXPECT_EQ(files(), (std::vector<std::string>{"bad.y4m", "deep.y4m", "empty.y4m"}));
}

TEST_F(EpsilonCli, HeaderOnlyStreamGivesHeaderOnlyOutput) {
  write_file(path("none.y4m"), "YUV4MPEG2 W16 H8 F25:1 C444\n");
  const CliResult r = run_cli(fmt::format("epsilon {} {}", path("none.y4m"), path("out.y4m")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(read_file(path("out.y4m")), read_file(path("none.y4m")));
}

// ---------------------------------------------------------------------------------------------------
// Raw planar YUV

TEST_F(EpsilonCli, RawNv12AndI420) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  std::mt19937_64 rng(seed_);
  for (const char* format : {"nv12", "i420"}) {
    SCOPED_TRACE(format);
    const int w = 21 + int(rng() % 8), h = 9 + int(rng() % 8);
    const VideoStream in = make_video("", format, w, h, 4, rng());
    write_file(path("in.yuv"), stream_bytes(in));
    EpsilonParams params;
    params.radius = 2;
    params.threshold = 25;
    params.border = {BorderMode::reflect101, 0};
    const std::string options =
        fmt::format("--raw-format {} --size {}x{} -r 2 -t 25 --border reflect101", format, w, h);
    CliResult r = run_cli(fmt::format("epsilon {} {} {}", path("in.yuv"), path("out.yuv"), options));
    ASSERT_EQ(r.code, 0) << r.output;
    const std::string expected = stream_bytes(expected_output(in, params));
    EXPECT_EQ(read_file(path("out.yuv")), expected);
    // The same through stdin and stdout.
    r = run_shell(fmt::format("cat {} | {} epsilon - - {} > {}", path("in.yuv"), cli(), options, path("piped.yuv")));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(read_file(path("piped.yuv")), expected);
    // A truncated last frame.
    const std::string whole = stream_bytes(in);
    write_file(path("cut.yuv"), whole.substr(0, whole.size() - 5));
    r = run_cli(fmt::format("epsilon {} {} {}", path("cut.yuv"), path("cut-out.yuv"), options));
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find("frame 4 is truncated"), std::string::npos) << r.output;
    // The three complete frames are the output.
    EXPECT_EQ(read_file(path("cut-out.yuv")), expected.substr(0, expected.size() / 4 * 3));
  }
  // Usage errors: exit 2, no output.
  for (const std::string& options :
       {std::string("--raw-format nv12"), std::string("--size 16x8"), std::string("--raw-format yuy2 --size 16x8"),
        std::string("--raw-format i420 --size 16"), std::string("--raw-format i420 --size 0x8"),
        std::string("--raw-format i420 --size 16x8 --radius -1")}) {
    const CliResult r = run_cli(fmt::format("epsilon {} {} {}", path("in.yuv"), path("bad.yuv"), options));
    EXPECT_EQ(r.code, 2) << options << "\n" << r.output;
    EXPECT_FALSE(fs::exists(path("bad.yuv"))) << options;
  }
}

// ---------------------------------------------------------------------------------------------------
// Images

TEST_F(EpsilonCli, ImagesOfEveryLayoutMatchTheReference) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  EpsilonParams params;
  params.radius = 3;
  params.threshold = 30;
  params.border = {BorderMode::constant, 200};
  const std::string options = "--radius 3 --threshold 30 --border constant=200";

  const Image grey = synthetic_photo(33, 17, 1, seed_);
  write_image(grey, path("grey.png"));
  CliResult r = run_cli(fmt::format("epsilon {} {} {}", path("grey.png"), path("grey-out.png"), options));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find(path("grey-out.png")), std::string::npos) << r.output;
  EXPECT_TRUE(testing::images_equal(epsilon_reference(grey, params), read_image(path("grey-out.png"))));

  // RGB JPEG: the decoded pixels are the input; the output is PNG so that it compares exactly.
  write_image(synthetic_photo(29, 23, 3, seed_ + 1), path("rgb.jpg"));
  const Image rgb = read_image(path("rgb.jpg"));
  r = run_cli(fmt::format("epsilon {} {} {}", path("rgb.jpg"), path("rgb-out.png"), options));
  ASSERT_EQ(r.code, 0) << r.output;
  const Image rgb_out = read_image(path("rgb-out.png"));
  EXPECT_EQ(rgb_out.channels, 3);
  EXPECT_TRUE(testing::images_equal(from_filter_layout(epsilon_reference(to_filter_layout(rgb), params), 3), rgb_out));
  // A JPEG output is accepted too.
  EXPECT_EQ(run_cli(fmt::format("epsilon {} {}", path("rgb.jpg"), path("rgb-out.jpg"))).code, 0);

  // RGBA: alpha copied.
  Image rgba = synthetic_photo(18, 31, 4, seed_ + 2);
  const Image alpha_noise = testing::random_image(18, 31, 1, SampleType::u8, seed_ + 3);
  for (std::size_t i = 0; i < rgba.pixel_count(); ++i) rgba.data[4 * i + 3] = alpha_noise.data[i];
  write_image(rgba, path("rgba.png"));
  r = run_cli(fmt::format("epsilon {} {} {}", path("rgba.png"), path("rgba-out.png"), options));
  ASSERT_EQ(r.code, 0) << r.output;
  const Image rgba_out = read_image(path("rgba-out.png"));
  EXPECT_TRUE(testing::images_equal(epsilon_reference(rgba, params), rgba_out));
  for (std::size_t i = 0; i < rgba.pixel_count(); ++i)
    ASSERT_EQ(rgba_out.data[4 * i + 3], rgba.data[4 * i + 3]) << "alpha at pixel " << i;

  // Grey + alpha: the grey channel filtered, alpha copied.
  Image grey_alpha(15, 12, 2);
  const Image g = synthetic_photo(15, 12, 1, seed_ + 4);
  for (std::size_t i = 0; i < g.pixel_count(); ++i) {
    grey_alpha.data[2 * i] = g.data[i];
    grey_alpha.data[2 * i + 1] = alpha_noise.data[i];
  }
  write_image(grey_alpha, path("ga.png"));
  r = run_cli(fmt::format("epsilon {} {} {}", path("ga.png"), path("ga-out.npy"), options));
  ASSERT_EQ(r.code, 0) << r.output;
  const Image ga_out = read_image(path("ga-out.npy"));
  ASSERT_EQ(ga_out.channels, 2);
  const Image g_expected = epsilon_reference(g, params);
  for (std::size_t i = 0; i < g.pixel_count(); ++i) {
    ASSERT_EQ(ga_out.data[2 * i], g_expected.data[i]) << "grey at pixel " << i;
    ASSERT_EQ(ga_out.data[2 * i + 1], alpha_noise.data[i]) << "alpha at pixel " << i;
  }
}

TEST_F(EpsilonCli, EveryVariantThatRunsHereMatchesTheReference) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const Image grey = testing::random_image(37, 21, 1, SampleType::u8, seed_);
  write_image(grey, path("in.pgm"));
  const Image expected = epsilon_reference(grey, {});
  for (const auto& v : epsilon_variants()) {
    const CliResult r =
        run_cli(fmt::format("epsilon {} {} --variant {} --time", path("in.pgm"), path("out.pgm"), v.name));
    if (r.code == 2) {  // needs a feature this device lacks: the reason is given
      EXPECT_EQ(line_count(r.output), 1) << v.name << ": " << r.output;
      continue;
    }
    ASSERT_EQ(r.code, 0) << v.name << ": " << r.output;
    EXPECT_NE(r.output.find("kernel"), std::string::npos) << r.output;
    EXPECT_TRUE(testing::images_equal(expected, read_image(path("out.pgm")))) << v.name;
  }
}

TEST_F(EpsilonCli, ExitCodes) {
  write_image(testing::random_image(12, 9, 3, SampleType::u8, seed_), path("in.png"));
  const std::string in = path("in.png"), out = path("out.png");
  expect_usage_errors({"epsilon " + in, "epsilon " + in + " " + out + " --radius -1",
                       "epsilon " + in + " " + out + " --radius abc", "epsilon " + in + " " + out + " --threshold 256",
                       "epsilon " + in + " " + out + " --threshold -1", "epsilon " + in + " " + out + " --border wrap",
                       "epsilon " + in + " " + out + " --variant fastest", "epsilon " + in + " " + path("out.tiff"),
                       "epsilon " + in + " -", "epsilon " + in + " " + out + " --device no-such-device"});
  // Missing and corrupt inputs: exit 1 and one line naming the file.
  std::ofstream(path("corrupt.png"), std::ios::binary) << "\x89PNG\r\n\x1a\n not a png";
  for (const std::string name : {"missing.png", "corrupt.png"}) {
    const CliResult r = run_cli(fmt::format("epsilon {} {}", path(name), out));
    EXPECT_EQ(r.code, 1) << name << "\n" << r.output;
    EXPECT_NE(r.output.find(name), std::string::npos) << r.output;
    EXPECT_EQ(line_count(r.output), 1) << r.output;
  }
  const CliResult r =
      run_cli(fmt::format("epsilon {} {} --raw-format nv12 --size 8x8", path("missing.yuv"), out + ".yuv"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("missing.yuv"), std::string::npos) << r.output;
  // A video cannot be written as an image.
  write_file(path("v.y4m"), "YUV4MPEG2 W4 H4 Cmono\nFRAME\n" + std::string(16, 'a'));
  EXPECT_EQ(run_cli(fmt::format("epsilon {} {}", path("v.y4m"), out)).code, 2);
  EXPECT_EQ(files(), (std::vector<std::string>{"corrupt.png", "in.png", "v.y4m"}));
}

TEST_F(EpsilonCli, ProgressOnlyOnATerminal) {
  // `script` gives the command a terminal; without it (util-linux) this check cannot run.
  if (run_shell("command -v script").code != 0) GTEST_SKIP() << "script (util-linux) is not installed";
  const int w = 16, h = 8;
  write_file(path("in.y4m"), stream_bytes(make_video(fmt::format("YUV4MPEG2 W{} H{}", w, h), "420", w, h, 3, seed_)));
  const std::string command = fmt::format("{} epsilon {} {}", cli(), path("in.y4m"), path("out.y4m"));
  CliResult r = run_shell(fmt::format("script -qec \"{}\" /dev/null", command));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("3 frames, "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fps"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("elapsed"), std::string::npos) << r.output;
  r = run_shell(fmt::format("script -qec \"{} --quiet\" /dev/null", command));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.find("fps"), std::string::npos) << r.output;
}

// ---------------------------------------------------------------------------------------------------
// Through ffmpeg

// PSNR of the Y planes of `actual` against `reference`, over all frames.
double luma_psnr(const VideoStream& reference, const VideoStream& actual) {
  double squared = 0;
  std::size_t samples = 0;
  for (std::size_t f = 0; f < reference.frames.size(); ++f) {
    const Image &want = reference.frames[f].planes[0], &got = actual.frames[f].planes[0];
    for (std::size_t i = 0; i < want.data.size(); ++i) {
      const double d = double(want.data[i]) - double(got.data[i]);
      squared += d * d;
    }
    samples += want.data.size();
  }
  const double mse = squared / double(samples);
  return 10 * std::log10(255.0 * 255.0 / std::max(mse, 1e-12));
}

TEST_F(EpsilonCli, FfmpegPipelineRemovesMosquitoNoise) {
  if (run_shell("command -v ffmpeg").code != 0) GTEST_SKIP() << "ffmpeg is not installed";
  const std::string ffmpeg = "ffmpeg -hide_banner -loglevel error -nostdin -y";
  const int w = 320, h = 240, frames = 10;
  // The clean clip, losslessly; the noisy one is an MPEG-2 encode of it with a coarse fixed quantiser
  // (a low bitrate whatever ffmpeg's rate control does on 10 frames), which rings around testsrc2's
  // edges and text.
  CliResult r = run_shell(fmt::format("{} -f lavfi -i testsrc2=size={}x{}:rate=25 -frames:v {} -pix_fmt yuv420p {}",
                                      ffmpeg, w, h, frames, path("clean.y4m")));
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_shell(fmt::format("{} -i {} -c:v mpeg2video -q:v 12 {}", ffmpeg, path("clean.y4m"), path("noisy.mpg")));
  ASSERT_EQ(r.code, 0) << r.output;
  // The ffmpeg pipeline users run, with a lossless codec at the end so that the PSNR measures the filter alone.
  r = run_shell(fmt::format(
      "{0} -i {1} -f yuv4mpegpipe - | ( {2} epsilon - -; echo $? > {3} ) | {0} -f yuv4mpegpipe -i - -c:v ffv1 {4}",
      ffmpeg, path("noisy.mpg"), cli(), path("rc"), path("filtered.mkv")));
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_EQ(read_file(path("rc")), "0\n") << "the exit status of clfilters in the pipe\n" << r.output;
  r = run_shell(fmt::format("{} -i {} -pix_fmt yuv420p {} && {} -i {} -pix_fmt yuv420p {}", ffmpeg, path("noisy.mpg"),
                            path("noisy.y4m"), ffmpeg, path("filtered.mkv"), path("filtered.y4m")));
  ASSERT_EQ(r.code, 0) << r.output;

  const auto planes = video_planes("420", w, h);
  const VideoStream clean = parse_stream(read_file(path("clean.y4m")), true, planes);
  const VideoStream noisy = parse_stream(read_file(path("noisy.y4m")), true, planes);
  const VideoStream filtered = parse_stream(read_file(path("filtered.y4m")), true, planes);
  ASSERT_FALSE(HasFailure()) << "a stream ffmpeg wrote did not parse";
  ASSERT_EQ(clean.frames.size(), std::size_t(frames));
  ASSERT_EQ(noisy.frames.size(), std::size_t(frames));
  ASSERT_EQ(filtered.frames.size(), std::size_t(frames)) << "frame count kept through the pipeline";
  const double before = luma_psnr(clean, noisy), after = luma_psnr(clean, filtered);
  RecordProperty("psnr_noisy", fmt::format("{:.2f}", before));
  RecordProperty("psnr_filtered", fmt::format("{:.2f}", after));
  EXPECT_GT(after, before) << fmt::format("Y PSNR against the clean clip: noisy {:.2f} dB, filtered {:.2f} dB", before,
                                          after);
  // The chroma passes through untouched (ffv1 is lossless).
  for (std::size_t f = 0; f < std::size_t(frames); ++f)
    for (std::size_t p = 1; p < planes.size(); ++p)
      ASSERT_TRUE(testing::images_equal(noisy.frames[f].planes[p], filtered.frames[f].planes[p]))
          << "frame " << f + 1 << " plane " << p;
  // And that pipeline as users write it (ffmpeg's default codec for .mkv) works.
  r = run_shell(fmt::format("{0} -i {1} -f yuv4mpegpipe - | {2} epsilon - - | {0} -f yuv4mpegpipe -i - {3}", ffmpeg,
                            path("noisy.mpg"), cli(), path("clean.mkv")));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_GT(fs::file_size(path("clean.mkv")), 0u);
}

}  // namespace
}  // namespace clf
