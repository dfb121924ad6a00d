// SPDX-License-Identifier: Apache-2.0
// Box blur (docs/SPEC.md "Box blur"; seeds 004 and 003 section 9.1.1).
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

struct BoxBlurParams {
  int diameter = 9;  // 1 .. kMaxBoxDiameter, odd or even
  Border border;
};

// Sums stay exact in 32 bits up to this diameter (d*d*255 + d*d/2 < 2^32).
inline constexpr int kMaxBoxDiameter = 4095;
// The same for 16-bit samples (d*d*65535 + d*d/2 < 2^32).
inline constexpr int kMaxBoxDiameter16 = 255;

// Throws std::invalid_argument if a parameter is out of its range: the one check every entry point (library,
// command line, benchmark, tuner) makes, with one message.
void box_blur_check_params(const BoxBlurParams& params, SampleType type = SampleType::u8);

// Every box blur variant, in the order the seeds introduce them.
const std::vector<VariantInfo>& box_blur_variants();

// Why `variant` (with tunable values `config`) cannot run for this device, parameters and image,
// or nullopt if it can.
std::optional<std::string> box_blur_unsupported(const DeviceInfo& device, std::string_view variant,
                                                const BoxBlurParams& params, int width, int height, int channels,
                                                const TuningConfig& config = {}, SampleType type = SampleType::u8);

// The built-in rule for "auto" when the tuning database has nothing for this device.
std::string box_blur_auto_variant(const DeviceInfo& device, const BoxBlurParams& params, int width, int height,
                                  int channels, SampleType type = SampleType::u8);

// The tuning database's parameter class of a call ("c4 d<=3", ...): diameters that favour different
// variants are tuned separately.
std::string box_blur_param_class(const BoxBlurParams& params, int channels);

// What a call with `variant` runs: a named variant as given; "auto" the tuned choice for this device,
// size class and parameter class (`clfilters tune`), else the built-in rule. `config`, when not empty,
// overrides the tunables.
VariantChoice box_blur_choose(Context& ctx, const BoxBlurParams& params, std::string_view variant, int width,
                              int height, int channels, const TuningConfig& config = {},
                              SampleType type = SampleType::u8);

// Host images: u8 or u16 with 1, 2, 3 or 4 channels (2 and 3 are padded to 4 on the device and back).
// Throws std::invalid_argument for bad parameters or an unsupported variant.
Image box_blur(Context& ctx, const Image& input, const BoxBlurParams& params, std::string_view variant = "auto",
               Timing* timing = nullptr);

// Several devices (one Context each, e.g. over select_devices): the image's rows are cut into bands with the window's
// halo, handed out to the devices as each finishes one, so a faster device takes more bands and none idles while
// bands remain. Each device runs its own choice for the whole image ("auto" on its own Context). The result is the
// one-device call's bit for bit; one Context: the call above. A device's error (a kernel's or a transfer's) ends the
// call with it once every device has stopped, and no output is returned. `timing`: kernel time summed over the
// devices.
Image box_blur(const std::vector<Context*>& devices, const Image& input, const BoxBlurParams& params,
               std::string_view variant = "auto", Timing* timing = nullptr);
// A batch: each image as box_blur(ctx, image, params, variant) on whichever device is free next, two at a time a
// device, so one image's transfers overlap another's kernels. Results in input order. The first error ends the call
// with it once every device has stopped. `timing`: kernel time summed over the images, total the batch's wall time
// (program builds included).
std::vector<Image> box_blur(const std::vector<Context*>& devices, const std::vector<Image>& inputs,
                            const BoxBlurParams& params, std::string_view variant = "auto", Timing* timing = nullptr);
// The caller's memory (a NumPy array's, say), 1 or 4 channels of u8 or u16 in packed rows: read and written in place,
// nothing copied on the host, on one device or several as the calls above (an image too large for a device in
// bands). `output` has `input`'s shape and is written whole.
void box_blur(const std::vector<Context*>& devices, const ImageView& input, const MutableImageView& output,
              const BoxBlurParams& params, std::string_view variant = "auto", Timing* timing = nullptr);

// Device-resident images with 1 or 4 channels, same size and sample type (u8, or u16 for the variants that take
// them); `output` must not alias `input`.
// Enqueues the kernels on ctx.queue() and returns their events without waiting. `config` sets the
// variant's tunables (work-group shape, segment lengths, tile size); empty means the defaults.
// Views of the caller's buffers (DeviceImage::view) are taken too; the call first waits for `wait`, the
// caller's events (see on_packed_images).
std::vector<cl::Event> box_blur(Context& ctx, const DeviceImage& input, DeviceImage& output,
                                const BoxBlurParams& params, std::string_view variant = "auto",
                                const TuningConfig& config = {}, const std::vector<cl::Event>& wait = {});

// Builds (or loads from the cache) the programs a call with these arguments will run, so that the
// first call's time does not include compilation. Throws like box_blur for bad arguments.
void box_blur_prepare(Context& ctx, const BoxBlurParams& params, std::string_view variant, int width, int height,
                      int channels, const TuningConfig& config = {}, SampleType type = SampleType::u8);

// The CPU reference that defines the right answer: exact integer arithmetic, `threads` threads
// (0 = all cores). u8 or u16 samples, 1 or 4 channels.
Image box_blur_reference(const Image& input, const BoxBlurParams& params, int threads = 0);

// The functions above, whole, for code that runs any such filter (the command line).
inline constexpr ImageFilterCalls<BoxBlurParams> kBoxBlurCalls{
    "box-blur",       box_blur_variants, box_blur_choose, box_blur_unsupported,
    box_blur_prepare, box_blur,          box_blur,        box_blur};

}  // namespace clf
