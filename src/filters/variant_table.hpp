// SPDX-License-Identifier: Apache-2.0
// A filter's variants as one table of entries. An entry holds everything about one variant: what users and the
// tuner see (name, summary, tunables), the device features it needs, why it cannot run a call, how the call is
// built and launched (plan), and how it is enqueued. Calls dispatch through the entry; a variant is looked up by
// name only where the name comes from outside (a user, the tuning database, the auto rule's list).
#pragma once

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "clfilters/image.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace clf {

// Device features beyond what every OpenCL 1.2 device has. A variant that needs one is unsupported, with the
// reason, on a device that lacks it.
enum class DeviceFeature { images, fp16 };

// "needs cl_khr_fp16, which DEVICE does not have", or nullopt when the device has every feature.
std::optional<std::string> missing_feature(const DeviceInfo& device, const std::vector<DeviceFeature>& needs);

// How a call is built and launched: the program's build options, and each kernel with its global and local
// range (NullRange: the driver chooses), enqueued in order.
struct KernelPlan {
  struct Pass {
    std::string kernel;
    cl::NDRange global;
    cl::NDRange local = cl::NullRange;
  };
  std::string options;
  std::vector<Pass> passes;

  // Candidates with the same key share their programs, so the tuner builds each program once.
  std::string build_key() const {
    std::string key = options;
    for (const auto& p : passes) key += " " + p.kernel;
    return key;
  }
};

// The output rows [begin, end) a call computes (a variant that takes a row range: Variant::takes_row_range); the
// rows outside are not written. Its windows still read the whole image's rows, with the border at the image's edges,
// so rows [a, b) come out as those rows of the whole call. end < 0: through the last row.
struct RowRange {
  int begin = 0;
  int end = -1;
  int end_in(int height) const { return end < 0 ? height : end; }
  int count_in(int height) const { return end_in(height) - begin; }
  bool whole(int height) const { return begin == 0 && end_in(height) == height; }
};

// One variant. `Call` describes a call (parameters, image size, channels); `Target` the device buffers it reads
// and writes.
template <class Call, class Target>
struct Variant {
  VariantInfo info;
  std::vector<DeviceFeature> needs = {};
  // Why this variant cannot run the call with these tunables on this device (parameter ranges, device
  // limits), or nullopt. Empty: it runs every call its filter accepts.
  std::function<std::optional<std::string>(const DeviceInfo&, const Call&, const TuningConfig&)> unsupported = {};
  // The build options and passes of a call; called only for a supported call.
  std::function<KernelPlan(Context&, const Call&, const TuningConfig&)> plan = {};
  // Sets the kernels' arguments and enqueues the plan's passes on ctx.queue(); returns every command's event.
  std::function<std::vector<cl::Event>(Context&, const KernelPlan&, const Call&, const TuningConfig&, Target&)>
      enqueue = {};
  // Whether plan and enqueue take this call's pitched or offset views of the caller's buffers as they are (the
  // call carries their layout); empty or false: the filter runs on packed copies of them.
  std::function<bool(const Call&)> takes_views = {};
  // Whether plan and enqueue compute only the call's row range (a Call with `rows`, RowRange), writing no other row;
  // false: every call is of the whole image.
  bool takes_row_range = false;
  // Whether it runs calls on u16 samples too (a Call with a `type`, built with -D SAMPLE_BITS=16); else u8 only.
  bool takes_u16 = false;
};

template <class Call, class Target>
class VariantTable {
 public:
  using Entry = Variant<Call, Target>;

  VariantTable(std::string filter, std::vector<Entry> entries)
      : filter_(std::move(filter)), entries_(std::move(entries)) {
    for (const auto& e : entries_) infos_.push_back(e.info);
  }

  const std::string& filter() const { return filter_; }
  const std::vector<Entry>& entries() const { return entries_; }
  // What users and the tuner see of each variant, in the table's order.
  const std::vector<VariantInfo>& infos() const { return infos_; }

  // The entry named `name`, or nullptr.
  const Entry* find(std::string_view name) const {
    for (const auto& e : entries_)
      if (e.info.name == name) return &e;
    return nullptr;
  }
  // Whether the variant named `name` takes a row range (Variant::takes_row_range); false for an unknown name.
  bool takes_row_range(std::string_view name) const {
    const Entry* e = find(name);
    return e && e->takes_row_range;
  }
  // The entry named `name`; throws std::invalid_argument listing the variants there are.
  const Entry& at(std::string_view name) const {
    if (const Entry* e = find(name)) return *e;
    std::string names;
    for (const auto& e : entries_) names += (names.empty() ? "" : ", ") + e.info.name;
    throw std::invalid_argument(fmt::format("unknown {} variant '{}' (expected auto, {})", filter_, name, names));
  }

