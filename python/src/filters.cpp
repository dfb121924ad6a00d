// SPDX-License-Identifier: Apache-2.0
// The filters as Python calls them: the command line's names, defaults and checks, on NumPy arrays (read and
// written in place where the layout allows, into a new array or the caller's out=) or on DeviceImages (no host round
// trip). The GIL is released around all OpenCL work and every host conversion.
#include <fmt/format.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "binding.hpp"
#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/jacobi.hpp"
#include "clfilters/sobel.hpp"
#include "filters/image_call.hpp"

namespace clf::py {

using namespace nb::literals;

namespace {

using DeviceCall = std::function<std::vector<cl::Event>(Context&, const DeviceImage&, DeviceImage&)>;

// The command line's check of --variant, with its message.
void check_variant_name(const std::string& variant, const std::vector<VariantInfo>& variants) {
  if (variant == "auto" || find_variant(variants, variant)) return;
  std::string names;
  for (const auto& v : variants) names += (names.empty() ? "" : ", ") + v.name;
  throw std::invalid_argument(fmt::format("unknown variant '{}' (expected auto, {})", variant, names));
}

// The checks of the library's host call (box_blur(ctx, Image, ...) and its kin), with their messages: the sample
// type (TypeError; uint16 too with `u16`), the channels and the size (ValueError).
void check_u8_input(const HostArray& a, const char* what, bool size_in_message, bool u16 = false) {
  if (a.type != SampleType::u8 && !(u16 && a.type == SampleType::u16))
    throw nb::type_error(
        fmt::format("{} needs {} samples, got {}", what, u16 ? "8- or 16-bit" : "8-bit", a.dtype_name).c_str());
  if (a.channels < 1 || a.channels > 4)
    throw nb::value_error(fmt::format("{} takes 1 to 4 channels, got {}", what, a.channels).c_str());
  if (a.width < 1 || a.height < 1)
    throw nb::value_error((size_in_message
                               ? fmt::format("{} needs an image of at least 1x1, got {}x{}", what, a.width, a.height)
                               : fmt::format("{} needs an image of at least 1x1", what))
                              .c_str());
}

// A DeviceImage input of `dtype` (or `or_dtype`) on `ctx` (None: any).
PyDeviceImage& device_input(nb::handle img, nb::handle ctx, const char* what, DeviceDtype dtype,
                            std::optional<DeviceDtype> or_dtype = std::nullopt) {
  PyDeviceImage& in = nb::cast<PyDeviceImage&>(img);
  if (!ctx.is_none() && !ctx.is(in.owner))
    throw nb::value_error(fmt::format("{}: the DeviceImage lives on another Context than ctx", what).c_str());
  if (in.dtype != dtype && in.dtype != or_dtype)
    throw nb::type_error(fmt::format("{} needs a DeviceImage of {}{}, got {}", what, dtype_name(dtype),
                                     or_dtype ? fmt::format(" or {}", dtype_name(*or_dtype)) : "", dtype_name(in.dtype))
                             .c_str());
  return in;
}

// The output of a device call: `out` when given (checked against the shape the call writes), else a new image.
nb::object device_output(nb::handle out, const PyDeviceImage& like, int channels, bool channel_axis, DeviceDtype dtype,
                         const char* what) {
  if (out.is_none())
    return nb::cast(allocate_like(like.owner, *like.ctx, like.width, like.height, channels, channel_axis, dtype));
  if (!nb::isinstance<PyDeviceImage>(out))
    throw nb::type_error(fmt::format("{}: out must be a DeviceImage for a DeviceImage input, got {}", what,
                                     nb::isinstance(out, nb::module_::import_("numpy").attr("ndarray"))
                                         ? "a NumPy array"
                                         : nb::inst_name(out).c_str())
                             .c_str());
  const PyDeviceImage& o = nb::cast<const PyDeviceImage&>(out);
  if (!o.owner.is(like.owner))
    throw nb::value_error(fmt::format("{}: out lives on another Context than the input", what).c_str());
  if (o.width != like.width || o.height != like.height || o.device_channels() != (channels == 1 ? 1 : 4) ||
      o.dtype != dtype)
    throw nb::value_error(fmt::format("{}: out must be {}x{} with {} channel(s) of {}, got {}x{}x{} of {}", what,
                                      like.width, like.height, channels, dtype_name(dtype), o.width, o.height,
                                      o.channels, dtype_name(o.dtype))
                              .c_str());
  return nb::borrow(out);
}

// What box blur, epsilon and bilateral share: images of their input's shape and sample type (arrays and DeviceImages
// of uint8 or uint16).
struct SampleFilter {
  const char* what;  // as the library's messages name it
  bool size_in_message;
  int reach;  // the input rows above and below an output row its window reads (the library's bands' halo)
  const DeviceCall& device;
  // The library's host call: for 2 channels, 16-bit RGB and images the device takes only in bands.
  std::function<Image(Context&, const Image&)> host;
  SeveralCalls several;  // lists of arrays or of Contexts
};

nb::object run_sample_filter(nb::handle img, nb::handle ctx_obj, nb::handle out, const SampleFilter& f) {
  if (is_several(img, ctx_obj))
    return run_several(
        img, ctx_obj, out, f.what, [&](const HostArray& a) { check_u8_input(a, f.what, f.size_in_message, true); },
        f.several, true);
  if (nb::isinstance<PyDeviceImage>(img)) {
    const PyDeviceImage& in = device_input(img, ctx_obj, f.what, DeviceDtype::u8, DeviceDtype::u16);
    nb::object result = device_output(out, in, in.channels, in.channel_axis, in.dtype, f.what);
    const PyDeviceImage& r = nb::cast<const PyDeviceImage&>(result);
    {
      nb::gil_scoped_release release;
      DeviceImage target = r.samples();
      f.device(*in.ctx, in.samples(), target);
    }
    return result;
  }
  const HostArray a = host_array(img, f.what);
  check_u8_input(a, f.what, f.size_in_message, true);
  const std::optional<HostOut> into = host_out(out, a, f.what);
  nb::object owner;
  Context& ctx = call_context(ctx_obj, owner);
  // Grey and RGBA: the library's call on the array's memory, in one piece or, too large for the device, in bands.
  if (a.channels == 1 || a.channels == 4) return filter_array_in_place({&ctx}, a, f.several, into);
  // RGB too large for the device in one piece (or of 2^29 pixels or more) goes to the library's host call on a copy,
  // which cuts it into bands; the path below holds it whole on the device.
  const bool bands = host_call_band_rows(ctx.info(), a.width, a.height, 4,
                                         Image::byte_size_for(a.width, a.height, 4, *a.type), f.reach)
                         .has_value();
  if (!bands && a.channels == 3 && a.type == SampleType::u8) {
    // RGB becomes RGBA and back on the device, with no pass of the host over the pixels.
    NewArray rgb = result_array(a.height, a.width, 3, true, SampleType::u8, into);
    {
      nb::gil_scoped_release release;
      std::vector<cl::Event> events;
      filter_host_rgb(
          ctx, static_cast<const std::uint8_t*>(a.data), static_cast<std::uint8_t*>(rgb.data), a.width, a.height,
          [&](const DeviceImage& in, DeviceImage& o) { return f.device(ctx, in, o); }, events);
    }
    return deliver(std::move(rgb.array), into);
  }
  Image result;
  {
    nb::gil_scoped_release release;
    result = f.host(ctx, to_image(a));
  }
  return deliver(to_numpy(std::move(result), a.channel_axis), into);
}

nb::object box_blur_py(nb::handle img, int diameter, const std::string& border, const std::string& variant,
                       nb::handle ctx, nb::handle out) {
  const BoxBlurParams params{.diameter = diameter, .border = parse_border(border)};
  box_blur_check_params(params, SampleType::u16);  // the widest ranges; the call checks its own type
  check_variant_name(variant, box_blur_variants());
  const DeviceCall device = [&](Context& c, const DeviceImage& in, DeviceImage& o) {
    return box_blur(c, in, o, params, variant);
  };
  // One image on one Context, one image over several, or a batch over several: the library's host calls.
  const auto host = [&](auto& c, const auto& in) { return box_blur(c, in, params, variant); };
  const auto in_place = [&](const auto& d, const auto& in, const auto& o) { box_blur(d, in, o, params, variant); };
  return run_sample_filter(img, ctx, out,
                           {"box blur", false, params.diameter / 2, device, host, {host, host, in_place}});
}

nb::object epsilon_py(nb::handle img, int radius, int threshold, const std::string& border, const std::string& variant,
                      nb::handle ctx, nb::handle out) {
  const EpsilonParams params{.radius = radius, .threshold = threshold, .border = parse_border(border)};
  epsilon_check_params(params, SampleType::u16);  // the widest ranges; the call checks its own type
  check_variant_name(variant, epsilon_variants());
  const DeviceCall device = [&](Context& c, const DeviceImage& in, DeviceImage& o) {
    return epsilon(c, in, o, params, variant);
  };
  const auto host = [&](auto& c, const auto& in) { return epsilon(c, in, params, variant); };
  const auto in_place = [&](const auto& d, const auto& in, const auto& o) { epsilon(d, in, o, params, variant); };
  return run_sample_filter(img, ctx, out, {"epsilon", true, params.radius, device, host, {host, host, in_place}});
}

nb::object bilateral_py(nb::handle img, double sigma_spatial, double sigma_range, std::optional<int> radius,
                        const std::string& border, const std::string& window, const std::string& distance,
                        const std::string& variant, nb::handle ctx, nb::handle out) {
  const BilateralParams params{.sigma_spatial = sigma_spatial,
                               .sigma_range = sigma_range,
                               .radius = radius.value_or(-1),
                               .border = parse_border(border),
                               .window = parse_bilateral_window(window),
                               .distance = parse_bilateral_distance(distance)};
  bilateral_check_params(params, SampleType::u16);  // the widest ranges; the call checks its own type
  // BilateralParams' radius -1 stands for the default; here the default is radius=None (the command line's check).
  if (radius && *radius < 0)
    throw std::invalid_argument(fmt::format("radius must be 0..{}, got {}", kMaxBilateralRadius, *radius));
  check_variant_name(variant, bilateral_variants());
  const DeviceCall device = [&](Context& c, const DeviceImage& in, DeviceImage& o) {
    return bilateral(c, in, o, params, variant);
  };
  const auto host = [&](auto& c, const auto& in) { return bilateral(c, in, params, variant); };
  const auto in_place = [&](const auto& d, const auto& in, const auto& o) { bilateral(d, in, o, params, variant); };
  return run_sample_filter(img, ctx, out,
                           {"bilateral", false, bilateral_radius(params), device, host, {host, host, in_place}});
}

// ---- conversions on the device, for chains that start from colour or 8-bit images --------------------------

const char* const kConversionSource = R"CLC(
// SPEC's grey: (77 R + 150 G + 29 B + 128) >> 8, as sobel_grey and to_grey_float compute it on the host.
__kernel void grey_from_rgba(__global const uchar4* in, __global uchar* out) {
  const size_t i = get_global_id(0);
  const uint4 p = convert_uint4(in[i]);
  out[i] = (uchar)((77u * p.x + 150u * p.y + 29u * p.z + 128u) >> 8);
}
__kernel void grey_from_rgb(__global const uchar* in, __global uchar* out) {
  const size_t i = get_global_id(0);
  const uint3 p = convert_uint3(vload3(i, in));
  out[i] = (uchar)((77u * p.x + 150u * p.y + 29u * p.z + 128u) >> 8);
}
__kernel void float_from_grey(__global const uchar* in, __global float* out) {
  const size_t i = get_global_id(0);
  out[i] = (float)in[i];
}
)CLC";

// Enqueues `kernel` of the conversion program over `pixels` work-items, from `in` to `out`.
void convert(Context& ctx, const char* kernel, const cl::Buffer& in, const cl::Buffer& out, std::size_t pixels) {
  cl::Kernel k(ctx.program_from_source("python_conversions.cl", kConversionSource, ""), kernel);
  k.setArg(0, in);
  k.setArg(1, out);
  check_cl(ctx.queue().enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(pixels), cl::NullRange),
           "clEnqueueNDRangeKernel");
}

