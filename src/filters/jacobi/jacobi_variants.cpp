// SPDX-License-Identifier: Apache-2.0
// The reconstruction's variants, one entry each: tunables, the calls each cannot run, build options and launch
// ranges, and each launch's kernel arguments (kernels in jacobi.cl). Every entry's enqueue runs the call's
// iterations through jacobi_run.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "filters/jacobi/jacobi_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {
namespace {

using Entry = JacobiTable::Entry;
using Problem = std::function<std::optional<std::string>(const DeviceInfo&, const TuningConfig&)>;
using Plan = std::function<KernelPlan(Context&, const JacobiCall&, const TuningConfig&)>;
using SetArgs = std::function<void(Context&, cl::Kernel&, const JacobiCall&, const TuningConfig&, const JacobiLaunch&)>;

// Per-call values are kernel arguments; nothing changes types.
const std::string kNoOptions;

const std::vector<Tunable> kLocalSize1d = {
    {"local_size", {0, 64, 128, 256}, "work-group size (0: the driver chooses)"}};

// A tunable the variant does not have, or a negative value.
std::optional<std::string> tunables_problem(const VariantInfo& info, const TuningConfig& config) {
  for (const auto& entry : config) {
    // Not a structured binding: clang before 16 cannot capture one in a lambda.
    const auto& name = entry.first;
    const auto& value = entry.second;
    const bool known =
        std::any_of(info.tunables.begin(), info.tunables.end(), [&](const Tunable& t) { return t.name == name; });
    if (!known) return fmt::format("{} has no tunable '{}'", info.name, name);
    if (value < 0) return fmt::format("{} must be >= 0, got {}", name, value);
  }
  return std::nullopt;
}

std::optional<std::string> work_group_problem(const DeviceInfo& device, int lx, int ly) {
  if (lx < 1 || ly < 1) return fmt::format("work-group {}x{} is empty", lx, ly);
  if (std::size_t(lx) * std::size_t(ly) > device.max_work_group_size)
    return fmt::format("work-group {}x{} exceeds the device's {} work-items", lx, ly, device.max_work_group_size);
  return std::nullopt;
}

std::optional<std::string> steps_problem(const std::string& variant, int k) {
  if (k < 1 || k > kMaxJacobiStepsPerLaunch)
    return fmt::format("{} runs 1..{} iterations per launch, not {}", variant, kMaxJacobiStepsPerLaunch, k);
  return std::nullopt;
}

// The entry of `info`: its unsupported refuses tunables it does not have and negative values, then asks
// `problem`; its enqueue runs the call's iterations, each launch's arguments set by `set_args`.
Entry make_entry(VariantInfo info, Problem problem, Plan plan, SetArgs set_args, bool through_host = false) {
  Entry e{info};
  e.unsupported = [info, problem](const DeviceInfo& device, const JacobiCall&,
                                  const TuningConfig& config) -> std::optional<std::string> {
    if (auto why = tunables_problem(info, config)) return why;
    return problem ? problem(device, config) : std::nullopt;
  };
  e.plan = plan;
  e.enqueue = [info, plan, set_args, through_host](Context& ctx, const KernelPlan& p, const JacobiCall& call,
                                                   const TuningConfig& config, JacobiTarget& t) {
    JacobiCall measuring = call;
    measuring.measure = true;
    JacobiLoop loop;
    // temporal's and wavefront's "steps"; 1 for the variants without one.
    loop.steps_per_launch = tunable_value(config, info, "steps", 1);
    loop.through_host = through_host;
    loop.measuring_options = plan(ctx, measuring, config).options;
    loop.set_args = [&](cl::Kernel& k, const JacobiLaunch& l) { set_args(ctx, k, call, config, l); };
    return jacobi_run(ctx, p, call, loop, t);
  };
  return e;
}

// host_roundtrip, col1d and row1d: one work-item per row or column.
void set_line_args(Context&, cl::Kernel& k, const JacobiCall& call, const TuningConfig&, const JacobiLaunch& l) {
  set_kernel_args(k, l.edges, l.src, l.dst, call.width, call.height, l.changes, l.prev_from, l.prev_to, l.slot,
                  l.tol_bits, call.measured_from, call.measured_to);
}

// tiled2d and strip: set_line_args' arguments, then local memory for one uint per work-item of the local_x x
// local_y work-group to reduce.
SetArgs set_group_args(const VariantInfo& info) {
  return [info](Context&, cl::Kernel& k, const JacobiCall& call, const TuningConfig& config, const JacobiLaunch& l) {
    const auto lx = std::size_t(tunable_value(config, info, "local_x"));
    const auto ly = std::size_t(tunable_value(config, info, "local_y"));
    set_kernel_args(k, l.edges, l.src, l.dst, call.width, call.height, l.changes, l.prev_from, l.prev_to, l.slot,
                    l.tol_bits, call.measured_from, call.measured_to, cl::Local(sizeof(cl_uint) * lx * ly));
  };
}

Entry host_roundtrip() {
  return make_entry(
      {"host_roundtrip",
       "col1d plus a copy to the host and back up after every iteration (seed 002's starting point; kept only "
       "to measure what the next step saves)",
       {}},
      nullptr,
      [](Context&, const JacobiCall& call, const TuningConfig&) {
        return KernelPlan{kNoOptions, {{"jacobi_col1d", cl::NDRange(std::size_t(call.height))}}};
      },
      set_line_args, true);
}

// col1d (a work-item per row) and row1d (per column), with the driver's or local_size's work-groups.
Entry line_per_item(VariantInfo info, const char* kernel, bool per_column) {
  Problem problem = [info](const DeviceInfo& device, const TuningConfig& config) -> std::optional<std::string> {
    const int local = tunable_value(config, info, "local_size");
    if (std::size_t(local) > device.max_work_group_size)
      return fmt::format("work-group of {} exceeds the device's {} work-items", local, device.max_work_group_size);
    return std::nullopt;
  };
  auto plan = [info, kernel, per_column](Context&, const JacobiCall& call, const TuningConfig& config) {
    const auto items = std::size_t(per_column ? call.width : call.height);
    const int local = tunable_value(config, info, "local_size");
    if (local > 0) return KernelPlan{kNoOptions, {{kernel, cl::NDRange(round_up(items, local)), cl::NDRange(local)}}};
    return KernelPlan{kNoOptions, {{kernel, cl::NDRange(items)}}};
  };
  return make_entry(std::move(info), problem, plan, set_line_args);
}

Entry col1d() {
  return line_per_item({"col1d",
                        "one work-item per row looping over the columns, buffers swapped on the device: uncoalesced "
                        "on purpose (seed 002, no host transfers)",
                        kLocalSize1d},
                       "jacobi_col1d", false);
}

Entry row1d() {
  return line_per_item(
      {"row1d", "one work-item per column looping over the rows: coalesced (seed 002, memory access)", kLocalSize1d},
      "jacobi_row1d", true);
}

Entry tiled2d() {
  const VariantInfo info{
      "tiled2d",
      "one pixel per work-item per row, 2D work-groups (seed 002, occupancy; 8x8, 16x16, 32x12, ...); "
      "rows > 1: each work-item owns rows pixels of its column, local_y apart, every load issued before "
      "the arithmetic (beyond the seed)",
      {{"local_x", {16, 8, 32, 64, 128}, "work-group width"},
       {"local_y", {16, 8, 12, 4, 2}, "work-group height"},
       {"rows", {1, 2, 4, 8}, "pixels per work-item, local_y apart (1: the seed's kernel)"}}};
  Problem problem = [info](const DeviceInfo& device, const TuningConfig& config) -> std::optional<std::string> {
    if (auto why =
            work_group_problem(device, tunable_value(config, info, "local_x"), tunable_value(config, info, "local_y")))
      return why;
    const int rows = tunable_value(config, info, "rows");
    if (rows < 1 || rows > 16) return fmt::format("tiled2d takes 1..16 rows per work-item, not {}", rows);
    return std::nullopt;
  };
  // rows 1 is the file's default (ROWS 1), so it shares the program of the kernels without options.
  auto plan = [info](Context&, const JacobiCall& call, const TuningConfig& config) {
    const auto lx = std::size_t(tunable_value(config, info, "local_x"));
    const auto ly = std::size_t(tunable_value(config, info, "local_y"));
    const int rows = tunable_value(config, info, "rows");
    // Each work-item owns `rows` pixels of its column, ly rows apart: ceil(H / rows) work-items down.
    const auto W = std::size_t(call.width), H = std::size_t(call.height), r = std::size_t(rows);
    return KernelPlan{
        rows == 1 ? kNoOptions : fmt::format("-D ROWS={}", rows),
        {{"jacobi_tiled2d", cl::NDRange(round_up(W, lx), round_up((H + r - 1) / r, ly)), cl::NDRange(lx, ly)}}};
  };
  return make_entry(info, problem, plan, set_group_args(info));
}

Entry temporal() {
  const VariantInfo info{
      "temporal",
      "k iterations per launch: each work-group keeps its tile plus a halo of k in local memory (overlapping "
      "ghost zones, the same iterates as one-step Jacobi)",
      {{"steps", {8, 2, 3, 4, 6, 12, 16}, "iterations per launch (k)"},
       {"tile_x", {16, 32, 8}, "tile (work-group) width"},
       {"tile_y", {16, 8}, "tile (work-group) height"}}};
  Problem problem = [info](const DeviceInfo& device, const TuningConfig& config) -> std::optional<std::string> {
    const int lx = tunable_value(config, info, "tile_x"), ly = tunable_value(config, info, "tile_y");
    if (auto why = work_group_problem(device, lx, ly)) return why;
    const int k = tunable_value(config, info, "steps");
    if (auto why = steps_problem("temporal", k)) return why;
    // Two iterates and the edges over the tile plus a halo of k, and one uint per work-item to reduce.
    const std::size_t bytes =
        3 * sizeof(float) * std::size_t(lx + 2 * k) * std::size_t(ly + 2 * k) + 4 * std::size_t(lx) * ly;
    if (bytes > device.local_mem_bytes)
      return fmt::format("temporal with a {}x{} tile and k={} needs {} bytes of local memory, the device has {}", lx,
                         ly, k, bytes, device.local_mem_bytes);
    return std::nullopt;
  };
  auto plan = [info](Context&, const JacobiCall& call, const TuningConfig& config) {
    const auto lx = std::size_t(tunable_value(config, info, "tile_x"));
    const auto ly = std::size_t(tunable_value(config, info, "tile_y"));
    return KernelPlan{
        kNoOptions,
        {{"jacobi_temporal", cl::NDRange(round_up(std::size_t(call.width), lx), round_up(std::size_t(call.height), ly)),
          cl::NDRange(lx, ly)}}};
  };
  auto set_args = [info](Context&, cl::Kernel& k, const JacobiCall& call, const TuningConfig& config,
                         const JacobiLaunch& l) {
    const auto lx = std::size_t(tunable_value(config, info, "tile_x"));
    const auto ly = std::size_t(tunable_value(config, info, "tile_y"));
    const std::size_t halo = 2 * std::size_t(l.count);
    const std::size_t region = sizeof(float) * (lx + halo) * (ly + halo);
    set_kernel_args(k, l.edges, l.src, l.dst, call.width, call.height, l.count, l.changes, l.prev_from, l.prev_to,
                    l.slot, l.tol_bits, call.measured_from, call.measured_to, cl::Local(region), cl::Local(region),
                    cl::Local(region), cl::Local(sizeof(cl_uint) * lx * ly));
  };
  return make_entry(info, problem, plan, set_args);
}

// strip's register arrays need their sizes at compile time.
Entry strip() {
  const VariantInfo info{
      "strip",
      "one iteration per launch, each work-item a vec x rows strip: vector loads of u and the edges, "
      "vertical neighbours in registers, horizontal ones from L1, no local memory (beyond the seed)",
      {{"local_x", {64, 32, 128}, "work-group width (work-items)"},
       {"local_y", {2, 1, 4}, "work-group height (work-items)"},
       {"vec", {4, 1}, "columns per work-item (one vector load per row)"},
       {"rows", {4, 2, 8}, "rows per work-item"}}};
  Problem problem = [info](const DeviceInfo& device, const TuningConfig& config) -> std::optional<std::string> {
    if (auto why =
            work_group_problem(device, tunable_value(config, info, "local_x"), tunable_value(config, info, "local_y")))
      return why;
    const int vec = tunable_value(config, info, "vec"), rows = tunable_value(config, info, "rows");
    if (vec != 1 && vec != 2 && vec != 4)
      return fmt::format("strip takes 1, 2 or 4 columns per work-item, not {}", vec);
    if (rows < 1 || rows > 16) return fmt::format("strip takes 1..16 rows per work-item, not {}", rows);
    return std::nullopt;
  };
  auto plan = [info](Context&, const JacobiCall& call, const TuningConfig& config) {
    const int vec = tunable_value(config, info, "vec"), rows = tunable_value(config, info, "rows");
    const auto lx = std::size_t(tunable_value(config, info, "local_x"));
    const auto ly = std::size_t(tunable_value(config, info, "local_y"));
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    const auto v = std::size_t(vec), r = std::size_t(rows);
    return KernelPlan{fmt::format("-D VEC={} -D ROWS={} -D ALIGNED={}", vec, rows, call.width % vec == 0 ? 1 : 0),
                      {{"jacobi_strip", cl::NDRange(round_up((W + v - 1) / v, lx), round_up((H + r - 1) / r, ly)),
                        cl::NDRange(lx, ly)}}};
  };
  return make_entry(info, problem, plan, set_group_args(info));
}

// wavefront's output rows per work-group: its "rows" tunable, or for 0 a count that gives the device at most
// 12 work-groups per compute unit (whole waves).
int wavefront_rows(const DeviceInfo& device, const VariantInfo& info, const TuningConfig& config, int width,
                   int height) {
  const int rows = tunable_value(config, info, "rows");
  if (rows > 0) return rows;
  // Taller blocks re-read fewer halo rows (2 * steps per block), but every work-group runs as long as
  // the others, so a last wave that is only partly full costs a whole one. Up to 12 work-groups per
  // compute unit fill whole waves when 1, 2, 3, 4 or 6 of them fit on a compute unit at once.
  const int steps = tunable_value(config, info, "steps");
  const int owned =
      std::max(1, tunable_value(config, info, "cols") * tunable_value(config, info, "local_x") - 2 * steps);
  const std::int64_t bands = (std::int64_t(width) + owned - 1) / owned;
  const std::int64_t units = std::max(1u, device.compute_units);
  const std::int64_t blocks = std::max<std::int64_t>(1, 12 * units / bands);
  return static_cast<int>(std::max<std::int64_t>((height + blocks - 1) / blocks, 4 * std::int64_t(steps)));
}

// wavefront's two buffers of k levels, and its second local argument: another such pair with cols > 1.
std::size_t wavefront_levels_bytes(const VariantInfo& info, const TuningConfig& config) {
  const auto k = std::size_t(tunable_value(config, info, "steps"));
  const auto lx = std::size_t(tunable_value(config, info, "local_x"));
  return sizeof(float) * 2 * k * (lx + 2);
}
std::size_t wavefront_second_bytes(const VariantInfo& info, const TuningConfig& config) {
  return tunable_value(config, info, "cols") > 1 ? wavefront_levels_bytes(info, config) : sizeof(float);
}

// wavefront's register arrays need their sizes at compile time, and it takes its work-group width and
// whether it measures the change.
Entry wavefront() {
  const VariantInfo info{
      "wavefront",
      "k iterations per launch: each work-group sweeps down a band of columns, the k iterates skewed one "
      "row per level in registers, horizontal neighbours through local memory, one barrier per row (beyond "
      "the seed: 2.5D temporal blocking)",
      {{"steps", {10, 8, 12, 4, 16}, "iterations per launch (k)"},
       {"local_x", {256, 128}, "work-items per work-group, side by side along the band"},
       {"cols", {1, 2}, "columns per work-item"},
       {"rows", {0, 96, 192, 384}, "output rows per work-group (0: 12 work-groups per compute unit)"}}};
  Problem problem = [info](const DeviceInfo& device, const TuningConfig& config) -> std::optional<std::string> {
    const int lx = tunable_value(config, info, "local_x");
    if (auto why = work_group_problem(device, lx, 1)) return why;
    const int k = tunable_value(config, info, "steps");
    if (auto why = steps_problem("wavefront", k)) return why;
    const int cols = tunable_value(config, info, "cols");
    if (cols != 1 && cols != 2 && cols != 4)
      return fmt::format("wavefront takes 1, 2 or 4 columns per work-item, not {}", cols);
    if (cols * lx <= 2 * k)
      return fmt::format("wavefront's {} x {} columns leave none inside halos of {}", lx, cols, k);
    const std::size_t bytes = wavefront_levels_bytes(info, config) + wavefront_second_bytes(info, config);
    if (bytes > device.local_mem_bytes)
      return fmt::format("wavefront (local_x {}, k={}) needs {} bytes of local memory, the device has {}", lx, k, bytes,
                         device.local_mem_bytes);
    return std::nullopt;
  };
  auto plan = [info](Context& ctx, const JacobiCall& call, const TuningConfig& config) {
    const int steps = tunable_value(config, info, "steps"), cols = tunable_value(config, info, "cols");
    const int local_x = tunable_value(config, info, "local_x");
    const int rows = wavefront_rows(ctx.info(), info, config, call.width, call.height);
    const auto lx = std::size_t(local_x);
    const std::size_t owned = std::size_t(cols) * lx - 2 * std::size_t(steps);
    const auto W = std::size_t(call.width), H = std::size_t(call.height);
    return KernelPlan{
        fmt::format("-D STEPS={} -D COLS={} -D LOCAL_X={} -D MEASURE={}", steps, cols, local_x, call.measure ? 1 : 0),
        {{"jacobi_wavefront",
          cl::NDRange((W + owned - 1) / owned * lx, (H + std::size_t(rows) - 1) / std::size_t(rows)),
          cl::NDRange(lx, 1)}}};
  };
  auto set_args = [info](Context& ctx, cl::Kernel& k, const JacobiCall& call, const TuningConfig& config,
                         const JacobiLaunch& l) {
    const int rows = wavefront_rows(ctx.info(), info, config, call.width, call.height);
    set_kernel_args(k, l.edges, l.src, l.dst, call.width, call.height, l.count, rows, l.changes, l.prev_from, l.prev_to,
                    l.slot, l.tol_bits, call.measured_from, call.measured_to,
                    cl::Local(wavefront_levels_bytes(info, config)), cl::Local(wavefront_second_bytes(info, config)));
  };
  return make_entry(info, problem, plan, set_args);
}

}  // namespace

const JacobiTable& jacobi_table() {
  static const JacobiTable table("reconstruction",
                                 {host_roundtrip(), col1d(), row1d(), tiled2d(), temporal(), strip(), wavefront()});
  return table;
}

}  // namespace clf
