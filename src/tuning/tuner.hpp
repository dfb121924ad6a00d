// SPDX-License-Identifier: Apache-2.0
// The tuner: for each filter and parameter class, search the variants and their tunables (as each
// filter's spec states them), check every candidate against the CPU reference on a fresh input,
// time the correct ones, and store the fastest in the tuning database.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "clfilters/export.hpp"
#include "filters/filter_spec.hpp"
#include "tuning/db/tuning_db.hpp"

namespace CLF_API clf {

struct TuneOptions {
  int width = 1920;
  int height = 1080;
  double budget_seconds = 90;  // for the whole run, shared evenly by the (filter, class) units
  int warmup = 2;
  int timed_runs = 5;                 // the time of a candidate is the median of these
  std::size_t exhaustive_limit = 64;  // search every candidate when there are at most this many
  std::vector<ParamMap> cases;        // empty: the first bench case of each parameter class of each filter
  // At sizes up to call_tie_pixels the fastest kernels within call_tie of the best (at most call_ranked of them) are
  // ranked by the host wall time of a call instead (rank_near_ties_by_call; profiling off, median of 2 x call_runs, the
  // candidates interleaved): at 1080p the call is what a user waits on, and kernels that tie can differ by several us.
  double call_tie = 0.05;
  std::size_t call_ranked = 6;
  int call_runs = 41;
  double call_tie_pixels = 4e6;
};

struct CandidateResult {
  std::string variant;
  TuningConfig config;
  std::optional<double> kernel_ms;  // set when it ran, was correct and was timed
  std::string problem;              // why not: unsupported, build/launch failure, wrong result, budget
  std::optional<double> call_ms;    // set for the near-ties ranked by their call (TuneOptions::call_tie)
};

struct TuneReport {
  std::string filter;
  std::string param_class;
  ParamMap params;
  bool exhaustive = true;
  std::vector<CandidateResult> candidates;
  std::optional<TuningEntry> entry;  // what was stored
};

struct TuneProgress {
  std::string unit;  // "box-blur c4 d<=11"
  std::size_t done = 0, total = 0;
  double seconds_left = 0;
};

// The tuner's order after its must-try candidates, candidates[.. from]: reorders candidates[from ..], keeping their
// order otherwise, so that the variants in `winning` (those of the stored winners) come first, and within them and
// within the others the first candidate of each program build (build_key) comes before the rest, builds met earlier
// aside. A build costs ~1.3 s on NVIDIA's driver and a 1080p candidate's timing a few ms, so a short budget meets
// every program of the likely variants once, then their shapes with cached builds.
void order_untried(std::vector<CandidateResult*>& candidates, std::size_t from, const std::set<std::string>& winning,
                   const std::function<std::string(const CandidateResult&)>& build_key);

// The tuner's order for storing, from `timed` sorted by kernel time: at sizes up to options.call_tie_pixels the first
// candidates (at most call_ranked) whose kernels are within call_tie of the fastest are timed by `time_calls`, which
// sets their call_ms, and reordered by it (stably; one with no call time last among them). On the H200 two 1080p box
// blur shapes whose kernels tied at 0.0135 ms took 23.1-27.0 and 27.7-30.2 us a call.
void rank_near_ties_by_call(std::vector<CandidateResult*>& timed, const TuneOptions& options,
                            const std::function<void(const std::vector<CandidateResult*>&)>& time_calls);

// Tunes `filters` (all when empty) on ctx's device and stores the winners in `db` (not saved).
std::vector<TuneReport> tune(Context& ctx, const std::vector<const FilterSpec*>& filters, const TuneOptions& options,
                             TuningDb& db, const std::function<void(const TuneProgress&)>& progress = {});

}  // namespace clf
