// SPDX-License-Identifier: Apache-2.0
#include "tuning/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <random>
#include <set>

#include "clfilters/device_image.hpp"

namespace clf {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

// The size candidates are checked at: large enough for every code path (interior blocks, all four
// borders, partial vector groups), small enough that the CPU reference costs little at any tuning size.
constexpr int kCheckWidth = 131, kCheckHeight = 67;

// Runs one candidate: first on `check` (a fresh, small input) against the CPU reference, then warm-up
// and timed calls on `timed` at the tuning size. Candidates whose first timed call is already far
// slower than the best so far are not timed further: they cannot win, and some take seconds a call.
void run_candidate(FilterInstance& check, FilterInstance& timed, CandidateResult& c, const TuneOptions& options,
                   std::optional<double> best_ms) {
  try {
    kernel_milliseconds(check.enqueue(c.variant, c.config));
    if (auto diff = check.check_output()) {
      c.problem = "wrong result: " + *diff;
      return;
    }
    const double first = kernel_milliseconds(timed.enqueue(c.variant, c.config));
    if (best_ms && first > 10 * *best_ms) {
      c.problem = fmt::format("first run {:.3f} ms, over 10x the best so far; not timed further", first);
      return;
    }
    for (int i = 0; i < options.warmup; ++i) kernel_milliseconds(timed.enqueue(c.variant, c.config));
    std::vector<double> times;
    for (int i = 0; i < std::max(options.timed_runs, 5); ++i)
      times.push_back(kernel_milliseconds(timed.enqueue(c.variant, c.config)));
    c.kernel_ms = median(times);
  } catch (const ClError& e) {
    c.problem = fmt::format("failed: {}", e.what());
    if (auto nl = c.problem.find('\n'); nl != std::string::npos) c.problem.resize(nl);  // keep the build log out
  } catch (const std::exception& e) {
    c.problem = fmt::format("failed: {}", e.what());
  }
}

// The host wall time of one call of each candidate, profiling off, enqueue to completion (the bench's call column): the
// median of two rounds of `runs` calls after a few warm-ups, the candidates taken in turn and the second round in
// reverse order, so that a drift of the host's speed reaches them alike. A candidate whose call fails keeps no time.
void time_calls(Context& ctx, FilterInstance& timed, const std::vector<CandidateResult*>& candidates, int runs) {
  std::map<CandidateResult*, std::vector<double>> samples;
  std::set<CandidateResult*> failed;
  const ProfilingOff plain(ctx);
  for (int round = 0; round < 2; ++round)
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      CandidateResult* c = candidates[round ? candidates.size() - 1 - k : k];
      if (failed.count(c)) continue;
      try {
        for (int i = 0; i < 3; ++i) wait_for(ctx, timed.enqueue(c->variant, c->config), WaitMode::spin);
        for (int i = 0; i < runs; ++i) {
          const auto t = Clock::now();
          wait_for(ctx, timed.enqueue(c->variant, c->config), WaitMode::spin);
          samples[c].push_back(seconds_since(t) * 1e3);
        }
      } catch (const std::exception&) {
        failed.insert(c);
      }
    }
  for (auto& [c, times] : samples)
    if (!failed.count(c)) c->call_ms = median(times);
}

// The configurations that won this filter and class before (TuningDb::ranked's entries, nearest
// first): each entry's best and runner-up.
std::vector<TunedChoice> known_winners(const std::vector<const TuningEntry*>& entries) {
  std::vector<TunedChoice> out;
  for (const TuningEntry* e : entries) {
    out.push_back(e->best);
    if (e->runner_up) out.push_back(*e->runner_up);
  }
  return out;
}

// Whether two configurations of one variant (the same tunables) differ in exactly one value.
bool one_tunable_apart(const TuningConfig& a, const TuningConfig& b) {
  int differ = 0;
  for (const auto& [name, value] : a) {
    const auto it = b.find(name);
    differ += it == b.end() || it->second != value;
  }
  return differ == 1;
}

}  // namespace

void order_untried(std::vector<CandidateResult*>& candidates, std::size_t from, const std::set<std::string>& winning,
                   const std::function<std::string(const CandidateResult&)>& build_key) {
  const auto tail = candidates.begin() + std::ptrdiff_t(from);
  const auto others = std::stable_partition(tail, candidates.end(),
                                            [&](const CandidateResult* c) { return winning.count(c->variant) > 0; });
  std::set<std::string> built;
  for (auto it = candidates.begin(); it != tail; ++it) built.insert(build_key(**it));
  for (const auto& [first, last] : {std::pair{tail, others}, std::pair{others, candidates.end()}}) {
    std::set<const CandidateResult*> firsts;
    for (auto it = first; it != last; ++it)
      if (built.insert(build_key(**it)).second) firsts.insert(*it);
    std::stable_partition(first, last, [&](const CandidateResult* c) { return firsts.count(c) > 0; });
  }
}

