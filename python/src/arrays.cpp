// SPDX-License-Identifier: Apache-2.0
// NumPy arrays in and out, and DeviceImage: images kept on the device between calls.
#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "binding.hpp"
#include "common/parallel.hpp"
#include "filters/image_call.hpp"

namespace clf::py {

using namespace nb::literals;

namespace {

std::optional<SampleType> sample_type_of(const nb::dlpack::dtype& t) {
  if (t == nb::dtype<std::uint8_t>()) return SampleType::u8;
  if (t == nb::dtype<std::uint16_t>()) return SampleType::u16;
  if (t == nb::dtype<std::int16_t>()) return SampleType::i16;
  if (t == nb::dtype<float>()) return SampleType::f32;
  return std::nullopt;
}

// NumPy's name of a DLPack dtype ("float64"), as sample_type_name names clfilters' own.
std::string numpy_dtype_name(const nb::dlpack::dtype& t) {
  const char* kind = "void";
  switch (static_cast<nb::dlpack::dtype_code>(t.code)) {
    case nb::dlpack::dtype_code::Int: kind = "int"; break;
    case nb::dlpack::dtype_code::UInt: kind = "uint"; break;
    case nb::dlpack::dtype_code::Float: kind = "float"; break;
    case nb::dlpack::dtype_code::Complex: kind = "complex"; break;
    case nb::dlpack::dtype_code::Bool: return "bool";
    default: break;
  }
  return fmt::format("{}{}", kind, t.bits);
}

// NumPy's name of a dtype, clfilters' own where it has one.
std::string dtype_text(const nb::dlpack::dtype& t) {
  const std::optional<SampleType> type = sample_type_of(t);
  return type ? sample_type_name(*type) : numpy_dtype_name(t);
}

// An array's shape as the messages write it: "37x53x4".
template <class Array>
std::string shape_text(const Array& a) {
  std::string text;
  for (std::size_t d = 0; d < a.ndim(); ++d) text += fmt::format("{}{}", d ? "x" : "", a.shape(d));
  return text;
}

// Whether the samples lie in C order with no gaps. Strides are in elements; a dimension of extent 1 may have any
// stride, an empty array any strides.
template <class Array>
bool c_contiguous(const Array& a) {
  std::int64_t expected = 1;
  for (std::size_t d = a.ndim(); a.size() > 0 && d-- > 0;) {
    if (a.shape(d) != 1 && a.stride(d) != expected) return false;
    expected *= std::int64_t(a.shape(d));
  }
  return true;
}

// The addresses [first, end) of the bytes an array's samples span (numpy.may_share_memory's bounds); empty when it
// has no samples.
template <class Array>
std::pair<std::uintptr_t, std::uintptr_t> byte_bounds(const Array& a) {
  const auto base = std::intptr_t(reinterpret_cast<std::uintptr_t>(a.data()));
  if (a.size() == 0) return {std::uintptr_t(base), std::uintptr_t(base)};
  const std::int64_t item = (a.dtype().bits + 7) / 8;
  std::int64_t low = 0, high = item;
  for (std::size_t d = 0; d < a.ndim(); ++d) {
    const std::int64_t reach = (std::int64_t(a.shape(d)) - 1) * a.stride(d) * item;
    (reach < 0 ? low : high) += reach;
  }
  return {std::uintptr_t(base + low), std::uintptr_t(base + high)};
}

SampleType sample_type(DeviceDtype dtype) {
  switch (dtype) {
    case DeviceDtype::u8: return SampleType::u8;
    case DeviceDtype::u16: return SampleType::u16;
    case DeviceDtype::i16: return SampleType::i16;
    case DeviceDtype::f32: return SampleType::f32;
  }
  return SampleType::u8;
}

nb::object numpy_dtype(DeviceDtype dtype) {
  return nb::module_::import_("numpy").attr("dtype")(dtype_name(dtype));
}

PyDeviceImage upload(nb::object owner, nb::handle array_obj) {
  if (!nb::isinstance<Context>(owner)) throw nb::type_error("ctx must be a clfilters.Context");
  Context& ctx = nb::cast<Context&>(owner);
  const HostArray in = host_array(array_obj, "DeviceImage.upload");
  DeviceDtype dtype;
  if (in.type == SampleType::u8 || in.type == SampleType::u16) {
    if (in.channels != 1 && in.channels != 3 && in.channels != 4)
      throw nb::value_error(
          fmt::format("device images hold 1, 3 or 4 channels of {}, got {} channel(s)", in.dtype_name, in.channels)
              .c_str());
    dtype = in.type == SampleType::u8 ? DeviceDtype::u8 : DeviceDtype::u16;
  } else if (in.type == SampleType::f32 && in.channels == 1 && !in.channel_axis) {
    dtype = DeviceDtype::f32;
  } else {
    throw nb::type_error(fmt::format("device images hold uint8 or uint16 (H x W or H x W x C, C in 1, 3, 4) or "
                                     "float32 (H x W), got {} of {} channel(s)",
                                     in.dtype_name, in.channels)
                             .c_str());
  }
  PyDeviceImage img = allocate_like(owner, ctx, in.width, in.height, in.channels, in.channel_axis, dtype);
  {
    nb::gil_scoped_release release;
    if (in.channels == 3 && in.byte_size() > 0) {
      // RGB travels as RGBA with alpha 255 (65535), as the host calls send it, converted on the device. The wait
      // keeps the array's memory, which the buffer may use in place, until the conversion has read it.
      const cl::Buffer rgb = buffer_over_host(ctx, const_cast<void*>(in.data), in.byte_size(), true);
      check_cl(enqueue_rgba_from_rgb(ctx, rgb, img.buffer, std::size_t(in.width) * in.height, *in.type).wait(),
               "clWaitForEvents");
    } else {
      check_cl(ctx.queue().enqueueWriteBuffer(img.buffer, CL_TRUE, 0, in.byte_size(), in.data), "clEnqueueWriteBuffer");
    }
  }
  return img;
}

// The cl_mem of a pyopencl Buffer (int_ptr), or an integer handle.
cl_mem mem_handle(nb::handle buffer) {
  if (nb::hasattr(buffer, "int_ptr")) return reinterpret_cast<cl_mem>(nb::cast<std::uintptr_t>(buffer.attr("int_ptr")));
  if (nb::isinstance<nb::int_>(buffer)) return reinterpret_cast<cl_mem>(nb::cast<std::uintptr_t>(buffer));
  throw nb::type_error("DeviceImage.view takes a pyopencl.array.Array, a pyopencl.Buffer or a cl_mem handle (int)");
}

PyDeviceImage view(nb::object owner, nb::handle buffer, nb::object shape, nb::object dtype, std::size_t offset,
                   std::size_t row_pitch) {
  if (!nb::isinstance<Context>(owner)) throw nb::type_error("ctx must be a clfilters.Context");
  Context& ctx = nb::cast<Context&>(owner);
  nb::object mem_obj = nb::borrow(buffer);
  // NumPy's name of a dtype given as a string, a type or a numpy.dtype.
  const auto dtype_text = [](nb::handle d) {
    return nb::cast<std::string>(nb::module_::import_("numpy").attr("dtype")(d).attr("name"));
  };
  std::string type_name = dtype.is_none() ? "uint8" : dtype_text(dtype);
  if (nb::hasattr(buffer, "base_data") && nb::hasattr(buffer, "strides")) {
    // A pyopencl.array.Array: its buffer, offset, shape, dtype and row stride.
    mem_obj = buffer.attr("base_data");
    offset += nb::cast<std::size_t>(buffer.attr("offset"));
    shape = buffer.attr("shape");
    type_name = dtype_text(buffer.attr("dtype"));
    const auto strides = nb::cast<nb::tuple>(buffer.attr("strides"));
    const std::size_t item = type_name == "float32" ? 4 : type_name == "uint16" ? 2 : 1;
    const std::size_t ndim = strides.size();
    const std::size_t channels = ndim == 3 ? nb::cast<std::size_t>(nb::cast<nb::tuple>(shape)[2]) : 1;
    if (ndim < 2 || (ndim == 3 && nb::cast<std::size_t>(strides[2]) != item) ||
        nb::cast<std::size_t>(strides[1]) != item * channels)
      throw nb::value_error("DeviceImage.view: the array's pixels must be contiguous within each row");
    if (row_pitch == 0) row_pitch = nb::cast<std::size_t>(strides[0]);
  }
  if (shape.is_none()) throw nb::value_error("DeviceImage.view of a buffer needs its shape, (H, W) or (H, W, C)");
  const auto dims = nb::cast<nb::tuple>(shape);
  if (dims.size() != 2 && dims.size() != 3)
    throw nb::value_error("DeviceImage.view: the shape must be (H, W) or (H, W, C)");
  const int height = nb::cast<int>(dims[0]), width = nb::cast<int>(dims[1]);
  const int channels = dims.size() == 3 ? nb::cast<int>(dims[2]) : 1;
  const cl_mem mem = mem_handle(mem_obj);
  PyDeviceImage img;
  img.owner = owner;
  img.ctx = &ctx;
  img.width = width;
  img.height = height;
  img.channels = channels;
  img.channel_axis = dims.size() == 3;
  if (type_name == "uint8" || type_name == "uint16") {
    if (channels != 1 && channels != 4)
      throw nb::value_error(
          fmt::format("DeviceImage.view: a view holds 1 or 4 channels of {} (upload RGB as an array)", type_name)
              .c_str());
    const bool u16 = type_name == "uint16";
    const DeviceImage v =
        DeviceImage::view(ctx, mem, width, height, channels, offset, row_pitch, u16 ? SampleType::u16 : SampleType::u8);
    img.buffer = v.buffer;
    img.dtype = u16 ? DeviceDtype::u16 : DeviceDtype::u8;
  } else if (type_name == "float32" && channels == 1 && dims.size() == 2) {
    const DeviceFloatImage v = DeviceFloatImage::view(ctx, mem, width, height, offset, row_pitch);
    img.buffer = v.buffer;
    img.dtype = DeviceDtype::f32;
  } else {
    throw nb::type_error(
        fmt::format("DeviceImage.view: views hold uint8 or uint16 (H x W or H x W x C, C in 1, 4) or float32 (H x "
                    "W), got {} of {} channel(s)",
                    type_name, channels)
            .c_str());
  }
  img.offset = offset;
  img.row_pitch = row_pitch;
  return img;
}

// The samples of a strided array in C order, rows in parallel; each sample is `Sample` bytes.
template <class Sample>
void pack_rows(const HostArray& a, Sample* out) {
  const auto* base = static_cast<const Sample*>(a.data);
  const std::int64_t sy = a.array.stride(0), sx = a.array.stride(1), sc = a.channel_axis ? a.array.stride(2) : 0;
  const std::size_t row = std::size_t(a.width) * a.channels;
  const std::size_t bytes = row * a.height * sizeof(Sample);
  parallel_rows(a.height, bytes >= (std::size_t(1) << 18) ? 0 : 1, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      Sample* o = out + std::size_t(y) * row;
      for (int x = 0; x < a.width; ++x)
        for (int c = 0; c < a.channels; ++c) *o++ = base[y * sy + x * sx + c * sc];
    }
  });
}

