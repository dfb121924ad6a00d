// SPDX-License-Identifier: Apache-2.0
#include "clfilters/border.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

namespace clf {

Border parse_border(std::string_view text) {
  if (text == "replicate") return {BorderMode::replicate, 0};
  if (text == "reflect101") return {BorderMode::reflect101, 0};
  if (text == "constant") return {BorderMode::constant, 0};
  if (text.starts_with("constant=")) {
    const auto digits = text.substr(9);
    int v = -1;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    // The widest sample's range: each call checks the constant against its own samples (check_border).
    if (ec != std::errc() || ptr != digits.data() + digits.size() || v < 0 || v > 65535)
      throw std::invalid_argument("border constant must be an integer 0..65535, got '" + std::string(digits) + "'");
    return {BorderMode::constant, v};
  }
  throw std::invalid_argument("unknown border '" + std::string(text) +
                              "' (expected replicate, reflect101, constant or constant=V)");
}

std::string to_string(const Border& border) {
  switch (border.mode) {
    case BorderMode::replicate: return "replicate";
    case BorderMode::reflect101: return "reflect101";
    case BorderMode::constant: return border.value == 0 ? "constant" : "constant=" + std::to_string(border.value);
  }
  return "?";
}

int max_sample_value(SampleType type) {
  return type == SampleType::u16 ? 65535 : 255;
}

void check_border(const Border& border, SampleType type) {
  const int max = max_sample_value(type);
  if (border.value < 0 || border.value > max)
    throw std::invalid_argument(fmt::format("border constant must be 0..{}, got {}", max, border.value));
}

int border_index(int i, int n, BorderMode mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case BorderMode::replicate: return std::clamp(i, 0, n - 1);
    case BorderMode::reflect101: {
      if (n == 1) return 0;
      const int period = 2 * (n - 1);
      int m = i % period;
      if (m < 0) m += period;
      return m < n ? m : period - m;
    }
    case BorderMode::constant: return -1;
  }
  return -1;
}

}  // namespace clf
