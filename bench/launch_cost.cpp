// What one device-resident call costs around its kernel (issue 8's 1080p call target): an empty
// kernel and a 1080p RGBA copy kernel, enqueue to completion, median of 200 after 50 warm-ups, on a
// queue with and without CL_QUEUE_PROFILING_ENABLE, waiting by clFinish or by polling the event.
// Standalone (OpenCL only) so that it measures the driver, not clfilters:
//   built as build/release/bench/launch_cost (or: g++ -std=c++20 -O2 bench/launch_cost.cpp -lOpenCL -o
//   launch_cost); launch_cost [platform substring]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "probe_common.hpp"

namespace {

const char* kSource = R"(
__kernel void empty(__global uint* p) {}
__kernel void copy4(__global const uint4* src, __global uint4* dst, int n) {
  const int i = get_global_id(0);
  if (i < n) dst[i] = src[i];
}
)";

}  // namespace

int main(int argc, char** argv) {
  const std::string want = argc > 1 ? argv[1] : "NVIDIA";
  const cl::Device device = probe_device("launch_cost", want);
  std::printf("device: %s\n", device.getInfo<CL_DEVICE_NAME>().c_str());
  cl::Context ctx(device);
  cl::Program program(ctx, kSource, true);
  const int pixels = 1920 * 1080, n4 = pixels / 4;
  cl::Buffer a(ctx, CL_MEM_READ_WRITE, std::size_t(pixels) * 4),
      b(ctx, CL_MEM_READ_WRITE, std::size_t(pixels) * 4);
  cl::Kernel empty(program, "empty"), copy(program, "copy4");
  empty.setArg(0, a);
  copy.setArg(0, a);
  copy.setArg(1, b);
  copy.setArg(2, n4);

  std::printf("%-8s %-10s %-6s %10s %10s\n", "kernel", "queue", "wait", "call us", "kernel us");
  for (bool profiling : {true, false}) {
    cl::CommandQueue q(ctx, device, profiling ? CL_QUEUE_PROFILING_ENABLE : 0);
    for (const char* which : {"empty", "copy"}) {
      cl::Kernel& k = which[0] == 'e' ? empty : copy;
      const cl::NDRange global(which[0] == 'e' ? 256 : (n4 + 255) / 256 * 256), local(256);
      for (bool spin : {false, true}) {
        std::vector<double> call, kern;
        for (int i = 0; i < 250; ++i) {
          cl::Event e;
          const auto t0 = std::chrono::steady_clock::now();
          q.enqueueNDRangeKernel(k, cl::NullRange, global, local, nullptr, &e);
          if (spin) {
            q.flush();
            cl_int s = CL_QUEUED;
            do e.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &s);
            while (s > CL_COMPLETE);
          } else {
            q.finish();
          }
          const double us =
              std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
          if (i < 50) continue;
          call.push_back(us);
          if (profiling) kern.push_back(probe_event_ms(e) * 1e3);  // us
        }
        std::printf("%-8s %-10s %-6s %10.1f %10s\n", which, profiling ? "profiling" : "plain",
                    spin ? "spin" : "finish", probe_median(call),
                    profiling ? std::to_string(probe_median(kern)).substr(0, 6).c_str() : "-");
      }
    }
  }
  return 0;
}
