// SPDX-License-Identifier: Apache-2.0
#include "filters/filter_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace clf {

const FilterSpec* find_filter_spec(const std::string& name) {
  for (const FilterSpec* f : all_filter_specs())
    if (f->name() == name) return f;
  return nullptr;
}

std::string param_text(const ParamMap& params, const std::string& key, const std::string& fallback) {
  auto it = params.find(key);
  return it == params.end() ? fallback : it->second;
}

int param_int(const ParamMap& params, const std::string& key, int fallback) {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  int v = 0;
  const std::string& s = it->second;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size())
    throw std::invalid_argument(fmt::format("parameter {} must be an integer, got '{}'", key, s));
  return v;
}

double param_double(const ParamMap& params, const std::string& key, double fallback) {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  try {
    std::size_t used = 0;
    const double v = std::stod(it->second, &used);
    if (used == it->second.size()) return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(fmt::format("parameter {} must be a number, got '{}'", key, it->second));
}

void check_param_keys(const ParamMap& params, std::string_view filter, std::initializer_list<std::string_view> keys) {
  for (const auto& [key, value] : params)
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      throw std::invalid_argument(fmt::format("{} has no parameter '{}'", filter, key));
}

int param_channels(const ParamMap& params, std::string_view filter, int fallback) {
  const int channels = param_int(params, "channels", fallback);
  if (channels != 1 && channels != 4) throw std::invalid_argument(fmt::format("{} channels must be 1 or 4", filter));
  return channels;
}

std::pair<SampleType, ParamMap> sample_type_of(const ParamMap& params) {
  const int bits = param_int(params, "bits", 8);
  if (bits != 8 && bits != 16) throw std::invalid_argument(fmt::format("bits must be 8 or 16, got {}", bits));
  ParamMap rest = params;
  rest.erase("bits");
  return {bits == 16 ? SampleType::u16 : SampleType::u8, std::move(rest)};
}

}  // namespace clf
