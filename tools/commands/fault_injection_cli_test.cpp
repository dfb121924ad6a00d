// SPDX-License-Identifier: Apache-2.0
// Device faults injected with CLFILTERS_FAULT (runtime/fault_injection.hpp): a refused build or launch makes `auto`
// fall back to another variant, whose output is still right; every other refusal is one line, exit 1, and no output
// file. Under the ASan build the command also runs with leak detection on.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/image_io.hpp"
#include "clfilters/jacobi.hpp"
#include "clfilters/sobel.hpp"
#include "testing/cli_fixture.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {
namespace fs = std::filesystem;

class InjectedFault : public testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    input_ = write_random_image(33, 19, 4);
  }
  // `clfilters ARGS` with CLFILTERS_FAULT=fault, and with leak detection where the command is built with ASan (the
  // ASan preset turns it off for the suite as a whole).
  CliResult run_with_fault(const std::string& fault, const std::string& args) const {
    // An empty program cache each time: a program read back from the disk cache (on GPUs) is not built, so a build
    // fault would miss. PoCL keeps its own cache where it was.
    return testing::run_shell(
        fmt::format("rm -rf {0} && POCL_CACHE_DIR=${{POCL_CACHE_DIR:-${{XDG_CACHE_HOME:-$HOME/.cache}}/pocl}} "
                    "CLFILTERS_FAULT={1} ASAN_OPTIONS=detect_leaks=1 XDG_CACHE_HOME={0} {2} {3}",
                    path("cache"), fault, cli(), args));
  }
  // Nothing was written: no output, no temporary file.
  void expect_no_output(const std::string& name) const {
    EXPECT_FALSE(fs::exists(path(name)));
    for (const auto& f : files()) EXPECT_EQ(f.find(".tmp-"), std::string::npos) << f;
  }
  // Runs `clfilters ARGS` under a refused build and under a refused launch: each time "auto" warns, falls back, says
  // in the result line which variant ran, and writes OUT, which `check` then reads.
  void expect_fallback(const std::string& args, const std::string& out,
                       const std::function<void(const Image&)>& check) const {
    for (const char* fault : {"build:1", "enqueue:1"}) {
      SCOPED_TRACE(fault);
      fs::remove(path(out));
      const CliResult r = run_with_fault(fault, args);
      ASSERT_EQ(r.code, 0) << r.output;
      EXPECT_NE(r.output.find("was refused"), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("instead"), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("(fallback: "), std::string::npos) << r.output;
      check(read_image(path(out)));
    }
  }
  Image input_;
};

TEST_F(InjectedFault, RefusedBuildOrLaunchFallsBackToAnotherVariant) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const Image expected = box_blur_reference(input_, BoxBlurParams{.diameter = 3, .border = {}});
  expect_fallback(fmt::format("box-blur {} {} --diameter 3", path("in.png"), path("out.png")), "out.png",
                  [&](const Image& got) { EXPECT_TRUE(testing::images_equal(expected, got)); });
}

// The reconstruction falls back too: the refusal comes before its first launch, so the iterate is untouched.
TEST_F(InjectedFault, RefusedReconstructionFallsBackBeforeItsFirstLaunch) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const Image edges = testing::random_image(29, 23, 1, SampleType::f32, seed_);
  write_image(edges, path("edges.npy"));
  JacobiParams params;
  params.iterations = 7;
  const JacobiReference expected = jacobi_reference(edges, params);
  expect_fallback(fmt::format("reconstruct {} {} --iterations 7", path("edges.npy"), path("out.npy")), "out.npy",
                  [&](const Image& got) { EXPECT_LE(jacobi_relative_l2(expected, got), 1e-5); });
}

// Sobel's device call falls back as the image filters' does, for the 8-bit output and for the gradient planes.
TEST_F(InjectedFault, RefusedSobelFallsBackToAnotherVariant) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const Image grey = sobel_grey(input_);
  for (const char* output : {"magnitude", "gradients"}) {
    SCOPED_TRACE(output);
    const std::string out = std::string(output) == "gradients" ? "out.npy" : "out.png";
    const Image expected = sobel_reference(grey, SobelParams{.output = parse_sobel_output(output), .border = {}});
    expect_fallback(fmt::format("sobel {} {} --output {}", path("in.png"), path(out), output), out,
                    [&](const Image& got) { EXPECT_TRUE(testing::images_equal(expected, got)); });
  }
}

TEST_F(InjectedFault, EveryOtherRefusalIsOneLineAndNoOutput) {
  const std::string blur = fmt::format("box-blur {} {} --diameter 3", path("in.png"), path("out.png"));
  const struct {
    std::string fault;
    std::string args;
    std::string says;
  } cases[] = {
      {"build", blur, "CL_BUILD_PROGRAM_FAILURE"},  // every variant refused
      {"enqueue", blur, "CL_OUT_OF_RESOURCES"},
      {"build:1", blur + " --variant naive", "CL_BUILD_PROGRAM_FAILURE"},  // a named variant does not fall back
      {"alloc:1", blur, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
      {"alloc:2", blur, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.fault + ": " + c.args);
    const CliResult r = run_with_fault(c.fault, c.args);
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_EQ(testing::line_count(r.output), 1) << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << r.output;
    expect_no_output("out.png");
  }
}

TEST_F(InjectedFault, RefusedMapOrAllocationOfTheVideoPipelineWritesNoVideo) {
  const int w = 16, h = 8;
  std::string frame(std::size_t(w * h * 3 / 2), '\0');
  for (std::size_t i = 0; i < frame.size(); ++i) frame[i] = char((seed_ + i * 7) & 0xFF);
  testing::write_file(path("in.y4m"), fmt::format("YUV4MPEG2 W{} H{}\nFRAME\n", w, h) + frame);
  for (const char* fault : {"map:1", "map:4", "alloc:3"}) {
    SCOPED_TRACE(fault);
    const CliResult r = run_with_fault(fault, fmt::format("epsilon --quiet {} {}", path("in.y4m"), path("out.y4m")));
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_EQ(testing::line_count(r.output), 1) << r.output;
    EXPECT_NE(r.output.find(std::string(fault).starts_with("map") ? "CL_MAP_FAILURE" : "CL_MEM_OBJECT_ALLOCATION"),
              std::string::npos)
        << r.output;
    expect_no_output("out.y4m");
  }
  // Without a fault the same command works, so the failures above are the injected ones.
  const CliResult ok = run_with_fault("", fmt::format("epsilon --quiet {} {}", path("in.y4m"), path("out.y4m")));
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_TRUE(fs::exists(path("out.y4m")));
}

}  // namespace
}  // namespace clf
