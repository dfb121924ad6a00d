// SPDX-License-Identifier: Apache-2.0
// clfilters devices: every OpenCL platform and device, with what the filters care about.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_common.hpp"

namespace clf::cli {
namespace {

std::string human_bytes(std::uint64_t b) {
  if (b >= (1ull << 30)) return fmt::format("{:.1f} GiB", double(b) / double(1ull << 30));
  if (b >= (1ull << 20)) return fmt::format("{:.1f} MiB", double(b) / double(1ull << 20));
  return fmt::format("{} KiB", b >> 10);
}

class DevicesCommand : public Command {
 public:
  CLI::App* add_to(CLI::App& app) override {
    return app.add_subcommand("devices", "list every OpenCL platform and device");
  }

  int run() override {
    std::string platform;
    for (const auto& d : list_devices()) {
      const auto& i = d.info;
      if (i.platform_name != platform) {
        platform = i.platform_name;
        fmt::print("Platform {}: {} ({})\n", i.platform_index, i.platform_name, i.platform_version);
      }
      const auto subgroups = i.subgroup_extensions();
      fmt::print("  [{}] {}\n", i.index_name(), i.name);
      fmt::print("      type {}, {} compute units, driver {}, {}\n", i.type_name(), i.compute_units, i.driver_version,
                 i.opencl_c_version);
      fmt::print("      global memory {}, local memory {}, max work-group size {}\n", human_bytes(i.global_mem_bytes),
                 human_bytes(i.local_mem_bytes), i.max_work_group_size);
      fmt::print("      images {}{}, fp16 {}, subgroups {}\n", i.image_support ? "yes" : "no",
                 i.image_support ? fmt::format(" (max 2D {}x{})", i.image2d_max_width, i.image2d_max_height) : "",
                 i.has_fp16() ? "yes" : "no",
                 subgroups.empty() ? "none" : fmt::format("{}", fmt::join(subgroups, " ")));
    }
    const auto chosen = select_device();
    fmt::print("Default device: [{}] {}\n", chosen.info.index_name(), chosen.info.name);
    return 0;
  }
};

const CommandRegistrar registrar(0, [] { return std::unique_ptr<Command>(new DevicesCommand); });

}  // namespace
}  // namespace clf::cli
