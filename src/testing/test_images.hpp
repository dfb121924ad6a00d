// SPDX-License-Identifier: Apache-2.0
// Helpers for honest tests: fresh random inputs, poisoned outputs, and comparisons that say
// how large the difference is, how many samples differ and where the first one is.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "clfilters/border.hpp"
#include "clfilters/device_image.hpp"
#include "clfilters/image.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace clf::testing {

// The device the tests run on: $CLFILTERS_DEVICE, else the default device. One per test process, so that the
// tests in it share their program builds. With CLF_TEST_ADOPTED_CONTEXT=1 it is a context and queue made
// with plain OpenCL calls, as an application would, and adopted (Context's adopting constructor).
Context& test_context();

// A context and in-order queue made with plain OpenCL calls for `device`, adopted by a new Context; the
// raw handles are released once adopted, so the Context holds the only references.
std::unique_ptr<Context> adopted_context(const DeviceHandle& device, bool profiling);

// Every border mode, the constant one at 0 and at a value of its own.
inline const Border kBorders[] = {
    {BorderMode::replicate, 0}, {BorderMode::reflect101, 0}, {BorderMode::constant, 0}, {BorderMode::constant, 173}};

// A seed that differs between runs (and is printed on failure via SCOPED_TRACE by callers),
// so every run draws fresh inputs. CLF_TEST_SEED pins it to reproduce a failure. CLF_TEST_RUN_SEED makes the
// sequence of seeds a test process draws depend on it alone: scripts/test.sh sets one for the release and the
// sanitizer runs, which then draw the same sweep cases and so share PoCL's cached kernel builds.
std::uint64_t fresh_seed();

// The share of a sweep's cases a run checks. Each tunable combination is a program build, 0.3-1 s on PoCL, so a
// default run checks a share drawn from `seed` (a fresh one each run; CLF_TEST_SEED pins it) and every case is
// checked where CLF_TEST_EXHAUSTIVE is set: the `slow` CTest label's twin of each sweep (clf_add_test SWEEPS).
class CaseSample {
 public:
  explicit CaseSample(double share, std::uint64_t seed = fresh_seed());
  // Whether to check the next case; always true for an exhaustive run.
  bool take();
  std::uint64_t seed() const { return seed_; }

 private:
  double share_;
  std::uint64_t seed_;
  std::mt19937_64 rng_;
};

// Uniform random samples over the type's full range (floats in [-1000, 1000]); never all zero.
Image random_image(int width, int height, int channels, SampleType type, std::uint64_t seed);

// Fills every byte with `value` so that unwritten samples show up in comparisons.
void poison(Image& image, std::uint8_t value = 0xA5);

// Runs `call` into a device image of `like`'s size, channels and sample type, every byte poisoned first so that samples
// it leaves unwritten show; returns what it wrote.
Image run_poisoned(Context& ctx, const DeviceImage& like, const std::function<void(DeviceImage& out)>& call);

// Compares two images sample by sample. On mismatch the result message gives the largest
// absolute difference, the number of differing samples and the first position (x, y, channel).
::testing::AssertionResult images_equal(const Image& expected, const Image& actual, double tolerance = 0.0);

// Peak signal-to-noise ratio of `b` against `a` (same shape), in dB for a peak of 255; infinity where they are equal.
double psnr(const Image& a, const Image& b);

// An image size of a parameterised test, named "WxH" (size_name) in the test's name.
struct SizeCase {
  int width;
  int height;
};
std::string size_name(const SizeCase& s);

// The names of a filter's variants, for tests parameterised over them.
std::vector<std::string> variant_names(const std::vector<VariantInfo>& variants);

// Runs a host call that reports its Timing and checks the timing: a kernel time, and a total that includes it.
::testing::AssertionResult timing_filled(const std::function<void(Timing*)>& call);

// Video streams as the tests build and read them back, with code of their own rather than the library's readers.
// A plane of a frame: its name ('y', 'u', 'v', 'a'; 'c' for NV12's interleaved chroma) and size.
struct VideoPlane {
  char name;
  int width, height;
};
// The planes of a frame of colour space `cs` (a Y4M C tag, "gray" or a raw layout), from the Y4M specification and
// ffmpeg's raw layouts (chroma sizes round up).
std::vector<VideoPlane> video_planes(const std::string& cs, int width, int height);

// One frame as planes, and its FRAME parameters.
struct VideoFrame {
  std::string parameters;
  std::vector<Image> planes;
  // Expected frames: how far each plane may be from it (the bilateral's contract is within 1 of its
  // double-precision reference); none listed: exact.
  std::map<std::size_t, double> tolerance = {};
};

// A Y4M stream (its header line without the newline, then FRAME lines), or raw frames where the header is empty.
struct VideoStream {
  std::string header;
  std::vector<VideoFrame> frames;
};
std::string stream_bytes(const VideoStream& stream);
// Parses `bytes`, a Y4M stream when `y4m` (else raw) of frames of `planes`; a malformed stream fails the test.
VideoStream parse_stream(const std::string& bytes, bool y4m, const std::vector<VideoPlane>& planes);
// The header, the frame count, each frame's parameters and planes (within the expected frame's tolerance).
::testing::AssertionResult streams_equal(const VideoStream& expected, const VideoStream& actual);

}  // namespace clf::testing
