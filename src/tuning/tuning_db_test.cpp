// SPDX-License-Identifier: Apache-2.0
// The tuning database: lookups and their fallbacks, atomic saves, corrupt files rebuilt with a warning.
#include "tuning/db/tuning_db.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "runtime/kernel_sources.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"
#include "tuning/tuner.hpp"

namespace clf {
namespace {
namespace fs = std::filesystem;

DeviceInfo device(const std::string& vendor, const std::string& name) {
  DeviceInfo d;
  d.vendor = vendor;
  d.name = name;
  d.driver_version = "1.0";
  return d;
}

TuningEntry entry(const DeviceInfo& d, const std::string& size, const std::string& variant, double ms) {
  return {d.vendor,
          d.name,
          d.driver_version,
          "box-blur",
          "c4 d<=11",
          "abc",
          size,
          {variant, {{"local_x", 16}}, ms},
          std::nullopt,
          "2026-11-22"};
}

// Tunes sobel's class of `params` at 40x24 with a budget that lets only the must-try candidates run, and checks that
// the budget did stop some (so only the ordering ran the must-try ones); the candidates.
std::vector<CandidateResult> tune_must_try_only(Context& ctx, const FilterSpec* sobel, const ParamMap& params,
                                                TuningDb& db) {
  TuneOptions options;
  options.width = 40;
  options.height = 24;
  options.budget_seconds = 1e-6;
  options.cases = {params};
  auto reports = tune(ctx, {sobel}, options, db);
  if (reports.size() != 1) {
    ADD_FAILURE() << reports.size() << " reports";
    return {};
  }
  EXPECT_TRUE(std::any_of(reports[0].candidates.begin(), reports[0].candidates.end(),
                          [](const CandidateResult& c) { return c.problem == "not tried: budget spent"; }));
  return std::move(reports[0].candidates);
}

bool timed(const std::vector<CandidateResult>& candidates, const std::string& variant, const TuningConfig& config) {
  return std::any_of(candidates.begin(), candidates.end(), [&](const CandidateResult& c) {
    return c.variant == variant && c.config == config && c.kernel_ms.has_value();
  });
}

// Every configuration of `v` but its defaults that `instance` supports: the stored winners the must-try tests draw.
std::vector<TuningConfig> supported_non_default_configs(const FilterInstance& instance, const VariantInfo& v) {
  const auto configs = all_configs(v);
  std::vector<TuningConfig> out;
  for (const auto& config : configs)
    if (config != configs.front() && !instance.unsupported(v.name, config)) out.push_back(config);
  return out;
}

// What auto takes from `db` alone (no shipped database).
std::optional<TunedChoice> lookup(const TuningDb& db, const DeviceInfo& d, const std::string& filter,
                                  const std::string& param_class, const std::string& source, const std::string& size) {
  static const TuningDb none = TuningDb::load("/nonexistent/clfilters-tuning.json");
  return lookup_tuned(db, none, d, filter, param_class, source, size);
}

class TuningDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("clf-tuning-" + std::to_string(testing::fresh_seed() % 1000000));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;

