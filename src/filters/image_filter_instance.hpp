// SPDX-License-Identifier: Apache-2.0
// The FilterInstance of a filter that maps one device image to one output: the input uploaded once, any variant
// enqueued on it, a host round trip, and the comparison with the CPU reference. A filter supplies its own calls
// through `Traits`:
//   using Params;                      the filter's parameters
//   using Output;                      DeviceImage, or another device output with download(ctx) -> Image
//   static constexpr double kTolerance; the largest difference docs/SPEC.md allows (0: bit-exact)
//   static std::optional<std::string> unsupported(const DeviceInfo&, const std::string& variant, const Params&,
//                                                 const Image& input, const TuningConfig&);
//   static void prepare(Context&, const Params&, const std::string& variant, const Image& input, const TuningConfig&);
//   static std::vector<cl::Event> enqueue(Context&, const DeviceImage& in, Output& out, const Params&,
//                                         const std::string& variant, const TuningConfig&);
//   static Image reference(const Image& input, const Params&, int threads);
//   static VariantChoice choose_auto(Context&, const Params&, const Image& input);
// and optionally (defaults: an output image of the input's size and channels, each byte read and written once)
//   static Output allocate(Context&, const Image& input, const Params&);
//   static std::uint64_t bytes_moved(const Image& input, const Params&);
//   static std::string build_key(Context&, const Params&, const std::string& variant, const Image& input,
//                                const TuningConfig&).
#pragma once

#include <chrono>
#include <memory>
#include <type_traits>
#include <utility>

#include "common/image_compare.hpp"
#include "common/synthetic_image.hpp"
#include "filters/filter_spec.hpp"
#include "filters/image_call.hpp"

namespace clf {

template <class Traits>
class ImageFilterInstance final : public FilterInstance {
 public:
  using Params = typename Traits::Params;

  ImageFilterInstance(Context& ctx, Image input, Params params)
      : ctx_(ctx),
        input_(std::move(input)),
        params_(std::move(params)),
        d_in_(DeviceImage::upload(ctx, input_)),
        d_out_(allocate_output(ctx, input_, params_)) {}

