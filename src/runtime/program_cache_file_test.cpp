// SPDX-License-Identifier: Apache-2.0
// The disk cache's file layout: a whole file gives its binary back, a file cut short or changed gives nothing, and a
// Context meeting such a file rebuilds the program and writes the file again.
#include "runtime/program_cache_file.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "clfilters/runtime.hpp"
#include "runtime/add_one_test_kernel.hpp"
#include "testing/scoped_env.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {
namespace fs = std::filesystem;

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> out(n);
  for (auto& b : out) b = static_cast<unsigned char>(rng());
  return out;
}

TEST(ProgramCacheFile, WholeFileGivesItsBinaryBack) {
  const std::uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE(seed);
  const auto binary = random_bytes(1000 + seed % 1000, seed);
  const auto file = program_cache_file(binary);
  EXPECT_EQ(file.size(), binary.size() + 24);
  EXPECT_EQ(binary_from_program_cache_file(file), binary);
}

TEST(ProgramCacheFile, CutOrChangedFileIsRejected) {
  const std::uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE(seed);
  const auto binary = random_bytes(300, seed);
  const auto file = program_cache_file(binary);
  for (std::size_t cut : {std::size_t(0), std::size_t(7), std::size_t(24), file.size() / 2, file.size() - 1}) {
    SCOPED_TRACE(fmt::format("cut to {} bytes", cut));
    EXPECT_FALSE(binary_from_program_cache_file({file.begin(), file.begin() + std::ptrdiff_t(cut)}));
  }
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 20; ++i) {
    auto changed = file;
    const std::size_t at = rng() % changed.size();
    changed[at] ^= static_cast<unsigned char>(1 + rng() % 255);
    EXPECT_FALSE(binary_from_program_cache_file(changed)) << "byte " << at << " changed";
  }
  auto longer = file;
  longer.push_back(0);
  EXPECT_FALSE(binary_from_program_cache_file(longer)) << "a byte appended";
  // The bare binary, as the cache wrote it before it had a header.
  EXPECT_FALSE(binary_from_program_cache_file(binary));
}

TEST(ProgramCacheFile, ContextRebuildsACutOrChangedCacheFile) {
  // OpenCL first, under the outer XDG_CACHE_HOME: PoCL takes its own cache directory from it once (runtime_test).
  ASSERT_FALSE(list_devices().empty());
  const fs::path dir = fs::temp_directory_path() / fmt::format("clf-cache-file-{}", ::getpid());
  fs::remove_all(dir);
  ScopedEnv xdg("XDG_CACHE_HOME", dir.c_str());
  ScopedEnv on("CLFILTERS_NO_DISK_CACHE", "0");
  const std::string source = testing::kAddOneSource;
  fs::path bin;
  {
    Context ctx;
    ctx.program_from_source("cache_file_test.cl", source, "");
  }
  for (const auto& f : fs::directory_iterator(dir / "clfilters" / "programs"))
    if (f.path().extension() == ".bin") bin = f.path();
  ASSERT_FALSE(bin.empty());
  const std::string whole = testing::read_file(bin);
  const auto binary = binary_from_program_cache_file({whole.begin(), whole.end()});
  ASSERT_TRUE(binary) << "the cache file has no valid header";

  // Cut short, then one byte of the binary changed: each time the program still works and the file is whole again.
  const std::string changed = [&] {
    std::string s = whole;
    s[s.size() - 1 - s.size() / 3] ^= 0x5A;
    return s;
  }();
  for (const std::string& bad : {whole.substr(0, whole.size() / 2), changed}) {
    testing::write_file(bin, bad);
    Context ctx;
    testing::expect_adds_one(ctx, ctx.program_from_source("cache_file_test.cl", source, ""));
    const std::string after = testing::read_file(bin);
    EXPECT_TRUE(binary_from_program_cache_file({after.begin(), after.end()})) << "the cache file was not rewritten";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace clf