// The grey plane of a u8 device image: itself when it has 1 channel, else a new packed one.
DeviceImage grey_on_device(Context& ctx, const PyDeviceImage& in) {
  if (in.channels == 1) return in.samples();
  std::vector<cl::Event> events;
  const DeviceImage packed = packed_input(ctx, in.samples(), events, "python grey input");
  DeviceImage grey = DeviceImage::allocate(ctx, in.width, in.height, 1);
  convert(ctx, "grey_from_rgba", packed.buffer, grey.buffer, std::size_t(in.width) * in.height);
  return grey;
}

nb::object wrap(const PyDeviceImage& like, cl::Buffer buffer, DeviceDtype dtype) {
  PyDeviceImage img;
  img.owner = like.owner;
  img.ctx = like.ctx;
  img.buffer = std::move(buffer);
  img.width = like.width;
  img.height = like.height;
  img.dtype = dtype;
  return nb::cast(std::move(img));
}

// The checks of Sobel's host calls, with their messages: 8-bit samples (TypeError), 1 to 4 channels, at least 1x1.
void check_sobel_input(const HostArray& a) {
  if (a.type != SampleType::u8 || a.channels < 1 || a.channels > 4) {
    const std::string message =
        fmt::format("Sobel takes 8-bit images with 1 to 4 channels, got {} channel(s) of {}", a.channels, a.dtype_name);
    if (a.type != SampleType::u8) throw nb::type_error(message.c_str());
    throw nb::value_error(message.c_str());
  }
  if (a.width < 1 || a.height < 1) throw nb::value_error("Sobel needs an image of at least 1x1");
}

