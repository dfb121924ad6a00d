// Which PTX features NVIDIA's OpenCL compiler lets a kernel reach through inline asm (issue 8, box blur step
// 61): each probe is a one-line kernel built on its own, reported as built or refused with the build log's
// first error, beside the PTX target of a plain kernel and the local memory a work-group may have. Why: the
// box blur's on-chip history is held by local memory and its row window by the issue rate; CUDA on the same
// GPU has 227 KB per block by opt-in and wgmma on sm_90a. On the H200 this API has 48 KB and target sm_90,
// with wgmma refused (bench/results/2026-11-29-nvidia-h200-ptx-features.txt).
// Standalone (OpenCL only): built as build/release/bench/ptx_features;
//   ptx_features [platform substring] [build options, e.g. "-cl-nv-arch sm_90a"]
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "probe_common.hpp"

namespace {

struct Feature {
  const char* name;
  const char* body;  // the kernel's body; p is a __global uint*
};

const Feature kFeatures[] = {
    {"laneid (any sm)", R"(uint r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); p[0] = r;)"},
    {"cp.async (sm_80)", R"(asm volatile("cp.async.wait_all;");)"},
    {"fence.proxy.async (sm_90)", R"(asm volatile("fence.proxy.async.shared::cta;");)"},
    {"cluster_ctarank (sm_90)",
     R"(uint r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); p[0] = r;)"},
    {"barrier.cluster (sm_90)", R"(asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;");)"},
    {"wgmma.fence (sm_90a)", R"(asm volatile("wgmma.fence.sync.aligned;");)"},
    {"setmaxnreg (sm_90a)", R"(asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");)"},
};

std::string first_error(const std::string& log) {
  for (std::size_t at = 0; at < log.size();) {
    const std::size_t end = std::min(log.find('\n', at), log.size());
    const std::string line = log.substr(at, end - at);
    if (line.find("error") != std::string::npos) return line.substr(0, 160);
    at = end + 1;
  }
  return log.substr(0, 160);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string want = argc > 1 ? argv[1] : "NVIDIA", options = argc > 2 ? argv[2] : "";
  const cl::Device device = probe_device("ptx_features", want);
  cl::Context ctx(device);
  std::printf("device: %s, driver %s\n", device.getInfo<CL_DEVICE_NAME>().c_str(),
              device.getInfo<CL_DRIVER_VERSION>().c_str());
  std::printf("build options: '%s'\n", options.c_str());
  std::printf("local memory per work-group: %llu bytes\n",
              static_cast<unsigned long long>(device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>()));
  for (const Feature& f : kFeatures) {
    const std::string source = std::string("__kernel void probe(__global uint* p) {") + f.body + "}";
    cl::Program program(ctx, source);
    std::string result = "built";
    if (program.build({device}, options.c_str()) != CL_SUCCESS) {
      result = "refused: " + first_error(program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device));
    } else if (&f == &kFeatures[0]) {
      // NVIDIA's program binary is the PTX text: its .target line says which sm the compiler aims at.
      const std::vector<std::vector<unsigned char>> binaries = program.getInfo<CL_PROGRAM_BINARIES>();
      const std::string ptx(binaries.at(0).begin(), binaries.at(0).end());
      const std::size_t at = ptx.find(".target");
      if (at != std::string::npos) result += " (PTX " + ptx.substr(at, ptx.find('\n', at) - at) + ")";
    }
    std::printf("%-28s %s\n", f.name, result.c_str());
  }
  return 0;
}
