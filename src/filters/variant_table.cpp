// SPDX-License-Identifier: Apache-2.0
#include "filters/variant_table.hpp"

#include <algorithm>

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

void check_row_range(std::string_view filter, const RowRange& rows, int height, bool in_place) {
  if (rows.begin < 0 || rows.begin >= rows.end_in(height) || rows.end_in(height) > height)
    throw std::invalid_argument(fmt::format("{}: output rows {}..{} are not a range of the image's {} rows", filter,
                                            rows.begin, rows.end_in(height), height));
  if (in_place && !rows.whole(height))
    throw std::invalid_argument(fmt::format("{}: a range of output rows needs an output apart from the input", filter));
}

std::optional<std::string> work_group_problem(const DeviceInfo& device, const VariantInfo& info,
                                              const TuningConfig& config) {
  const int lx = tunable_value(config, info, "local_x"), ly = tunable_value(config, info, "local_y", 1);
  if (lx > 0 && std::size_t(lx) * std::size_t(ly) > device.max_work_group_size)
    return fmt::format("work-group {}x{} exceeds the device's {} work-items", lx, ly, device.max_work_group_size);
  return std::nullopt;
}

std::optional<std::string> local_group_problem(const DeviceInfo& device, std::string_view group, int width, int height,
                                               std::string_view variant, std::size_t local_bytes,
                                               std::string_view call) {
  if (std::size_t(width) * std::size_t(height) > device.max_work_group_size)
    return fmt::format("{} {}x{} exceeds the device's {} work-items", group, width, height, device.max_work_group_size);
  if (local_bytes > device.local_mem_bytes)
    return fmt::format("{} needs {} bytes of local memory for {}, the device has {}", variant, local_bytes, call,
                       device.local_mem_bytes);
  return std::nullopt;
}

bool r8_images_supported(Context& ctx) {
  return ctx.feature_works("image_r_uint8", [&] {
    std::vector<cl::ImageFormat> formats;
    ctx.context().getSupportedImageFormats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, &formats);
    return std::any_of(formats.begin(), formats.end(), [](const cl::ImageFormat& f) {
      return f.image_channel_order == CL_R && f.image_channel_data_type == CL_UNSIGNED_INT8;
    });
  });
}

const std::vector<Tunable>& local_size_tunables() {
  static const std::vector<Tunable> tunables = {
      {"local_x", {0, 8, 16, 32, 64}, "work-group width (0: the driver chooses)"},
      {"local_y", {1, 2, 4, 8, 16}, "work-group height"},
  };
  return tunables;
}

const std::vector<Tunable>& tile_tunables() {
  static const std::vector<Tunable> tunables = {
      {"tile_x", {16, 8, 32}, "work-group (tile) width"},
      {"tile_y", {16, 8, 4}, "work-group (tile) height"},
  };
  return tunables;
}

TileShape tile_shape(const DeviceInfo& device, const VariantInfo& info, const TuningConfig& config) {
  TileShape tile{tunable_value(config, info, "tile_x"), tunable_value(config, info, "tile_y")};
  // The default 16x16 needs 256 work-items; smaller devices get 8x8.
  if (config.empty() && device.max_work_group_size < 256) tile = {8, 8};
  return tile;
}

std::vector<cl::Event> launch_passes(Context& ctx, const KernelPlan& plan, const std::string& kernel_file) {
  std::vector<cl::Event> events;
  for (const auto& pass : plan.passes)
    events.push_back(launch(ctx, ctx.kernel(kernel_file, plan.options, pass.kernel), pass.global, pass.local));
  return events;
}

}  // namespace clf