  // Sobel's first benchmark case as a 40x24 problem on `ctx` (no spec where Sobel is not registered).
  struct SobelProblem {
    const FilterSpec* spec;
    ParamMap params;
    std::unique_ptr<FilterInstance> instance;
  };
  static SobelProblem sobel_problem(Context& ctx) {
    const FilterSpec* sobel = find_filter_spec("sobel");
    if (!sobel) return {nullptr, {}, nullptr};
    ParamMap params = sobel->bench_cases().front();
    auto instance = sobel->instantiate(ctx, 40, 24, params, 1);
    return {sobel, std::move(params), std::move(instance)};
  }
};

TEST_F(TuningDbTest, SizeClassesAreOrdered) {
  EXPECT_EQ(size_class(320, 240), "<=0.3MP");
  EXPECT_EQ(size_class(640, 480), "<=1MP");
  EXPECT_EQ(size_class(1920, 1080), "<=4MP");
  EXPECT_EQ(size_class(8192, 8192), ">16MP");
  EXPECT_LT(size_class_rank(size_class(640, 480)), size_class_rank(size_class(3264, 2448)));
}

TEST_F(TuningDbTest, LookupFallsBackFromExactToNearestSizeToVendor) {
  const auto h200 = device("NVIDIA", "H200"), h100 = device("NVIDIA", "H100"), amd = device("AMD", "MI300");
  TuningDb db = TuningDb::load((dir_ / "db.json").string());
  db.put(entry(h200, "<=4MP", "block4x4", 1.0));
  db.put(entry(h200, ">16MP", "separable_sliding", 2.0));
  db.put(entry(h100, "<=1MP", "naive", 3.0));
  auto hit = [&](const DeviceInfo& d, const std::string& size) {
    auto c = lookup(db, d, "box-blur", "c4 d<=11", "abc", size);
    return c ? c->variant : std::string("none");
  };
  EXPECT_EQ(hit(h200, "<=4MP"), "block4x4");                      // exact
  EXPECT_EQ(hit(h200, "<=16MP"), "block4x4");                     // nearest size class of this device (tie: first)
  EXPECT_EQ(hit(h200, ">16MP"), "separable_sliding");             // exact
  EXPECT_EQ(hit(h100, "<=0.3MP"), "naive");                       // this device's nearest
  EXPECT_EQ(hit(device("NVIDIA", "A100"), "<=4MP"), "block4x4");  // vendor default, nearest size
  EXPECT_EQ(hit(amd, "<=4MP"), "none");                           // nothing for this vendor: built-in rule
  EXPECT_FALSE(lookup(db, h200, "box-blur", "c4 d<=11", "other-source", "<=4MP"));  // kernel changed
  // An entry under the whole file's key (also_hash) answers as this source's.
  EXPECT_EQ(lookup_tuned(db, TuningDb(), h200, "box-blur", "c4 d<=11", "gpu-key", "<=4MP", "abc")->variant, "block4x4");
  EXPECT_FALSE(lookup_tuned(db, TuningDb(), h200, "box-blur", "c4 d<=11", "gpu-key", "<=4MP", "other"));
  EXPECT_FALSE(lookup(db, h200, "box-blur", "c1 d<=3", "abc", "<=4MP"));  // other parameter class
  db.put(entry(h200, "<=4MP", "two_pass", 0.5));                          // same key: replaced
  EXPECT_EQ(hit(h200, "<=4MP"), "two_pass");
  EXPECT_EQ(db.entries().size(), 3u);
}

TEST_F(TuningDbTest, AutoTakesTheUsersDeviceThenShippedDeviceThenUsersVendorThenShippedVendor) {
  const auto h200 = device("NVIDIA", "H200"), a100 = device("NVIDIA", "A100");
  TuningDb user = TuningDb::load((dir_ / "user.json").string());
  TuningDb shipped = TuningDb::load((dir_ / "none.json").string());
  auto hit = [&] {
    auto c = lookup_tuned(user, shipped, h200, "box-blur", "c4 d<=11", "abc", "<=4MP");
    return c ? c->variant + (c->shipped ? " shipped" : " user") : std::string("none");
  };
  EXPECT_EQ(hit(), "none");
  shipped.put(entry(a100, "<=4MP", "naive", 4.0));
  EXPECT_EQ(hit(), "naive shipped");  // the shipped database's entry for another device of the vendor
  user.put(entry(a100, "<=4MP", "block4x4", 3.0));
  EXPECT_EQ(hit(), "block4x4 user");  // the user's for another device of the vendor first
  auto other_driver = entry(h200, ">16MP", "two_pass", 2.0);
  other_driver.driver = "0.9";
  shipped.put(other_driver);
  EXPECT_EQ(hit(), "two_pass shipped");  // this device, whatever its driver and size class, before the vendor's
  user.put(entry(h200, "<=0.3MP", "separable_sliding", 1.0));
  EXPECT_EQ(hit(), "separable_sliding user");  // the user's entry for this device before everything
}

// The shipped database is read from the binary, and its GPU entries are for the kernels as they are: an edit of a
// kernel's GPU code must come with a re-tune (bench/run-gpu.sh OUT build,tune) or auto loses its shipped choices.
// Their keys leave out the CPU variants' files (and 16-bit forms, but for " u16" classes), so editing those keeps
// them.
TEST_F(TuningDbTest, ShippedGpuEntriesMatchTheCurrentKernels) {
  const TuningDb shipped = TuningDb::shipped();
  std::map<std::string, std::string> file_of_filter;
  for (const FilterSpec* spec : all_filter_specs()) file_of_filter[spec->name()] = spec->kernel_file();
  int h200 = 0;
  for (const TuningEntry& e : shipped.entries()) {
    ASSERT_TRUE(file_of_filter.count(e.filter)) << e.filter;
    ASSERT_EQ(e.vendor, "NVIDIA Corporation") << "only GPU entries are shipped";
    h200 += e.device == "NVIDIA H200";
    const CodeKeyScope gpu{.cpu_files = false, .sixteen_bit = e.param_class.ends_with(" u16")};
    EXPECT_EQ(e.source_hash, fmt::format("{:016x}", kernel_code_hash(file_of_filter[e.filter], gpu)))
        << e.device << ": " << e.filter << " " << e.param_class << " " << e.size_class;
  }
  EXPECT_GT(h200, 20);
}

TEST_F(TuningDbTest, SavesAtomicallyAndReloads) {
  const auto path = (dir_ / "sub" / "db.json").string();
  TuningDb db = TuningDb::load(path);
  auto e = entry(device("Intel", "Arc"), "<=1MP", "block4x4", 1.25);
  e.runner_up = TunedChoice{"naive", {}, 9.5};
  db.put(e);
  db.save();
  const TuningDb again = TuningDb::load(path);
  ASSERT_EQ(again.entries().size(), 1u);
  EXPECT_EQ(again.entries()[0].best.config.at("local_x"), 16);
  EXPECT_DOUBLE_EQ(again.entries()[0].runner_up->kernel_ms, 9.5);
  for (const auto& f : fs::directory_iterator(dir_ / "sub"))  // no temp files; the lock file stays
    EXPECT_TRUE(f.path().filename() == "db.json" || f.path().filename() == "db.json.lock") << f.path();
}

TEST_F(TuningDbTest, CorruptOrOldFilesAreRebuiltNotFatal) {
  for (const std::string text :
       {"{not json", R"({"format_version": 0, "entries": []})", R"({"format_version": 3, "entries": []})",
        R"({"format_version": 1, "entries": [{"vendor": 3}]})", R"({"format_version": 1e10, "entries": []})",
        R"({"format_version": 4294967298, "entries": []})"}) {
    const auto path = (dir_ / "db.json").string();
    std::ofstream(path) << text;
    ::testing::internal::CaptureStderr();
    TuningDb db = TuningDb::load(path);
    const std::string warning = ::testing::internal::GetCapturedStderr();
    EXPECT_TRUE(db.entries().empty());
    EXPECT_NE(warning.find("warning"), std::string::npos) << text;
    EXPECT_TRUE(fs::exists(path + ".corrupt"));
    db.put(entry(device("NVIDIA", "H200"), "<=4MP", "naive", 1));
    db.save();
    EXPECT_EQ(TuningDb::load(path).entries().size(), 1u);
    fs::remove(path + ".corrupt");
  }
}

// Version 1 keyed entries by the hash of the kernel's whole text. Loading one moves the entries of a kernel
// whose text is unchanged to today's key, and leaves those of an edited kernel as they were.
TEST_F(TuningDbTest, Version1EntriesOfAnUnchangedKernelKeepTheirTuning) {
  const std::string whole_text_key = fmt::format("{:016x}", fnv1a64(full_kernel_source("sobel.cl")));
  const std::string code_key = fmt::format("{:016x}", fnv1a64(kernel_code(full_kernel_source("sobel.cl"))));
  ASSERT_NE(whole_text_key, code_key);
  const auto path = (dir_ / "v1.json").string();
  const std::string v1_entry = R"({"vendor": "NVIDIA", "device": "H200", "driver": "1.0", "filter": "sobel",
      "param_class": "magnitude", "source_hash": "KEY", "size_class": ">16MP",
      "best": {"variant": "strip", "config": "rows=4", "kernel_ms": 0.057}, "runner_up": null, "tuned_at": "2026-11-24"})";
  auto with_key = [&](const std::string& key, const std::string& param_class) {
    std::string e = v1_entry;
    e.replace(e.find("KEY"), 3, key);
    e.replace(e.find("magnitude"), 9, param_class);
    return e;
  };
  std::ofstream(path) << R"({"format_version": 1, "entries": [)" << with_key(whole_text_key, "magnitude") << ", "
                      << with_key("0123456789abcdef", "l1") << "]}";
  TuningDb db = TuningDb::load(path);
  ASSERT_EQ(db.entries().size(), 2u);
  EXPECT_EQ(db.entries()[0].source_hash, code_key);
  EXPECT_EQ(db.entries()[1].source_hash, "0123456789abcdef");
  Context ctx;
  EXPECT_EQ(kernel_source_key(ctx, "sobel.cl", "magnitude"), code_key);
  const auto found = lookup(db, device("NVIDIA", "H200"), "sobel", "magnitude", code_key, ">16MP");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->config.at("rows"), 4);
  db.save();  // as version 2, which keeps the keys as they are
  EXPECT_NE(testing::read_file(path).find("\"format_version\": 2"), std::string::npos);
  const TuningDb again = TuningDb::load(path);
  ASSERT_EQ(again.entries().size(), 2u);
  EXPECT_EQ(again.entries()[0].source_hash, code_key);
}

