// SPDX-License-Identifier: Apache-2.0
// The one description each filter gives of itself. Tests, the benchmark, the tuner and the command
// line iterate over these, so adding a filter or a variant changes nothing outside its folder.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clfilters/export.hpp"
#include "clfilters/image.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace CLF_API clf {

// Problem parameters by name, as text ("diameter" -> "9", "channels" -> "4"), so generic tools can
// pass them through. Each filter documents its keys and defaults in bench_cases().
using ParamMap = std::map<std::string, std::string>;

// One problem (size, parameters, a fresh input) set up on a device, ready to run any variant.
class FilterInstance {
 public:
  virtual ~FilterInstance() = default;
  // Why `variant` with `config` cannot run here (device limits, parameter limits), or nullopt.
  virtual std::optional<std::string> unsupported(const std::string& variant, const TuningConfig& config) const = 0;
  // Enqueues one device-resident call (input already on the device); returns every kernel's event.
  virtual std::vector<cl::Event> enqueue(const std::string& variant, const TuningConfig& config) = 0;
  // One call from host input to host output (upload, kernels, download); returns its wall time in ms.
  virtual double run_host_to_host(const std::string& variant, const TuningConfig& config) = 0;
  // Downloads the last output and compares it with the CPU reference under the filter's contract
  // (bit-exact, +-1, relative L2, ...). nullopt when it holds, else what differs and where.
  virtual std::optional<std::string> check_output() = 0;
  // Runs the CPU reference once on `threads` threads (0 = all), for speedup figures.
  virtual void run_reference(int threads) = 0;
  // Effective bytes of one call: each input byte read once, each output byte written once.
  virtual std::uint64_t bytes_moved() const = 0;
  // Bytes one host-to-host call moves {up, down}: its input and its output. By default bytes_moved's, split evenly
  // (a one-pass filter reads its input once and writes its output once).
  virtual std::pair<std::uint64_t, std::uint64_t> host_bytes() const { return {bytes_moved() / 2, bytes_moved() / 2}; }
  virtual std::uint64_t pixels() const = 0;
  // What "auto" resolves to for this problem on this device (tuned choice or built-in rule).
  virtual std::string auto_variant() const { return "auto"; }
  // Which program build `variant` with `config` runs: candidates with one key share their builds, so the tuner
  // builds each program once before it times the rest. By default each candidate its own.
  virtual std::string build_key(const std::string& variant, const TuningConfig& config) const {
    return describe({variant, config, ""});
  }
};

class FilterSpec {
 public:
  virtual ~FilterSpec() = default;
  virtual std::string name() const = 0;         // the command-line name, "box-blur"
  virtual std::string kernel_file() const = 0;  // its .cl file, whose hash keys the tuning database
  virtual const std::vector<VariantInfo>& variants() const = 0;
  // Parameter sets the benchmark runs by default, e.g. {{"diameter","9"},{"channels","4"}}; the first
  // is the one the tuner tunes.
  virtual std::vector<ParamMap> bench_cases() const = 0;
  // The tuning database keeps one winner per parameter class: parameters that change which variant
  // wins (box blur's diameter) map to different classes. "" when one class fits all.
  virtual std::string param_class(const ParamMap& params) const { return (void)params, ""; }
  // Sets up a problem with a fresh synthetic input drawn from `seed`. Throws std::invalid_argument for
  // unknown or bad parameters.
  virtual std::unique_ptr<FilterInstance> instantiate(Context& ctx, int width, int height, const ParamMap& params,
                                                      std::uint64_t seed) const = 0;
};

// A FilterSpec's fixed description: its name, kernel file and variant list.
class BasicFilterSpec : public FilterSpec {
 public:
  BasicFilterSpec(std::string name, std::string kernel_file, const std::vector<VariantInfo>& (*variant_list)())
      : name_(std::move(name)), kernel_file_(std::move(kernel_file)), variants_(variant_list) {}
  std::string name() const override { return name_; }
  std::string kernel_file() const override { return kernel_file_; }
  const std::vector<VariantInfo>& variants() const override { return variants_(); }

 private:
  std::string name_;
  std::string kernel_file_;
  const std::vector<VariantInfo>& (*variants_)();
};

// Every filter, registered by its folder (see clf_register_filter in src/CMakeLists.txt).
const std::vector<const FilterSpec*>& all_filter_specs();
const FilterSpec* find_filter_spec(const std::string& name);

// Reads `key` from `params` as an integer (or `fallback` when absent); throws std::invalid_argument naming it.
int param_int(const ParamMap& params, const std::string& key, int fallback);
double param_double(const ParamMap& params, const std::string& key, double fallback);
std::string param_text(const ParamMap& params, const std::string& key, const std::string& fallback);
// Throws std::invalid_argument "FILTER has no parameter 'KEY'" for the first key of `params` not in `keys`.
void check_param_keys(const ParamMap& params, std::string_view filter, std::initializer_list<std::string_view> keys);
// The "channels" parameter (`fallback` when absent); throws std::invalid_argument unless it is 1 or 4.
int param_channels(const ParamMap& params, std::string_view filter, int fallback);
// The "bits" parameter (8, the default, or 16) as a sample type, and the other parameters; throws
// std::invalid_argument for any other value.
std::pair<SampleType, ParamMap> sample_type_of(const ParamMap& params);

}  // namespace clf
