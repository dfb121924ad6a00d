// SPDX-License-Identifier: Apache-2.0
#include "testing/test_images.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>

#include "common/image_compare.hpp"

namespace clf::testing {

std::uint64_t fresh_seed() {
  if (const char* pinned = std::getenv("CLF_TEST_SEED")) return std::strtoull(pinned, nullptr, 10);
  static std::uint64_t counter = 0;
  const char* run = std::getenv("CLF_TEST_RUN_SEED");
  const auto base = run && *run
                        ? std::strtoull(run, nullptr, 10)
                        : static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  // splitmix64 of the base and the call's number: distinct seeds within a test, the same sequence in another build.
  std::uint64_t z = base + 0x9E3779B97F4A7C15ull * ++counter;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

CaseSample::CaseSample(double share, std::uint64_t seed) : share_(share), seed_(seed), rng_(seed) {
  if (const char* all = std::getenv("CLF_TEST_EXHAUSTIVE"); all && *all && std::string_view(all) != "0") share_ = 1;
}

bool CaseSample::take() {
  return share_ >= 1 || std::uniform_real_distribution<double>(0, 1)(rng_) < share_;
}

Image random_image(int width, int height, int channels, SampleType type, std::uint64_t seed) {
  Image img(width, height, channels, type);
  std::mt19937_64 rng(seed);
  switch (type) {
    case SampleType::u8:
      for (auto& v : img.samples<std::uint8_t>()) v = static_cast<std::uint8_t>(rng() & 0xFF);
      break;
    case SampleType::u16:
      for (auto& v : img.samples<std::uint16_t>()) v = static_cast<std::uint16_t>(rng() & 0xFFFF);
      break;
    case SampleType::i16:
      for (auto& v : img.samples<std::int16_t>()) v = static_cast<std::int16_t>(rng() & 0xFFFF);
      break;
    case SampleType::f32: {
      std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
      for (auto& v : img.samples<float>()) v = dist(rng);
      break;
    }
  }
  // A tiny image could come out all zeros; make sure at least one sample is not.
  bool all_zero = true;
  for (auto b : img.data) all_zero = all_zero && b == 0;
  if (all_zero && !img.data.empty()) img.data[0] = 1;
  return img;
}

void poison(Image& image, std::uint8_t value) {
  std::memset(image.data.data(), value, image.data.size());
}

::testing::AssertionResult images_equal(const Image& expected, const Image& actual, double tolerance) {
  if (auto diff = compare_images(expected, actual, tolerance)) return ::testing::AssertionFailure() << *diff;
  return ::testing::AssertionSuccess();
}

double psnr(const Image& a, const Image& b) {
  double se = 0;
  for (std::size_t i = 0; i < a.pixel_count(); ++i) {
    const double d = sample_as_double(a, i) - sample_as_double(b, i);
    se += d * d;
  }
  const double mse = se / double(a.pixel_count());
  return mse == 0 ? std::numeric_limits<double>::infinity() : 10 * std::log10(255.0 * 255.0 / mse);
}

std::unique_ptr<Context> adopted_context(const DeviceHandle& device, bool profiling) {
  cl_int err = CL_SUCCESS;
  cl_device_id id = device.device();
  cl_context raw_context = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &err);
  check_cl(err, "clCreateContext");
  const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                       profiling ? cl_queue_properties(CL_QUEUE_PROFILING_ENABLE) : 0, 0};
  cl_command_queue raw_queue = clCreateCommandQueueWithProperties(raw_context, id, props, &err);
  check_cl(err, "clCreateCommandQueueWithProperties");
  auto ctx = std::make_unique<Context>(raw_context, id, raw_queue);
  clReleaseCommandQueue(raw_queue);
  clReleaseContext(raw_context);
  return ctx;
}

Context& test_context() {
  static const std::unique_ptr<Context> ctx = [] {
    const char* adopt = std::getenv("CLF_TEST_ADOPTED_CONTEXT");
    return adopt && *adopt == '1' ? adopted_context(select_device(), true) : std::make_unique<Context>();
  }();
  return *ctx;
}

Image run_poisoned(Context& ctx, const DeviceImage& like, const std::function<void(DeviceImage& out)>& call) {
  Image poisoned(like.width, like.height, like.channels, like.type);
  poison(poisoned);
  DeviceImage out = DeviceImage::upload(ctx, poisoned);
  call(out);
  return out.download(ctx);
}

std::string size_name(const SizeCase& s) {
  return fmt::format("{}x{}", s.width, s.height);
}