Image packed_copy(const HostArray& a) {
  Image image = Image::uninitialized(a.width, a.height, a.channels, *a.type);
  switch (sample_size(*a.type)) {
    case 1: pack_rows(a, image.data.data()); break;
    case 2: pack_rows(a, reinterpret_cast<std::uint16_t*>(image.data.data())); break;
    default: pack_rows(a, reinterpret_cast<std::uint32_t*>(image.data.data())); break;
  }
  return image;
}

}  // namespace

std::size_t HostArray::byte_size() const {
  return std::size_t(width) * height * channels * (type ? sample_size(*type) : 1);
}

HostArray host_array(nb::handle obj, std::string_view what) {
  HostArray a;
  if (!nb::try_cast(obj, a.array))
    throw nb::type_error(fmt::format("{} takes a NumPy array or a DeviceImage, got {}", what,
                                     nb::cast<std::string>(nb::str(obj.type().attr("__name__"))))
                             .c_str());
  if (a.array.device_type() != nb::device::cpu::value)
    throw nb::type_error(fmt::format("{} takes host arrays (DeviceImage for device memory)", what).c_str());
  const std::size_t ndim = a.array.ndim();
  if (ndim != 2 && ndim != 3)
    throw nb::value_error(
        fmt::format("{} takes an array of shape H x W or H x W x C, got {} dimension(s)", what, ndim).c_str());
  a.type = sample_type_of(a.array.dtype());
  a.dtype_name = dtype_text(a.array.dtype());
  a.height = int(a.array.shape(0));
  a.width = int(a.array.shape(1));
  a.channels = ndim == 3 ? int(a.array.shape(2)) : 1;
  a.channel_axis = ndim == 3;
  a.data = a.array.data();
  if (!c_contiguous(a.array)) {
    if (!a.type)
      throw nb::type_error(
          fmt::format("{} takes arrays of uint8, uint16, int16 or float32, got {}", what, a.dtype_name).c_str());
    nb::gil_scoped_release release;
    a.packed = std::make_shared<const Image>(packed_copy(a));
    a.data = a.packed->data.data();
  }
  return a;
}