nb::object sobel_py(nb::handle img, const std::string& output, const std::string& border, const std::string& variant,
                    nb::handle ctx_obj) {
  const SobelParams params{.output = parse_sobel_output(output), .border = parse_border(border)};
  sobel_check_params(params);
  check_variant_name(variant, sobel_variants());
  const bool gradients = params.output == SobelOutput::gradients;
  if (is_several(img, ctx_obj)) {
    const auto host = [&](auto& devices, const auto& in) { return sobel(devices, in, params, variant); };
    return run_several(img, ctx_obj, nb::none(), "Sobel", check_sobel_input, {host, host}, false);
  }
  if (nb::isinstance<PyDeviceImage>(img)) {
    const PyDeviceImage& in = device_input(img, ctx_obj, "Sobel", DeviceDtype::u8);
    Context& ctx = *in.ctx;
    DeviceGradients grads;
    DeviceImage magnitude;
    {
      nb::gil_scoped_release release;
      const DeviceImage grey = grey_on_device(ctx, in);
      if (gradients) {
        grads = DeviceGradients::allocate(ctx, in.width, in.height);
        sobel(ctx, grey, grads, params, variant);
      } else {
        magnitude = DeviceImage::allocate(ctx, in.width, in.height, 1);
        sobel(ctx, grey, magnitude, params, variant);
      }
    }
    if (gradients) return nb::make_tuple(wrap(in, grads.gx, DeviceDtype::i16), wrap(in, grads.gy, DeviceDtype::i16));
    return wrap(in, magnitude.buffer, DeviceDtype::u8);
  }
  const HostArray a = host_array(img, "Sobel");
  check_sobel_input(a);
  nb::object owner;
  Context& ctx = call_context(ctx_obj, owner);
  NewArray gx = new_array(a.height, a.width, 1, false, gradients ? SampleType::i16 : SampleType::u8);
  NewArray gy = gradients ? new_array(a.height, a.width, 1, false, SampleType::i16) : NewArray{};
  {
    nb::gil_scoped_release release;
    // RGB and RGBA become grey on the device (SPEC's formula, as the library's host call converts them), with no
    // pass of the host over the pixels; grey+alpha keeps its grey channel on the host.
    const std::size_t pixels = std::size_t(a.width) * a.height;
    Image grey;
    if (a.channels == 2) grey = sobel_grey(to_image(a));
    DeviceImage in{{}, a.width, a.height, 1};
    if (a.channels == 3 || a.channels == 4) {
      const cl::Buffer colour = buffer_over_host(ctx, const_cast<void*>(a.data), a.byte_size(), true);
      in.buffer = ctx.scratch_buffer("python sobel grey", pixels);
      convert(ctx, a.channels == 3 ? "grey_from_rgb" : "grey_from_rgba", colour, in.buffer, pixels);
    } else {
      in.buffer = buffer_over_host(ctx, const_cast<void*>(a.channels == 1 ? a.data : grey.data.data()), pixels, true);
    }
    if (gradients) {
      DeviceGradients g{buffer_over_host(ctx, gx.data, pixels * 2, false),
                        buffer_over_host(ctx, gy.data, pixels * 2, false), a.width, a.height};
      sobel(ctx, in, g, params, variant);
      read_to_host(ctx, g.gx, gx.data, pixels * 2);
      read_to_host(ctx, g.gy, gy.data, pixels * 2);
    } else {
      DeviceImage result{buffer_over_host(ctx, gx.data, pixels, false), a.width, a.height, 1};
      sobel(ctx, in, result, params, variant);
      read_to_host(ctx, result.buffer, gx.data, pixels);
    }
  }
  if (gradients) return nb::make_tuple(gx.array, gy.array);
  return std::move(gx.array);
}

