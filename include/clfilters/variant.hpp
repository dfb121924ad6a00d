// SPDX-License-Identifier: Apache-2.0
// What every filter says about its variants: names, what they do, and the values the tuner may try.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "clfilters/export.hpp"

namespace CLF_API clf {

// One tunable knob of a variant (work-group size, pixels per work-item, tile size, ...). The first
// value is the default. Filters reject combinations that do not fit a device in their `unsupported`.
struct Tunable {
  std::string name;
  std::vector<int> values;
  std::string help;
};

struct VariantInfo {
  std::string name;
  std::string summary;  // what it does and which seed step it comes from
  std::vector<Tunable> tunables;
};

// Chosen tunable values by name; a missing name means the tunable's default (first value).
using TuningConfig = std::map<std::string, int>;

// What a call runs: the variant, its tunables, and why ("requested", "tuned" from the tuning
// database, or "rule", the filter's built-in default).
struct VariantChoice {
  std::string variant;
  TuningConfig config;
  std::string reason;
};

// The value of `name` in `config`, else the variant's default for it, else `fallback`.
int tunable_value(const TuningConfig& config, const VariantInfo& variant, const std::string& name, int fallback = 0);

// "local_x=16,local_y=8" (sorted by name); "" for the defaults.
std::string to_string(const TuningConfig& config);
// Parses the form above; throws std::invalid_argument.
TuningConfig parse_tuning_config(const std::string& text);

// "separable_sliding[column_segment=64,row_segment=8]", or just the name with default tunables.
std::string describe(const VariantChoice& choice);

// Every combination of a variant's tunable values (the default config alone if it has none).
std::vector<TuningConfig> all_configs(const VariantInfo& variant);

// The variant named `name` in `variants`, or nullptr.
const VariantInfo* find_variant(const std::vector<VariantInfo>& variants, const std::string& name);

}  // namespace clf
