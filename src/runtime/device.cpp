// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>
#include <sstream>

#include "clfilters/runtime.hpp"

namespace clf {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

template <cl_device_info Name, class T>
T device_query(const cl::Device& d) {
  T value{};
  d.getInfo(Name, &value);
  return value;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back())))) s.pop_back();
  return s;
}

// CLFILTERS_DEVICE_MEMORY: a cap on the memory clfilters takes a device to have, in bytes (a K, M or G suffix: binary
// units), so that users and tests can make a large device behave like a small one: large images then go through
// in bands. Unset or empty: no cap.
std::optional<std::uint64_t> device_memory_cap() {
  const char* text = std::getenv("CLFILTERS_DEVICE_MEMORY");
  if (!text || !*text) return std::nullopt;
  const std::string_view s(text);
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  std::string_view suffix(ptr, std::size_t(s.data() + s.size() - ptr));
  int shift = -1;
  if (suffix.empty())
    shift = 0;
  else if (suffix.size() == 1)
    shift = suffix[0] == 'K' || suffix[0] == 'k' ? 10 : suffix[0] == 'M' ? 20 : suffix[0] == 'G' ? 30 : -1;
  if (ec != std::errc() || shift < 0 || value == 0 || value > (std::numeric_limits<std::uint64_t>::max() >> shift))
    throw std::invalid_argument(
        fmt::format("CLFILTERS_DEVICE_MEMORY: expected a positive byte count such as 1073741824 or 1G, got '{}'", s));
  return value << shift;
}

DeviceInfo describe(const cl::Platform& p, const cl::Device& d, int pi, int di) {
  DeviceInfo info;
  info.platform_index = pi;
  info.device_index = di;
  std::string s;
  p.getInfo(CL_PLATFORM_NAME, &s);
  info.platform_name = trimmed(s);
  p.getInfo(CL_PLATFORM_VERSION, &s);
  info.platform_version = trimmed(s);
  info.name = trimmed(device_query<CL_DEVICE_NAME, std::string>(d));
  info.vendor = trimmed(device_query<CL_DEVICE_VENDOR, std::string>(d));
  info.driver_version = trimmed(device_query<CL_DRIVER_VERSION, std::string>(d));
  info.device_version = trimmed(device_query<CL_DEVICE_VERSION, std::string>(d));
  info.opencl_c_version = trimmed(device_query<CL_DEVICE_OPENCL_C_VERSION, std::string>(d));
  info.type = device_query<CL_DEVICE_TYPE, cl_device_type>(d);
  info.compute_units = device_query<CL_DEVICE_MAX_COMPUTE_UNITS, cl_uint>(d);
  info.global_mem_bytes = device_query<CL_DEVICE_GLOBAL_MEM_SIZE, cl_ulong>(d);
  info.local_mem_bytes = device_query<CL_DEVICE_LOCAL_MEM_SIZE, cl_ulong>(d);
  info.max_alloc_bytes = device_query<CL_DEVICE_MAX_MEM_ALLOC_SIZE, cl_ulong>(d);
  if (const auto cap = device_memory_cap()) {
    info.global_mem_bytes = std::min<std::uint64_t>(info.global_mem_bytes, *cap);
    info.max_alloc_bytes = std::min<std::uint64_t>(info.max_alloc_bytes, *cap);
  }
  info.max_work_group_size = device_query<CL_DEVICE_MAX_WORK_GROUP_SIZE, size_t>(d);
  info.image_support = device_query<CL_DEVICE_IMAGE_SUPPORT, cl_bool>(d) == CL_TRUE;
  info.image2d_max_width = device_query<CL_DEVICE_IMAGE2D_MAX_WIDTH, size_t>(d);
  info.image2d_max_height = device_query<CL_DEVICE_IMAGE2D_MAX_HEIGHT, size_t>(d);
  info.extensions = trimmed(device_query<CL_DEVICE_EXTENSIONS, std::string>(d));
  return info;
}

bool is_index_selector(std::string_view sel) {
  return !sel.empty() && std::all_of(sel.begin(), sel.end(),
                                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == ':'; });
}

int parse_int(std::string_view s, std::string_view whole) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size())
    throw std::invalid_argument(fmt::format("bad device index '{}'", whole));
  return v;
}

std::string device_list_for_message(const std::vector<DeviceHandle>& all) {
  std::string out;
  for (const auto& d : all)
    out += fmt::format("{}{} {} ({})", out.empty() ? "" : ", ", d.info.index_name(), d.info.name, d.info.platform_name);
  return out;
}

}  // namespace

int opencl_c_version(const DeviceInfo& device) {
  // "OpenCL C <major>.<minor> <vendor-specific>"
  constexpr std::string_view prefix = "OpenCL C ";
  const std::string& v = device.opencl_c_version;
  if (v.compare(0, prefix.size(), prefix) != 0) return 0;
  int major = 0, minor = 0;
  const char* p = v.data() + prefix.size();
  const char* end = v.data() + v.size();
  auto r = std::from_chars(p, end, major);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != '.') return 0;
  r = std::from_chars(r.ptr + 1, end, minor);
  if (r.ec != std::errc() || minor > 9) return 0;
  return major * 10 + minor;
}