  std::optional<std::string> unsupported(const std::string& variant, const TuningConfig& config) const override {
    return Traits::unsupported(ctx_.info(), variant, params_, input_, config);
  }
  std::vector<cl::Event> enqueue(const std::string& variant, const TuningConfig& config) override {
    return Traits::enqueue(ctx_, d_in_, d_out_, params_, variant, config);
  }
  // As the library's host calls run: over the host memory itself on a CPU device (DeviceImage::over_host); a filter
  // whose host call differs from its device call (Traits::host_to_host) runs that.
  double run_host_to_host(const std::string& variant, const TuningConfig& config) override {
    if constexpr (requires { Traits::host_to_host(ctx_, input_, params_, variant, config); }) {
      Traits::prepare_host_to_host(ctx_, params_, variant, input_, config);  // builds are not part of a call's time
      const auto start = std::chrono::steady_clock::now();
      Traits::host_to_host(ctx_, input_, params_, variant, config);
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    Traits::prepare(ctx_, params_, variant, input_, config);  // builds are not part of a call's time
    int reach = -1;
    if constexpr (requires { Traits::reach(params_); }) reach = Traits::reach(params_);
    // Bands run with the whole image's choice, as the library's host calls do (host_image_call).
    VariantChoice choice{variant, config, {}};
    if (variant == "auto" &&
        host_call_band_rows(ctx_.info(), input_.width, input_.height, input_.channels, input_.byte_size(), reach))
      choice = Traits::choose_auto(ctx_, params_, input_);
    const auto start = std::chrono::steady_clock::now();
    const auto call = [&](const DeviceImage& in, typename Traits::Output& out) {
      return Traits::enqueue(ctx_, in, out, params_, choice.variant, choice.config);
    };
    std::vector<cl::Event> events;
    if constexpr (std::is_same_v<typename Traits::Output, DeviceImage>) {
      filter_host_image(ctx_, input_, call, events, reach);
    } else {
      const DeviceImage in = DeviceImage::over_host(ctx_, const_cast<std::uint8_t*>(input_.data.data()), input_.width,
                                                    input_.height, input_.channels, true);
      call(in, d_out_);
      d_out_.download(ctx_);
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  std::optional<std::string> check_output() override {
    if (expected_.empty()) expected_ = Traits::reference(input_, params_, 0);
    return compare_images(expected_, d_out_.download(ctx_), Traits::kTolerance);
  }
  void run_reference(int threads) override { Traits::reference(input_, params_, threads); }
  std::string auto_variant() const override { return describe(Traits::choose_auto(ctx_, params_, input_)); }
  std::string build_key(const std::string& variant, const TuningConfig& config) const override {
    if constexpr (requires { Traits::build_key(ctx_, params_, variant, input_, config); })
      return Traits::build_key(ctx_, params_, variant, input_, config);
    else
      return FilterInstance::build_key(variant, config);
  }
  std::uint64_t bytes_moved() const override {
    if constexpr (requires { Traits::bytes_moved(input_, params_); })
      return Traits::bytes_moved(input_, params_);
    else
      return 2 * input_.byte_size();
  }
  std::uint64_t pixels() const override { return input_.pixel_count(); }
  // The input up, and the rest of bytes_moved (a one-pass filter's output) down.
  std::pair<std::uint64_t, std::uint64_t> host_bytes() const override {
    const std::uint64_t in = input_.byte_size();
    return {in, bytes_moved() > in ? bytes_moved() - in : in};
  }

 private:
  static typename Traits::Output allocate_output(Context& ctx, const Image& input, const Params& params) {
    if constexpr (requires { Traits::allocate(ctx, input, params); })
      return Traits::allocate(ctx, input, params);
    else
      return DeviceImage::allocate(ctx, input.width, input.height, input.channels, input.type);
  }

  Context& ctx_;
  Image input_;
  Params params_;
  DeviceImage d_in_;
  typename Traits::Output d_out_;
  Image expected_;
};

// The Traits of a filter whose device calls go through its ImageFilterApi (image_call.hpp); a filter adds its
// kTolerance, and anything optional above.
template <const auto& Api>
struct ImageCallTraits {
  using Params = typename std::remove_cvref_t<decltype(Api)>::Params;
  using Output = DeviceImage;
  static std::optional<std::string> unsupported(const DeviceInfo& device, const std::string& variant, const Params& p,
                                                const Image& in, const TuningConfig& config) {
    return Api.unsupported(device, variant, p, in.width, in.height, in.channels, config, in.type);
  }
  static void prepare(Context& ctx, const Params& p, const std::string& variant, const Image& in,
                      const TuningConfig& config) {
    prepare_image_call(ctx, Api, {p, in.width, in.height, in.channels, in.type}, variant, config);
  }
  static std::vector<cl::Event> enqueue(Context& ctx, const DeviceImage& in, Output& out, const Params& p,
                                        const std::string& variant, const TuningConfig& config) {
    return enqueue_image_call(ctx, Api, in, out, p, variant, config);
  }
  static Image reference(const Image& in, const Params& p, int threads) { return Api.reference(in, p, threads); }
  static VariantChoice choose_auto(Context& ctx, const Params& p, const Image& in) {
    return choose_image_variant(ctx, Api, p, "auto", in.width, in.height, in.channels, {}, in.type);
  }
  static int reach(const Params& p) { return Api.reach_of(p); }
  static const auto& api() { return Api; }
};

// The FilterSpec of such a filter, named and listed by its ImageFilterApi. Its `Traits` (an ImageCallTraits) add
//   static constexpr int kDefaultChannels;          the channels of a case that names none
//   static std::vector<ParamMap> bench_cases();
//   static std::string param_class(const ParamMap&);
//   static Params parse(const ParamMap&);            a case's parameters, unknown keys refused (check_param_keys).
// An instance runs the parameters, checked, on a synthetic photo of the case's channels; a case with bits=16 runs
// on u16 samples (filters whose variants take them), a class of its own (" u16").
template <class Traits>
class ImageCallSpec final : public BasicFilterSpec {
 public:
  ImageCallSpec() : BasicFilterSpec(Traits::api().spec_name, Traits::api().kernel_file, variant_infos) {}
  std::vector<ParamMap> bench_cases() const override { return Traits::bench_cases(); }
  std::string param_class(const ParamMap& params) const override {
    const auto [type, rest] = sample_type_of(params);
    return Traits::param_class(rest) + (type == SampleType::u16 ? " u16" : "");
  }
  std::unique_ptr<FilterInstance> instantiate(Context& ctx, int width, int height, const ParamMap& params,
                                              std::uint64_t seed) const override {
    const auto [type, rest] = sample_type_of(params);
    typename Traits::Params p = Traits::parse(rest);
    Traits::api().check_params(p, type);
    const int channels = param_channels(params, Traits::api().spec_name, Traits::kDefaultChannels);
    Image photo = synthetic_photo(width, height, channels, seed);
    return std::make_unique<ImageFilterInstance<Traits>>(
        ctx, type == SampleType::u16 ? widen_to_u16(photo, seed) : std::move(photo), std::move(p));
  }

 private:
  static const std::vector<VariantInfo>& variant_infos() { return Traits::api().table().infos(); }
};

// The one ImageCallSpec of `Traits`, as the filter registry takes it (X_filter_spec()).
template <class Traits>
const FilterSpec& image_call_spec() {
  static const ImageCallSpec<Traits> spec;
  return spec;
}

}  // namespace clf