// ---- reverse edge detection ------------------------------------------------------------------------------

nb::object edges_py(nb::handle img, nb::handle ctx_obj) {
  if (nb::isinstance<PyDeviceImage>(img)) {
    const PyDeviceImage& in = nb::cast<const PyDeviceImage&>(img);
    if (in.dtype == DeviceDtype::i16 || in.dtype == DeviceDtype::u16)
      throw nb::type_error(
          fmt::format("edges needs a DeviceImage of uint8 or float32, got {}", dtype_name(in.dtype)).c_str());
    device_input(img, ctx_obj, "edges", in.dtype);
    Context& ctx = *in.ctx;
    nb::object result = nb::cast(allocate_like(in.owner, ctx, in.width, in.height, 1, false, DeviceDtype::f32));
    const PyDeviceImage& r = nb::cast<const PyDeviceImage&>(result);
    {
      nb::gil_scoped_release release;
      DeviceFloatImage target = r.f32();
      if (in.dtype == DeviceDtype::f32) {
        jacobi_edges(ctx, in.f32(), target);
      } else {
        const DeviceImage grey = grey_on_device(ctx, in);
        std::vector<cl::Event> events;
        const DeviceImage packed = packed_input(ctx, grey, events, "python edges input");
        DeviceFloatImage u = DeviceFloatImage::allocate(ctx, in.width, in.height);
        convert(ctx, "float_from_grey", packed.buffer, u.buffer, std::size_t(in.width) * in.height);
        jacobi_edges(ctx, u, target);
      }
    }
    return result;
  }
  const HostArray a = host_array(img, "edges");
  if (!a.type)
    throw nb::type_error(
        fmt::format("edges takes arrays of uint8, uint16, int16 or float32, got {}", a.dtype_name).c_str());
  nb::object owner;
  Context& ctx = call_context(ctx_obj, owner);
  Image result;
  {
    nb::gil_scoped_release release;
    result = jacobi_edges(ctx, to_image(a));
  }
  return to_numpy(std::move(result), false);
}

