// SPDX-License-Identifier: Apache-2.0
// Sobel's internals: a call's description, its variant table, and the device output of either kind.
#pragma once

#include <variant>

#include "clfilters/runtime.hpp"
#include "clfilters/sobel.hpp"
#include "clfilters/variant.hpp"
#include "filters/variant_table.hpp"

namespace clf {

// One call: its parameters and the (grey) image's size. A variant that reads and writes the caller's views in
// place (Variant::takes_views) also gets their layout, in pixels (gradient planes are always packed); zero strides
// mean packed images. One that takes a row range (Variant::takes_row_range) computes only `rows` of the output.
struct SobelCall {
  SobelParams params;
  int width = 0;
  int height = 0;
  int in_stride = 0, out_stride = 0;  // pixels from one row's start to the next
  int in_offset = 0, out_offset = 0;  // pixels from the buffer's start to pixel (0, 0)
  bool interleaved = false;           // gradients as (gx, gy) pairs in out_a (DeviceGradientPairs)
  RowRange rows = {};                 // the output rows to compute; default: all
  bool on_views() const { return in_stride != 0; }
  int row_begin() const { return rows.begin; }
  int row_end() const { return rows.end_in(height); }
};

// What a call reads and writes: the grey input, and gx and gy (gradients) or the 8-bit output or the interleaved
// gradients twice.
struct SobelTarget {
  const DeviceImage& in;
  const cl::Buffer& out_a;
  const cl::Buffer& out_b;
};

using SobelTable = VariantTable<SobelCall, SobelTarget>;
// Every Sobel variant, in the order seed 003 section 9.3 introduces them (sobel_variants.cpp).
const SobelTable& sobel_table();

// A call's device output, of the kind its parameters ask for: a 1-channel 8-bit image (magnitude, l1) or the
// gx and gy planes (gradients).
struct SobelDeviceOutput {
  std::variant<DeviceImage, DeviceGradients> planes;

  static SobelDeviceOutput allocate(Context& ctx, int width, int height, const SobelParams& params);
  // What the host call returns: the 8-bit image, or H x W x 2 int16 (gx, gy).
  Image download(Context& ctx) const;
};

// The host call's work (sobel(ctx, Image, ...)) with tunables: colour made grey, then the device call over the host
// memory; gradients written as pairs, the result's layout. Its events are appended to `events`. The prepare builds
// the programs it runs, so that a timed call does not include them.
void sobel_prepare_host_call(Context& ctx, const SobelParams& params, std::string_view variant, int width, int height,
                             const TuningConfig& config);
Image sobel_host_call(Context& ctx, const Image& input, const SobelParams& params, std::string_view variant,
                      const TuningConfig& config, std::vector<cl::Event>& events);

// The device call of a band of the host call (sobel_in_bands): from the grey `in` into `out`, packed, in the host
// result's layout (8-bit, or (gx, gy) pairs for gradients), after `wait`; output rows `rows` only, which a variant
// that takes no row range refuses (std::invalid_argument) unless they are all.
std::vector<cl::Event> sobel_host_layout(Context& ctx, const DeviceImage& in, const cl::Buffer& out,
                                         const SobelParams& params, std::string_view variant,
                                         const TuningConfig& config, const std::vector<cl::Event>& wait,
                                         const RowRange& rows = {});

// sobel() into whichever output `out` holds.
std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& input, SobelDeviceOutput& out, const SobelParams& params,
                             std::string_view variant = "auto", const TuningConfig& config = {},
                             const std::vector<cl::Event>& wait = {});

}  // namespace clf
