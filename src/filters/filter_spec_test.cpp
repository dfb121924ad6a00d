// SPDX-License-Identifier: Apache-2.0
// Every registered filter through its FilterSpec: each variant with its default tunables on a few odd
// sizes, and every tunable combination on one small size, checked against the filter's reference.
// This is what the benchmark and the tuner rely on, so it holds for filters added later too.
#include "filters/filter_spec.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::test_context;

TEST(FilterSpecs, AreRegisteredWithUniqueNamesAndVariants) {
  ASSERT_FALSE(all_filter_specs().empty());
  std::set<std::string> names;
  for (const FilterSpec* f : all_filter_specs()) {
    EXPECT_TRUE(names.insert(f->name()).second) << f->name();
    EXPECT_FALSE(f->variants().empty()) << f->name();
    EXPECT_FALSE(f->bench_cases().empty()) << f->name();
    EXPECT_EQ(find_filter_spec(f->name()), f);
    std::set<std::string> variants;
    for (const auto& v : f->variants()) EXPECT_TRUE(variants.insert(v.name).second) << f->name() << " " << v.name;
  }
}

class EveryFilter : public ::testing::TestWithParam<const FilterSpec*> {};

TEST_P(EveryFilter, EveryVariantMatchesItsReferenceThroughTheSpec) {
  const FilterSpec& spec = *GetParam();
  for (auto [w, h] : {std::pair{1, 1}, {19, 7}, {70, 33}}) {
    const auto seed = testing::fresh_seed();
    auto instance = spec.instantiate(test_context(), w, h, spec.bench_cases().front(), seed);
    for (const auto& v : spec.variants()) {
      SCOPED_TRACE(fmt::format("{} {} {}x{} seed={}", spec.name(), v.name, w, h, seed));
      if (auto why = instance->unsupported(v.name, {})) continue;
      instance->enqueue(v.name, {});
      const auto diff = instance->check_output();
      EXPECT_FALSE(diff) << *diff;
    }
  }
}

// Each run checks every variant's defaults and a fresh random sample of about two of its other tunable
// combinations (CaseSample; all of them in the exhaustive twin): PoCL compiles a kernel once per work-group
// size, so a cold cache makes the full cross product cost minutes.
TEST_P(EveryFilter, TunableCombinationsTheTunerMayTryAreCorrectOrRefused) {
  const FilterSpec& spec = *GetParam();
  const auto seed = testing::fresh_seed();
  auto instance = spec.instantiate(test_context(), 37, 21, spec.bench_cases().front(), seed);
  for (const auto& v : spec.variants()) {
    const auto configs = all_configs(v);
    testing::CaseSample sample(2.0 / std::max<double>(1, double(configs.size()) - 1), seed);
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const TuningConfig& config = configs[i];
      if (i > 0 && !sample.take()) continue;
      SCOPED_TRACE(fmt::format("{} {} [{}] seed={}", spec.name(), v.name, to_string(config), seed));
      if (instance->unsupported(v.name, config)) continue;
      try {
        instance->enqueue(v.name, config);
      } catch (const ClError& e) {
        // A work-group above one kernel's own limit (registers) is refused at launch, plainly; the
        // tuner lists and skips such candidates.
        EXPECT_EQ(e.code(), CL_INVALID_WORK_GROUP_SIZE) << e.what();
        continue;
      }
      const auto diff = instance->check_output();
      EXPECT_FALSE(diff) << *diff;
    }
  }
}

TEST_P(EveryFilter, ReportsWorkAndRejectsUnknownParameters) {
  const FilterSpec& spec = *GetParam();
  auto instance = spec.instantiate(test_context(), 16, 8, spec.bench_cases().front(), testing::fresh_seed());
  EXPECT_EQ(instance->pixels(), 16u * 8u);
  EXPECT_GT(instance->bytes_moved(), 0u);
  ParamMap bad = spec.bench_cases().front();
  bad.emplace(std::string("no_such_parameter"), std::string("1"));
  EXPECT_THROW(spec.instantiate(test_context(), 16, 8, bad, 1), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(All, EveryFilter, ::testing::ValuesIn(all_filter_specs()), [](const auto& test) {
  std::string name = test.param->name();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

}  // namespace
}  // namespace clf