nb::object reconstruct_py(nb::handle edges, std::optional<int> iterations, std::optional<double> tolerance,
                          int check_every, nb::handle initial, const std::string& variant, nb::handle ctx_obj) {
  JacobiParams params;
  params.tolerance = tolerance;
  params.iterations = iterations.value_or(tolerance ? 1000000 : 1000);
  params.check_every = check_every;
  jacobi_check_params(params);
  check_variant_name(variant, jacobi_variants());
  if (nb::isinstance<PyDeviceImage>(edges)) {
    const PyDeviceImage& e = device_input(edges, ctx_obj, "reconstruct", DeviceDtype::f32);
    Context& ctx = *e.ctx;
    nb::object result = nb::cast(allocate_like(e.owner, ctx, e.width, e.height, 1, false, DeviceDtype::f32));
    const PyDeviceImage& r = nb::cast<const PyDeviceImage&>(result);
    const PyDeviceImage* start = nullptr;
    if (!initial.is_none()) {
      start = &device_input(initial, e.owner, "reconstruct (initial)", DeviceDtype::f32);
      if (start->width != e.width || start->height != e.height)
        throw nb::value_error(fmt::format("the initial image is {}x{} but the edge map is {}x{}", start->width,
                                          start->height, e.width, e.height)
                                  .c_str());
    }
    {
      nb::gil_scoped_release release;
      DeviceFloatImage u = r.f32();
      if (start) {
        std::vector<cl::Event> events;
        const DeviceImage packed = packed_input(ctx, start->f32().bytes(), events, "python initial");
        check_cl(ctx.queue().enqueueCopyBuffer(packed.buffer, u.buffer, 0, 0, u.byte_size()), "clEnqueueCopyBuffer");
      } else {
        check_cl(ctx.queue().enqueueFillBuffer(u.buffer, 0.0f, 0, u.byte_size()), "clEnqueueFillBuffer");
      }
      jacobi_reconstruct(ctx, e.f32(), u, params, variant);
    }
    return result;
  }
  const HostArray a = host_array(edges, "reconstruct");
  if (a.type != SampleType::f32 || a.channels != 1) {
    const std::string message =
        fmt::format("the edge map must be 1 channel of float32, not {} channel(s) of {}", a.channels, a.dtype_name);
    if (a.type != SampleType::f32) throw nb::type_error(message.c_str());
    throw nb::value_error(message.c_str());
  }
  Image start;
  std::optional<HostArray> initial_array;
  if (!initial.is_none()) {
    initial_array = host_array(initial, "reconstruct (initial)");
    if (!initial_array->type)
      throw nb::type_error(
          fmt::format("the initial image must be uint8, uint16, int16 or float32, got {}", initial_array->dtype_name)
              .c_str());
  }
  nb::object owner;
  Context& ctx = call_context(ctx_obj, owner);
  JacobiResult result;
  {
    nb::gil_scoped_release release;
    // Any image as the command line's --initial takes it: colour becomes grey, any sample type float.
    if (initial_array) start = to_grey_float(to_image(*initial_array));
    result = jacobi_reconstruct(ctx, to_image(a), params, variant, start);
  }
  return to_numpy(std::move(result.image), false);
}