Image to_image(const HostArray& array) {
  if (array.packed) return *array.packed;
  Image image = Image::uninitialized(array.width, array.height, array.channels, *array.type);
  if (image.byte_size()) std::memcpy(image.data.data(), array.data, image.byte_size());
  return image;
}

NewArray new_array(int height, int width, int channels, bool channel_axis, SampleType type) {
  const std::size_t bytes = Image::byte_size_for(width, height, channels, type);
  // Image memory: large blocks are kept for the next array of the same size (allocate_host_bytes).
  auto* held = new ImageBytes(std::max<std::size_t>(bytes, 1));
  void* data = held->data();
  nb::capsule owner(held, [](void* p) noexcept { delete static_cast<ImageBytes*>(p); });
  const std::size_t shape[3] = {std::size_t(height), std::size_t(width), std::size_t(channels)};
  nb::dlpack::dtype dtype = nb::dtype<std::uint8_t>();
  if (type == SampleType::i16) dtype = nb::dtype<std::int16_t>();
  if (type == SampleType::u16) dtype = nb::dtype<std::uint16_t>();
  if (type == SampleType::f32) dtype = nb::dtype<float>();
  nb::ndarray<nb::numpy> array(data, channel_axis ? 3 : 2, shape, owner, nullptr, dtype);
  return {array.cast(), data};
}