TEST_F(TuningDbTest, TunerStoresTheFastestCorrectCandidateAndAutoUsesIt) {
  const auto path = (dir_ / "tuned.json").string();
  ::setenv("CLFILTERS_TUNING_DB", path.c_str(), 1);
  Context ctx;
  const FilterSpec* box = find_filter_spec("box-blur");
  ASSERT_NE(box, nullptr);
  TuningDb db = TuningDb::load(path);
  TuneOptions options;
  options.width = 48;
  options.height = 32;
  options.budget_seconds = 10;
  const auto reports = tune(ctx, {box}, options, db);
  ASSERT_FALSE(reports.empty());
  for (const auto& r : reports) {
    ASSERT_TRUE(r.entry) << r.param_class;
    // At this size the stored winner is, of the timed (so checked) candidates whose kernels are within call_tie of the
    // fastest, the one with the fastest call; every candidate with a call time is such a near-tie, and the winner and
    // runner-up are two of them when there are two.
    double fastest = INFINITY;
    for (const auto& c : r.candidates)
      if (c.kernel_ms) fastest = std::min(fastest, *c.kernel_ms);
    EXPECT_LE(r.entry->best.kernel_ms, fastest * (1 + options.call_tie)) << r.param_class;
    std::vector<const CandidateResult*> ranked;
    for (const auto& c : r.candidates)
      if (c.call_ms) {
        ASSERT_TRUE(c.kernel_ms);
        EXPECT_LE(*c.kernel_ms, fastest * (1 + options.call_tie));
        ranked.push_back(&c);
      }
    if (ranked.size() < 2) {
      EXPECT_EQ(r.entry->best.kernel_ms, fastest) << r.param_class;
      continue;
    }
    EXPECT_LE(ranked.size(), options.call_ranked);
    std::sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) { return *a->call_ms < *b->call_ms; });
    const auto call_of = [&](const TunedChoice& k) {
      for (const auto* c : ranked)
        if (c->variant == k.variant && c->config == k.config) return *c->call_ms;
      ADD_FAILURE() << describe({k.variant, k.config, ""}) << " is not among the near-ties";
      return -1.0;
    };
    EXPECT_EQ(call_of(r.entry->best), *ranked[0]->call_ms) << r.param_class;
    ASSERT_TRUE(r.entry->runner_up);
    EXPECT_EQ(call_of(*r.entry->runner_up), *ranked[1]->call_ms) << r.param_class;
  }
  db.save();
  reload_tuning_db();
  auto instance = box->instantiate(ctx, 48, 32, box->bench_cases().front(), 1);
  const auto& first = reports.front().entry->best;
  EXPECT_EQ(instance->auto_variant(), describe({first.variant, first.config, ""}));
  ::unsetenv("CLFILTERS_TUNING_DB");
  reload_tuning_db();
}

