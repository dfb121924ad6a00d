// SPDX-License-Identifier: Apache-2.0
// The command line as a user meets it: exit codes (0 ok, 1 runtime error, 2 usage error), one-line
// messages that name the file, correct output, and no partial output files.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/image_io.hpp"
#include "runtime/program_cache_file.hpp"
#include "testing/cli_fixture.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {
namespace {

namespace fs = std::filesystem;

using Cli = testing::CliTest;

TEST_F(Cli, HelpWorksAtEveryLevel) {
  for (const char* args : {"--help", "box-blur --help", "devices --help"}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.code, 0) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << args;
  }
  EXPECT_NE(run_cli("box-blur --help").output.find("separable_sliding"), std::string::npos);
}

TEST_F(Cli, UsageErrorsExitWithTwo) {
  const std::string in = path("in.png");
  write_image(testing::random_image(16, 9, 3, SampleType::u8, testing::fresh_seed()), in);
  const std::string out = path("out.png");
  const std::string blur = "box-blur " + in + " " + out;  // then one bad option
  expect_usage_errors({"", "no-such-command", "box-blur " + in, blur + " --diameter 0", blur + " --diameter abc",
                       blur + " --border wrap", blur + " --border constant=300", blur + " --variant fastest",
                       blur + " --diameter 3 --variant two_pass", "box-blur " + in + " " + path("out.tiff"),
                       blur + " --device no-such-device"});
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Cli, BlursCorrectlyWithEveryVariant) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const Image input = write_random_image(37, 29, 4);
  const BoxBlurParams params{4, {BorderMode::constant, 17}};
  const Image expected = box_blur_reference(input, params);
  for (const auto& v : box_blur_variants()) {
    const std::string out = path(v.name + ".png");
    const CliResult r = run_cli(fmt::format("box-blur {} {} --diameter 4 --border constant=17 --variant {} --time",
                                            path("in.png"), out, v.name));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("kernel"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(out), std::string::npos) << r.output;
    EXPECT_TRUE(testing::images_equal(expected, read_image(out))) << v.name;
  }
}

TEST_F(Cli, RgbJpegAndGreyPgmKeepTheirLayout) {
  const Image grey = testing::random_image(20, 11, 1, SampleType::u8, testing::fresh_seed());
  write_image(grey, path("g.pgm"));
  ASSERT_EQ(run_cli(fmt::format("box-blur {} {} -d 3", path("g.pgm"), path("g.npy"))).code, 0);
  EXPECT_TRUE(testing::images_equal(box_blur_reference(grey, {3, {}}), read_image(path("g.npy"))));

  write_image(testing::random_image(20, 11, 3, SampleType::u8, testing::fresh_seed()), path("c.jpg"));
  ASSERT_EQ(run_cli(fmt::format("box-blur {} {} -d 5", path("c.jpg"), path("c2.jpg"))).code, 0);
  EXPECT_EQ(read_image(path("c2.jpg")).channels, 3);
}

// 16-bit files stay 16-bit; sample values given in 8-bit units are scaled by 256 unless --sample-units; the border
// constant is in the samples' units; Sobel refuses them.
TEST_F(Cli, SixteenBitImagesKeepTheirDepth) {
  const Image rgb = testing::random_image(23, 13, 3, SampleType::u16, testing::fresh_seed());
  write_image(rgb, path("rgb16.png"));
  ASSERT_EQ(run_cli(fmt::format("box-blur {} {} -d 5 --border constant=40000", path("rgb16.png"), path("b.png"))).code,
            0);
  const Image blurred = read_image(path("b.png"));
  EXPECT_EQ(blurred.type, SampleType::u16);
  EXPECT_TRUE(testing::images_equal(
      from_filter_layout(box_blur_reference(to_filter_layout(rgb), {5, {BorderMode::constant, 40000}}), 3), blurred));

  const Image grey = testing::random_image(31, 17, 1, SampleType::u16, testing::fresh_seed());
  write_image(grey, path("g16.npy"));
  for (const auto& [options, threshold] : {std::pair{"-t 20", 20 * 256}, std::pair{"-t 3000 --sample-units", 3000}}) {
    ASSERT_EQ(run_cli(fmt::format("epsilon {} {} {}", path("g16.npy"), path("e.npy"), options)).code, 0) << options;
    EXPECT_TRUE(testing::images_equal(epsilon_reference(grey, {.radius = 4, .threshold = threshold, .border = {}}),
                                      read_image(path("e.npy"))))
        << options;
  }
  EXPECT_EQ(run_cli(fmt::format("epsilon {} {} -t 300", path("g16.npy"), path("e.npy"))).code, 2);
  const CliResult jpeg = run_cli(fmt::format("box-blur {} {}", path("rgb16.png"), path("b.jpg")));
  EXPECT_EQ(jpeg.code, 1);
  EXPECT_NE(jpeg.output.find("JPEG holds 8-bit samples"), std::string::npos) << jpeg.output;
  EXPECT_FALSE(fs::exists(path("b.jpg")));
  const CliResult sobel = run_cli(fmt::format("sobel {} {}", path("g16.npy"), path("s.png")));
  EXPECT_EQ(sobel.code, 1);
  EXPECT_NE(sobel.output.find("8-bit"), std::string::npos) << sobel.output;
  EXPECT_FALSE(fs::exists(path("s.png")));
}

