// SPDX-License-Identifier: Apache-2.0
// Host calls over several devices: one image cut into bands of rows, or a batch of images, handed out from a shared
// counter to threads of each device, so a faster device takes more work and none idles while work remains.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "clfilters/device_image.hpp"
#include "clfilters/image.hpp"
#include "clfilters/runtime.hpp"
#include "filters/image_call.hpp"

namespace clf {

// Throws std::invalid_argument for an empty list or a null Context in it, naming `words` ("box blur").
void check_device_list(std::string_view words, const std::vector<Context*>& devices);

// Runs `work(ctx, device, item)` for items 0 .. count - 1, taken in order from a shared counter by `lanes` threads per
// device (devices[device] is ctx). The first exception stops the lanes from taking more items and is rethrown once
// every lane has ended, so nothing runs after the call returns or throws. Exported: the command line's batches use it.
CLF_API void share_out(const std::vector<Context*>& devices, std::size_t count, int lanes,
                       const std::function<void(Context& ctx, std::size_t device, std::size_t item)>& work);
// Runs `work(ctx, device)` once on each device, on a thread each; rethrows the first exception after all have ended.
void on_each_device(const std::vector<Context*>& devices,
                    const std::function<void(Context& ctx, std::size_t device)>& work);

// An image of `height` rows, `in_row_bytes` a row of input and `out_row_bytes` of output (packed), whose output row y
// reads input rows y - reach .. y + reach.
struct BandedImage {
  const std::uint8_t* in;
  std::uint8_t* out;
  int width, height, channels;
  SampleType type;
  std::size_t in_row_bytes, out_row_bytes;
  int reach;
};
// One band's device call on devices[device]: the filter from `in` (the band and its halo, packed, `in.height` rows)
// into `out` (as many rows of out_row_bytes, packed), after the events in `wait`; returns every command's event, last
// one last.
using BandCall = std::function<std::vector<cl::Event>(Context& ctx, std::size_t device, const DeviceImage& in,
                                                      const cl::Buffer& out, const std::vector<cl::Event>& wait)>;

// The rows of a band when `height` rows (`bytes` of input) are spread over `devices`: about 8 bands a device, at least
// 3 * reach and 16 rows (the halo read twice stays a small share), at most what host_call_band_rows lets each
// device hold; CLFILTERS_BAND_ROWS=N sets N, for tests.
int multi_device_band_rows(const std::vector<Context*>& devices, int width, int height, int channels, std::size_t bytes,
                           int reach);
// The bytes a band split is sized by: the input's or the output's, the larger (Sobel's gradients: 4 a pixel).
std::size_t banded_bytes(const BandedImage& image);
// Runs `call` band by band over the devices (share_out), writing each band's own rows of `image.out`; each event is
// appended to `events`. A CPU device reads the input in place where aligned (buffer_over_host) and has its rows read
// from its output; a GPU uploads on side queue 0 and downloads on side queue 1 through pinned staging, two lanes a
// device, so one band's transfers overlap another's kernels. Throws the first band's error after every lane ends.
void filter_bands_on_devices(const std::vector<Context*>& devices, const BandedImage& image, const BandCall& call,
                             std::vector<cl::Event>& events);

// A batch: run(ctx, i, timing) gives image i, on whichever device took it (share_out, two lanes a device, so one
// image's transfers overlap another's kernels). Results in input order. `timing`: kernel_ms summed over the images,
// total_ms the whole batch's wall time, program builds included.
std::vector<Image> filter_batch(const std::vector<Context*>& devices, std::size_t count,
                                const std::function<Image(Context& ctx, std::size_t item, Timing* timing)>& run,
                                Timing* timing);

// The public host call of an image filter over several devices. One Context: host_image_call itself. A filter that
// is not cut into bands (reach null) runs whole on the first device. Else each device chooses its variant for the
// whole image (choose_image_variant on its own Context) and builds its programs for a band, untimed; then the bands.
template <class P>
Image host_image_call(const std::vector<Context*>& devices, const ImageFilterApi<P>& api, const Image& input,
                      const P& params, std::string_view variant, Alpha alpha, Timing* timing) {
  check_device_list(api.words, devices);
  if (devices.size() == 1 || !api.reach)
    return host_image_call(*devices.front(), api, input, params, variant, alpha, timing);
  check_host_image(api.words, input, api.check_host_size, takes_u16(api));
  const int channels = device_channels(input.channels, alpha);
  // Programs for a band's size, the largest call a device runs (an image of 2^29 pixels or more is refused whole).
  const int reach = api.reach(params);
  const int band_rows =
      multi_device_band_rows(devices, input.width, input.height, channels,
                             Image::byte_size_for(input.width, input.height, channels, input.type), reach);
  const int call_rows = std::min(input.height, band_rows + 2 * reach);
  std::vector<VariantChoice> choices(devices.size());
  on_each_device(devices, [&](Context& ctx, std::size_t d) {
    choices[d] = choose_image_variant(ctx, api, params, variant, input.width, input.height, channels, {}, input.type);
    prepare_image_call(ctx, api, {params, input.width, call_rows, channels, input.type}, choices[d].variant,
                       choices[d].config);
  });
  const HostCallClock clock;
  std::vector<cl::Event> events;
  Image result = in_device_layout(input, alpha, [&](const Image& in) {
    Image out = Image::uninitialized(in.width, in.height, in.channels, in.type);
    const BandedImage image{in.data.data(), out.data.data(), in.width,        in.height,        in.channels,
                            in.type,        in.row_bytes(),  out.row_bytes(), api.reach(params)};
    filter_bands_on_devices(
        devices, image,
        [&](Context& ctx, std::size_t d, const DeviceImage& band_in, const cl::Buffer& band_out,
            const std::vector<cl::Event>& wait) {
          DeviceImage o{.buffer = band_out,
                        .width = band_in.width,
                        .height = band_in.height,
                        .channels = band_in.channels,
                        .type = band_in.type};
          return enqueue_image_call(ctx, api, band_in, o, params, choices[d].variant, choices[d].config, wait);
        },
        events);
    return out;
  });
  clock.finish(timing, events);
  return result;
}

}  // namespace clf
