// SPDX-License-Identifier: Apache-2.0
// Blurs an image with an installed clfilters and checks the result against the CPU reference.
#include <clfilters/box_blur.hpp>
#include <clfilters/image_io.hpp>
#include <clfilters/version.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 3) return std::fprintf(stderr, "usage: %s IN OUT\n", argv[0]), 2;
  clf::Context ctx;
  const clf::Image photo = clf::read_image(argv[1]);
  const clf::BoxBlurParams params{.diameter = 7};
  const clf::Image blurred = clf::box_blur(ctx, photo, params);
  clf::write_image(blurred, argv[2]);
  const auto reference = clf::box_blur_reference(clf::to_filter_layout(photo), params);
  const bool exact = clf::from_filter_layout(reference, photo.channels).data == blurred.data;
  std::printf("clfilters %s on %s: %s\n", clf::version(), ctx.info().name.c_str(), exact ? "exact" : "DIFFERS");
  return exact ? 0 : 1;
}
