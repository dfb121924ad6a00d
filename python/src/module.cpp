// SPDX-License-Identifier: Apache-2.0
// The clfilters._clfilters module: devices, contexts (the library's own, or pyopencl's adopted), the tuner,
// and the errors as Python exceptions; arrays.cpp, batches.cpp and filters.cpp add the images, clfilters.contexts
// and the filters.
#include <fmt/format.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "binding.hpp"
#include "clfilters/version.hpp"
#include "filters/filter_spec.hpp"
#include "tuning/tuner.hpp"

namespace clf::py {
namespace {

using namespace nb::literals;

std::uintptr_t int_ptr(nb::handle pyopencl_object) {
  return nb::cast<std::uintptr_t>(pyopencl_object.attr("int_ptr"));
}

// pyopencl's context, its queue's device and the queue, adopted (retained, never destroyed by clfilters).
Context* from_pyopencl(nb::handle context, nb::handle queue) {
  if (!nb::hasattr(context, "int_ptr") || !nb::hasattr(queue, "int_ptr") || !nb::hasattr(queue, "device"))
    throw nb::type_error("Context.from_pyopencl takes a pyopencl.Context and a pyopencl.CommandQueue");
  return new Context(reinterpret_cast<cl_context>(int_ptr(context)),
                     reinterpret_cast<cl_device_id>(int_ptr(queue.attr("device"))),
                     reinterpret_cast<cl_command_queue>(int_ptr(queue)));
}

ParamMap param_map(nb::handle params) {
  ParamMap map;
  if (params.is_none()) return map;
  if (nb::isinstance<nb::dict>(params)) {
    for (auto [key, value] : nb::cast<nb::dict>(params))
      map[nb::cast<std::string>(nb::str(key))] = nb::cast<std::string>(nb::str(value));
    return map;
  }
  // The command line's form, "diameter=63,channels=4".
  const std::string text = nb::cast<std::string>(params);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(start, comma - start);
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument(fmt::format("bad --params item '{}' (expected key=value)", item));
    map[item.substr(0, eq)] = item.substr(eq + 1);
    start = comma + 1;
  }
  return map;
}

nb::list tune_py(nb::handle filters, std::pair<int, int> size, double budget, nb::handle params, nb::handle ctx_obj) {
  TuneOptions options;
  std::tie(options.width, options.height) = size;
  if (options.width < 1 || options.height < 1)
    throw std::invalid_argument(fmt::format("bad size {}x{} (expected WxH)", options.width, options.height));
  if (!(budget > 0)) throw std::invalid_argument("the budget must be a positive number of seconds");
  options.budget_seconds = budget;
  if (!params.is_none()) options.cases = {param_map(params)};
  std::vector<std::string> names;
  if (nb::isinstance<nb::str>(filters))
    names.push_back(nb::cast<std::string>(filters));
  else if (!filters.is_none())
    names = nb::cast<std::vector<std::string>>(filters);
  std::vector<const FilterSpec*> specs;
  for (const auto& n : names) {
    const FilterSpec* f = find_filter_spec(n);
    if (!f) throw std::invalid_argument(fmt::format("unknown filter '{}'", n));
    specs.push_back(f);
  }
  nb::object owner;
  Context& ctx = call_context(ctx_obj, owner);
  std::vector<TuneReport> reports;
  {
    nb::gil_scoped_release release;
    TuningDb db = TuningDb::load();
    reports = tune(ctx, specs, options, db);
    db.save();
    reload_tuning_db();
  }
  nb::list out;
  for (const auto& r : reports) {
    nb::dict d;
    d["filter"] = r.filter;
    d["param_class"] = r.param_class;
    d["variant"] = r.entry ? nb::cast(r.entry->best.variant) : nb::none();
    d["config"] = r.entry ? nb::cast(r.entry->best.config) : nb::none();
    d["kernel_ms"] = r.entry ? nb::cast(r.entry->best.kernel_ms) : nb::none();
    d["candidates"] = r.candidates.size();
    out.append(d);
  }
  return out;
}

}  // namespace
}  // namespace clf::py