// The C++ side of bench/python_bench.py's overhead figure: `runs` calls of what box_blur(img) does from Python,
// timed in C++ with no Python in between; the seconds of each. A DeviceImage: the device call and a clFinish. An
// array: what box_blur(array) does (the call on the array's memory), the output's allocation included.
std::vector<double> time_cpp_box_blur(nb::handle img, int diameter, int runs, nb::handle ctx_obj) {
  const BoxBlurParams params{.diameter = diameter, .border = {}};
  std::vector<double> seconds;
  const auto timed = [&](const auto& call) {
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      call();
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  };
  if (nb::isinstance<PyDeviceImage>(img)) {
    const PyDeviceImage& in = device_input(img, ctx_obj, "box blur", DeviceDtype::u8);
    const PyDeviceImage out =
        allocate_like(in.owner, *in.ctx, in.width, in.height, in.channels, in.channel_axis, DeviceDtype::u8);
    nb::gil_scoped_release release;
    DeviceImage target = out.samples();
    timed([&] {
      box_blur(*in.ctx, in.samples(), target, params);
      check_cl(in.ctx->queue().finish(), "clFinish");
    });
    return seconds;
  }
  const HostArray a = host_array(img, "box blur");
  check_u8_input(a, "box blur", false);
  if (a.channels != 1 && a.channels != 4) throw nb::value_error("timed calls take 1 or 4 channels");
  nb::object owner;
  Context& ctx = call_context(ctx_obj, owner);
  nb::gil_scoped_release release;
  const std::size_t bytes = a.byte_size();
  timed([&] {
    ImageBytes out_bytes(bytes);
    box_blur({&ctx}, {static_cast<const std::uint8_t*>(a.data), a.width, a.height, a.channels, SampleType::u8},
             {out_bytes.data(), a.width, a.height, a.channels, SampleType::u8}, params);
  });
  return seconds;
}

constexpr const char* kImageTypes = "numpy.ndarray | DeviceImage";
// Box blur, epsilon, bilateral and Sobel take lists too: of arrays (a batch) and of Contexts (several devices).
constexpr const char* kImagesTypes = "numpy.ndarray | DeviceImage | collections.abc.Sequence[numpy.ndarray]";
constexpr const char* kContextsType = "Context | collections.abc.Sequence[Context] | None";
constexpr const char* kSeveralDoc =
    "\n`img` may also be a list or tuple of arrays, a batch: a list of results in input order. `ctx` may also be a "
    "list or tuple of Contexts (clfilters.contexts) that share the work: one array's bands, or a batch's images, "
    "handed out as each device finishes one. DeviceImages take neither.";

}  // namespace

