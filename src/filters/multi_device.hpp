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
// every lane has ended, so nothing runs after the call returns or throws. Each lane works on a CacheSlot, so that the
// lanes of the next call find its buffers and kernels. Exported: the command line's batches use it.
CLF_API void share_out(const std::vector<Context*>& devices, std::size_t count, int lanes,
                       const std::function<void(Context& ctx, std::size_t device, std::size_t item)>& work);
// Runs `work(ctx, device)` once on each device, on a thread each (on a CacheSlot, as share_out's lanes); rethrows the
// first exception after all have ended.
void on_each_device(const std::vector<Context*>& devices,
                    const std::function<void(Context& ctx, std::size_t device)>& work);

// How a filter runs one band on devices[device].
struct BandCall {
  // The filter from `in` into `out` (rows of out_row_bytes, packed, as many as `in` has), after the events in `wait`,
  // writing output rows `rows` of `in` only; returns every command's event, last one last. `in` is a band and its
  // halo cut out of the image (`rows` all of its rows), or on a device that takes a row range the whole image
  // (`rows` the band's own).
  std::function<std::vector<cl::Event>(Context& ctx, std::size_t device, const DeviceImage& in, const cl::Buffer& out,
                                       const RowRange& rows, const std::vector<cl::Event>& wait)>
      run;
  // Whether devices[device] computes a range of rows of the whole image: its variant takes one
  // (Variant::takes_row_range) and one call takes the image's size. Asked of CPU devices only; empty: none does.
  std::function<bool(std::size_t device)> takes_row_range = {};
};

// The rows of a band when `height` rows (`bytes` of input) are spread over `devices`: about `bands_per_device` bands a
// device, at least 3 * reach and 16 rows (the halo read twice stays a small share), at most what host_call_band_rows
// lets each device hold; CLFILTERS_BAND_ROWS=N sets N, for tests. 8 bands a device let one band's copies overlap
// another's kernels and a faster device take more; bands computed in place (filter_bands_on_devices) copy nothing,
// while each costs a launch and a wait, and each of its work-items' bands (row_bands) starts its window again.
int multi_device_band_rows(const std::vector<Context*>& devices, int width, int height, int channels, std::size_t bytes,
                           int reach, int bands_per_device = 8);
// The bytes a band split is sized by: the input's or the output's, the larger (Sobel's gradients: 4 a pixel).
std::size_t banded_bytes(const BandedImage& image);
// Runs `call` band by band over the devices, writing each band's own rows of `image.out`; each event is appended to
// `events`. Bands come from a BandDispenser over every device's lanes. Devices alike (one name, type and number of
// compute units) take full bands from the start. Otherwise a lane's first band is short, later ones follow the lane's
// measured speed (at most multi_device_band_rows, at most twice its last), and a lane too slow to finish even a small
// band before the others finish the image takes no more, so a CPU beside a GPU speeds a call up or stays out of it. A
// CPU device that takes a row range computes each band's rows of the whole image in place, over the caller's input and
// output (buffer_over_host), where both are aligned and within its allocation limit; another CPU device reads the input
// in place where aligned and has the band's rows read from a scratch output; a GPU uploads on side queue 0 and
// downloads on side queue 1 through pinned staging, two lanes a device, so one band's transfers overlap another's
// kernels. Full bands: one a device where devices alike all compute in place, 2 where unlike devices do, else 8
// (multi_device_band_rows). Throws the first band's error after every lane ends.
void filter_bands_on_devices(const std::vector<Context*>& devices, const BandedImage& image, const BandCall& call,
                             std::vector<cl::Event>& events);

// A batch: run(ctx, i, timing) gives image i, on whichever device took it (share_out, two lanes a device, so one
// image's transfers overlap another's kernels). Results in input order. `timing`: kernel_ms summed over the images,
// total_ms the whole batch's wall time, program builds included.
std::vector<Image> filter_batch(const std::vector<Context*>& devices, std::size_t count,
                                const std::function<Image(Context& ctx, std::size_t item, Timing* timing)>& run,
                                Timing* timing);

// Each device's choice for a whole image of `width` x `height` x `channels` (the device's layout; choose_image_variant
// on its own Context), its programs built for a band's size, the largest call it runs, untimed. (A CPU variant that
// computes row ranges of the whole image instead builds the same program: its options do not depend on the size.)
template <class P>
std::vector<VariantChoice> prepare_band_calls(const std::vector<Context*>& devices, const ImageFilterApi<P>& api,
                                              const P& params, std::string_view variant, int width, int height,
                                              int channels, SampleType type) {
  const int reach = api.reach(params);
  const int band_rows = multi_device_band_rows(devices, width, height, channels,
                                               Image::byte_size_for(width, height, channels, type), reach);
  const int call_rows = std::min(height, band_rows + 2 * reach);
  std::vector<VariantChoice> choices(devices.size());
  on_each_device(devices, [&](Context& ctx, std::size_t d) {
    choices[d] = choose_image_variant(ctx, api, params, variant, width, height, channels, {}, type);
    prepare_image_call(ctx, api, {params, width, call_rows, channels, type}, choices[d].variant, choices[d].config);
  });
  return choices;
}