nb::object to_numpy(Image&& image, bool channel_axis) {
  auto* held = new Image(std::move(image));
  nb::capsule owner(held, [](void* p) noexcept { delete static_cast<Image*>(p); });
  const std::size_t shape[3] = {std::size_t(held->height), std::size_t(held->width), std::size_t(held->channels)};
  nb::dlpack::dtype dtype = nb::dtype<std::uint8_t>();
  if (held->type == SampleType::i16) dtype = nb::dtype<std::int16_t>();
  if (held->type == SampleType::u16) dtype = nb::dtype<std::uint16_t>();
  if (held->type == SampleType::f32) dtype = nb::dtype<float>();
  nb::ndarray<nb::numpy> array(held->data.data(), channel_axis || held->channels > 1 ? 3 : 2, shape, owner, nullptr,
                               dtype);
  return array.cast();
}

std::optional<HostOut> host_out(nb::handle out, const HostArray& in, const char* what) {
  if (out.is_none()) return std::nullopt;
  if (nb::isinstance<PyDeviceImage>(out))
    throw nb::type_error(
        fmt::format("{}: out must be a NumPy array for a NumPy input, got a DeviceImage", what).c_str());
  nb::ndarray<nb::ro> view;
  if (!nb::isinstance(out, nb::module_::import_("numpy").attr("ndarray")) || !nb::try_cast(out, view))
    throw nb::type_error(
        fmt::format("{}: out must be a NumPy array, got {}", what, nb::inst_name(out).c_str()).c_str());
  bool same = view.ndim() == in.array.ndim() && view.dtype() == in.array.dtype();
  for (std::size_t d = 0; same && d < view.ndim(); ++d) same = view.shape(d) == in.array.shape(d);
  if (!same)
    throw nb::value_error(fmt::format("{}: out must be {} {}, got {} {}", what, shape_text(in.array),
                                      dtype_text(in.array.dtype()), shape_text(view), dtype_text(view.dtype()))
                              .c_str());
  nb::ndarray<> writeable;
  if (!nb::try_cast(out, writeable))
    throw nb::value_error(fmt::format("{}: out must be writeable, got a read-only array", what).c_str());
  const auto [first, end] = byte_bounds(writeable);
  const auto [in_first, in_end] = byte_bounds(in.array);
  if (first < in_end && in_first < end)
    throw nb::value_error(
        fmt::format("{}: out shares memory with img (the filter reads each pixel's neighbours, so it cannot write "
                    "over its input)",
                    what)
            .c_str());
  return HostOut{nb::borrow(out), c_contiguous(writeable) ? writeable.data() : nullptr};
}

