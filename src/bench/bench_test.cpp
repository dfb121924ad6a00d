// The benchmark harness's arithmetic and output formats (its timings are exercised by the smoke run).
#include <gtest/gtest.h>

#include "bench/bench.hpp"

namespace clf {
namespace {

TEST(BenchStats, MedianMinAndP90) {
  const Stats s = stats_of({5, 1, 4, 2, 3, 10, 9, 8, 7, 6});
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.p90, 9);
  EXPECT_DOUBLE_EQ(stats_of({3, 1, 2}).median, 2);
}

BenchReport sample_report() {
  BenchReport r;
  r.device = "Dev \"X\"";
  r.copy_gb_per_s = 100;
  BenchRow naive;
  naive.filter = "box-blur";
  naive.params = "diameter=9";
  naive.width = 64;
  naive.height = 48;
  naive.variant = naive.resolved = "naive";
  naive.status = "ok";
  naive.kernel_ms = {2, 1, 3};
  naive.speedup_vs_naive = 1;
  BenchRow fast = naive;
  fast.variant = fast.resolved = "block4x4";
  fast.kernel_ms = {0.5, 0.4, 0.6};
  fast.speedup_vs_naive = 4;
  BenchRow skipped = naive;
  skipped.variant = "two_pass";
  skipped.status = "skipped: two_pass needs an even diameter (got 9)";
  r.rows = {naive, fast, skipped};
  return r;
}

TEST(BenchFormats, CsvJsonTableAndPlot) {
  const BenchReport r = sample_report();
  const std::string csv = format_csv(r);
  EXPECT_NE(csv.find("\"Dev \"\"X\"\"\""), std::string::npos);  // quotes doubled
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);
  EXPECT_NE(format_json(r).find("\"speedup_vs_naive\": 4.0"), std::string::npos);
  EXPECT_NE(format_table(r).find("skipped: two_pass"), std::string::npos);
  const std::string svg = plot_svg(r);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("block4x4"), std::string::npos);
  EXPECT_EQ(svg.find("two_pass"), std::string::npos);  // skipped rows have no bar
}

}  // namespace
}  // namespace clf