// filter_bands_on_devices with the filter's device call, each device running its own choice: on a CPU device whose
// choice takes a row range, for an image one call takes, as ranges of the whole image.
template <class P>
void filter_bands_with_choices(const std::vector<Context*>& devices, const ImageFilterApi<P>& api,
                               const BandedImage& image, const P& params, const std::vector<VariantChoice>& choices,
                               std::vector<cl::Event>& events) {
  const BandCall call{[&](Context& ctx, std::size_t d, const DeviceImage& band_in, const cl::Buffer& band_out,
                          const RowRange& rows, const std::vector<cl::Event>& wait) {
                        DeviceImage o{.buffer = band_out,
                                      .width = band_in.width,
                                      .height = band_in.height,
                                      .channels = band_in.channels,
                                      .type = band_in.type};
                        return enqueue_image_call(ctx, api, band_in, o, params, choices[d].variant, choices[d].config,
                                                  wait, rows);
                      },
                      [&](std::size_t d) {
                        return devices[d]->works_in_host_memory() && api.table().takes_row_range(choices[d].variant) &&
                               one_call_takes_size(api, image.width, image.height);
                      }};
  filter_bands_on_devices(devices, image, call, events);
}

// The public host call of an image filter over several devices. One Context: host_image_call itself. A filter that
// is not cut into bands (reach null) runs whole on the first device. Else each device chooses its variant for the
// whole image and builds its programs for a band (prepare_band_calls); then the bands, on a CPU device whose variant
// takes a row range as ranges of the whole image.
template <class P>
Image host_image_call(const std::vector<Context*>& devices, const ImageFilterApi<P>& api, const Image& input,
                      const P& params, std::string_view variant, Alpha alpha, Timing* timing) {
  check_device_list(api.words, devices);
  if (devices.size() == 1 || !api.reach)
    return host_image_call(*devices.front(), api, input, params, variant, alpha, timing);
  check_host_image(api.words, input, api.check_host_size, takes_u16(api));
  const std::vector<VariantChoice> choices = prepare_band_calls(
      devices, api, params, variant, input.width, input.height, device_channels(input.channels, alpha), input.type);
  const HostCallClock clock;
  std::vector<cl::Event> events;
  Image result = in_device_layout(input, alpha, [&](const Image& in) {
    Image out = Image::uninitialized(in.width, in.height, in.channels, in.type);
    filter_bands_with_choices(devices, api,
                              {in.data.data(), out.data.data(), in.width, in.height, in.channels, in.type,
                               in.row_bytes(), out.row_bytes(), api.reach(params)},
                              params, choices, events);
    return out;
  });
  clock.finish(timing, events);
  return result;
}

// The public host call on the caller's memory (box_blur(devices, ImageView, MutableImageView, ...) and its kin), on
// one device or several: as the calls above on 1 or 4 channels, reading `input` and writing `output` in place, so
// the host copies nothing (a CPU device works in that memory; a GPU stages it through pinned memory).
template <class P>
void host_view_call(const std::vector<Context*>& devices, const ImageFilterApi<P>& api, const ImageView& input,
                    const MutableImageView& output, const P& params, std::string_view variant, Timing* timing) {
  check_device_list(api.words, devices);
  check_host_views(api.words, input, output, api.check_host_size, takes_u16(api));
  const std::size_t row_bytes = Image::byte_size_for(input.width, 1, input.channels, input.type);
  const BandedImage image{input.data, output.data, input.width, input.height,        input.channels,
                          input.type, row_bytes,   row_bytes,   api.reach_of(params)};
  std::vector<cl::Event> events;
  if (devices.size() == 1 || !api.reach) {
    Context& ctx = *devices.front();
    const VariantChoice choice =
        prepare_host_call(ctx, api, params, variant, input.width, input.height, input.channels, input.type);
    const HostCallClock clock;
    filter_host_memory(
        ctx, image,
        [&](const DeviceImage& in, DeviceImage& out) {
          return enqueue_image_call(ctx, api, in, out, params, choice.variant, choice.config);
        },
        events);
    clock.finish(timing, events);
    return;
  }
  const std::vector<VariantChoice> choices =
      prepare_band_calls(devices, api, params, variant, input.width, input.height, input.channels, input.type);
  const HostCallClock clock;
  filter_bands_with_choices(devices, api, image, params, choices, events);
  clock.finish(timing, events);
}

}  // namespace clf
