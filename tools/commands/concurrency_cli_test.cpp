// SPDX-License-Identifier: Apache-2.0
// Several clfilters processes sharing one cold cache folder: eight filtering at once leave whole program-cache
// files and correct outputs, and two `clfilters tune` at once leave a database that holds both runs' entries.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "clfilters/box_blur.hpp"
#include "clfilters/image_io.hpp"
#include "runtime/program_cache_file.hpp"
#include "testing/cli_fixture.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {
namespace {
namespace fs = std::filesystem;

using testing::read_file;
using testing::run_shell;

class SharedCache : public testing::CliTest {
 protected:
  // The environment of every process: a fresh clfilters cache, and PoCL's own kernel cache where it was (PoCL
  // would otherwise follow XDG_CACHE_HOME and compile everything again; that cache is PoCL's, not under test).
  std::string environment() const {
    std::string pocl;
    if (const char* p = std::getenv("POCL_CACHE_DIR"); p && *p)
      pocl = p;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
      pocl = fmt::format("{}/pocl/kcache", x);
    else if (const char* h = std::getenv("HOME"); h && *h)
      pocl = fmt::format("{}/.cache/pocl/kcache", h);
    return fmt::format("XDG_CACHE_HOME='{}' POCL_CACHE_DIR='{}'", path("cache"), pocl);
  }

  // Runs `commands` at once in the background; returns their exit codes, in order, as "0 0 1 ...".
  std::string run_at_once(const std::vector<std::string>& commands) {
    std::string script;
    for (std::size_t i = 0; i < commands.size(); ++i)
      script += fmt::format("( {} > '{}' 2>&1; echo $? > '{}' ) &\n", commands[i], path(fmt::format("log{}", i)),
                            path(fmt::format("rc{}", i)));
    script += "wait\n";
    const CliResult r = run_shell(script);
    EXPECT_EQ(r.code, 0) << r.output;
    std::string codes;
    for (std::size_t i = 0; i < commands.size(); ++i) {
      std::string rc = read_file(path(fmt::format("rc{}", i)));
      if (!rc.empty() && rc.back() == '\n') rc.pop_back();
      codes += (i ? " " : "") + rc;
      if (rc != "0") ADD_FAILURE() << commands[i] << ":\n" << read_file(path(fmt::format("log{}", i)));
    }
    return codes;
  }
};

TEST_F(SharedCache, EightProcessesFilteringAtOnceLeaveWholeCacheFiles) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const Image input = testing::random_image(37, 23, 4, SampleType::u8, seed_);
  write_image(input, path("in.png"));
  std::vector<std::string> commands;
  for (int i = 0; i < 8; ++i)
    commands.push_back(fmt::format("{} CLFILTERS_NO_DISK_CACHE=0 {} box-blur '{}' '{}' --diameter 5", environment(),
                                   cli(), path("in.png"), path(fmt::format("out{}.png", i))));
  EXPECT_EQ(run_at_once(commands), "0 0 0 0 0 0 0 0");
  const Image expected = box_blur_reference(input, BoxBlurParams{.diameter = 5, .border = {}});
  for (int i = 0; i < 8; ++i)
    EXPECT_TRUE(testing::images_equal(expected, read_image(path(fmt::format("out{}.png", i)))));
  int binaries = 0;
  for (const auto& f : fs::directory_iterator(path("cache/clfilters/programs"))) {
    const std::string name = f.path().filename().string();
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << "a temporary file was left: " << name;
    if (f.path().extension() != ".bin") continue;
    ++binaries;
    const std::string bytes = read_file(f.path());
    EXPECT_TRUE(binary_from_program_cache_file({bytes.begin(), bytes.end()})) << name << " is not a whole cache file";
  }
  EXPECT_GE(binaries, 1);
  // A ninth process loads what the eight left.
  const CliResult r = run_shell(fmt::format("{} CLFILTERS_NO_DISK_CACHE=0 {} box-blur '{}' '{}' --diameter 5",
                                            environment(), cli(), path("in.png"), path("again.png")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(testing::images_equal(expected, read_image(path("again.png"))));
}

TEST_F(SharedCache, TwoTunesAtOnceKeepBothRunsEntries) {
  const std::string tune = fmt::format("{} {} tune --size 16x16 --budget 1", environment(), cli());
  EXPECT_EQ(run_at_once({tune + " matrix-add", tune + " dot-product"}), "0 0");
  const std::string db_path = path("cache/clfilters/tuning.json");
  EXPECT_FALSE(fs::exists(db_path + ".corrupt")) << "the database was unreadable";
  const TuningDb db = TuningDb::load(db_path);
  std::vector<std::string> filters;
  for (const auto& e : db.entries()) filters.push_back(e.filter);
  std::sort(filters.begin(), filters.end());
  EXPECT_EQ(filters, (std::vector<std::string>{"dot-product", "matrix-add"})) << read_file(db_path);
  // A reset beside nothing else keeps the database readable and empties this device's entries.
  const CliResult r = run_shell(fmt::format("{} {} tune --reset matrix-add", environment(), cli()));
  ASSERT_EQ(r.code, 0) << r.output;
  filters.clear();
  const TuningDb after_reset = TuningDb::load(db_path);
  for (const auto& e : after_reset.entries()) filters.push_back(e.filter);
  EXPECT_EQ(filters, (std::vector<std::string>{"dot-product"}));
}

}  // namespace
}  // namespace clf
