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

std::vector<cl::Event> launch_passes(Context& ctx, const KernelPlan& plan, const std::string& kernel_file) {
  std::vector<cl::Event> events;
  for (const auto& pass : plan.passes)
    events.push_back(launch(ctx, ctx.kernel(kernel_file, plan.options, pass.kernel), pass.global, pass.local));
  return events;
}

}  // namespace clf