void bind_filters(nb::module_& m) {
  m.def("_time_cpp_box_blur", &time_cpp_box_blur, "img"_a, "diameter"_a, "runs"_a, "ctx"_a = nb::none());
  const std::string img_doc =
      "`img` is a NumPy array (uint8 or uint16, H x W or H x W x C, C in 1 to 4; C-contiguous ones are read in "
      "place, other layouts packed first; parameters in sample units: a uint16 array's threshold, sigma_range and "
      "border constant are on its 0..65535 scale) or a DeviceImage (uint8 or uint16, likewise). An array gives a new "
      "array of its shape, or writes `out` and returns it, as NumPy's out= does: an array of the same shape and dtype, "
      "writeable, sharing no memory with `img` (written directly where C-contiguous and the layout allows, else "
      "through a temporary). A DeviceImage gives a DeviceImage of its shape and dtype on its context (or `out`, a "
      "DeviceImage of the same shape and dtype), enqueued without waiting. `ctx` is the Context to "
      "run on (default: clfilters.default_context()). `variant` picks a variant as --variant does." +
      std::string(kSeveralDoc) + " A batch takes no `out`.";
  m.def("box_blur", &box_blur_py, "img"_a, "diameter"_a = 9, "border"_a = "replicate", "variant"_a = "auto",
        "ctx"_a = nb::none(), "out"_a = nb::none(),
        nb::sig(fmt::format("def box_blur(img: {}, diameter: int = 9, border: str = 'replicate', variant: str = "
                            "'auto', ctx: {} = None, out: numpy.ndarray | DeviceImage | None = None) -> {} | "
                            "list[numpy.ndarray]",
                            kImagesTypes, kContextsType, kImageTypes)
                    .c_str()),
        (fmt::format("Box blur: the rounded mean of the d x d window on every channel, exact in integers.\n\n"
                     "diameter: 1..{} (default 9), odd or even.\nborder: 'replicate' (default), 'reflect101', "
                     "'constant' or 'constant=V'.\n",
                     kMaxBoxDiameter) +
         img_doc)
            .c_str());
  m.def("epsilon", &epsilon_py, "img"_a, "radius"_a = 4, "threshold"_a = 20, "border"_a = "replicate",
        "variant"_a = "auto", "ctx"_a = nb::none(), "out"_a = nb::none(),
        nb::sig(fmt::format("def epsilon(img: {}, radius: int = 4, threshold: int = 20, border: str = 'replicate', "
                            "variant: str = 'auto', ctx: {} = None, out: numpy.ndarray | DeviceImage | None = None) "
                            "-> {} | list[numpy.ndarray]",
                            kImagesTypes, kContextsType, kImageTypes)
                    .c_str()),
        (fmt::format(
             "Epsilon filter (mosquito-noise removal): the rounded mean of the window pixels within "
             "`threshold` of the centre. Grey is filtered; RGB and RGBA have R, G and B filtered and alpha "
             "copied.\n\nradius: {}..{} (default 4), a (2r+1) x (2r+1) window.\nthreshold: 0..255, or 0..65535 "
             "for uint16 (default 20).\nborder: 'replicate' (default), 'reflect101', 'constant' or 'constant=V'.\n",
             kMinEpsilonRadius, kMaxEpsilonRadius) +
         img_doc)
            .c_str());
  m.def("bilateral", &bilateral_py, "img"_a, "sigma_spatial"_a = 3.0, "sigma_range"_a = 30.0, "radius"_a = nb::none(),
        "border"_a = "replicate", "window"_a = "square", "distance"_a = "l2", "variant"_a = "auto",
        "ctx"_a = nb::none(), "out"_a = nb::none(),
        nb::sig(fmt::format("def bilateral(img: {}, sigma_spatial: float = 3.0, sigma_range: float = 30.0, "
                            "radius: int | None = None, border: str = 'replicate', window: str = 'square', "
                            "distance: str = 'l2', variant: str = 'auto', ctx: {} = None, out: "
                            "numpy.ndarray | DeviceImage | None = None) -> {} | list[numpy.ndarray]",
                            kImagesTypes, kContextsType, kImageTypes)
                    .c_str()),
        (fmt::format("Bilateral filter: smooths while keeping edges; grey, or colour with the distance over R, G "
                     "and B and alpha copied.\n\nsigma_spatial: in pixels, at least {} (default 3).\nsigma_range: "
                     "in sample units (0..255, or 0..65535 for uint16), at least {} (default 30).\nradius: 0..{}; None "
                     "(default) means "
                     "ceil(2 * sigma_spatial), at most {}.\nborder: 'replicate' (default), 'reflect101', "
                     "'constant' or 'constant=V'.\nwindow: 'square' (default), the whole (2r+1) x (2r+1) window, "
                     "or 'disk', the taps with dx^2 + dy^2 <= r^2.\ndistance: 'l2' (default), the Euclidean colour "
                     "distance, or 'l1', |dR| + |dG| + |dB| (grey: both are |p - c|). window='disk', distance='l1' "
                     "are the taps and weights of OpenCV's bilateralFilter.\n",
                     kMinBilateralSigma, kMinBilateralSigma, kMaxBilateralRadius, kMaxBilateralRadius) +
         img_doc)
            .c_str());
  m.def("sobel", &sobel_py, "img"_a, "output"_a = "magnitude", "border"_a = "replicate", "variant"_a = "auto",
        "ctx"_a = nb::none(),
        nb::sig(fmt::format("def sobel(img: {1}, output: str = 'magnitude', border: str = 'replicate', variant: "
                            "str = 'auto', ctx: {2} = None) -> {0} | tuple[{0}, {0}] | list[numpy.ndarray] | "
                            "list[tuple[numpy.ndarray, numpy.ndarray]]",
                            kImageTypes, kImagesTypes, kContextsType)
                    .c_str()),
        fmt::format("Sobel edge detection on the grey image (colour becomes (77 R + 150 G + 29 B + 128) >> 8).\n\n"
                    "output: 'magnitude' (default; round(sqrt(gx^2 + gy^2)) clamped to 255, uint8 H x W), 'l1' "
                    "(min(255, |gx| + |gy|), uint8 H x W) or 'gradients' (a tuple (gx, gy) of int16 H x W).\n"
                    "border: 'replicate' (default), 'reflect101', 'constant' or 'constant=V'.\n"
                    "`img`: a uint8 array (H x W or H x W x C, C in 1 to 4; any layout) or a uint8 DeviceImage "
                    "(colour is made grey on the device); uint16 is refused. `ctx` is the Context to run on "
                    "(default: clfilters.default_context()); `variant` picks a variant as --variant does.{}",
                    kSeveralDoc)
            .c_str());
  m.def("edges", &edges_py, "img"_a, "ctx"_a = nb::none(),
        nb::sig(fmt::format("def edges(img: {0}, ctx: Context | None = None) -> {0}", kImageTypes).c_str()),
        "The edge map u(x-1,y) + u(x+1,y) + u(x,y-1) + u(x,y+1) - 4 u(x,y) (zero outside), float32 H x W.\n\n"
        "`img`: 1 channel of uint8, uint16, int16 or float32, or 8-bit colour (made grey), as an array or a "
        "DeviceImage (uint8 or float32; not uint16). `ctx` as for the other filters.");
  m.def("reconstruct", &reconstruct_py, "edges"_a, "iterations"_a = nb::none(), "tolerance"_a = nb::none(),
        "check_every"_a = 48, "initial"_a = nb::none(), "variant"_a = "auto", "ctx"_a = nb::none(),
        nb::sig(fmt::format("def reconstruct(edges: {0}, iterations: int | None = None, tolerance: float | None = "
                            "None, check_every: int = 48, initial: {0} | None = None, variant: str = 'auto', ctx: "
                            "Context | None = None) -> {0}",
                            kImageTypes)
                    .c_str()),
        "Rebuilds an image from its edge map by Jacobi iteration (reverse edge detection); float32 H x W.\n\n"
        "edges: float32 H x W (an array or a DeviceImage).\niterations: the most iterations; None (default) "
        "means 1000, or 1000000 with a tolerance.\ntolerance: stop once the largest change of one iteration is "
        "<= tolerance (default None: run every iteration).\ncheck_every: with a tolerance, read the device's "
        "per-iteration maxima back every this many iterations (default 48).\ninitial: the first iterate, of the "
        "edge map's size (default None: zeros); an array of any sample type (colour becomes grey) or a float32 "
        "DeviceImage.\n`variant` picks a variant as --variant does; `ctx` as for the other filters.");
}

}  // namespace clf::py
