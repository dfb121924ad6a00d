// SPDX-License-Identifier: Apache-2.0
// OpenCL errors: their names and messages, and the test-only hook that makes chosen calls fail
// (runtime/fault_injection.hpp).
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "clfilters/runtime.hpp"
#include "runtime/fault_injection.hpp"

namespace clf {

const char* cl_error_name(cl_int code) {
  switch (code) {
#define CLF_CASE(name) \
  case name: return #name;
    CLF_CASE(CL_SUCCESS)
    CLF_CASE(CL_DEVICE_NOT_FOUND)
    CLF_CASE(CL_DEVICE_NOT_AVAILABLE)
    CLF_CASE(CL_COMPILER_NOT_AVAILABLE)
    CLF_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    CLF_CASE(CL_OUT_OF_RESOURCES)
    CLF_CASE(CL_OUT_OF_HOST_MEMORY)
    CLF_CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
    CLF_CASE(CL_MEM_COPY_OVERLAP)
    CLF_CASE(CL_IMAGE_FORMAT_MISMATCH)
    CLF_CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    CLF_CASE(CL_BUILD_PROGRAM_FAILURE)
    CLF_CASE(CL_MAP_FAILURE)
    CLF_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    CLF_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    CLF_CASE(CL_COMPILE_PROGRAM_FAILURE)
    CLF_CASE(CL_LINKER_NOT_AVAILABLE)
    CLF_CASE(CL_LINK_PROGRAM_FAILURE)
    CLF_CASE(CL_DEVICE_PARTITION_FAILED)
    CLF_CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    CLF_CASE(CL_INVALID_VALUE)
    CLF_CASE(CL_INVALID_DEVICE_TYPE)
    CLF_CASE(CL_INVALID_PLATFORM)
    CLF_CASE(CL_INVALID_DEVICE)
    CLF_CASE(CL_INVALID_CONTEXT)
    CLF_CASE(CL_INVALID_QUEUE_PROPERTIES)
    CLF_CASE(CL_INVALID_COMMAND_QUEUE)
    CLF_CASE(CL_INVALID_HOST_PTR)
    CLF_CASE(CL_INVALID_MEM_OBJECT)
    CLF_CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    CLF_CASE(CL_INVALID_IMAGE_SIZE)
    CLF_CASE(CL_INVALID_SAMPLER)
    CLF_CASE(CL_INVALID_BINARY)
    CLF_CASE(CL_INVALID_BUILD_OPTIONS)
    CLF_CASE(CL_INVALID_PROGRAM)
    CLF_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
    CLF_CASE(CL_INVALID_KERNEL_NAME)
    CLF_CASE(CL_INVALID_KERNEL_DEFINITION)
    CLF_CASE(CL_INVALID_KERNEL)
    CLF_CASE(CL_INVALID_ARG_INDEX)
    CLF_CASE(CL_INVALID_ARG_VALUE)
    CLF_CASE(CL_INVALID_ARG_SIZE)
    CLF_CASE(CL_INVALID_KERNEL_ARGS)
    CLF_CASE(CL_INVALID_WORK_DIMENSION)
    CLF_CASE(CL_INVALID_WORK_GROUP_SIZE)
    CLF_CASE(CL_INVALID_WORK_ITEM_SIZE)
    CLF_CASE(CL_INVALID_GLOBAL_OFFSET)
    CLF_CASE(CL_INVALID_EVENT_WAIT_LIST)
    CLF_CASE(CL_INVALID_EVENT)
    CLF_CASE(CL_INVALID_OPERATION)
    CLF_CASE(CL_INVALID_GL_OBJECT)
    CLF_CASE(CL_INVALID_BUFFER_SIZE)
    CLF_CASE(CL_INVALID_MIP_LEVEL)
    CLF_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
    CLF_CASE(CL_INVALID_PROPERTY)
    CLF_CASE(CL_INVALID_IMAGE_DESCRIPTOR)
    CLF_CASE(CL_INVALID_COMPILER_OPTIONS)
    CLF_CASE(CL_INVALID_LINKER_OPTIONS)
    CLF_CASE(CL_INVALID_DEVICE_PARTITION_COUNT)
    CLF_CASE(CL_PLATFORM_NOT_FOUND_KHR)
#undef CLF_CASE
    default: return "CL_UNKNOWN_ERROR";
  }
}

ClError::ClError(cl_int code, std::string call, std::string build_log)
    : std::runtime_error(build_log.empty() ? fmt::format("{} failed: {} ({})", call, cl_error_name(code), code)
                                           : fmt::format("{} failed: {} ({}); build log:\n{}", call,
                                                         cl_error_name(code), code, build_log)),
      code_(code),
      call_(std::move(call)),
      build_log_(std::move(build_log)) {}

void check_cl(cl_int code, const char* call) {
  if (code != CL_SUCCESS) throw ClError(code, call);
}

namespace {

struct Rule {
  FaultPoint point;
  long nth;  // 0: every call
};

struct FaultState {
  std::mutex mutex;
  std::string spec;  // CLFILTERS_FAULT as last parsed
  std::vector<Rule> rules;
  std::array<long, 4> calls{};
};

FaultState& state() {
  static FaultState s;
  return s;
}

std::vector<Rule> parse_rules(std::string_view spec) {
  std::vector<Rule> rules;
  while (!spec.empty()) {
    const auto comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    long nth = 0;
    if (const auto colon = item.find(':'); colon != std::string_view::npos) {
      const std::string_view n = item.substr(colon + 1);
      if (std::from_chars(n.data(), n.data() + n.size(), nth).ec != std::errc() || nth < 1) continue;
      item = item.substr(0, colon);
    }
    const std::pair<std::string_view, FaultPoint> names[] = {{"build", FaultPoint::build},
                                                             {"alloc", FaultPoint::alloc},
                                                             {"enqueue", FaultPoint::enqueue},
                                                             {"map", FaultPoint::map}};
    for (const auto& [name, point] : names)
      if (item == name) rules.push_back({point, nth});
  }
  return rules;
}

}  // namespace

bool injected_fault(FaultPoint point) {
  const char* spec = std::getenv("CLFILTERS_FAULT");
  if (!spec || !*spec) return false;
  FaultState& s = state();
  const std::lock_guard lock(s.mutex);
  if (s.spec != spec) {
    s.spec = spec;
    s.rules = parse_rules(s.spec);
    s.calls = {};
  }
  const long call = ++s.calls[std::size_t(point)];
  for (const Rule& r : s.rules)
    if (r.point == point && (r.nth == 0 || r.nth == call)) return true;
  return false;
}

}  // namespace clf
