// SPDX-License-Identifier: Apache-2.0
// Lists of devices (select_devices) and sub-devices (split_device), for calls that run on several devices at once.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <stdexcept>

#include "clfilters/runtime.hpp"

namespace clf {
namespace {

std::string trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> list_items(std::string_view list) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = list.find(',', start);
    items.push_back(
        trimmed(list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return items;
    start = comma + 1;
  }
}

// The devices of a class item (all, all-gpus, all-cpus), or nullopt for any other item.
std::optional<std::vector<DeviceHandle>> class_devices(const std::string& item) {
  cl_device_type want = 0;
  if (item == "all")
    want = CL_DEVICE_TYPE_ALL;
  else if (item == "all-gpus")
    want = CL_DEVICE_TYPE_GPU;
  else if (item == "all-cpus")
    want = CL_DEVICE_TYPE_CPU;
  else
    return std::nullopt;
  std::vector<DeviceHandle> out;
  for (DeviceHandle& d : list_devices())
    if (d.info.type & want) out.push_back(std::move(d));
  if (out.empty()) {
    std::string names;
    for (const DeviceHandle& d : list_devices())
      names +=
          fmt::format("{}{} {} ({})", names.empty() ? "" : ", ", d.info.index_name(), d.info.name, d.info.type_name());
    throw std::invalid_argument(fmt::format("device list item '{}': no such device; devices: {}", item, names));
  }
  return out;
}

}  // namespace

std::vector<DeviceHandle> split_device(const DeviceHandle& device, int parts) {
  const DeviceInfo& info = device.info;
  if (parts < 1) throw std::invalid_argument(fmt::format("cannot split a device into {} parts", parts));
  std::vector<cl_device_partition_property> offered;
  if (device.device.getInfo(CL_DEVICE_PARTITION_PROPERTIES, &offered) != CL_SUCCESS ||
      std::find(offered.begin(), offered.end(), CL_DEVICE_PARTITION_EQUALLY) == offered.end())
    throw std::invalid_argument(
        fmt::format("device {} ({}) cannot be split into sub-devices: its driver offers no equal partition "
                    "(CL_DEVICE_PARTITION_EQUALLY)",
                    info.index_name(), info.name));
  if (unsigned(parts) > info.compute_units)
    throw std::invalid_argument(fmt::format("device {} ({}) has {} compute unit(s), too few to split into {}",
                                            info.index_name(), info.name, info.compute_units, parts));
  const cl_device_partition_property properties[] = {
      CL_DEVICE_PARTITION_EQUALLY, cl_device_partition_property(info.compute_units / unsigned(parts)), 0};
  std::vector<cl::Device> subs;
  cl::Device parent = device.device;  // createSubDevices is not const
  check_cl(parent.createSubDevices(properties, &subs), "clCreateSubDevices");
  // An uneven count makes more parts than asked (7 units in 3: 3 of 2 and none of the 7th); the rest are released.
  if (subs.size() < std::size_t(parts))
    throw std::invalid_argument(
        fmt::format("device {} ({}) gave {} sub-devices, not {}", info.index_name(), info.name, subs.size(), parts));
  std::vector<DeviceHandle> out;
  for (int i = 0; i < parts; ++i) {
    DeviceHandle sub = device_handle(subs[std::size_t(i)]());
    sub.info.platform_index = info.platform_index;
    sub.info.device_index = info.device_index;
    sub.info.sub_device_index = i;
    out.push_back(std::move(sub));
  }
  return out;
}

std::vector<DeviceHandle> select_devices(std::string_view list) {
  if (trimmed(list).empty()) return {select_device()};
  std::vector<DeviceHandle> out;
  // Each device (a split one by its parent) and the item naming it, with the item's place in the list.
  std::map<cl_device_id, std::pair<std::size_t, std::string>> named;
  const std::vector<std::string> items = list_items(list);
  for (std::size_t place = 0; place < items.size(); ++place) {
    const std::string& item = items[place];
    if (item.empty()) throw std::invalid_argument(fmt::format("device list '{}' has an empty item", std::string(list)));
    std::vector<DeviceHandle> devices;
    cl_device_id whole = nullptr;
    try {
      if (auto all = class_devices(item)) {
        devices = std::move(*all);
      } else if (const auto slash = item.find('/'); slash != std::string::npos) {
        const std::string_view count = std::string_view(item).substr(slash + 1);
        int parts = 0;
        const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), parts);
        if (ec != std::errc() || end != count.data() + count.size() || parts < 1)
          throw std::invalid_argument(fmt::format("'{}' is not a count of sub-devices", std::string(count)));
        const DeviceHandle parent = select_device(trimmed(std::string_view(item).substr(0, slash)));
        whole = parent.device();
        devices = split_device(parent, parts);
      } else {
        devices.push_back(select_device(item));
      }
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("device list item '{}': {}", item, e.what()));
    } catch (const ClError& e) {
      throw std::invalid_argument(fmt::format("device list item '{}': {}", item, e.what()));
    }
    for (DeviceHandle& d : devices) {
      const cl_device_id key = whole ? whole : d.device();
      if (const auto it = named.find(key); it != named.end() && it->second.first != place)
        throw std::invalid_argument(
            fmt::format("device list item '{}': device {} ({}) is already in the list (as '{}')", item,
                        d.info.index_name().substr(0, d.info.index_name().find('.')), d.info.name, it->second.second));
      named.emplace(key, std::pair{place, item});
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace clf