  // Why the variant named `name` cannot run this call: unknown, a missing device feature, or its own reason.
  std::optional<std::string> unsupported(std::string_view name, const DeviceInfo& device, const Call& call,
                                         const TuningConfig& config) const {
    const Entry* e = find(name);
    if (!e) return fmt::format("unknown {} variant '{}'", filter_, name);
    if (auto why = missing_feature(device, e->needs)) return fmt::format("{} {}", e->info.name, *why);
    if constexpr (requires { call.type; }) {
      if (call.type != SampleType::u8 && !e->takes_u16) {
        std::string names;
        for (const auto& other : entries_)
          if (other.takes_u16) names += (names.empty() ? "" : ", ") + other.info.name;
        return fmt::format("{} takes 8-bit samples only (16-bit: {})", e->info.name, names.empty() ? "none" : names);
      }
    }
    if (e->unsupported) return e->unsupported(device, call, config);
    return std::nullopt;
  }

 private:
  std::string filter_;
  std::vector<Entry> entries_;
  std::vector<VariantInfo> infos_;
};

// A call resolved to the entry that runs it, with its tunables and plan.
template <class Call, class Target>
struct ResolvedCall {
  const Variant<Call, Target>* entry;
  TuningConfig config;
  KernelPlan plan;

  std::vector<cl::Event> enqueue(Context& ctx, const Call& call, Target& target) const {
    return entry->enqueue(ctx, plan, call, config, target);
  }
};

// The entry `choice` names with its plan for `call`; throws std::invalid_argument with `unsupported`, the reason
// the filter gives why the variant cannot run the call, if there is one.
template <class Call, class Target>
ResolvedCall<Call, Target> plan_call(Context& ctx, const VariantTable<Call, Target>& table, const Call& call,
                                     VariantChoice choice, const std::optional<std::string>& unsupported) {
  if (unsupported) throw std::invalid_argument(*unsupported);
  const Variant<Call, Target>& entry = table.at(choice.variant);
  KernelPlan plan = entry.plan(ctx, call, choice.config);
  return {&entry, std::move(choice.config), std::move(plan)};
}

// Throws std::invalid_argument, naming `filter`, where `rows` is not a range of rows of an image of `height` or,
// being only part of it, is asked of a call whose output shares its input's buffer (`in_place`): the other rows would
// read what it writes.
void check_row_range(std::string_view filter, const RowRange& rows, int height, bool in_place);

// Why a work-group of the variant's local_x x local_y tunables (local_y 1 where it has none; local_x 0: the driver
// chooses) cannot run on the device, or nullopt.
std::optional<std::string> work_group_problem(const DeviceInfo& device, const VariantInfo& info,
                                              const TuningConfig& config);

// Why a work-group of width x height work-items with `local_bytes` of local memory cannot run on the device, or
// nullopt. The refusal names the group as `group` ("tile 16x16 exceeds ...") or the call as `variant` and `call`
// ("local needs N bytes of local memory for r=4, ...").
std::optional<std::string> local_group_problem(const DeviceInfo& device, std::string_view group, int width, int height,
                                               std::string_view variant, std::size_t local_bytes,
                                               std::string_view call);

// Whether single-channel 8-bit unsigned images (CL_R, CL_UNSIGNED_INT8) exist on the context's device: OpenCL 1.2
// only mandates RGBA ones. Asked once per context.
bool r8_images_supported(Context& ctx);

// The work-group shape of a pass of one or a few pixels per work-item: local_x x local_y (local_x 0: the driver
// chooses).
const std::vector<Tunable>& local_size_tunables();

// A variant whose work-group is a tile loaded into local memory: tile_x x tile_y work-items, one per pixel.
const std::vector<Tunable>& tile_tunables();
struct TileShape {
  int width;
  int height;
};
// The tile such a variant runs on this device with these tunables.
TileShape tile_shape(const DeviceInfo& device, const VariantInfo& info, const TuningConfig& config);

// Enqueues a plan's passes in order with the arguments already set; returns their events.
std::vector<cl::Event> launch_passes(Context& ctx, const KernelPlan& plan, const std::string& kernel_file);

}  // namespace clf
