// SPDX-License-Identifier: Apache-2.0
// Epsilon filter (docs/SPEC.md "Epsilon filter"; seeds 000 and 003 section 9.2): mosquito-noise removal.
// Each output is the rounded mean of the window pixels p with |p - c| <= T, c the centre pixel.
#pragma once

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

struct EpsilonParams {
  int radius = 4;      // window (2r+1)^2; 9x9 by default
  int threshold = 20;  // T, in sample units: 0..255 (0..65535 for u16 samples)
  Border border;
};

// Radius limits every variant takes: 1 .. 32 (up to a 65x65 window, whose row sums and counts the
// kernels keep in 16 bits; for 16-bit samples the sums are 32-bit, so the same limits hold).
inline constexpr int kMinEpsilonRadius = 1;
inline constexpr int kMaxEpsilonRadius = 32;

// Throws std::invalid_argument if a parameter is out of its range: the one check every entry point (library,
// reference, command line, benchmark, tuner) makes, with one message.
void epsilon_check_params(const EpsilonParams& params, SampleType type = SampleType::u8);

// Every epsilon variant, in the order the seeds introduce them.
const std::vector<VariantInfo>& epsilon_variants();

// Why `variant` (with `config`) cannot run for this device, parameters and image, or nullopt.
std::optional<std::string> epsilon_unsupported(const DeviceInfo& device, std::string_view variant,
                                               const EpsilonParams& params, int width, int height, int channels,
                                               const TuningConfig& config = {}, SampleType type = SampleType::u8);

// The variant "auto" resolves to.
std::string epsilon_auto_variant(const DeviceInfo& device, const EpsilonParams& params, int width, int height,
                                 int channels, SampleType type = SampleType::u8);

// What a call with `variant` runs: named as given; "auto" the tuned choice for this device, size class
// and parameter class ("c1 r<=4", ...), else the built-in rule.
VariantChoice epsilon_choose(Context& ctx, const EpsilonParams& params, std::string_view variant, int width, int height,
                             int channels, const TuningConfig& config = {}, SampleType type = SampleType::u8);
std::string epsilon_param_class(const EpsilonParams& params, int channels);

// Host images, u8 or u16: 1 channel (grey or a Y plane), 2 (grey + alpha), 3 (RGB) or 4 (RGBA): R, G and B each
// filtered on their own, alpha copied. u16 runs the variants that take 16-bit samples (epsilon_variants:
// naive, vec4, vec8, vec16, local, vec4_branchless, vec8_branchless, regblock, cpu_rows). Throws std::invalid_argument
// for bad parameters or an unsupported variant.
Image epsilon(Context& ctx, const Image& input, const EpsilonParams& params, std::string_view variant = "auto",
              Timing* timing = nullptr);

// Several devices (one Context each, e.g. over select_devices): the image's rows are cut into bands with the window's
// halo, handed out to the devices as each finishes one, so a faster device takes more bands and none idles while
// bands remain. Each device runs its own choice for the whole image ("auto" on its own Context). The result is the
// one-device call's bit for bit; one Context: the call above. A device's error (a kernel's or a transfer's) ends the
// call with it once every device has stopped, and no output is returned. `timing`: kernel time summed over the
// devices.
Image epsilon(const std::vector<Context*>& devices, const Image& input, const EpsilonParams& params,
              std::string_view variant = "auto", Timing* timing = nullptr);
// A batch: each image as epsilon(ctx, image, params, variant) on whichever device is free next, two at a time a device,
// so one image's transfers overlap another's kernels. Results in input order. The first error ends the call with it
// once every device has stopped. `timing`: kernel time summed over the images, total the batch's wall time (program
// builds included).
std::vector<Image> epsilon(const std::vector<Context*>& devices, const std::vector<Image>& inputs,
                           const EpsilonParams& params, std::string_view variant = "auto", Timing* timing = nullptr);
// The caller's memory (a NumPy array's, say), 1 or 4 channels of u8 or u16 in packed rows: read and written in place,
// nothing copied on the host, on one device or several as the calls above (an image too large for a device in
// bands). `output` has `input`'s shape and is written whole.
void epsilon(const std::vector<Context*>& devices, const ImageView& input, const MutableImageView& output,
             const EpsilonParams& params, std::string_view variant = "auto", Timing* timing = nullptr);

// Device-resident, 1 or 4 channels, same size, `output` distinct from `input`. Enqueues on ctx.queue()
// and returns the kernels' events without waiting.
// Views of the caller's buffers (DeviceImage::view) are taken too; the call first waits for `wait`, the
// caller's events (see on_packed_images).
std::vector<cl::Event> epsilon(Context& ctx, const DeviceImage& input, DeviceImage& output, const EpsilonParams& params,
                               std::string_view variant = "auto", const TuningConfig& config = {},
                               const std::vector<cl::Event>& wait = {});

// Builds the programs a call will use, so timings exclude compilation.
void epsilon_prepare(Context& ctx, const EpsilonParams& params, std::string_view variant, int width, int height,
                     int channels, const TuningConfig& config = {}, SampleType type = SampleType::u8);

// The CPU reference: exact integers, `threads` threads (0 = all). u8 or u16, 1 or 4 channels (alpha copied).
Image epsilon_reference(const Image& input, const EpsilonParams& params, int threads = 0);

// The functions above, whole, for code that runs any such filter (the command line).
inline constexpr ImageFilterCalls<EpsilonParams> kEpsilonCalls{
    "epsilon", epsilon_variants, epsilon_choose, epsilon_unsupported, epsilon_prepare, epsilon, epsilon, epsilon};

}  // namespace clf
