// SPDX-License-Identifier: Apache-2.0
// Sobel edge detection (docs/SPEC.md "Sobel"; seed 003 section 9.3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clfilters/border.hpp"
#include "clfilters/device_image.hpp"
#include "clfilters/export.hpp"
#include "clfilters/image.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace CLF_API clf {

// What a Sobel call writes (docs/SPEC.md): the rounded gradient magnitude (default), the L1 magnitude, or
// both int16 gradient planes.
enum class SobelOutput : int { magnitude = 0, l1 = 1, gradients = 2 };

// "magnitude", "l1", "gradients"; parse throws std::invalid_argument for anything else.
SobelOutput parse_sobel_output(std::string_view text);
std::string to_string(SobelOutput output);

struct SobelParams {
  SobelOutput output = SobelOutput::magnitude;
  Border border;
};

// Throws std::invalid_argument if a parameter is out of its range: the one check every entry point (library,
// command line, benchmark, tuner) makes, with one message.
void sobel_check_params(const SobelParams& params);

// The gx and gy planes of a gradients call on the device: two packed, row-major int16 buffers.
struct DeviceGradients {
  cl::Buffer gx;
  cl::Buffer gy;
  int width = 0;
  int height = 0;

  std::size_t plane_bytes() const { return static_cast<std::size_t>(width) * height * 2; }

  static DeviceGradients allocate(Context& ctx, int width, int height);
  // H x W x 2 int16 (gx, gy interleaved), the layout of the command line's .npy output.
  Image download(Context& ctx) const;
};

// gx and gy interleaved in one packed buffer, H x W x 2 int16: the host call's and the command line's layout,
// written by the kernels themselves.
struct DeviceGradientPairs {
  cl::Buffer buffer;
  int width = 0;
  int height = 0;

  std::size_t byte_size() const { return static_cast<std::size_t>(width) * height * 4; }

  static DeviceGradientPairs allocate(Context& ctx, int width, int height);
  Image download(Context& ctx) const;
};

// Every Sobel variant, in the order seed 003 section 9.3 introduces them.
const std::vector<VariantInfo>& sobel_variants();

// Why `variant` (with tunable values `config`) cannot run for this device, parameters and image,
// or nullopt if it can.
std::optional<std::string> sobel_unsupported(const DeviceInfo& device, std::string_view variant,
                                             const SobelParams& params, int width, int height,
                                             const TuningConfig& config = {});

// The variant "auto" resolves to (documented rule; the tuner replaces it later).
std::string sobel_auto_variant(const DeviceInfo& device, const SobelParams& params, int width, int height);

// What a call with `variant` runs: named as given; "auto" the tuned choice for this device, size class
// and output (the tuning database's parameter class), else the built-in rule.
VariantChoice sobel_choose(Context& ctx, const SobelParams& params, std::string_view variant, int width, int height,
                           const TuningConfig& config = {});

// SPEC's grey conversion: grey stays, grey+alpha keeps its grey channel, RGB and RGBA become
// (77 R + 150 G + 29 B + 128) >> 8. u8 images with 1 to 4 channels.
Image sobel_grey(const Image& input);

// Host images: u8 with 1 to 4 channels (converted with sobel_grey on the host). Returns a 1-channel
// u8 image for magnitude and l1, an H x W x 2 int16 image (gx, gy) for gradients.
// Throws std::invalid_argument for bad parameters or an unsupported variant.
Image sobel(Context& ctx, const Image& input, const SobelParams& params, std::string_view variant = "auto",
            Timing* timing = nullptr);

// Several devices (one Context each, e.g. over select_devices): the grey image's rows are cut into bands with one
// row of halo, handed out to the devices as each finishes one, so a faster device takes more bands and none idles
// while bands remain. Each device runs its own choice for the whole image ("auto" on its own Context); the result is
// the one-device call's bit for bit; one Context: the call above. A device's error ends the call with it once every
// device has stopped, and no output is returned. `timing`: kernel time summed over the devices.
Image sobel(const std::vector<Context*>& devices, const Image& input, const SobelParams& params,
            std::string_view variant = "auto", Timing* timing = nullptr);
// A batch: each image as sobel(ctx, image, params, variant) on whichever device is free next, two at a time a
// device. Results in input order; the first error ends the call once every device has stopped. `timing`: kernel time
// summed over the images, total the batch's wall time (program builds included).
std::vector<Image> sobel(const std::vector<Context*>& devices, const std::vector<Image>& inputs,
                         const SobelParams& params, std::string_view variant = "auto", Timing* timing = nullptr);

// Device-resident: a 1-channel input and a 1-channel output of the same size (params.output must be
// magnitude or l1). Enqueues on ctx.queue() and returns the events without waiting. `config` sets
// the variant's tunables; empty means the defaults.
// Views of the caller's buffers (DeviceImage::view) are taken too; the call first waits for `wait`, the
// caller's events (see on_packed_images).
std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& input, DeviceImage& output, const SobelParams& params,
                             std::string_view variant = "auto", const TuningConfig& config = {},
                             const std::vector<cl::Event>& wait = {});
// The same writing gx and gy (params.output must be gradients).
std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& input, DeviceGradients& output, const SobelParams& params,
                             std::string_view variant = "auto", const TuningConfig& config = {},
                             const std::vector<cl::Event>& wait = {});
// The same writing gx and gy interleaved (params.output must be gradients); the variants and tuning of the planes.
std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& input, DeviceGradientPairs& output,
                             const SobelParams& params, std::string_view variant = "auto",
                             const TuningConfig& config = {}, const std::vector<cl::Event>& wait = {});

// Builds (or loads from the cache) the program a call with these arguments will run, so that the
// first call's time does not include compilation. Throws like sobel for bad arguments.
void sobel_prepare(Context& ctx, const SobelParams& params, std::string_view variant, int width, int height,
                   const TuningConfig& config = {});

// The CPU reference that defines the right answer, on `threads` threads (0 = all cores). Takes what
// the host call takes and returns what it returns.
Image sobel_reference(const Image& input, const SobelParams& params, int threads = 0);

// round(sqrt(s)) for 0 <= s < 2^24, exact in integers (no tie can occur for an integer s).
int sobel_rounded_sqrt(int s);
// The magnitude output of one pixel: round(sqrt(gx^2 + gy^2)) clamped to 255.
std::uint8_t sobel_magnitude(int gx, int gy);

}  // namespace clf
