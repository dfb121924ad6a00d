// SPDX-License-Identifier: Apache-2.0
#include "filters/image_call.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace clf {

void check_image_size(int width, int height) {
  if (std::int64_t(width) * height * 4 >= (std::int64_t(1) << 31))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (at most 2^29 pixels)", width, height));
}

bool is_variant_refusal(const ClError& e) {
  const std::string& call = e.call();
  if (call.starts_with("clBuildProgram")) return e.code() == CL_BUILD_PROGRAM_FAILURE;
  if (!call.starts_with("clEnqueueNDRangeKernel")) return false;
  return e.code() == CL_OUT_OF_RESOURCES || e.code() == CL_INVALID_WORK_GROUP_SIZE ||
         e.code() == CL_INVALID_WORK_ITEM_SIZE || e.code() == CL_MEM_OBJECT_ALLOCATION_FAILURE;
}

std::vector<std::string> fallback_variants(const std::string& rule, const std::vector<VariantInfo>& variants,
                                           const std::string& failed) {
  std::vector<std::string> out;
  for (const std::string& v : {rule, variants.empty() ? rule : variants.front().name})
    if (v != failed && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

void warn_fallback(Context& ctx, std::string_view filter, const std::string& failed, const ClError& why,
                   const std::string& ran) {
  const std::string reason =
      fmt::format("{} in {}", cl_error_name(why.code()), why.call().substr(0, why.call().find('(')));
  if (ctx.record_fallback({std::string(filter), failed, ran, reason}))
    fmt::print(stderr, "clfilters: warning: {} variant {} was refused ({}); ran {} instead\n", filter, failed, reason,
               ran);
}

cl_uint constant_bits(const Border& border, int channels) {
  const cl_uint v = border.mode == BorderMode::constant ? cl_uint(border.value) : 0u;
  return channels == 4 ? v | (v << 8) | (v << 16) | (v << 24) : v;
}

Image filter_host_image(Context& ctx, const Image& input,
                        const std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>& call,
                        std::vector<cl::Event>& events) {
  Image result = Image::uninitialized(input.width, input.height, input.channels);
  // The filter only reads its input: over_host's buffer never writes through the const_cast.
  // On a GPU the device images are kept between calls (scratch buffers), so a stream of same-sized calls allocates
  // nothing.
  const DeviceImage d_in = DeviceImage::over_host(ctx, const_cast<std::uint8_t*>(input.data.data()), input.width,
                                                  input.height, input.channels, true, "host_call.in");
  DeviceImage d_out = DeviceImage::over_host(ctx, result.data.data(), input.width, input.height, input.channels, false,
                                             "host_call.out");
  for (cl::Event& e : call(d_in, d_out)) events.push_back(std::move(e));
  read_to_host(ctx, d_out.buffer, result.data.data(), d_out.byte_size());
  return result;
}

Image filter_host_image(Context& ctx, const Image& input, Alpha alpha,
                        const std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>& call,
                        std::vector<cl::Event>& events) {
  if (input.channels != 2 || alpha == Alpha::filtered) {
    Image converted;
    Image result = filter_host_image(ctx, in_filter_layout(input, converted), call, events);
    return result.channels == input.channels ? result : from_filter_layout(result, input.channels);
  }
  Image grey = Image::uninitialized(input.width, input.height, 1);
  for (std::size_t i = 0; i < input.pixel_count(); ++i) grey.data[i] = input.data[2 * i];
  const Image filtered = filter_host_image(ctx, grey, call, events);
  Image result = input;
  for (std::size_t i = 0; i < input.pixel_count(); ++i) result.data[2 * i] = filtered.data[i];
  return result;
}

void HostCallClock::finish(Timing* timing, const std::vector<cl::Event>& events) const {
  if (!timing) return;
  timing->kernel_ms = kernel_milliseconds(events);
  timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace clf
