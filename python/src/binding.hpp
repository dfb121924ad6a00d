// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the Python module: NumPy arrays as the filters take them, the device image Python sees, and
// the context a call runs on.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clfilters/device_image.hpp"
#include "clfilters/image.hpp"
#include "clfilters/jacobi.hpp"
#include "clfilters/runtime.hpp"

namespace clf::py {

namespace nb = nanobind;

// ---- host arrays -------------------------------------------------------------------------------

// A host array of shape H x W or H x W x C: a C-contiguous one read in place, any other layout (a slice, a
// transpose, Fortran order) packed in C order in one pass.
struct HostArray {
  nb::ndarray<nb::ro> array;            // keeps the memory alive
  std::shared_ptr<const Image> packed;  // the packed copy of a non-contiguous array
  const void* data = nullptr;           // the samples in C order: the array's own, or packed's
  int width = 0;
  int height = 0;
  int channels = 1;
  bool channel_axis = false;       // H x W x C rather than H x W
  std::optional<SampleType> type;  // nullopt: a dtype clfilters has no images of
  std::string dtype_name;          // NumPy's name: "uint8", "float64", ...
  std::size_t byte_size() const;
};

// Reads `obj` (a NumPy array or anything with the buffer or DLPack protocol) as an image for `what`. Throws
// TypeError for an object that is not an array, ValueError for a wrong number of dimensions. A non-contiguous
// array of a sample type clfilters has is packed (with the GIL released), one of another type is refused.
HostArray host_array(nb::handle obj, std::string_view what);

// A copy of the array as an Image (for the calls that convert on the host anyway). Needs `type`.
Image to_image(const HostArray& array);

// A new NumPy array, H x W or H x W x C, of u8, i16 or f32 samples, aligned for CL_MEM_USE_HOST_PTR.
struct NewArray {
  nb::object array;
  void* data = nullptr;
};
NewArray new_array(int height, int width, int channels, bool channel_axis, SampleType type);
// The image as a NumPy array (moved, not copied); 1 channel becomes H x W unless `channel_axis`.
nb::object to_numpy(Image&& image, bool channel_axis);

// A NumPy array that a host call writes its result into (`out=`, as NumPy's out= and OpenCV's dst=), sparing a new
// array's fresh pages.
struct HostOut {
  nb::object array;      // the caller's array, which the call returns
  void* data = nullptr;  // its samples where C-contiguous, written there directly; else null (a temporary copied in)
};
// `out` checked for a host call on `in`: nullopt for None, else a writeable NumPy array of `in`'s shape and dtype
// whose bytes do not overlap `in`'s (the filters read each pixel's neighbours, so they cannot write over their input).
// TypeError for a DeviceImage or a non-array, ValueError for the rest; messages start with `what`.
std::optional<HostOut> host_out(nb::handle out, const HostArray& in, const char* what);
// Where a host call writes its result: out's memory where `out` has it (the array left empty), else a new array.
NewArray result_array(int height, int width, int channels, bool channel_axis, SampleType type,
                      const std::optional<HostOut>& out);
// What the call returns: `result` (a new array) without `out`; else out, with `result` copied in where the call
// wrote a temporary.
nb::object deliver(nb::object result, const std::optional<HostOut>& out);

// ---- contexts ----------------------------------------------------------------------------------

// The Context a call runs on: `ctx`, else the module's default context (created on first use).
Context& call_context(nb::handle ctx, nb::object& owner);

// ---- device images -----------------------------------------------------------------------------

enum class DeviceDtype { u8, u16, i16, f32 };

// An image on the device as Python sees it: u8 or u16 with 1, 3 or 4 channels (3 held as RGBA with alpha 255 or
// 65535, as the host calls hold RGB, so filters run on it unchanged), or 1 channel of int16 (a Sobel gradient) or
// float32 (an edge map, a reconstruction). Keeps its Context alive.
struct PyDeviceImage {
  nb::object owner;  // the Python Context
  Context* ctx = nullptr;
  cl::Buffer buffer;
  int width = 0;
  int height = 0;
  int channels = 1;  // as NumPy sees it
  bool channel_axis = false;
  DeviceDtype dtype = DeviceDtype::u8;
  std::size_t offset = 0;     // bytes; views of the caller's buffers may have an offset and a pitch
  std::size_t row_pitch = 0;  // 0: packed

  int device_channels() const { return channels == 1 ? 1 : 4; }
  // Whether the samples are the filters' (u8 or u16, 1 or 4 channels on the device), which samples() gives.
  bool has_samples() const { return dtype == DeviceDtype::u8 || dtype == DeviceDtype::u16; }
  DeviceImage samples() const {
    return {.buffer = buffer,
            .width = width,
            .height = height,
            .channels = device_channels(),
            .offset = offset,
            .row_pitch = row_pitch,
            .type = dtype == DeviceDtype::u16 ? SampleType::u16 : SampleType::u8};
  }
  DeviceFloatImage f32() const { return {buffer, width, height, offset, row_pitch}; }
  std::size_t packed_bytes() const;
};

// A packed device image of the given shape on `owner`'s context (not initialised).
PyDeviceImage allocate_like(nb::object owner, Context& ctx, int width, int height, int channels, bool channel_axis,
                            DeviceDtype dtype);
// Blocking download into a new NumPy array.
nb::object download(const PyDeviceImage& image);
const char* dtype_name(DeviceDtype dtype);

// ---- lists of arrays and of Contexts (batches.cpp) -----------------------------------------------

// A filter's host calls over several devices, as the library has them (box_blur(devices, ...) and its kin).
struct SeveralCalls {
  std::function<Image(const std::vector<Context*>&, const Image&)> one;  // one image, its bands shared out
  std::function<std::vector<Image>(const std::vector<Context*>&, const std::vector<Image>&)> batch;
  // One array of 1 or 4 channels read and written in place (box_blur(devices, ImageView, ...)); empty where the
  // filter has no such call.
  std::function<void(const std::vector<Context*>&, const ImageView&, const MutableImageView&)> in_place = {};
};
// calls.in_place on the array `a` into `out` (host_out), or into a new array of its shape and layout.
nb::object filter_array_in_place(const std::vector<Context*>& devices, const HostArray& a, const SeveralCalls& calls,
                                 const std::optional<HostOut>& out);

// Whether a filter call takes the calls above: `img` or `ctx` is a list or tuple.
bool is_several(nb::handle img, nb::handle ctx);
// Such a call: `img` an array or a list or tuple of them, `ctx` None, a Context or a list or tuple of Contexts.
// `check` is the single call's check of an array (a list's items' errors are prefixed "img[i]: "). A result comes
// back in its input's layout where `keeps_layout`, else H x W; one of 2 int16 channels (Sobel's gradients) as the
// tuple (gx, gy). An array gives one result (into `out` where given, see host_out), a list a list. DeviceImages, and
// `out` with a list, are refused (TypeError).
nb::object run_several(nb::handle img, nb::handle ctx, nb::handle out, const char* what,
                       const std::function<void(const HostArray&)>& check, const SeveralCalls& calls,
                       bool keeps_layout);

// ---- filters -----------------------------------------------------------------------------------

void bind_arrays(nb::module_& m);
void bind_batches(nb::module_& m);  // clfilters.contexts
void bind_filters(nb::module_& m);
// The CPU references as clfilters._clfilters._reference, for the tests.
void bind_references(nb::module_& m);

}  // namespace clf::py
