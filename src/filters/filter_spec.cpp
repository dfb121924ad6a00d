#include "filters/filter_spec.hpp"

#include <fmt/format.h>

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

}  // namespace clf
