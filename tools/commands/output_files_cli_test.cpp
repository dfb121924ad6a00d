// SPDX-License-Identifier: Apache-2.0
// What the clfilters command does to the paths it writes: outputs that must not be replaced (directories, FIFOs,
// dangling links, files the user may not write) are refused before any work, a symbolic link is written through,
// and SIGINT or SIGTERM during a run leaves no temporary file behind.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "clfilters/box_blur.hpp"
#include "clfilters/image_io.hpp"
#include "clfilters/sobel.hpp"
#include "common/image_compare.hpp"
#include "testing/cli_fixture.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

extern char** environ;

namespace clf {
namespace {

namespace fs = std::filesystem;

bool has_temp_file(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) return true;
  return false;
}

class OutputFiles : public testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    input_ = write_random_image(29, 17, 4);
  }
  Image input_;
};

TEST_F(OutputFiles, NonRegularOutputsAreRefusedAndLeftAsTheyWere) {
  ASSERT_EQ(::mkfifo(path("fifo.png").c_str(), 0644), 0);
  fs::create_directory(path("dir.png"));
  fs::create_symlink("missing.png", path("dangling.png"));
  const std::pair<const char*, const char*> cases[] = {
      {"fifo.png", "a FIFO"}, {"dir.png", "a directory"}, {"dangling.png", "does not exist"}};
  for (const auto& [name, why] : cases) {
    SCOPED_TRACE(name);
    const CliResult r = run_cli(fmt::format("box-blur {} {} --diameter 3", path("in.png"), path(name)));
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_EQ(testing::line_count(r.output), 1) << r.output;
    EXPECT_NE(r.output.find(path(name)), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << r.output;
  }
  EXPECT_TRUE(fs::is_fifo(path("fifo.png")));
  EXPECT_TRUE(fs::is_directory(path("dir.png")));
  EXPECT_TRUE(fs::is_symlink(path("dangling.png")));
  EXPECT_FALSE(fs::exists(path("missing.png")));
  EXPECT_FALSE(has_temp_file(dir_));
  // Video may be written into a character device (or a FIFO), as into a pipe; a directory is refused there too.
  const int w = 8, h = 4;
  testing::write_file(path("in.y4m"),
                      fmt::format("YUV4MPEG2 W{} H{}\nFRAME\n", w, h) + std::string(w * h * 3 / 2, '\x55'));
  fs::create_directory(path("dir.y4m"));
  CliResult r = run_cli(fmt::format("epsilon --quiet {} {}", path("in.y4m"), path("dir.y4m")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("dir.y4m: cannot replace: it exists and is a directory"), std::string::npos) << r.output;
  r = run_cli(fmt::format("epsilon --quiet {} /dev/null", path("in.y4m")));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(OutputFiles, SymbolicLinkIsWrittenThroughToItsTarget) {
  fs::create_directory(path("real"));
  testing::write_file(path("real/target.png"), "not yet an image");
  fs::create_symlink("real/target.png", path("link.png"));
  const CliResult r = run_cli(fmt::format("box-blur {} {} --diameter 3", path("in.png"), path("link.png")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(path("link.png"))) << "the link was replaced by a file";
  EXPECT_EQ(fs::read_symlink(path("link.png")), fs::path("real/target.png"));
  EXPECT_TRUE(testing::images_equal(box_blur_reference(input_, BoxBlurParams{.diameter = 3, .border = {}}),
                                    read_image(path("real/target.png"))));
  EXPECT_FALSE(has_temp_file(dir_));
  EXPECT_FALSE(has_temp_file(path("real")));
}

TEST_F(OutputFiles, FileTheUserMayNotWriteIsRefusedNotReplaced) {
  testing::write_file(path("locked.png"), "kept as it is");
  ASSERT_EQ(::chmod(path("locked.png").c_str(), 0444), 0);
  std::string command = fmt::format("{} box-blur {} {} --diameter 3", cli(), path("in.png"), path("locked.png"));
  if (::geteuid() == 0) {
    // root may write any file: run as nobody, in a folder nobody may write, on a file root owns.
    if (testing::run_shell("command -v setpriv").code != 0) GTEST_SKIP() << "setpriv (util-linux) is not installed";
    ASSERT_EQ(::chmod(dir_.c_str(), 0777), 0);
    ASSERT_EQ(::chmod(path("in.png").c_str(), 0644), 0);
    command = "setpriv --reuid=65534 --regid=65534 --clear-groups " + command;
  }
  const CliResult r = testing::run_shell(command);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_EQ(testing::line_count(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("locked.png: cannot write: Permission denied"), std::string::npos) << r.output;
  EXPECT_EQ(testing::read_file(path("locked.png")), "kept as it is");
  EXPECT_FALSE(has_temp_file(dir_));
}

// The command's temporary output exists while it waits for the rest of a stream on a FIFO; a signal then must
// remove it and end the process by that signal.
class SignalDuringRun : public OutputFiles, public ::testing::WithParamInterface<int> {};

TEST_P(SignalDuringRun, RemovesTheTemporaryOutput) {
  const int sig = GetParam();
  const int w = 16, h = 8;
  const std::string frame(std::size_t(w * h * 3 / 2), char(seed_ & 0x7F));
  ASSERT_EQ(::mkfifo(path("in.y4m").c_str(), 0644), 0);
  const std::string cli_path = CLF_CLI_PATH, in = path("in.y4m"), out = path("out.y4m");
  std::vector<char*> argv{const_cast<char*>(cli_path.c_str()), const_cast<char*>("epsilon"),
                          const_cast<char*>("--quiet"),        const_cast<char*>(in.c_str()),
                          const_cast<char*>(out.c_str()),      nullptr};
  pid_t pid = 0;
  ASSERT_EQ(::posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
  // The FIFO opens once the command opens it to read; the header and one frame let it create its output.
  int fifo = -1;
  for (int i = 0; i < 1200 && fifo < 0; ++i) {
    fifo = ::open(in.c_str(), O_WRONLY | O_NONBLOCK);
    int status = 0;
    if (fifo < 0 && ::waitpid(pid, &status, WNOHANG) == pid) FAIL() << "the command ended first: status " << status;
    if (fifo < 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(fifo, 0) << "the command never opened its input";
  const std::string start = fmt::format("YUV4MPEG2 W{} H{} F25:1\nFRAME\n", w, h) + frame;
  ASSERT_EQ(::write(fifo, start.data(), start.size()), ssize_t(start.size()));
  // Waits for the temporary file (the program build comes first); no bound on speed, only a generous cap.
  bool seen = false;
  for (int i = 0; i < 1200 && !seen; ++i) {
    seen = has_temp_file(dir_);
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(seen) << "no temporary output appeared";
  ASSERT_EQ(::kill(pid, sig), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::close(fifo);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
  EXPECT_FALSE(has_temp_file(dir_));
  EXPECT_FALSE(fs::exists(out));
}

INSTANTIATE_TEST_SUITE_P(Signals, SignalDuringRun, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& param_info) { return param_info.param == SIGINT ? "SIGINT" : "SIGTERM"; });

// Many images through one command (IN... -o DIR): every output matches the reference, a bad file is reported in
// one line while the others are written, and what cannot work is refused before anything is written.
class Batch : public testing::CliTest {};

TEST_F(Batch, EveryInputIsFilteredAndABadOneIsReportedAlone) {
  // RGB, grey and RGBA, PNG, PGM and .npy, each its own size: one device setup serves them all.
  const Image rgb = write_random_image(31, 17, 3, "rgb.png");
  const Image grey = write_random_image(13, 40, 1, "grey.pgm");
  const Image rgba = write_random_image(9, 7, 4, "rgba.npy");
  testing::write_file(path("broken.png"), "not an image");
  const CliResult r = run_cli(fmt::format("box-blur {} {} {} {} -o {} -d 4 --border reflect101", path("rgb.png"),
                                          path("broken.png"), path("grey.pgm"), path("rgba.npy"), path("out/new")));
  EXPECT_EQ(r.code, 1) << r.output;
  // The broken file's one line, and the summary line.
  EXPECT_EQ(testing::line_count(r.output), 2) << r.output;
  EXPECT_NE(r.output.find(path("broken.png") + ": "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3 of 4 images"), std::string::npos) << r.output;
  const BoxBlurParams params{.diameter = 4, .border = {BorderMode::reflect101, 0}};
  for (const auto& [name, input] : {std::pair{"rgb.png", &rgb}, {"grey.pgm", &grey}, {"rgba.npy", &rgba}}) {
    SCOPED_TRACE(name);
    const Image got = read_image(path("out/new/") + name);
    // RGB runs as RGBA with alpha 255 (SPEC), so its reference is the RGBA one without alpha.
    const Image want = from_filter_layout(box_blur_reference(to_filter_layout(*input), params), input->channels);
    EXPECT_EQ(compare_images(want, got), std::nullopt);
  }
  EXPECT_FALSE(fs::exists(path("out/new/broken.png")));
  EXPECT_EQ(std::distance(fs::directory_iterator(path("out/new")), fs::directory_iterator()), 3);
}

TEST_F(Batch, FormatSetsTheOutputsExtension) {
  const Image a = write_random_image(20, 11, 1, "a.png");
  write_random_image(17, 23, 3, "b.jpg");
  SobelParams gradients;
  gradients.output = SobelOutput::gradients;
  const CliResult r = run_cli(
      fmt::format("sobel {} {} -o {} --output gradients --format npy", path("a.png"), path("b.jpg"), path("grad")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(compare_images(sobel_reference(a, gradients), read_image(path("grad/a.npy"))), std::nullopt);
  // b.jpg's pixels are what JPEG decoding gives back, not `b`: the reference filters the file as read.
  EXPECT_EQ(compare_images(sobel_reference(read_image(path("b.jpg")), gradients), read_image(path("grad/b.npy"))),
            std::nullopt);
}

TEST_F(Batch, WhatCannotWorkIsRefusedBeforeAnythingIsWritten) {
  write_random_image(8, 8, 1, "a.png");
  fs::create_directory(path("other"));
  write_random_image(8, 8, 1, "other/a.png");
  write_random_image(8, 8, 1, "y.png");
  testing::write_file(path("clip.y4m"), "YUV4MPEG2 W8 H8 F25:1 C420jpeg\nFRAME\n" + std::string(96, 'x'));
  const std::string a = path("a.png"), y = path("y.png");
  expect_usage_errors({
      fmt::format("box-blur {}", a),                                           // no OUT
      fmt::format("box-blur {} {} {}", a, y, path("z.png")),                   // several inputs, no -o
      fmt::format("box-blur {} {} --format png", a, path("z.png")),            // --format without -o
      fmt::format("box-blur {} {} -o {}", a, y, dir_.string()),                // would overwrite its input
      fmt::format("box-blur {} {} -o {}", a, path("other/a.png"), path("o")),  // two inputs, one output
      fmt::format("box-blur {} - -o {}", a, path("o")),                        // stdin in a batch
      fmt::format("box-blur {} -o {} --format tiff", a, path("o")),            // unknown format
      fmt::format("sobel {} -o {} --output gradients", a, path("o")),          // gradients need .npy
      fmt::format("epsilon {} -o {}", path("clip.y4m"), path("o")),            // video takes IN OUT
  });
  EXPECT_FALSE(fs::exists(path("o")));
}

}  // namespace
}  // namespace clf
