// SPDX-License-Identifier: Apache-2.0
// Several arrays and several devices from Python: clfilters.contexts, and the filters' calls on a list of arrays (a
// batch) or over a list of Contexts, through the library's calls over several devices, which hand one image's bands
// or a batch's images out to the devices as each finishes one.
#include <fmt/format.h>
#include <nanobind/stl/string_view.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "binding.hpp"

namespace clf::py {

using namespace nb::literals;

namespace {

bool is_list(nb::handle obj) {
  return nb::isinstance<nb::list>(obj) || nb::isinstance<nb::tuple>(obj);
}

// The Contexts of a call, with their Python objects held for it: the caller's list may change while the GIL is
// released, and a Context must outlive the call.
struct Devices {
  std::vector<nb::object> owners;
  std::vector<Context*> contexts;
};

Devices devices_of(nb::handle ctx, const char* what) {
  Devices d;
  if (!is_list(ctx)) {
    nb::object owner;
    d.contexts.push_back(&call_context(ctx, owner));
    d.owners.push_back(std::move(owner));
    return d;
  }
  for (nb::handle item : ctx) {
    if (!nb::isinstance<Context>(item))
      throw nb::type_error(fmt::format("{}: ctx[{}] must be a clfilters.Context, got {}", what, d.contexts.size(),
                                       nb::inst_name(item).c_str())
                               .c_str());
    d.owners.push_back(nb::borrow(item));
    d.contexts.push_back(&nb::cast<Context&>(item));
  }
  if (d.contexts.empty())
    throw nb::value_error(
        fmt::format("{}: ctx is an empty list (give one Context or more, e.g. clfilters.contexts('all'))", what)
            .c_str());
  return d;
}

// An array of the call with the single call's checks; a list's item (`index`) has its errors prefixed "img[i]: ".
HostArray checked_array(nb::handle obj, const char* what, std::optional<std::size_t> index,
                        const std::function<void(const HostArray&)>& check) {
  const std::string where = index ? fmt::format("img[{}]", *index) : "img";
  if (nb::isinstance<PyDeviceImage>(obj))
    throw nb::type_error(fmt::format("{}: {} is a DeviceImage; lists of images and lists of Contexts take NumPy "
                                     "arrays (filter a DeviceImage alone, on its own Context)",
                                     what, where)
                             .c_str());
  if (!index) {
    HostArray a = host_array(obj, what);
    check(a);
    return a;
  }
  if (!nb::ndarray_check(obj))
    throw nb::type_error(fmt::format("{}: {} is a {}, not an array (img is a NumPy array or a list of them)", what,
                                     where, nb::inst_name(obj).c_str())
                             .c_str());
  try {
    HostArray a = host_array(obj, what);
    check(a);
    return a;
  } catch (const nb::builtin_exception& e) {
    throw nb::builtin_exception(e.type(), fmt::format("{}: {}", where, e.what()).c_str());
  }
}

// A result as the single call returns it; Sobel's gradients (gx and gy interleaved) become the pair (gx, gy).
nb::object to_python(Image&& image, bool channel_axis) {
  if (image.type != SampleType::i16 || image.channels != 2) return to_numpy(std::move(image), channel_axis);
  NewArray gx = new_array(image.height, image.width, 1, false, SampleType::i16);
  NewArray gy = new_array(image.height, image.width, 1, false, SampleType::i16);
  {
    nb::gil_scoped_release release;
    const auto* in = reinterpret_cast<const std::int16_t*>(image.data.data());
    auto* x = static_cast<std::int16_t*>(gx.data);
    auto* y = static_cast<std::int16_t*>(gy.data);
    for (std::size_t i = 0, n = std::size_t(image.width) * image.height; i < n; ++i) {
      x[i] = in[2 * i];
      y[i] = in[2 * i + 1];
    }
  }
  return nb::make_tuple(gx.array, gy.array);
}

}  // namespace

nb::object filter_array_in_place(const std::vector<Context*>& devices, const HostArray& a, const SeveralCalls& calls,
                                 const std::optional<HostOut>& out) {
  NewArray result = result_array(a.height, a.width, a.channels, a.channel_axis, *a.type, out);
  {
    nb::gil_scoped_release release;
    calls.in_place(devices, {static_cast<const std::uint8_t*>(a.data), a.width, a.height, a.channels, *a.type},
                   {static_cast<std::uint8_t*>(result.data), a.width, a.height, a.channels, *a.type});
  }
  return deliver(std::move(result.array), out);
}

bool is_several(nb::handle img, nb::handle ctx) {
  return is_list(img) || is_list(ctx);
}

nb::object run_several(nb::handle img, nb::handle ctx, nb::handle out, const char* what,
                       const std::function<void(const HostArray&)>& check, const SeveralCalls& calls,
                       bool keeps_layout) {
  if (!out.is_none() && is_list(img))
    throw nb::type_error(
        fmt::format("{}: out= takes one array; a batch (a list of arrays) returns a new list", what).c_str());
  if (nb::isinstance<PyDeviceImage>(img))
    throw nb::type_error(fmt::format("{}: a DeviceImage runs on its own Context; ctx must be None or that Context, "
                                     "not a list (lists of Contexts take NumPy arrays)",
                                     what)
                             .c_str());
  const bool batch = is_list(img);
  std::vector<HostArray> arrays;
  if (batch) {
    for (nb::handle item : img) arrays.push_back(checked_array(item, what, arrays.size(), check));
    if (arrays.empty())
      throw nb::value_error(fmt::format("{}: img is an empty list (give one array or more)", what).c_str());
  } else {
    arrays.push_back(checked_array(img, what, std::nullopt, check));
  }
  const std::optional<HostOut> into = batch ? std::nullopt : host_out(out, arrays.front(), what);
  const Devices devices = devices_of(ctx, what);
  if (!batch && calls.in_place && (arrays.front().channels == 1 || arrays.front().channels == 4))
    return filter_array_in_place(devices.contexts, arrays.front(), calls, into);
  std::vector<Image> results;
  {
    nb::gil_scoped_release release;
    // Copies: these calls of the library take Images, which own their samples.
    std::vector<Image> inputs;
    inputs.reserve(arrays.size());
    for (const HostArray& a : arrays) inputs.push_back(to_image(a));
    if (batch)
      results = calls.batch(devices.contexts, inputs);
    else
      results.push_back(calls.one(devices.contexts, inputs.front()));
  }
  if (!batch) return deliver(to_python(std::move(results.front()), keeps_layout && arrays.front().channel_axis), into);
  nb::list list;
  for (std::size_t i = 0; i < results.size(); ++i)
    list.append(to_python(std::move(results[i]), keeps_layout && arrays[i].channel_axis));
  return list;
}

void bind_batches(nb::module_& m) {
  m.def(
      "contexts",
      [](std::string_view devices) {
        std::vector<std::unique_ptr<Context>> made;
        {
          nb::gil_scoped_release release;
          for (DeviceHandle& d : select_devices(devices)) made.push_back(std::make_unique<Context>(std::move(d)));
        }
        nb::list list;
        for (auto& c : made) {
          list.append(nb::cast(c.get(), nb::rv_policy::take_ownership));
          c.release();
        }
        return list;
      },
      "devices"_a, nb::sig("def contexts(devices: str) -> list[Context]"),
      "A Context for each device `devices` names, for the filters' ctx=[...] (one image's bands, or a batch's "
      "images, shared out over them): a comma-separated list of what Context() takes ('0,1', '1:0,pocl'), or of "
      "'all', 'all-gpus', 'all-cpus'. An item 'SEL/N' is device SEL split into N sub-devices, so one CPU acts as "
      "several. '' means [Context()]. ValueError names a bad item (no such device, a device named twice, one that "
      "cannot be split so).");
}

}  // namespace clf::py