NB_MODULE(_clfilters, m) {
  using namespace clf;
  using namespace clf::py;
  using namespace nb::literals;
  m.doc() = "Classic image filters on any OpenCL device: NumPy in and out, or images kept on the device.";
  m.attr("__version__") = clf::version();
  nb::exception<ClError>(m, "ClError", PyExc_RuntimeError);
  nb::exception<NoOpenClError>(m, "NoOpenClError", PyExc_RuntimeError);

  nb::class_<DeviceInfo>(m, "DeviceInfo", "An OpenCL device as `clfilters devices` lists it.")
      .def_prop_ro("index", &DeviceInfo::index_name, "'platform:device', what Context(index) takes")
      .def_ro("platform_name", &DeviceInfo::platform_name)
      .def_ro("platform_version", &DeviceInfo::platform_version)
      .def_ro("name", &DeviceInfo::name)
      .def_ro("vendor", &DeviceInfo::vendor)
      .def_ro("driver_version", &DeviceInfo::driver_version)
      .def_ro("device_version", &DeviceInfo::device_version)
      .def_ro("opencl_c_version", &DeviceInfo::opencl_c_version)
      .def_prop_ro("type", &DeviceInfo::type_name, "'GPU', 'CPU', ...")
      .def_ro("compute_units", &DeviceInfo::compute_units)
      .def_ro("global_mem_bytes", &DeviceInfo::global_mem_bytes)
      .def_ro("local_mem_bytes", &DeviceInfo::local_mem_bytes)
      .def_ro("max_work_group_size", &DeviceInfo::max_work_group_size)
      .def_ro("image_support", &DeviceInfo::image_support)
      .def_prop_ro("fp16", &DeviceInfo::has_fp16)
      .def_ro("extensions", &DeviceInfo::extensions)
      .def("__repr__", [](const DeviceInfo& d) {
        return fmt::format("DeviceInfo(index='{}', name='{}', platform='{}', type='{}')", d.index_name(), d.name,
                           d.platform_name, d.type_name());
      });

  m.def(
      "devices",
      [] {
        std::vector<DeviceInfo> infos;
        for (const auto& d : list_devices()) infos.push_back(d.info);
        return infos;
      },
      "Every OpenCL device of every platform, in platform order.");

  nb::class_<Context>(m, "Context",
                      "An OpenCL device with its context, an in-order queue and its built programs. Programs are "
                      "built on first use and cached, so keep one Context and pass it to every call. Calls on one "
                      "Context from several threads go to its one queue.")
      .def(nb::init<std::string_view>(), "device"_a = "", nb::call_guard<nb::gil_scoped_release>(),
           "`device` is an index ('0', '1:0') or a case-insensitive part of the platform or "
           "device name ('nvidia', 'pocl', 'cpu'); '' (default) means $CLFILTERS_DEVICE, else the first GPU, else "
           "the first CPU.")
      .def_static("from_pyopencl", &from_pyopencl, "context"_a, "queue"_a, nb::rv_policy::take_ownership,
                  "Works inside pyopencl: adopts its context, the queue's "
                  "device and the in-order queue (retained, never destroyed by clfilters). Calls go to that queue; "
                  "DeviceImage.view wraps pyopencl arrays and buffers with no copy.")
      .def_prop_ro(
          "device", [](const Context& c) { return c.info(); }, "The DeviceInfo of the context's device.")
      .def_prop_rw(
          "profiling", [](const Context& c) { return c.profiling(); },
          [](Context& c, bool on) {
            nb::gil_scoped_release release;
            c.set_profiling(on);
          },
          "Whether commands go to a profiling queue (True by default); False saves a few microseconds a call.")
      .def(
          "finish",
          [](Context& c) {
            nb::gil_scoped_release release;
            check_cl(c.queue().finish(), "clFinish");
          },
          "Waits until every command enqueued on the context's queue is done.")
      .def("__repr__", [](const Context& c) {
        return fmt::format("Context(device='{}', platform='{}')", c.info().name, c.info().platform_name);
      });
  m.attr("_default_context") = nb::none();
  m.def(
      "default_context",
      [] {
        nb::object owner;
        call_context(nb::none(), owner);
        return owner;
      },
      nb::sig("def default_context() -> Context"),
      "The Context calls without `ctx` run on, made on first use as Context() "
      "makes it.");

  bind_arrays(m);
  bind_batches(m);
  bind_filters(m);
  bind_references(m);

  m.def("tune", &tune_py, "filters"_a = nb::none(), "size"_a = std::pair<int, int>(1920, 1080), "budget"_a = 90.0,
        "params"_a = nb::none(), "ctx"_a = nb::none(),
        nb::sig("def tune(filters: str | list[str] | None = None, size: tuple[int, int] = (1920, 1080), budget: "
                "float = 90.0, params: dict[str, object] | str | None = None, ctx: Context | None = None) -> "
                "list[dict[str, object]]"),
        "Finds and remembers the fastest correct variant of each filter on the context's device, as `clfilters "
        "tune` does: every candidate is checked against the CPU reference before it is timed, and the winners go "
        "to the tuning database that variant='auto' reads.\n\nfilters: a name ('box-blur') or a list of them; "
        "None (default) tunes every filter.\nsize: (width, height) to tune at (default (1920, 1080)).\nbudget: "
        "seconds for the whole search (default 90).\nparams: one parameter set to tune instead of each class the "
        "benchmark covers, as a dict or 'diameter=63,channels=4'.\nReturns one dict per filter and parameter "
        "class: filter, param_class, variant, config, kernel_ms (None where no candidate was correct) and "
        "candidates.");
}