NewArray result_array(int height, int width, int channels, bool channel_axis, SampleType type,
                      const std::optional<HostOut>& out) {
  if (out && out->data) return {nb::object(), out->data};
  return new_array(height, width, channels, channel_axis, type);
}

nb::object deliver(nb::object result, const std::optional<HostOut>& out) {
  if (!out) return result;
  // NumPy's copy takes any layout of out, and releases the GIL while it copies.
  if (result.is_valid()) nb::module_::import_("numpy").attr("copyto")(out->array, result);
  return out->array;
}

Context& call_context(nb::handle ctx, nb::object& owner) {
  if (ctx.is_none()) {
    nb::module_ module = nb::module_::import_("clfilters._clfilters");
    owner = module.attr("_default_context");
    if (owner.is_none()) {
      owner = module.attr("Context")();
      module.attr("_default_context") = owner;
    }
  } else {
    if (!nb::isinstance<Context>(ctx)) throw nb::type_error("ctx must be a clfilters.Context or None");
    owner = nb::borrow(ctx);
  }
  return nb::cast<Context&>(owner);
}

const char* dtype_name(DeviceDtype dtype) {
  return sample_type_name(sample_type(dtype));
}

std::size_t PyDeviceImage::packed_bytes() const {
  return std::size_t(width) * height * (has_samples() ? std::size_t(device_channels()) : 1) *
         sample_size(sample_type(dtype));
}

PyDeviceImage allocate_like(nb::object owner, Context& ctx, int width, int height, int channels, bool channel_axis,
                            DeviceDtype dtype) {
  PyDeviceImage img;
  img.owner = std::move(owner);
  img.ctx = &ctx;
  img.width = width;
  img.height = height;
  img.channels = channels;
  img.channel_axis = channel_axis;
  img.dtype = dtype;
  img.buffer = ctx.buffer(CL_MEM_READ_WRITE, img.packed_bytes());
  return img;
}

nb::object download(const PyDeviceImage& image) {
  Context& ctx = *image.ctx;
  const SampleType type = sample_type(image.dtype);
  if (image.has_samples() && image.channels == 3) {
    // RGBA on the device (always packed: views hold 1 or 4 channels), RGB converted there.
    NewArray rgb = new_array(image.height, image.width, 3, true, type);
    nb::gil_scoped_release release;
    const std::size_t pixels = std::size_t(image.width) * image.height, bytes = pixels * 3 * sample_size(type);
    if (pixels == 0) return std::move(rgb.array);
    const cl::Buffer out = buffer_over_host(ctx, rgb.data, bytes, false);
    enqueue_rgb_from_rgba(ctx, image.buffer, out, pixels, type);
    read_to_host(ctx, out, rgb.data, bytes);
    return std::move(rgb.array);
  }
  NewArray out = new_array(image.height, image.width, image.channels, image.channel_axis, type);
  nb::gil_scoped_release release;  // until the return below, which moves the array without touching its count
  const std::size_t sample = sample_size(type);
  const std::size_t row = std::size_t(image.width) * image.channels * sample;
  const std::size_t pitch = image.row_pitch ? image.row_pitch : row;
  if (image.offset == 0 && pitch == row) {
    check_cl(ctx.queue().enqueueReadBuffer(image.buffer, CL_TRUE, 0, row * image.height, out.data),
             "clEnqueueReadBuffer");
  } else {
    check_cl(
        ctx.queue().enqueueReadBufferRect(image.buffer, CL_TRUE, {image.offset % pitch, image.offset / pitch, 0},
                                          {0, 0, 0}, {row, std::size_t(image.height), 1}, pitch, 0, row, 0, out.data),
        "clEnqueueReadBufferRect");
  }
  return std::move(out.array);
}

