// SPDX-License-Identifier: Apache-2.0
// clfilters bench [FILTER...]: every filter's variants timed the seeds' way (src/bench/bench.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include "bench/bench.hpp"
#include "clfilters/image_io.hpp"
#include "cli_common.hpp"

namespace clf::cli {
namespace {

std::vector<std::pair<int, int>> parse_sizes(const std::string& text) {
  std::vector<std::pair<int, int>> sizes;
  for (const std::string& item : split_commas(text)) {
    int w = 0, h = 0;
    char x = 0, extra = 0;
    if (std::sscanf(item.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || x != 'x' || w < 1 || h < 1)
      throw UsageError(fmt::format("bad size '{}' (expected WxH, e.g. 1920x1080)", item));
    sizes.emplace_back(w, h);
  }
  if (sizes.empty()) throw UsageError("--sizes needs at least one WxH");
  return sizes;
}

std::vector<const FilterSpec*> find_filters(const std::vector<std::string>& names) {
  std::vector<const FilterSpec*> out;
  for (const auto& n : names) {
    const FilterSpec* f = find_filter_spec(n);
    if (!f) {
      std::string known;
      for (const auto* s : all_filter_specs()) known += (known.empty() ? "" : ", ") + s->name();
      throw UsageError(fmt::format("unknown filter '{}' (known: {})", n, known));
    }
    out.push_back(f);
  }
  return out;
}

class BenchCommand : public Command {
 public:
  CLI::App* add_to(CLI::App& app) override {
    auto* cmd = app.add_subcommand("bench", "time every variant of the filters (warm-up, then timed runs)");
    cmd->add_option("FILTER", filters_, "filters to run (default: all)");
    cmd->add_option("--sizes", sizes_, "comma-separated WxH list")->capture_default_str();
    cmd->add_option(
           "--variants", variants_,
           "all | auto | comma-separated variant names, each optionally with tunables: unrolled[block_x=2,rows=4]")
        ->capture_default_str();
    cmd->add_option("--params", params_, "one parameter set for every filter given, e.g. diameter=31,channels=1");
    cmd->add_option("--warmup", options_.warmup, "warm-up runs")->capture_default_str()->check(kNonNegative);
    cmd->add_option("--runs", options_.runs, "timed runs (kernel time)")->capture_default_str()->check(kPositive);
    cmd->add_option("--total-runs", options_.total_runs, "timed host-to-host runs (total time)")
        ->capture_default_str()
        ->check(kPositive);
    cmd->add_option("--cpu-runs", options_.cpu_runs, "CPU reference runs per thread count (0: skip)")
        ->capture_default_str()
        ->check(kNonNegative);
    cmd->add_option("--max-seconds-per-row", options_.max_seconds_per_row,
                    "stop a slow variant's runs after this long (at least 3 timed runs)")
        ->capture_default_str()
        ->check(kPositive);
    cmd->add_option("--call-wait", options_.call_wait,
                    "how the timed synchronised call waits: finish (clFinish) or spin (flush, then poll the "
                    "last event)")
        ->transform(CLI::CheckedTransformer(
            std::map<std::string, WaitMode>{{"finish", WaitMode::finish}, {"spin", WaitMode::spin}}))
        ->capture_default_str();
    cmd->add_option("--format", format_, "table | json | csv")->capture_default_str();
    cmd->add_option("--out", out_, "write the results in --format to FILE (the table still goes to stdout)");
    cmd->add_option("--plot", plot_, "write an SVG bar chart of speedup over naive");
    cmd->add_option("--save-inputs", options_.save_inputs_dir,
                    "write each case's input to DIR as FILTER_PARAMS_WxH.npy, with its SHA-256 in the rows");
    cmd->add_flag("--unchecked", options_.unchecked,
                  "time a variant whose output differs from the reference instead of rejecting it, marked "
                  "UNCHECKED (for diagnostic builds through CLFILTERS_BUILD_OPTIONS)");
    cmd->add_option("--device", device_, "OpenCL device (index or name substring)");
    return cmd;
  }

  int run() override {
    if (format_ != "table" && format_ != "json" && format_ != "csv")
      throw UsageError(fmt::format("--format must be table, json or csv, got '{}'", format_));
    options_.filters = find_filters(filters_);
    options_.sizes = parse_sizes(sizes_);
    options_.variants = variants_;
    if (!params_.empty()) options_.cases = {parse_params_option(params_)};
    Context ctx(device_);
    const bool tty = ::isatty(STDERR_FILENO);
    BenchReport report = run_bench(ctx, options_, [&](const std::string& what) {
      if (tty) fmt::print(stderr, "\r\033[K{}", what);
    });
    if (tty) fmt::print(stderr, "\r\033[K");
    report.command = invocation();
    const std::string formatted = format_ == "json"  ? format_json(report)
                                  : format_ == "csv" ? format_csv(report)
                                                     : format_table(report);
    if (!out_.empty()) {
      write_file_atomically(out_, formatted.data(), formatted.size());
      fmt::print("{}", format_table(report));
    } else {
      fmt::print("{}", formatted);
    }
    if (!plot_.empty()) {
      const std::string svg = plot_svg(report);
      write_file_atomically(plot_, svg.data(), svg.size());
    }
    for (const auto& row : report.rows)
      if (row.status.starts_with("WRONG")) return kRuntimeError;  // a wrong result is never just a number
    return 0;
  }

 private:
  BenchOptions options_;
  std::vector<std::string> filters_;
  std::string sizes_ = "1920x1080", variants_ = "all", params_, format_ = "table", out_, plot_, device_;
};

const CommandRegistrar registrar(900, [] { return std::unique_ptr<Command>(new BenchCommand); });

}  // namespace
}  // namespace clf::cli
