#include "filters/variant_table.hpp"

#include "runtime/launch.hpp"

namespace clf {

std::optional<std::string> missing_feature(const DeviceInfo& device, const std::vector<DeviceFeature>& needs) {
  for (DeviceFeature f : needs) {
    if (f == DeviceFeature::images && !device.image_support)
      return fmt::format("needs image support, which {} does not have", device.name);
    if (f == DeviceFeature::fp16 && !device.has_fp16())
      return fmt::format("needs cl_khr_fp16, which {} does not have", device.name);
  }
  return std::nullopt;
}

std::optional<std::string> work_group_problem(const DeviceInfo& device, const VariantInfo& info,
                                              const TuningConfig& config) {
  const int lx = tunable_value(config, info, "local_x"), ly = tunable_value(config, info, "local_y", 1);
  if (lx > 0 && std::size_t(lx) * std::size_t(ly) > device.max_work_group_size)
    return fmt::format("work-group {}x{} exceeds the device's {} work-items", lx, ly, device.max_work_group_size);
  return std::nullopt;
}

std::vector<cl::Event> launch_passes(Context& ctx, const KernelPlan& plan, const std::string& kernel_file) {
  std::vector<cl::Event> events;
  for (const auto& pass : plan.passes)
    events.push_back(launch(ctx, ctx.kernel(kernel_file, plan.options, pass.kernel), pass.global, pass.local));
  return events;
}

}  // namespace clf
