// SPDX-License-Identifier: Apache-2.0
// clfilters inside OpenCV: blur a cv::UMat on OpenCV's own OpenCL context and queue, with no host round trip.
#include <clfilters/box_blur.hpp>
#include <cstdio>
#include <opencv2/core/ocl.hpp>
#include <opencv2/imgcodecs.hpp>

int main(int argc, char** argv) {
  if (argc != 3) return std::fprintf(stderr, "usage: %s IN OUT\n", argv[0]), 2;
  cv::UMat src, dst;
  cv::imread(argv[1], cv::IMREAD_GRAYSCALE).copyTo(src);
  dst.create(src.size(), src.type());
  // Adopts (retains, later releases) OpenCV's context, device and queue; creates none of its own.
  clf::Context ctx(static_cast<cl_context>(cv::ocl::Context::getDefault().ptr()),
                   static_cast<cl_device_id>(cv::ocl::Device::getDefault().ptr()),
                   static_cast<cl_command_queue>(cv::ocl::Queue::getDefault().ptr()));
  // Views of the UMats' buffers (offset and row pitch as OpenCV keeps them).
  auto in = clf::DeviceImage::view(ctx, static_cast<cl_mem>(src.handle(cv::ACCESS_READ)), src.cols, src.rows, 1,
                                   src.offset, src.step);
  auto out = clf::DeviceImage::view(ctx, static_cast<cl_mem>(dst.handle(cv::ACCESS_WRITE)), dst.cols, dst.rows, 1,
                                    dst.offset, dst.step);
  clf::box_blur(ctx, in, out, {.diameter = 9, .border = {clf::BorderMode::replicate, 0}});
  cv::imwrite(argv[2], dst);  // OpenCV's queue runs this after the blur
  std::printf("blurred %s on %s\n", argv[1], ctx.info().name.c_str());
}