// TuneOptions::cases (clfilters tune --params): only that parameter set's class is tuned and stored.
TEST_F(TuningDbTest, TunerTunesOnlyTheGivenParameterSet) {
  const auto path = (dir_ / "params.json").string();
  Context ctx;
  const FilterSpec* sobel = find_filter_spec("sobel");
  ASSERT_NE(sobel, nullptr);
  const ParamMap params = {{"output", "l1"}};
  ASSERT_NE(sobel->param_class(params), sobel->param_class(sobel->bench_cases().front()));
  TuningDb db = TuningDb::load(path);
  TuneOptions options;
  options.width = 40;
  options.height = 24;
  options.budget_seconds = 1;
  options.cases = {params};
  const auto reports = tune(ctx, {sobel}, options, db);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].param_class, sobel->param_class(params));
  ASSERT_TRUE(reports[0].entry);
  ASSERT_EQ(db.entries().size(), 1u);
  EXPECT_EQ(db.entries().front().param_class, sobel->param_class(params));
}

// Known winners (the same class on another device of this vendor, or of another version of the kernel)
// are tried right after the defaults, even when the budget stops everything else; a winner stored before a
// tunable was added is matched with that tunable at its default.
TEST_F(TuningDbTest, TunerTriesKnownWinnersBeforeTheBudgetStopsIt) {
  Context ctx;
  const auto [sobel, params, instance] = sobel_problem(ctx);
  ASSERT_NE(sobel, nullptr);
  // A supported configuration that is not a variant's defaults but has one tunable at its default (the
  // last such of the last variant with several tunables): stored without that tunable, it is a winner
  // from before the tunable existed.
  std::optional<TunedChoice> known;
  std::string added_since;
  for (const auto& v : sobel->variants())
    for (const auto& config : supported_non_default_configs(*instance, v))
      for (const auto& t : v.tunables)
        if (config.at(t.name) == t.values.front()) {
          known = {v.name, config, 0.5};
          added_since = t.name;
        }
  ASSERT_TRUE(known);
  const DeviceInfo& here = ctx.info();
  const std::string hash = kernel_source_key(ctx, sobel->kernel_file(), sobel->param_class(params));
  for (const int source : {0, 1, 2}) {
    const std::string entry_hash = source == 0 ? hash : "0123456789abcdef";
    TunedChoice stored = *known;
    if (source == 2) stored.config.erase(added_since);
    SCOPED_TRACE(source == 0   ? "this kernel source"
                 : source == 1 ? "an earlier kernel source"
                               : "an earlier kernel source without " + added_since);
    TuningDb db = TuningDb::load((dir_ / fmt::format("known-{}.json", source)).string());
    db.put({here.vendor, here.name + " (a relative)", here.driver_version, "sobel", sobel->param_class(params),
            entry_hash, ">16MP", stored, std::nullopt, "2026-11-24"});
    EXPECT_TRUE(timed(tune_must_try_only(ctx, sobel, params, db), known->variant, known->config));
  }
}

