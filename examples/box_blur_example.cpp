// SPDX-License-Identifier: Apache-2.0
// Using clfilters from code: blur a host image, then chain two blurs on the device with no round trip.
#include <clfilters/box_blur.hpp>
#include <clfilters/image_io.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 3) return std::fprintf(stderr, "usage: %s IN OUT\n", argv[0]), 2;
  clf::Context ctx;  // first GPU, else PoCL; honours CLFILTERS_DEVICE
  const clf::Image photo = clf::read_image(argv[1]);
  const clf::BoxBlurParams params{.diameter = 9, .border = {clf::BorderMode::reflect101, 0}};

  clf::Image once = clf::box_blur(ctx, photo, params);  // host in, host out, "auto" variant

  // Device-resident: upload once (1 or 4 channels), blur twice back to back, download once.
  auto a = clf::DeviceImage::upload(ctx, clf::to_filter_layout(photo));
  auto b = clf::DeviceImage::allocate(ctx, a.width, a.height, a.channels);
  clf::box_blur(ctx, a, b, params);
  clf::box_blur(ctx, b, a, params, "separable_sliding");
  clf::write_image(clf::from_filter_layout(a.download(ctx), photo.channels), argv[2]);
  std::printf("blurred %s (%dx%d) on %s -> %s\n", argv[1], once.width, once.height, ctx.info().name.c_str(), argv[2]);
}
