// SPDX-License-Identifier: Apache-2.0
#include "runtime/fault_injection.hpp"

#include <array>
#include <charconv>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace clf {
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