// The configurations one tunable away from the nearest entry's best (and runner-up) come next, before the budget can
// stop the search: with a budget that lets nothing else run, a neighbour of the stored winner is timed.
TEST_F(TuningDbTest, TunerTriesTheNearestWinnersNeighboursBeforeTheBudgetStopsIt) {
  Context ctx;
  const auto [sobel, params, instance] = sobel_problem(ctx);
  ASSERT_NE(sobel, nullptr);
  // Two supported configurations of one variant, neither its defaults, that differ in one tunable.
  std::optional<TunedChoice> known;
  TuningConfig neighbour;
  for (const auto& v : sobel->variants()) {
    const auto candidates = supported_non_default_configs(*instance, v);
    for (const auto& a : candidates)
      for (const auto& b : candidates) {
        int differ = 0;
        for (const auto& [name, value] : a) differ += b.at(name) != value;
        if (differ == 1) known = {v.name, a, 0.5}, neighbour = b;
      }
  }
  ASSERT_TRUE(known);
  const DeviceInfo& here = ctx.info();
  TuningDb db = TuningDb::load((dir_ / "neighbours.json").string());
  db.put({here.vendor, here.name, here.driver_version, "sobel", sobel->param_class(params),
          kernel_source_key(ctx, sobel->kernel_file(), sobel->param_class(params)), ">16MP", *known, std::nullopt,
          "2026-11-27"});
  EXPECT_TRUE(timed(tune_must_try_only(ctx, sobel, params, db), known->variant, neighbour)) << to_string(neighbour);
}

