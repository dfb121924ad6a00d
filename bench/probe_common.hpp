// Shared by the standalone OpenCL probes in bench/ (launch_cost, strip_pattern): the first device of the
// first platform whose name contains a substring, and the median of a run of timings.
#pragma once
#define CL_HPP_TARGET_OPENCL_VERSION 300
#define CL_HPP_MINIMUM_OPENCL_VERSION 110
#include <CL/opencl.hpp>
#include <algorithm>
#include <string>
#include <vector>

inline cl::Device probe_device(const std::string& platform_substring) {
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  for (auto& p : platforms) {
    if (p.getInfo<CL_PLATFORM_NAME>().find(platform_substring) == std::string::npos) continue;
    std::vector<cl::Device> ds;
    p.getDevices(CL_DEVICE_TYPE_ALL, &ds);
    if (!ds.empty()) return ds[0];
  }
  return {};
}

inline double probe_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
