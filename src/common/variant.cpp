// SPDX-License-Identifier: Apache-2.0
#include "clfilters/variant.hpp"

#include <charconv>
#include <sstream>
#include <stdexcept>

namespace clf {

int tunable_value(const TuningConfig& config, const VariantInfo& variant, const std::string& name, int fallback) {
  if (auto it = config.find(name); it != config.end()) return it->second;
  for (const auto& t : variant.tunables)
    if (t.name == name && !t.values.empty()) return t.values.front();
  return fallback;
}

std::string to_string(const TuningConfig& config) {
  std::string out;
  for (const auto& [k, v] : config) out += (out.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return out;
}

TuningConfig parse_tuning_config(const std::string& text) {
  TuningConfig config;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    int v = 0;
    const char* first = item.data() + (eq == std::string::npos ? 0 : eq + 1);
    const char* last = item.data() + item.size();
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (eq == std::string::npos || eq == 0 || ec != std::errc() || ptr != last)
      throw std::invalid_argument("bad tuning value '" + item + "' (expected name=integer)");
    config[item.substr(0, eq)] = v;
  }
  return config;
}

std::string describe(const VariantChoice& choice) {
  return choice.config.empty() ? choice.variant : choice.variant + "[" + to_string(choice.config) + "]";
}

std::vector<TuningConfig> all_configs(const VariantInfo& variant) {
  std::vector<TuningConfig> configs{{}};
  for (const auto& t : variant.tunables) {
    std::vector<TuningConfig> next;
    for (const auto& c : configs)
      for (int v : t.values) {
        auto with = c;
        with[t.name] = v;
        next.push_back(std::move(with));
      }
    configs = std::move(next);
  }
  return configs;
}

const VariantInfo* find_variant(const std::vector<VariantInfo>& variants, const std::string& name) {
  for (const auto& v : variants)
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace clf
