// Shared by the standalone OpenCL probes in bench/ (launch_cost, strip_pattern, bulk_ring, ptx_features): the
// first device of the first platform whose name contains a substring (or an exit that says none does), the
// median of a run of timings, and kernel timing by profiling events.
#pragma once
#define CL_HPP_TARGET_OPENCL_VERSION 300
#define CL_HPP_MINIMUM_OPENCL_VERSION 110
#include <CL/opencl.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// The first device of the first platform whose name contains platform_substring; without one, `probe` (the
// program's name) says so on stderr and the program exits with 1.
inline cl::Device probe_device(const char* probe, const std::string& platform_substring) {
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  for (auto& p : platforms) {
    if (p.getInfo<CL_PLATFORM_NAME>().find(platform_substring) == std::string::npos) continue;
    std::vector<cl::Device> ds;
    p.getDevices(CL_DEVICE_TYPE_ALL, &ds);
    if (!ds.empty()) return ds[0];
  }
  std::fprintf(stderr, "%s: no platform matching '%s'\n", probe, platform_substring.c_str());
  std::exit(1);
}

inline double probe_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A command's device time from its profiling events, in ms.
inline double probe_event_ms(const cl::Event& e) {
  return double(e.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                e.getProfilingInfo<CL_PROFILING_COMMAND_START>()) *
         1e-6;
}

// Median device time of `enqueue()` (which returns the command's event): 20 runs after 5 warm-ups.
template <class Enqueue>
double probe_time_ms(Enqueue enqueue) {
  std::vector<double> ms;
  for (int i = 0; i < 25; ++i) {
    cl::Event e = enqueue();
    e.wait();
    if (i >= 5) ms.push_back(probe_event_ms(e));
  }
  return probe_median(ms);
}

// clEnqueueCopyBuffer of `bytes` from src to dst, timed as above: the copy bandwidth the probes compare with.
inline double probe_copy_ms(cl::CommandQueue& q, const cl::Buffer& src, const cl::Buffer& dst,
                            std::size_t bytes) {
  return probe_time_ms([&] {
    cl::Event e;
    q.enqueueCopyBuffer(src, dst, 0, 0, bytes, nullptr, &e);
    return e;
  });
}
