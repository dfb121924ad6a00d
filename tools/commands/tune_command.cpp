// SPDX-License-Identifier: Apache-2.0
// clfilters tune [FILTER...]: find the fastest correct variant per filter on this device and remember it.
#include <fmt/format.h>
#include <unistd.h>

#include "cli_common.hpp"
#include "tuning/tuner.hpp"

namespace clf::cli {
namespace {

std::string choice_text(const TunedChoice& c) {
  return fmt::format("{} ({:.3f} ms)", describe({c.variant, c.config, ""}), c.kernel_ms);
}

class TuneCommand : public Command {
 public:
  CLI::App* add_to(CLI::App& app) override {
    auto* cmd =
        app.add_subcommand("tune", "find and remember the fastest correct variant of each filter on this device");
    cmd->add_option("FILTER", filters_, "filters to tune (default: all)");
    cmd->add_option("--size", size_, "image size to tune at (its size class is stored)")->capture_default_str();
    cmd->add_option(
           "--budget", options_.budget_seconds,
           "seconds for the search beyond what every tune times (each variant's defaults, the stored winners and "
           "their one-step neighbours)")
        ->capture_default_str()
        ->check(kPositive);
    cmd->add_flag("--show", show_, "print this device's tuned choices and exit");
    cmd->add_flag("--reset", reset_, "forget this device's tuned choices (for FILTERs only, if given) and exit");
    cmd->add_flag("--verbose", verbose_, "list every candidate and why it was skipped");
    cmd->add_option("--device", device_, "OpenCL device (index or name substring)");
    cmd->add_option("--params", params_,
                    "tune one parameter set (its class) instead of each class the benchmark covers, e.g. "
                    "diameter=63,channels=4");
    return cmd;
  }

  int run() override {
    char x = 0, extra = 0;
    if (std::sscanf(size_.c_str(), "%d%c%d%c", &options_.width, &x, &options_.height, &extra) != 3 || x != 'x' ||
        options_.width < 1 || options_.height < 1)
      throw UsageError(fmt::format("bad --size '{}' (expected WxH)", size_));
    if (!params_.empty()) options_.cases = {parse_params_option(params_)};
    std::vector<const FilterSpec*> filters;
    for (const auto& n : filters_) {
      const FilterSpec* f = find_filter_spec(n);
      if (!f) throw UsageError(fmt::format("unknown filter '{}'", n));
      filters.push_back(f);
    }
    Context ctx(device_);
    TuningDb db = TuningDb::load();
    const DeviceInfo& d = ctx.info();
    auto mine = [&](const TuningEntry& e) {
      if (e.vendor != d.vendor || e.device != d.name || e.driver != d.driver_version) return false;
      return filters_.empty() || std::find(filters_.begin(), filters_.end(), e.filter) != filters_.end();
    };
    if (reset_) {
      // Under the database's lock, from its current contents: a tune running beside this keeps its entries.
      TuningDb::update(tuning_db_path(), [&](TuningDb& current) {
        const std::vector<TuningEntry> all = current.entries();
        current.reset();
        for (const auto& e : all)
          if (!mine(e)) current.put(e);
      });
      fmt::print("forgot the tuned choices for {} in {}\n", d.name, tuning_db_path());
      return 0;
    }
    if (show_) {
      fmt::print("Tuned choices for {} (driver {}) in {}:\n", d.name, d.driver_version, tuning_db_path());
      fmt::print("{:<12} {:<14} {:<9} {:<48} {}\n", "filter", "class", "size", "chosen", "runner-up");
      for (const auto& e : db.entries())
        if (mine(e))
          fmt::print("{:<12} {:<14} {:<9} {:<48} {}\n", e.filter, e.param_class, e.size_class, choice_text(e.best),
                     e.runner_up ? choice_text(*e.runner_up) : "-");
      return 0;
    }
    const bool tty = ::isatty(STDERR_FILENO);
    const auto reports = tune(ctx, filters, options_, db, [&](const TuneProgress& p) {
      if (tty)
        fmt::print(stderr, "\r\033[K{}: candidate {}/{}, about {:.0f} s left", p.unit, p.done + 1, p.total,
                   p.seconds_left);
    });
    if (tty) fmt::print(stderr, "\r\033[K");
    // This run's winners go into the database as it is now, under its lock: another tune that saved since this one
    // loaded keeps its entries.
    TuningDb::update(tuning_db_path(), [&](TuningDb& current) {
      for (const auto& r : reports)
        if (r.entry) current.put(*r.entry);
    });
    reload_tuning_db();
    fmt::print("Tuned on {} at {}x{} (size class {}); saved to {}\n", d.name, options_.width, options_.height,
               size_class(options_.width, options_.height), tuning_db_path());
    for (const auto& r : reports) {
      std::size_t timed = 0, rejected = 0;
      for (const auto& c : r.candidates) (c.kernel_ms ? timed : rejected)++;
      std::size_t call_ranked = 0;
      std::optional<double> best_call;
      for (const auto& c : r.candidates)
        if (c.call_ms) {
          ++call_ranked;
          if (r.entry && c.variant == r.entry->best.variant && c.config == r.entry->best.config) best_call = c.call_ms;
        }
      fmt::print("{:<12} {:<14} {}{}: {} timed, {} skipped{}\n", r.filter, r.param_class,
                 r.entry ? "best " + choice_text(r.entry->best) : "no correct candidate",
                 best_call
                     ? fmt::format(", call {:.1f} us, first of {} near-ties by call", *best_call * 1e3, call_ranked)
                     : "",
                 timed, rejected, r.exhaustive ? "" : " (budget reached: random subset)");
      for (const auto& c : r.candidates) {
        const bool failure = c.problem.starts_with("wrong") || c.problem.starts_with("failed");
        if (!c.kernel_ms && (verbose_ || failure))
          fmt::print("    {}: {}\n", describe({c.variant, c.config, ""}), c.problem);
      }
    }
    return 0;
  }

 private:
  TuneOptions options_;
  std::vector<std::string> filters_;
  std::string size_ = "1920x1080", device_, params_;
  bool show_ = false, reset_ = false, verbose_ = false;
};

const CommandRegistrar registrar(910, [] { return std::unique_ptr<Command>(new TuneCommand); });

}  // namespace
}  // namespace clf::cli