// Near-ties at small sizes are stored in the order of their calls; kernels further off, large sizes and ties whose
// calls failed keep the kernel order. The call times here are made up, the slowest kernel's call the fastest.
TEST(TunerOrder, NearTiesAtSmallSizesByTheirCall) {
  std::vector<CandidateResult> all;
  for (double ms : {1.00, 1.02, 1.04, 1.20, 1.30})
    all.push_back({"v", {{"k", int(std::lround(ms * 100))}}, ms, "", std::nullopt});
  const auto order = [&](const TuneOptions& options, std::optional<double> failed_call) {
    for (auto& c : all) c.call_ms.reset();
    std::vector<CandidateResult*> timed;
    for (auto& c : all) timed.push_back(&c);
    std::vector<int> asked;
    rank_near_ties_by_call(timed, options, [&](const std::vector<CandidateResult*>& near) {
      for (CandidateResult* c : near) {
        asked.push_back(c->config.at("k"));
        if (!failed_call || *c->kernel_ms != *failed_call) c->call_ms = 10.0 - *c->kernel_ms;
      }
    });
    std::vector<int> keys;
    for (const CandidateResult* c : timed) keys.push_back(c->config.at("k"));
    return std::pair{asked, keys};
  };
  TuneOptions small;  // 1920x1080 by default; call_tie 5%
  EXPECT_EQ(order(small, std::nullopt), (std::pair{std::vector{100, 102, 104}, std::vector{104, 102, 100, 120, 130}}));
  small.call_ranked = 2;
  EXPECT_EQ(order(small, std::nullopt), (std::pair{std::vector{100, 102}, std::vector{102, 100, 104, 120, 130}}));
  small.call_ranked = 6;
  EXPECT_EQ(order(small, 1.02), (std::pair{std::vector{100, 102, 104}, std::vector{104, 100, 102, 120, 130}}));
  TuneOptions large = small;
  large.width = large.height = 8192;
  EXPECT_EQ(order(large, std::nullopt), (std::pair{std::vector<int>{}, std::vector{100, 102, 104, 120, 130}}));
  small.call_tie = 0.01;
  EXPECT_EQ(order(small, std::nullopt), (std::pair{std::vector<int>{}, std::vector{100, 102, 104, 120, 130}}));
}

// After the must-try candidates the tuner takes the stored winners' variants first, and within them and the others one
// candidate of each program build before the rest: builds cost far more than timings, so a short budget meets every
// likely program once before it spends time on cached ones.
TEST(TunerOrder, WinnersVariantsThenOneCandidateOfEachBuildFirst) {
  std::vector<CandidateResult> all;
  for (const char* name : {"a0", "b0", "a1", "b1", "c0", "a2", "c1", "d0", "c2"})
    all.push_back({std::string(1, name[0]), {{"n", name[1] - '0'}}, std::nullopt, "", std::nullopt});
  std::vector<CandidateResult*> order;
  for (auto& c : all) order.push_back(&c);
  // One build per letter but c2's own; a0 is a must-try candidate, so a's build counts as met; c is a winner's variant.
  order_untried(order, 1, {"c"}, [](const CandidateResult& c) {
    return c.variant + (c.variant == "c" && c.config.at("n") == 2 ? "'" : "");
  });
  std::vector<std::string> got;
  for (const CandidateResult* c : order) got.push_back(c->variant + std::to_string(c->config.at("n")));
  EXPECT_EQ(got, (std::vector<std::string>{"a0", "c0", "c2", "c1", "b0", "d0", "a1", "b1", "a2"}));
}

// An entry of another kernel source never answers lookup_tuned(), and ranked() gives it only when asked, after
// every entry of this source, however near its device and size class.
TEST_F(TuningDbTest, OtherKernelSourcesRankLastAndOnlyWhenAsked) {
  Context ctx;
  const DeviceInfo& here = ctx.info();
  TuningDb db = TuningDb::load((dir_ / "sources.json").string());
  const TunedChoice old_best{"strip", {{"rows", 8}}, 0.5}, new_best{"row_tile", {{"rows", 4}}, 0.7};
  db.put({here.vendor, here.name, here.driver_version, "sobel", "c", "old", ">16MP", old_best, std::nullopt,
          "2026-11-23"});
  db.put({here.vendor, here.name + " (a relative)", here.driver_version, "sobel", "c", "new", "<=4MP", new_best,
          std::nullopt, "2026-11-24"});
  const auto same = db.ranked(here, "sobel", "c", "new", ">16MP");
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0]->best.variant, "row_tile");
  const auto all = db.ranked(here, "sobel", "c", "new", ">16MP", true);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]->source_hash, "new");
  EXPECT_EQ(all[1]->source_hash, "old");
  const auto found = lookup(db, here, "sobel", "c", "new", ">16MP");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->variant, "row_tile");
  EXPECT_FALSE(lookup(db, here, "sobel", "c", "unknown", ">16MP"));
}

}  // namespace
}  // namespace clf