void bind_arrays(nb::module_& m) {
  nb::class_<PyDeviceImage>(
      m, "DeviceImage",
      "An image in device memory: uint8 or uint16 with 1, 3 or 4 channels (RGB is held as RGBA with alpha 255 or "
      "65535), or one channel of int16 (a Sobel gradient) or float32 (an edge map, a reconstruction). Every filter "
      "takes one and returns one on the same context, so a chain of filters makes no host round trip (box_blur, "
      "epsilon and bilateral take uint16 ones too, the others uint8). np.asarray(image) downloads it.")
      .def_static("upload", &upload, "ctx"_a, "array"_a,
                  nb::sig("def upload(ctx: Context, array: numpy.ndarray) -> DeviceImage"),
                  "Copies a host array (any layout) to the device of `ctx`: uint8 or uint16 of shape H x W or H x W "
                  "x C (C in 1, 3, 4), or float32 of shape H x W.")
      .def_static(
          "view", &view, "ctx"_a, "buffer"_a, "shape"_a = nb::none(), "dtype"_a = nb::none(), "offset"_a = 0,
          "row_pitch"_a = 0,
          nb::sig("def view(ctx: Context, buffer: object, shape: tuple[int, ...] | None = None, dtype: object = "
                  "None, offset: int = 0, row_pitch: int = 0) -> DeviceImage"),
          "A view of device memory that `ctx` shares (Context.from_pyopencl), with no copy: a "
          "pyopencl.array.Array (its shape, dtype, offset and row stride are used), or a pyopencl.Buffer "
          "or cl_mem handle with `shape` ((H, W) or (H, W, C)), `dtype` ('uint8', the default, 'uint16' or "
          "'float32'), `offset` and `row_pitch` in bytes (0: packed rows). uint8 and uint16 views hold 1 or "
          "4 channels. Filters read and write views in place (a pitched or offset one through a packed "
          "copy on the device).")
      .def("download", &download, nb::sig("def download(self) -> numpy.ndarray"),
           "Copies the image to a new host array.")
      .def(
          "__array__",
          [](const PyDeviceImage& img, nb::object dtype, nb::object copy) {
            // A download is always a new array: NumPy 2's copy=False asks for none.
            if (copy.is(nb::handle(Py_False)))
              throw nb::value_error(
                  "a DeviceImage is in device memory: np.asarray(image, copy=False) cannot avoid a copy");
            nb::object a = download(img);
            return dtype.is_none() ? a : a.attr("astype")(dtype);
          },
          "dtype"_a = nb::none(), "copy"_a = nb::none(),
          nb::sig("def __array__(self, dtype: object = None, copy: object = None) -> numpy.ndarray"),
          "The image as a NumPy array (a download).")
      .def_prop_ro(
          "shape",
          [](const PyDeviceImage& img) {
            return img.channel_axis ? nb::make_tuple(img.height, img.width, img.channels)
                                    : nb::make_tuple(img.height, img.width);
          },
          nb::for_getter(nb::sig("def shape(self) -> tuple[int, ...]")),
          "(H, W) or (H, W, C), as the array it came from.")
      .def_prop_ro(
          "dtype", [](const PyDeviceImage& img) { return numpy_dtype(img.dtype); },
          nb::for_getter(nb::sig("def dtype(self) -> numpy.dtype")), "numpy.dtype of the samples.")
      .def_prop_ro("width", [](const PyDeviceImage& img) { return img.width; })
      .def_prop_ro("height", [](const PyDeviceImage& img) { return img.height; })
      .def_prop_ro("channels", [](const PyDeviceImage& img) { return img.channels; })
      .def_prop_ro(
          "context", [](const PyDeviceImage& img) { return img.owner; },
          nb::for_getter(nb::sig("def context(self) -> Context")), "The Context the image lives on.")
      .def("__repr__", [](const PyDeviceImage& img) {
        return fmt::format("DeviceImage(shape=({}, {}{}), dtype={})", img.height, img.width,
                           img.channel_axis ? fmt::format(", {}", img.channels) : "", dtype_name(img.dtype));
      });
}

}  // namespace clf::py