TEST_F(Cli, PngCompressionChangesTheFileNotThePixels) {
  const Image input = testing::random_image(40, 24, 3, SampleType::u8, testing::fresh_seed());
  write_image(input, path("in.png"));
  const Image expected = from_filter_layout(box_blur_reference(to_filter_layout(input), {5, {}}), 3);
  for (const int level : {0, 1, 9}) {
    const std::string out = path(fmt::format("out{}.png", level));
    const CliResult r = run_cli(fmt::format("box-blur {} {} -d 5 --png-compression {}", path("in.png"), out, level));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_TRUE(testing::images_equal(expected, read_image(out))) << "level " << level;
  }
  EXPECT_GT(fs::file_size(path("out0.png")), fs::file_size(path("out9.png")));
  for (const char* level : {"10", "-1", "fast"}) {
    const std::string out = path("bad.png");
    const CliResult r = run_cli(fmt::format("box-blur {} {} --png-compression {}", path("in.png"), out, level));
    EXPECT_EQ(r.code, 2) << level << "\n" << r.output;
    EXPECT_NE(r.output.find("--png-compression"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out));
  }
}

TEST_F(Cli, BadInputFilesExitWithOneAndNameTheFile) {
  std::ofstream(path("corrupt.png"), std::ios::binary) << "\x89PNG\r\n\x1a\n garbage that is not a png";
  std::ofstream(path("text.png")) << "hello";
  const Image f32 = testing::random_image(4, 4, 1, SampleType::f32, testing::fresh_seed());
  write_image(f32, path("float.npy"));
  for (const std::string name : {"missing.png", "corrupt.png", "text.png", "float.npy"}) {
    const CliResult r = run_cli(fmt::format("box-blur {} {}", path(name), path("out.png")));
    EXPECT_EQ(r.code, 1) << name << "\n" << r.output;
    EXPECT_NE(r.output.find(name), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line: " << r.output;
  }
  EXPECT_FALSE(fs::exists(path("out.png")));
}

// An out-of-range number is named with its limit written short, never the largest double in full.
TEST_F(Cli, OutOfRangeNumbersSayTheLimitReadably) {
  for (const auto& [args, message] :
       std::vector<std::pair<std::string, std::string>>{{"tune --budget -1e308", "--budget: must be > 0, got -1e308"},
                                                        {"bench --runs 0", "--runs: must be > 0, got 0"},
                                                        {"bench --cpu-runs -2", "--cpu-runs: must be >= 0, got -2"},
                                                        {"bench --warmup ten", "--warmup: 'ten' is not a number"}}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
    EXPECT_LT(r.output.size(), 200u) << r.output;
  }
}

// --max-pixels (after the subcommand's options too) refuses a larger input with one line naming it, exit 1.
TEST_F(Cli, MaxPixelsRefusesALargerInputBeforeReadingIt) {
  write_image(testing::random_image(9, 7, 1, SampleType::u8, testing::fresh_seed()), path("in.png"));
  for (const std::string args : {"--max-pixels 62 box-blur {} {}", "box-blur {} {} --max-pixels 62"}) {
    const CliResult r = run_cli(fmt::format(fmt::runtime(args), path("in.png"), path("out.png")));
    EXPECT_EQ(r.code, 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(path("in.png") + ": image too large (9 x 7 pixels, the limit is 62"), std::string::npos)
        << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line: " << r.output;
  }
  EXPECT_FALSE(fs::exists(path("out.png")));
  expect_usage_errors({fmt::format("box-blur {} {} --max-pixels 0", path("in.png"), path("out.png"))});
}

// NumPy has no colour model: an (H, W, 2) uint8 array is taken as grey + alpha, as a grey+alpha PNG is, and the
// command says so on stderr.
TEST_F(Cli, TwoChannelNpyIsGreyPlusAlphaAndSaysSo) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image input = testing::random_image(9, 7, 2, SampleType::u8, seed);
  write_image(input, path("in.npy"));
  const CliResult r =
      run_cli(fmt::format("box-blur {} {} --diameter 3 2>&1 >/dev/null", path("in.npy"), path("out.npy")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, fmt::format("clfilters: note: {}: an (H, W, 2) array is read as grey + alpha (channel 1 is "
                                  "alpha)\n",
                                  path("in.npy")));
  // Each channel blurred on its own, as the 1-channel reference computes it.
  Image expected(input.width, input.height, 2);
  for (int c = 0; c < 2; ++c) {
    Image plane(input.width, input.height, 1);
    for (std::size_t i = 0; i < plane.data.size(); ++i) plane.data[i] = input.data[2 * i + std::size_t(c)];
    const Image blurred = box_blur_reference(plane, {3, {}});
    for (std::size_t i = 0; i < plane.data.size(); ++i) expected.data[2 * i + std::size_t(c)] = blurred.data[i];
  }
  EXPECT_TRUE(testing::images_equal(expected, read_image(path("out.npy"))));
}

TEST_F(Cli, FailedRunLeavesNoPartialOutputAndKeepsAnExistingFile) {
  write_image(testing::random_image(12, 12, 1, SampleType::u8, testing::fresh_seed()), path("in.png"));
  std::ofstream(path("keep.png")) << "previous contents";
  // The input is missing: the old output must survive untouched.
  EXPECT_EQ(run_cli(fmt::format("box-blur {} {}", path("nope.png"), path("keep.png"))).code, 1);
  EXPECT_EQ(testing::read_file(path("keep.png")), "previous contents");
  // The output folder does not exist: nothing is created anywhere.
  EXPECT_EQ(run_cli(fmt::format("box-blur {} {}", path("in.png"), path("no/dir/out.png"))).code, 1);
  // RGBA cannot be written as JPEG: refused, and no file appears.
  write_image(testing::random_image(12, 12, 4, SampleType::u8, testing::fresh_seed()), path("rgba.png"));
  EXPECT_EQ(run_cli(fmt::format("box-blur {} {}", path("rgba.png"), path("out.jpg"))).code, 1);
  EXPECT_EQ(files(), (std::vector<std::string>{"in.png", "keep.png", "rgba.png"}));
}

TEST_F(Cli, DevicesListsTheDefault) {
  const CliResult r = run_cli("devices");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Default device"), std::string::npos);
  EXPECT_NE(r.output.find("compute units"), std::string::npos);
  EXPECT_NE(r.output.find("max work-group size"), std::string::npos);
}

// Several clfilters processes sharing one cold cache folder: eight filtering at once leave whole program-cache
// files and correct outputs, and two `clfilters tune` at once leave a database that holds both runs' entries.
using testing::read_file;
using testing::run_shell;

class SharedCache : public testing::CliTest {
 protected:
  // The environment of every process: a fresh clfilters cache, and PoCL's own kernel cache where it was (PoCL
  // would otherwise follow XDG_CACHE_HOME and compile everything again; that cache is PoCL's, not under test).
  std::string environment() const {
    std::string pocl;
    if (const char* p = std::getenv("POCL_CACHE_DIR"); p && *p)
      pocl = p;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
      pocl = fmt::format("{}/pocl/kcache", x);
    else if (const char* h = std::getenv("HOME"); h && *h)
      pocl = fmt::format("{}/.cache/pocl/kcache", h);
    return fmt::format("XDG_CACHE_HOME='{}' POCL_CACHE_DIR='{}'", path("cache"), pocl);
  }

  // Runs `commands` at once in the background; returns their exit codes, in order, as "0 0 1 ...".
  std::string run_at_once(const std::vector<std::string>& commands) {
    std::string script;
    for (std::size_t i = 0; i < commands.size(); ++i)
      script += fmt::format("( {} > '{}' 2>&1; echo $? > '{}' ) &\n", commands[i], path(fmt::format("log{}", i)),
                            path(fmt::format("rc{}", i)));
    script += "wait\n";
    const CliResult r = run_shell(script);
    EXPECT_EQ(r.code, 0) << r.output;
    std::string codes;
    for (std::size_t i = 0; i < commands.size(); ++i) {
      std::string rc = read_file(path(fmt::format("rc{}", i)));
      if (!rc.empty() && rc.back() == '\n') rc.pop_back();
      codes += (i ? " " : "") + rc;
      if (rc != "0") ADD_FAILURE() << commands[i] << ":\n" << read_file(path(fmt::format("log{}", i)));
    }
    return codes;
  }
};

TEST_F(SharedCache, EightProcessesFilteringAtOnceLeaveWholeCacheFiles) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const Image input = testing::random_image(37, 23, 4, SampleType::u8, seed_);
  write_image(input, path("in.png"));
  std::vector<std::string> commands;
  for (int i = 0; i < 8; ++i)
    commands.push_back(fmt::format("{} CLFILTERS_NO_DISK_CACHE=0 {} box-blur '{}' '{}' --diameter 5", environment(),
                                   cli(), path("in.png"), path(fmt::format("out{}.png", i))));
  EXPECT_EQ(run_at_once(commands), "0 0 0 0 0 0 0 0");
  const Image expected = box_blur_reference(input, BoxBlurParams{.diameter = 5, .border = {}});
  for (int i = 0; i < 8; ++i)
    EXPECT_TRUE(testing::images_equal(expected, read_image(path(fmt::format("out{}.png", i)))));
  int binaries = 0;
  for (const auto& f : fs::directory_iterator(path("cache/clfilters/programs"))) {
    const std::string name = f.path().filename().string();
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << "a temporary file was left: " << name;
    if (f.path().extension() != ".bin") continue;
    ++binaries;
    const std::string bytes = read_file(f.path());
    EXPECT_TRUE(binary_from_program_cache_file({bytes.begin(), bytes.end()})) << name << " is not a whole cache file";
  }
  EXPECT_GE(binaries, 1);
  // A ninth process loads what the eight left.
  const CliResult r = run_shell(fmt::format("{} CLFILTERS_NO_DISK_CACHE=0 {} box-blur '{}' '{}' --diameter 5",
                                            environment(), cli(), path("in.png"), path("again.png")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(testing::images_equal(expected, read_image(path("again.png"))));
}

TEST_F(SharedCache, TwoTunesAtOnceKeepBothRunsEntries) {
  const std::string tune = fmt::format("{} {} tune --size 16x16 --budget 1", environment(), cli());
  EXPECT_EQ(run_at_once({tune + " matrix-add", tune + " dot-product"}), "0 0");
  const std::string db_path = path("cache/clfilters/tuning.json");
  EXPECT_FALSE(fs::exists(db_path + ".corrupt")) << "the database was unreadable";
  const TuningDb db = TuningDb::load(db_path);
  std::vector<std::string> filters;
  for (const auto& e : db.entries()) filters.push_back(e.filter);
  std::sort(filters.begin(), filters.end());
  EXPECT_EQ(filters, (std::vector<std::string>{"dot-product", "matrix-add"})) << read_file(db_path);
  // A reset beside nothing else keeps the database readable and empties this device's entries.
  const CliResult r = run_shell(fmt::format("{} {} tune --reset matrix-add", environment(), cli()));
  ASSERT_EQ(r.code, 0) << r.output;
  filters.clear();
  const TuningDb after_reset = TuningDb::load(db_path);
  for (const auto& e : after_reset.entries()) filters.push_back(e.filter);
  EXPECT_EQ(filters, (std::vector<std::string>{"dot-product"}));
}

}  // namespace
}  // namespace clf
