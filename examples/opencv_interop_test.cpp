// SPDX-License-Identifier: Apache-2.0
// clfilters inside OpenCV's own OpenCL context and queue: cv::UMat buffers filtered on the device with no
// host round trip, checked bit-exact against cv::blur and cv::Sobel on the same image.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <opencv2/core/ocl.hpp>
#include <opencv2/imgproc.hpp>

#include "clfilters/box_blur.hpp"
#include "clfilters/sobel.hpp"
#include "testing/test_images.hpp"

namespace {

// OpenCV's reference runs on a packed copy of the pixels: on a region, OpenCV reads the parent's pixels
// around it instead of the border.

// OpenCV's own context, device and queue, adopted by a clfilters Context.
std::unique_ptr<clf::Context> adopt_opencv() {
  return std::make_unique<clf::Context>(static_cast<cl_context>(cv::ocl::Context::getDefault().ptr()),
                                        static_cast<cl_device_id>(cv::ocl::Device::getDefault().ptr()),
                                        static_cast<cl_command_queue>(cv::ocl::Queue::getDefault().ptr()));
}

cv::Mat random_mat(int width, int height, int channels) {
  const clf::Image img =
      clf::testing::random_image(width, height, channels, clf::SampleType::u8, clf::testing::fresh_seed());
  return cv::Mat(height, width, CV_8UC(channels), const_cast<std::uint8_t*>(img.data.data())).clone();
}

// A UMat with `m`'s pixels, either packed or as a region of a larger, poisoned one (an offset and a row pitch).
cv::UMat on_device(const cv::Mat& m, bool region) {
  if (!region) return m.getUMat(cv::ACCESS_READ).clone();
  cv::UMat big(m.rows + 5, m.cols + 7, m.type(), cv::Scalar::all(0xA5));
  cv::UMat roi = big(cv::Rect(3, 2, m.cols, m.rows));
  m.copyTo(roi);
  return roi;
}

clf::DeviceImage view_of(clf::Context& ctx, cv::UMat& u) {
  return clf::DeviceImage::view(ctx, static_cast<cl_mem>(u.handle(cv::ACCESS_RW)), u.cols, u.rows, u.channels(),
                                u.offset, u.step);
}

bool same(const cv::UMat& a, const cv::UMat& b) {
  return cv::norm(a.getMat(cv::ACCESS_READ), b.getMat(cv::ACCESS_READ), cv::NORM_INF) == 0;
}

class OpenCvInterop : public ::testing::TestWithParam<bool> {
 protected:
  static void SetUpTestSuite() {
    // OpenCV looks for GPUs only unless told otherwise; PoCL is a CPU device.
    bool gpu = false;
    for (const auto& d : clf::list_devices()) gpu = gpu || (d.info.type & CL_DEVICE_TYPE_GPU);
    if (!gpu) ::setenv("OPENCV_OPENCL_DEVICE", ":CPU:", 0);
  }
  void SetUp() override {
    cv::ocl::setUseOpenCL(true);
    if (!cv::ocl::useOpenCL()) GTEST_SKIP() << "OpenCV found no OpenCL device";
  }
};

TEST_P(OpenCvInterop, BoxBlurOfUMatMatchesCvBlur) {
  const bool region = GetParam();
  auto ctx = adopt_opencv();
  EXPECT_FALSE(ctx->profiling());  // OpenCV's queue has no profiling; clfilters uses it as it is
  for (const int channels : {1, 4}) {
    SCOPED_TRACE(channels);
    const cv::Mat host = random_mat(61, 37, channels);
    cv::UMat src = on_device(host, region);
    cv::UMat expected;
    cv::blur(src.clone(), expected, cv::Size(5, 5), cv::Point(-1, -1), cv::BORDER_REPLICATE);
    cv::UMat dst = on_device(cv::Mat(host.size(), host.type(), cv::Scalar::all(0x5A)), region);
    clf::DeviceImage in = view_of(*ctx, src), out = view_of(*ctx, dst);
    EXPECT_EQ(in.packed(), !region);
    const auto events = clf::box_blur(*ctx, in, out, {5, {clf::BorderMode::replicate, 0}});
    ASSERT_FALSE(events.empty());
    EXPECT_TRUE(same(dst, expected));  // OpenCV reads after clfilters' commands on its own in-order queue
  }
}

TEST_P(OpenCvInterop, SobelOfUMatMatchesCvSobel) {
  const bool region = GetParam();
  auto ctx = adopt_opencv();
  const cv::Mat host = random_mat(53, 41, 1);
  cv::UMat src = on_device(host, region);
  cv::UMat gx, gy;
  cv::Sobel(src.clone(), gx, CV_16S, 1, 0, 3, 1, 0, cv::BORDER_REPLICATE);
  cv::Sobel(src.clone(), gy, CV_16S, 0, 1, 3, 1, 0, cv::BORDER_REPLICATE);
  const clf::SobelParams gradients{clf::SobelOutput::gradients, {clf::BorderMode::replicate, 0}};
  auto planes = clf::DeviceGradients::allocate(*ctx, host.cols, host.rows);
  clf::sobel(*ctx, view_of(*ctx, src), planes, gradients);
  const clf::Image both = planes.download(*ctx);  // H x W x 2 int16: gx, gy
  cv::Mat ours[2];
  cv::split(cv::Mat(host.rows, host.cols, CV_16SC2, const_cast<std::uint8_t*>(both.data.data())), ours);
  EXPECT_EQ(cv::norm(ours[0], gx.getMat(cv::ACCESS_READ), cv::NORM_INF), 0);
  EXPECT_EQ(cv::norm(ours[1], gy.getMat(cv::ACCESS_READ), cv::NORM_INF), 0);

  // The magnitude into a UMat, against round(sqrt(gx^2 + gy^2)) of OpenCV's gradients.
  cv::UMat mag = on_device(cv::Mat(host.size(), CV_8UC1, cv::Scalar::all(0x5A)), region);
  clf::DeviceImage out = view_of(*ctx, mag);
  clf::sobel(*ctx, view_of(*ctx, src), out, {clf::SobelOutput::magnitude, {clf::BorderMode::replicate, 0}});
  const cv::Mat got = mag.getMat(cv::ACCESS_READ), x = gx.getMat(cv::ACCESS_READ), y = gy.getMat(cv::ACCESS_READ);
  int wrong = 0;
  for (int r = 0; r < got.rows; ++r)
    for (int c = 0; c < got.cols; ++c) {
      const double m =
          std::sqrt(double(x.at<short>(r, c)) * x.at<short>(r, c) + double(y.at<short>(r, c)) * y.at<short>(r, c));
      wrong += got.at<std::uint8_t>(r, c) != std::min(255, int(std::lround(m)));
    }
  EXPECT_EQ(wrong, 0);
}

INSTANTIATE_TEST_SUITE_P(PackedAndRegion, OpenCvInterop, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "Region" : "Packed"; });

}  // namespace