std::vector<std::string> variant_names(const std::vector<VariantInfo>& variants) {
  std::vector<std::string> names;
  for (const auto& v : variants) names.push_back(v.name);
  return names;
}

::testing::AssertionResult timing_filled(const std::function<void(Timing*)>& call) {
  Timing t;
  call(&t);
  if (!(t.kernel_ms > 0.0)) return ::testing::AssertionFailure() << "kernel time " << t.kernel_ms << " ms, not > 0";
  if (!(t.total_ms >= t.kernel_ms))
    return ::testing::AssertionFailure() << "total time " << t.total_ms << " ms below the kernel time " << t.kernel_ms
                                         << " ms";
  return ::testing::AssertionSuccess();
}

std::vector<VideoPlane> video_planes(const std::string& cs, int w, int h) {
  const int hw = (w + 1) / 2, hh = (h + 1) / 2;
  if (cs == "mono" || cs == "gray") return {{'y', w, h}};
  if (cs == "422") return {{'y', w, h}, {'u', hw, h}, {'v', hw, h}};
  if (cs == "444" || cs == "yuv444p") return {{'y', w, h}, {'u', w, h}, {'v', w, h}};
  if (cs == "444alpha") return {{'y', w, h}, {'u', w, h}, {'v', w, h}, {'a', w, h}};
  if (cs == "nv12") return {{'y', w, h}, {'c', 2 * hw, hh}};
  return {{'y', w, h}, {'u', hw, hh}, {'v', hw, hh}};  // every 4:2:0 siting, i420
}

std::string stream_bytes(const VideoStream& stream) {
  std::string out = stream.header.empty() ? "" : stream.header + "\n";
  for (const VideoFrame& f : stream.frames) {
    if (!stream.header.empty()) out += "FRAME" + f.parameters + "\n";
    for (const Image& p : f.planes) out.append(p.data.begin(), p.data.end());
  }
  return out;
}

VideoStream parse_stream(const std::string& bytes, bool y4m, const std::vector<VideoPlane>& planes) {
  VideoStream s;
  std::size_t pos = 0;
  if (y4m) {
    pos = bytes.find('\n');
    if (pos == std::string::npos) {
      ADD_FAILURE() << "no header line";
      return s;
    }
    s.header = bytes.substr(0, pos++);
  }
  while (pos < bytes.size()) {
    VideoFrame f;
    if (y4m) {
      const std::size_t eol = bytes.find('\n', pos);
      if (eol == std::string::npos || bytes.compare(pos, 5, "FRAME") != 0) {
        ADD_FAILURE() << "frame " << s.frames.size() + 1 << ": no FRAME line at byte " << pos;
        return s;
      }
      f.parameters = bytes.substr(pos + 5, eol - pos - 5);
      pos = eol + 1;
    }
    for (const VideoPlane& p : planes) {
      Image image(p.width, p.height, 1);
      if (bytes.size() - pos < image.data.size()) {
        ADD_FAILURE() << "frame " << s.frames.size() + 1 << " is cut short";
        return s;
      }
      std::copy_n(bytes.begin() + std::ptrdiff_t(pos), image.data.size(), image.data.begin());
      pos += image.data.size();
      f.planes.push_back(std::move(image));
    }
    s.frames.push_back(std::move(f));
  }
  return s;
}

::testing::AssertionResult streams_equal(const VideoStream& expected, const VideoStream& actual) {
  if (expected.header != actual.header)
    return ::testing::AssertionFailure() << "header '" << actual.header << "', expected '" << expected.header << "'";
  if (expected.frames.size() != actual.frames.size())
    return ::testing::AssertionFailure() << actual.frames.size() << " frames, expected " << expected.frames.size();
  for (std::size_t f = 0; f < expected.frames.size(); ++f) {
    const VideoFrame &want = expected.frames[f], &got = actual.frames[f];
    if (want.parameters != got.parameters)
      return ::testing::AssertionFailure() << "frame " << f + 1 << ": parameters '" << got.parameters << "'";
    if (want.planes.size() != got.planes.size())
      return ::testing::AssertionFailure() << "frame " << f + 1 << ": " << got.planes.size() << " planes";
    for (std::size_t p = 0; p < want.planes.size(); ++p) {
      const auto tolerance = want.tolerance.find(p);
      if (auto r =
              images_equal(want.planes[p], got.planes[p], tolerance == want.tolerance.end() ? 0.0 : tolerance->second);
          !r)
        return ::testing::AssertionFailure() << "frame " << f + 1 << " plane " << p << ": " << r.message();
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace clf::testing