DeviceHandle device_handle(cl_device_id id) {
  if (!id) throw std::invalid_argument("no OpenCL device given (null cl_device_id)");
  cl::Device device(id, true);
  cl_platform_id platform_id = nullptr;
  check_cl(device.getInfo(CL_DEVICE_PLATFORM, &platform_id), "clGetDeviceInfo");
  cl::Platform platform(platform_id, true);
  int pi = -1, di = -1;
  std::vector<cl::Platform> platforms;
  if (cl::Platform::get(&platforms) == CL_SUCCESS)
    for (std::size_t i = 0; i < platforms.size() && di < 0; ++i) {
      std::vector<cl::Device> devices;
      if (platforms[i]() != platform_id || platforms[i].getDevices(CL_DEVICE_TYPE_ALL, &devices) != CL_SUCCESS)
        continue;
      for (std::size_t j = 0; j < devices.size(); ++j)
        if (devices[j]() == id) pi = int(i), di = int(j);
    }
  return {platform, device, describe(platform, device, pi, di)};
}

bool DeviceInfo::takes_nvidia_ptx() const {
  return has_extension("cl_nv_device_attribute_query") || platform_name.find("NVIDIA") != std::string::npos;
}

bool DeviceInfo::has_extension(std::string_view ext) const {
  std::istringstream words(extensions);
  std::string w;
  while (words >> w)
    if (w == ext) return true;
  return false;
}

std::vector<std::string> DeviceInfo::subgroup_extensions() const {
  std::vector<std::string> out;
  std::istringstream words(extensions);
  std::string w;
  while (words >> w)
    if (w.find("subgroup") != std::string::npos) out.push_back(w);
  return out;
}

std::string DeviceInfo::type_name() const {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

std::string DeviceInfo::index_name() const {
  if (sub_device_index >= 0) return fmt::format("{}:{}.{}", platform_index, device_index, sub_device_index);
  return fmt::format("{}:{}", platform_index, device_index);
}

std::vector<DeviceHandle> list_devices() {
  std::vector<cl::Platform> platforms;
  const cl_int err = cl::Platform::get(&platforms);
  if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && platforms.empty()))
    throw NoOpenClError(
        "no OpenCL platform found; install one, e.g. on Debian/Ubuntu: sudo apt-get install pocl-opencl-icd "
        "(CPU), or your GPU vendor's OpenCL driver");
  check_cl(err, "clGetPlatformIDs");
  std::vector<DeviceHandle> out;
  for (std::size_t pi = 0; pi < platforms.size(); ++pi) {
    std::vector<cl::Device> devices;
    if (platforms[pi].getDevices(CL_DEVICE_TYPE_ALL, &devices) != CL_SUCCESS) continue;  // a platform may have none
    for (std::size_t di = 0; di < devices.size(); ++di)
      out.push_back({platforms[pi], devices[di], describe(platforms[pi], devices[di], int(pi), int(di))});
  }
  if (out.empty()) throw NoOpenClError("OpenCL platforms exist but none has a device; install pocl-opencl-icd");
  return out;
}

DeviceHandle select_device(std::string_view selector) {
  std::string sel(selector);
  if (sel.empty())
    if (const char* env = std::getenv("CLFILTERS_DEVICE")) sel = env;
  auto all = list_devices();
  if (sel.empty()) {
    for (cl_device_type want : {cl_device_type(CL_DEVICE_TYPE_GPU), cl_device_type(CL_DEVICE_TYPE_CPU)})
      for (auto& d : all)
        if (d.info.type & want) return d;
    return all.front();
  }
  if (is_index_selector(sel)) {
    const auto colon = sel.find(':');
    if (colon == std::string::npos) {
      const int i = parse_int(sel, sel);
      if (i < 0 || i >= int(all.size()))
        throw std::invalid_argument(
            fmt::format("no device with index {}; devices: {}", i, device_list_for_message(all)));
      return all[std::size_t(i)];
    }
    const int pi = parse_int(std::string_view(sel).substr(0, colon), sel);
    const int di = parse_int(std::string_view(sel).substr(colon + 1), sel);
    for (auto& d : all)
      if (d.info.platform_index == pi && d.info.device_index == di) return d;
    throw std::invalid_argument(fmt::format("no device {}; devices: {}", sel, device_list_for_message(all)));
  }
  const std::string needle = lower(sel);
  for (auto& d : all) {
    if (lower(d.info.name).find(needle) != std::string::npos ||
        lower(d.info.platform_name).find(needle) != std::string::npos ||
        lower(d.info.type_name()).find(needle) != std::string::npos)
      return d;
  }
  // PoCL calls itself "Portable Computing Language"; let "pocl" find it.
  if (needle == "pocl")
    for (auto& d : all)
      if (lower(d.info.platform_name).find("portable computing language") != std::string::npos) return d;
  throw std::invalid_argument(fmt::format("no device matches '{}'; devices: {}", sel, device_list_for_message(all)));
}

}  // namespace clf