void rank_near_ties_by_call(std::vector<CandidateResult*>& timed, const TuneOptions& options,
                            const std::function<void(const std::vector<CandidateResult*>&)>& time_calls) {
  if (timed.size() < 2 || double(options.width) * double(options.height) > options.call_tie_pixels) return;
  std::size_t ties = 1;
  while (ties < std::min(timed.size(), options.call_ranked) &&
         *timed[ties]->kernel_ms <= *timed[0]->kernel_ms * (1 + options.call_tie))
    ++ties;
  if (ties < 2) return;
  const auto end = timed.begin() + std::ptrdiff_t(ties);
  time_calls(std::vector<CandidateResult*>(timed.begin(), end));
  std::stable_sort(timed.begin(), end, [](const CandidateResult* a, const CandidateResult* b) {
    return a->call_ms.value_or(INFINITY) < b->call_ms.value_or(INFINITY);
  });
}

std::vector<TuneReport> tune(Context& ctx, const std::vector<const FilterSpec*>& filters, const TuneOptions& options,
                             TuningDb& db, const std::function<void(const TuneProgress&)>& progress) {
  struct Unit {
    const FilterSpec* spec;
    ParamMap params;
    std::string param_class;
  };
  std::vector<Unit> units;
  for (const FilterSpec* spec : filters.empty() ? all_filter_specs() : filters) {
    std::vector<std::string> seen;
    for (const auto& params : options.cases.empty() ? spec->bench_cases() : options.cases) {
      const std::string cls = spec->param_class(params);
      if (std::find(seen.begin(), seen.end(), cls) != seen.end()) continue;  // first case of each class
      seen.push_back(cls);
      units.push_back({spec, params, cls});
    }
  }

  const auto start = Clock::now();
  std::vector<TuneReport> reports;
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t u = 0; u < units.size(); ++u) {
    const Unit& unit = units[u];
    TuneReport report{unit.spec->name(), unit.param_class, unit.params, true, {}, std::nullopt};
    // Each unit gets an even share of what is left of the budget.
    const double unit_budget = (options.budget_seconds - seconds_since(start)) / double(units.size() - u);
    const auto unit_start = Clock::now();
    const std::string source_hash = kernel_source_key(ctx, unit.spec->kernel_file(), unit.param_class);
    auto instance = unit.spec->instantiate(ctx, options.width, options.height, unit.params, rng());
    auto check = unit.spec->instantiate(ctx, std::min(options.width, kCheckWidth),
                                        std::min(options.height, kCheckHeight), unit.params, rng());

    std::vector<CandidateResult> candidates;
    std::map<std::string, TuningConfig> defaults;  // each variant's first config: all tunables at default
    for (const auto& v : unit.spec->variants()) {
      const auto configs = all_configs(v);
      defaults[v.name] = configs.front();
      for (const auto& config : configs) candidates.push_back({v.name, config, std::nullopt, "", std::nullopt});
    }
    std::vector<CandidateResult*> runnable;
    for (auto& c : candidates) {
      if (auto why = instance->unsupported(c.variant, c.config))
        c.problem = "unsupported: " + *why;
      else
        runnable.push_back(&c);
    }
    // Every variant's defaults come first, the later (more optimised) variants of the spec first, so the
    // best variant is found early and slow baselines meet the 10x cut-off; the budget never stops these.
    // The other combinations follow, all of them when they are few, else in random order until the
    // budget is spent.
    if (runnable.size() > options.exhaustive_limit) std::shuffle(runnable.begin(), runnable.end(), rng);
    const auto first_tunables = std::stable_partition(
        runnable.begin(), runnable.end(), [&](const CandidateResult* c) { return c->config == defaults[c->variant]; });
    std::map<std::string, std::size_t> order;  // a variant's position in its spec
    for (const auto& v : unit.spec->variants()) order.emplace(v.name, order.size());
    std::sort(runnable.begin(), first_tunables, [&](const CandidateResult* a, const CandidateResult* b) {
      return order[a->variant] > order[b->variant];
    });
    // Then the known winners (known_winners): a new device's search starts from what is fast on its
    // relatives, and a re-tune measures the previous winner again, however small the budget. After them
    // the winners of earlier versions of the kernel: an edit seldom moves the best shape far, and without
    // them a short re-tune after one lost the grey bilateral's winner (1.226 against 1.209 ms on the H200).
    // A tunable added since a winner was stored takes its default there: that is what the winner ran.
    auto complete = [&](const TunedChoice& k) {
      TuningConfig config = k.config;
      if (auto d = defaults.find(k.variant); d != defaults.end()) config.insert(d->second.begin(), d->second.end());
      return config;
    };
    const auto entries = db.ranked(ctx.info(), unit.spec->name(), unit.param_class, source_hash,
                                   size_class(options.width, options.height), /*other_sources=*/true);
    const std::vector<TunedChoice> winners = known_winners(entries);
    auto known_end = first_tunables;
    for (const TunedChoice& k : winners) {
      const TuningConfig config = complete(k);
      const auto it = std::find_if(known_end, runnable.end(), [&](const CandidateResult* c) {
        return c->variant == k.variant && c->config == config;
      });
      if (it != runnable.end()) std::rotate(known_end, it, it + 1), ++known_end;
    }
    // Then every configuration one tunable away from the nearest entry's best or runner-up (on a re-tune, this
    // device's previous two), which the budget does not stop either: a kernel edit or a new tunable most often moves
    // the best shape by a step, and a short budget's random subset seldom meets it.
    if (!entries.empty()) {
      std::vector<TunedChoice> nearest = {entries.front()->best};
      if (entries.front()->runner_up) nearest.push_back(*entries.front()->runner_up);
      for (TunedChoice& k : nearest) k.config = complete(k);
      known_end = std::stable_partition(known_end, runnable.end(), [&](const CandidateResult* c) {
        return std::any_of(nearest.begin(), nearest.end(), [&](const TunedChoice& k) {
          return c->variant == k.variant && one_tunable_apart(c->config, k.config);
        });
      });
    }
    const std::size_t must_try = std::size_t(known_end - runnable.begin());
    // Then the rest in random order but for order_untried's: the stored winners' variants first, and one candidate of
    // each build before those whose builds are cached. In random order alone a 120-s 1080p re-tune on the H100 timed
    // 110 of 12346 box blur candidates, nearly each paying a build of its own.
    std::set<std::string> winning;
    for (const TunedChoice& k : winners) winning.insert(k.variant);
    order_untried(runnable, must_try, winning,
                  [&](const CandidateResult& c) { return instance->build_key(c.variant, c.config); });
    std::optional<double> best_ms;
    for (std::size_t i = 0; i < runnable.size(); ++i) {
      CandidateResult& c = *runnable[i];
      if (i >= must_try && seconds_since(unit_start) > unit_budget) {
        for (std::size_t j = i; j < runnable.size(); ++j) runnable[j]->problem = "not tried: budget spent";
        report.exhaustive = false;
        break;
      }
      if (progress)
        progress({fmt::format("{} {}", unit.spec->name(), unit.param_class), i, runnable.size(),
                  std::max(0.0, options.budget_seconds - seconds_since(start))});
      // The must-try candidates are timed in full: the 10x cut-off judges one first run, which a loaded machine can
      // slow by more than that, and it must not drop a known winner.
      run_candidate(*check, *instance, c, options, i < must_try ? std::nullopt : best_ms);
      if (c.kernel_ms && (!best_ms || *c.kernel_ms < *best_ms)) best_ms = c.kernel_ms;
    }

    std::vector<CandidateResult*> timed;
    for (auto& c : candidates)
      if (c.kernel_ms) timed.push_back(&c);
    std::sort(timed.begin(), timed.end(), [](auto* a, auto* b) { return *a->kernel_ms < *b->kernel_ms; });
    rank_near_ties_by_call(timed, options, [&](const std::vector<CandidateResult*>& near) {
      time_calls(ctx, *instance, near, options.call_runs);
    });
    if (!timed.empty()) {
      const DeviceInfo& d = ctx.info();
      TuningEntry entry{d.vendor,
                        d.name,
                        d.driver_version,
                        unit.spec->name(),
                        unit.param_class,
                        source_hash,
                        size_class(options.width, options.height),
                        {timed[0]->variant, timed[0]->config, *timed[0]->kernel_ms},
                        std::nullopt,
                        today()};
      if (timed.size() > 1) entry.runner_up = TunedChoice{timed[1]->variant, timed[1]->config, *timed[1]->kernel_ms};
      db.put(entry);
      report.entry = entry;
    }
    report.candidates = std::move(candidates);
    reports.push_back(std::move(report));
  }
  return reports;
}

}  // namespace clf
