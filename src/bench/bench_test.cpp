// SPDX-License-Identifier: Apache-2.0
// The benchmark harness's arithmetic and output formats (its timings are exercised by the smoke run).
#include "bench/bench.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <sstream>

#include "clfilters/image_io.hpp"
#include "common/synthetic_image.hpp"
#include "testing/test_files.hpp"

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
  fast.variant = fast.resolved = "block4x4[local_x=16,local_y=4]";  // a configured variant: commas inside
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
  // Every line has the header's number of fields (commas inside quotes do not count).
  std::istringstream lines(csv);
  std::vector<int> fields;
  for (std::string line; std::getline(lines, line);) {
    bool quoted = false;
    int n = 1;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) ++n;
    }
    fields.push_back(n);
  }
  EXPECT_EQ(std::count(fields.begin(), fields.end(), fields.front()), 4) << csv;
  EXPECT_NE(format_json(r).find("\"speedup_vs_naive\": 4.0"), std::string::npos);
  EXPECT_NE(format_table(r).find("skipped: two_pass"), std::string::npos);
  const std::string svg = plot_svg(r);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("block4x4"), std::string::npos);
  EXPECT_EQ(svg.find("two_pass"), std::string::npos);  // skipped rows have no bar
}

TEST(BenchSha256, KnownVectors) {
  // FIPS 180-4 examples: empty, one block, a message whose padding needs a second block, many blocks.
  EXPECT_EQ(sha256_hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(sha256_hex(two.data(), two.size()), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  EXPECT_EQ(sha256_hex(million.data(), million.size()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(SyntheticPhotoCapture, SeesWhatIsDrawnWhileItLives) {
  const Image outside = synthetic_photo(5, 3, 1, 1);
  SyntheticPhotoCapture capture;
  const Image a = synthetic_photo(7, 5, 4, 2);
  {
    SyntheticPhotoCapture inner;  // nested: the inner one takes it, the outer one is restored after
    synthetic_photo(3, 3, 1, 3);
    EXPECT_EQ(inner.images.size(), 1u);
  }
  const Image b = synthetic_photo(6, 2, 1, 4);
  ASSERT_EQ(capture.images.size(), 2u);
  EXPECT_EQ(capture.images[0].data, a.data);
  EXPECT_EQ(capture.images[1].data, b.data);
  (void)outside;
}

// --save-inputs: the saved .npy is the instance's input and its hash is in every row of the case.
// One RGBA box blur case of diameter d, timed once per row (these tests check rows, not speed).
BenchOptions one_box_blur_case(const FilterSpec& spec, int d, const std::string& variants) {
  BenchOptions options;
  options.filters = {&spec};
  options.variants = variants;
  ParamMap params;
  params.emplace("diameter", std::to_string(d));
  params.emplace("channels", "4");
  options.cases = {params};
  options.warmup = 0;
  options.runs = 1;
  options.total_runs = 1;
  options.cpu_runs = 0;
  return options;
}

TEST(BenchSaveInputs, WritesEachCaseInputWithItsHash) {
  const FilterSpec* spec = find_filter_spec("box-blur");
  if (!spec) GTEST_SKIP() << "box-blur is not in this build";
  const auto dir = std::filesystem::temp_directory_path() /
                   fmt::format("clf_bench_inputs_{}_{}", ::getpid(), std::random_device{}());
  Context ctx;
  BenchOptions options = one_box_blur_case(*spec, 3, "naive,auto");
  options.sizes = {{19, 7}, {8, 5}};
  options.save_inputs_dir = dir.string();
  const BenchReport report = run_bench(ctx, options);
  ASSERT_EQ(report.rows.size(), 4u);
  for (const auto& row : report.rows) {
    SCOPED_TRACE(row.variant);
    EXPECT_EQ(row.status, "ok");
    ASSERT_EQ(std::filesystem::path(row.input_file).filename().string(),
              fmt::format("box-blur_channels-4_diameter-3_{}x{}.npy", row.width, row.height));
    const Image saved = read_image(row.input_file);
    EXPECT_EQ(saved.width, row.width);
    EXPECT_EQ(saved.height, row.height);
    EXPECT_EQ(saved.channels, 4);
    EXPECT_EQ(sha256_hex(saved.data.data(), saved.data.size()), row.input_sha256);
  }
  EXPECT_EQ(report.rows[0].input_sha256, report.rows[1].input_sha256);  // one input per case
  EXPECT_NE(report.rows[0].input_sha256, report.rows[2].input_sha256);
  EXPECT_NE(format_json(report).find(report.rows[0].input_sha256), std::string::npos);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

// --variants NAME[k=v,...] times that configuration: a shape the device cannot launch is skipped with
// its reason (so the tunables reached the filter), a good one runs and checks; a missing ']' is an error.
TEST(BenchVariants, ExplicitTunablesReachTheFilter) {
  const FilterSpec* spec = find_filter_spec("box-blur");
  if (!spec) GTEST_SKIP() << "box-blur is not in this build";
  Context ctx;
  BenchOptions options =
      one_box_blur_case(*spec, 5, "local_tile[tile_x=8,tile_y=4],local_tile[tile_x=4096,tile_y=4096]");
  options.sizes = {{21, 9}};
  const BenchReport report = run_bench(ctx, options);
  ASSERT_EQ(report.rows.size(), 2u);
  EXPECT_EQ(report.rows[0].variant, "local_tile[tile_x=8,tile_y=4]");
  EXPECT_EQ(report.rows[0].status, "ok");
  EXPECT_EQ(report.rows[1].status.rfind("skipped: ", 0), 0u) << report.rows[1].status;
  options.variants = "local_tile[tile_x=8";
  EXPECT_THROW(run_bench(ctx, options), std::invalid_argument);
}

// A build option from the environment that makes box blur's naive kernel read RGBA as grey: the checked run
// rejects its output, the unchecked one times it under a marked label.
TEST(BenchVariants, UncheckedTimesAVariantWhoseOutputDiffers) {
  const FilterSpec* spec = find_filter_spec("box-blur");
  if (!spec) GTEST_SKIP() << "box-blur is not in this build";
  ScopedEnv wrong_channels("CLFILTERS_BUILD_OPTIONS", "-D CHANNELS=1");
  Context ctx;
  BenchOptions options = one_box_blur_case(*spec, 5, "naive");
  options.sizes = {{21, 9}};
  const BenchReport checked = run_bench(ctx, options);
  ASSERT_EQ(checked.rows.size(), 1u);
  EXPECT_EQ(checked.rows[0].status.rfind("WRONG: ", 0), 0u) << checked.rows[0].status;
  options.unchecked = true;
  const BenchReport unchecked = run_bench(ctx, options);
  ASSERT_EQ(unchecked.rows.size(), 1u);
  EXPECT_EQ(unchecked.rows[0].status, "ok");
  EXPECT_EQ(unchecked.rows[0].variant, "naive UNCHECKED");
  EXPECT_GT(unchecked.rows[0].kernel_ms.median, 0);
}

}  // namespace
}  // namespace clf
