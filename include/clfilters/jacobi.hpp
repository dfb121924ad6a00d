// SPDX-License-Identifier: Apache-2.0
// Reverse edge detection (docs/SPEC.md "Reverse edge detection"; seed 002): the edge map of an image, and
// its reconstruction by Jacobi iteration u_next = (sum of the 4 neighbours - edge) / 4, zero outside.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clfilters/device_image.hpp"
#include "clfilters/export.hpp"
#include "clfilters/image.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace CLF_API clf {

// A row-major float32 image in a device buffer (width * height floats). DeviceImage is 8-bit only.
struct DeviceFloatImage {
  cl::Buffer buffer;
  int width = 0;
  int height = 0;
  std::size_t offset = 0;     // bytes from the buffer's start to pixel (0, 0)
  std::size_t row_pitch = 0;  // bytes from one row's start to the next; 0 means packed (width * 4)

  std::size_t byte_size() const { return static_cast<std::size_t>(width) * height * sizeof(float); }
  // The same bytes as a 4-channel u8 DeviceImage, for the copies that pack and unpack views.
  DeviceImage bytes() const { return {buffer, width, height, 4, offset, row_pitch}; }

  static DeviceFloatImage allocate(Context& ctx, int width, int height);
  // Blocking upload of a 1-channel f32 image.
  static DeviceFloatImage upload(Context& ctx, const Image& image);
  // A view of the caller's buffer, checked as DeviceImage::view checks it; the device-resident calls take views
  // as they take their own images (a pitched or offset one through a packed copy on the device).
  static DeviceFloatImage view(Context& ctx, cl_mem buffer, int width, int height, std::size_t offset = 0,
                               std::size_t row_pitch = 0);
  // Blocking download as a 1-channel f32 image.
  Image download(Context& ctx) const;
};

struct JacobiParams {
  int iterations = 1000;  // N: the most iterations, >= 0
  // Stop once the largest |u_next - u| of one iteration is <= tolerance (>= 0). Unset: run N.
  std::optional<double> tolerance;
  // With a tolerance, the device's per-iteration maxima are read back every `check_every` iterations
  // (never every iteration); the count reported is still exact. >= 1.
  int check_every = 48;
  // Also measure the largest change of the last iteration when there is no tolerance (one read back).
  bool report_change = false;
};

// Throws std::invalid_argument, naming the parameter, when one is out of range. The library, the benchmark's and
// tuner's FilterSpec, the reference and the command line all check with this.
void jacobi_check_params(const JacobiParams& params);

// The most iterations the temporal and wavefront variants run in one launch.
inline constexpr int kMaxJacobiStepsPerLaunch = 16;

// Every reconstruction variant, in the order seed 002 introduces them, then temporal blocking.
const std::vector<VariantInfo>& jacobi_variants();

// Why `variant` (with tunable values `config`) cannot run on this device for this size, or nullopt.
std::optional<std::string> jacobi_unsupported(const DeviceInfo& device, std::string_view variant, int width, int height,
                                              const TuningConfig& config = {});

// The variant "auto" resolves to (documented rule; the tuner may replace it later).
std::string jacobi_auto_variant(const DeviceInfo& device, int width, int height);

// What a call with `variant` runs: named as given; "auto" the tuned choice for this device and size
// class, else the built-in rule.
VariantChoice jacobi_choose(Context& ctx, std::string_view variant, int width, int height,
                            const TuningConfig& config = {});

// ---- edge map --------------------------------------------------------------------------------

// The single float channel the edge map and the reconstruction work on: 1-channel images of any
// sample type as they are; grey+alpha (u8) its grey; RGB and RGBA (u8) through SPEC's
// (77 R + 150 G + 29 B + 128) >> 8. Throws std::invalid_argument for anything else.
Image to_grey_float(const Image& image);

// edge(i,j) = u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1) - 4 u(i,j), zero outside, in float32.
// Host image: anything to_grey_float takes; the result is f32 with 1 channel.
Image jacobi_edges(Context& ctx, const Image& image, Timing* timing = nullptr);
// Device-resident; `edges` must have the image's size and not alias it. Returns the kernel's event.
// The call first waits for `wait`, the caller's events (see on_packed_images).
std::vector<cl::Event> jacobi_edges(Context& ctx, const DeviceFloatImage& image, DeviceFloatImage& edges,
                                    const std::vector<cl::Event>& wait = {});
// The CPU reference: the sum in double, rounded once to float (exact for integer inputs).
Image jacobi_edges_reference(const Image& image);

// ---- reconstruction ----------------------------------------------------------------------------

struct JacobiOutcome {
  int iterations = 0;                 // iterations done (exact, also when the tolerance stopped it)
  std::optional<double> last_change;  // largest |change| of the last iteration, when it was measured
};

struct JacobiResult : JacobiOutcome {
  Image image;  // f32, 1 channel
};

struct JacobiDeviceRun : JacobiOutcome {
  std::vector<cl::Event> events;  // every kernel and copy the call enqueued
};

// Host images: `edges` f32 with 1 channel; `initial` empty (zeros) or f32 with 1 channel of the same
// size. Throws std::invalid_argument for bad parameters, sizes or an unsupported variant.
// An image the device cannot hold in one piece (or any, with CLFILTERS_BAND_ROWS=N) runs in bands of rows, up to
// kMaxJacobiStepsPerLaunch iterations a pass, with the one-piece result, count and change bit for bit; the bands
// read the maxima back with every pass, whatever check_every says. std::invalid_argument where not even a band of
// one row fits.
JacobiResult jacobi_reconstruct(Context& ctx, const Image& edges, const JacobiParams& params,
                                std::string_view variant = "auto", const Image& initial = Image(),
                                Timing* timing = nullptr);

// Device-resident: `u` holds the initial iterate and receives the result; `edges` must have its size
// and not alias it. Without a tolerance (and without report_change) nothing is read back and the call
// returns without waiting; with one it reads the per-iteration maxima every check_every iterations.
// `config` sets the variant's tunables; empty means the defaults.
JacobiDeviceRun jacobi_reconstruct(Context& ctx, const DeviceFloatImage& edges, DeviceFloatImage& u,
                                   const JacobiParams& params, std::string_view variant = "auto",
                                   const TuningConfig& config = {}, const std::vector<cl::Event>& wait = {});

// Builds (or loads from the cache) the programs a call will run, so timings exclude compilation.
void jacobi_prepare(Context& ctx, std::string_view variant, int width, int height, const TuningConfig& config = {});

struct JacobiReference {
  int width = 0;
  int height = 0;
  std::vector<double> values;  // the last iterate, row-major
  int iterations = 0;
  std::vector<double> changes;  // largest |change| of each iteration done
};

// The double-precision reference running the same iterations and the same stopping rule, on
// `threads` threads (0 = all cores). `initial` as in jacobi_reconstruct.
JacobiReference jacobi_reference(const Image& edges, const JacobiParams& params, const Image& initial = Image(),
                                 int threads = 0);

// ||got - reference|| / ||reference|| (L2 over all pixels); 0 when both are zero.
double jacobi_relative_l2(const JacobiReference& reference, const Image& got);

}  // namespace clf
