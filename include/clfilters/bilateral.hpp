// SPDX-License-Identifier: Apache-2.0
// Bilateral filter (docs/SPEC.md "Bilateral filter"; seed 001), grey and RGBA, 8- or 16-bit samples.
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

// A 33x33 window at most: the local-memory tiles and the spatial-weight table are sized for it.
inline constexpr int kMaxBilateralRadius = 16;
// Smaller sigmas already make every weight but the centre's vanish; the floor keeps 1/(2 sigma^2)
// finite in float.
inline constexpr double kMinBilateralSigma = 0.01;

// The taps of the window: the whole (2r+1)^2 square, or those with dx^2 + dy^2 <= r^2 (OpenCV's bilateralFilter).
enum class BilateralWindow { square, disk };
// The colour distance in the range weight: Euclidean over R, G, B, or |dR| + |dG| + |dB| (OpenCV's
// bilateralFilter). Grey has one channel, where both are |p - c|.
enum class BilateralDistance { l2, l1 };

struct BilateralParams {
  double sigma_spatial = 3;  // in pixels, at least kMinBilateralSigma
  double sigma_range = 30;   // in sample units (u16: 256 times the 8-bit value), at least kMinBilateralSigma
  int radius = -1;           // 0 .. kMaxBilateralRadius; -1: ceil(2 * sigma_spatial), capped at 16
  Border border;
  BilateralWindow window = BilateralWindow::square;
  BilateralDistance distance = BilateralDistance::l2;
};

// "square" | "disk" and "l2" | "l1"; throw std::invalid_argument naming the parameter and the bad value.
BilateralWindow parse_bilateral_window(std::string_view text);
BilateralDistance parse_bilateral_distance(std::string_view text);
std::string to_string(BilateralWindow window);
std::string to_string(BilateralDistance distance);

// The radius a call uses: `radius`, or the default ceil(2 * sigma_spatial) capped at kMaxBilateralRadius.
int bilateral_radius(const BilateralParams& params);

// Throws std::invalid_argument naming the parameter when one is out of its range: the one check every entry
// point (library, command line, benchmark, tuner) makes, with one message.
void bilateral_check_params(const BilateralParams& params, SampleType type = SampleType::u8);

// Every bilateral variant: the seed's four phases, then those that go beyond it.
const std::vector<VariantInfo>& bilateral_variants();

// Why `variant` (with tunable values `config`) cannot run for this device, parameters and image,
// or nullopt if it can.
std::optional<std::string> bilateral_unsupported(const DeviceInfo& device, std::string_view variant,
                                                 const BilateralParams& params, int width, int height, int channels,
                                                 const TuningConfig& config = {}, SampleType type = SampleType::u8);

// The variant "auto" resolves to (documented rule; the tuner replaces it later).
std::string bilateral_auto_variant(const DeviceInfo& device, const BilateralParams& params, int width, int height,
                                   int channels, SampleType type = SampleType::u8);

// The tuning database's parameter class ("c1 r<=4", ...).
std::string bilateral_param_class(const BilateralParams& params, int channels);

// What a call with `variant` runs: named as given; "auto" the tuned choice for this device, size class
// and parameter class, else the built-in rule.
VariantChoice bilateral_choose(Context& ctx, const BilateralParams& params, std::string_view variant, int width,
                               int height, int channels, const TuningConfig& config = {},
                               SampleType type = SampleType::u8);

// Host images: u8 or u16 (the variants that take it) with 1, 2, 3 or 4 channels (2 and 3 travel as RGBA, see
// to_filter_layout; grey+alpha as grey with alpha copied).
// Throws std::invalid_argument for bad parameters or an unsupported variant.
Image bilateral(Context& ctx, const Image& input, const BilateralParams& params, std::string_view variant = "auto",
                Timing* timing = nullptr);

// Several devices (one Context each, e.g. over select_devices): the image's rows are cut into bands with the window's
// halo, handed out to the devices as each finishes one, so a faster device takes more bands and none idles while
// bands remain. Each device runs its own choice for the whole image ("auto" on its own Context). The result is the
// one-device call's bit for bit; one Context: the call above. A device's error (a kernel's or a transfer's) ends the
// call with it once every device has stopped, and no output is returned. `timing`: kernel time summed over the
// devices.
// The bilateral's variants may differ from one another by 1 in a sample (docs/SPEC.md), and each device runs its
// own choice: the result is the one-device call's bit for bit where every device runs the same variant (a named one,
// or "auto" choosing alike), else within 1 of it.
Image bilateral(const std::vector<Context*>& devices, const Image& input, const BilateralParams& params,
                std::string_view variant = "auto", Timing* timing = nullptr);
// A batch: each image as bilateral(ctx, image, params, variant) on whichever device is free next, two at a time a
// device, so one image's transfers overlap another's kernels. Results in input order. The first error ends the call
// with it once every device has stopped. `timing`: kernel time summed over the images, total the batch's wall time
// (program builds included).
std::vector<Image> bilateral(const std::vector<Context*>& devices, const std::vector<Image>& inputs,
                             const BilateralParams& params, std::string_view variant = "auto",
                             Timing* timing = nullptr);
// The caller's memory (a NumPy array's, say), 1 or 4 channels of u8 or u16 in packed rows: read and written in place,
// nothing copied on the host, on one device or several as the calls above (an image too large for a device in
// bands). `output` has `input`'s shape and is written whole.
void bilateral(const std::vector<Context*>& devices, const ImageView& input, const MutableImageView& output,
               const BilateralParams& params, std::string_view variant = "auto", Timing* timing = nullptr);

// Device-resident images with 1 or 4 channels, same size; `output` must not alias `input`.
// Enqueues the work on ctx.queue() and returns the events of every kernel and copy it enqueued,
// without waiting. `config` sets the variant's tunables; empty means the defaults.
// Views of the caller's buffers (DeviceImage::view) are taken too; the call first waits for `wait`, the
// caller's events (see on_packed_images).
std::vector<cl::Event> bilateral(Context& ctx, const DeviceImage& input, DeviceImage& output,
                                 const BilateralParams& params, std::string_view variant = "auto",
                                 const TuningConfig& config = {}, const std::vector<cl::Event>& wait = {});

// Builds (or loads from the cache) the programs a call with these arguments will run, so that the
// first call's time does not include compilation. Throws like bilateral for bad arguments.
void bilateral_prepare(Context& ctx, const BilateralParams& params, std::string_view variant, int width, int height,
                       int channels, const TuningConfig& config = {}, SampleType type = SampleType::u8);

// The CPU reference that defines the right answer: double precision, `threads` threads (0 = all
// cores). u8 or u16 samples, 1 or 4 channels.
Image bilateral_reference(const Image& input, const BilateralParams& params, int threads = 0);

// The functions above, whole, for code that runs any such filter (the command line).
inline constexpr ImageFilterCalls<BilateralParams> kBilateralCalls{
    "bilateral",       bilateral_variants, bilateral_choose, bilateral_unsupported,
    bilateral_prepare, bilateral,          bilateral,        bilateral};

}  // namespace clf
