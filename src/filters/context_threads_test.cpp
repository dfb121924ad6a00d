// SPDX-License-Identifier: Apache-2.0
// One Context used from several threads at once (clfilters/runtime.hpp, "Threads"): every thread's calls give what
// the CPU reference gives, whatever the others do meanwhile. The variants chosen keep scratch buffers and several
// kernel launches per call, so shared kernel arguments or shared intermediates would show as wrong pixels. Run
// under ThreadSanitizer by the `tsan` preset (label `threads`).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <optional>
#include <random>
#include <thread>

#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "runtime/cache_slot.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 3;

// What one thread checks: each round a fresh image of its own size through each filter, host calls and a
// device-resident one, against the reference. Failures are collected, not asserted, off the main thread.
std::vector<std::string> filter_on_shared_context(Context& ctx, int thread, std::uint64_t seed) {
  std::vector<std::string> problems;
  std::mt19937_64 rng(seed + std::uint64_t(thread) * 7919);
  auto check = [&](const char* what, const Image& expected, const Image& actual, double tolerance) {
    if (auto r = testing::images_equal(expected, actual, tolerance); !r)
      problems.push_back(fmt::format("thread {} {}: {}", thread, what, r.message()));
  };
  for (int round = 0; round < kRounds; ++round) {
    // Sizes differ between threads and rounds, so the scratch buffers are regrown and the launches differ.
    const int w = 40 + int(rng() % 60), h = 24 + int(rng() % 40);
    const Image rgba = testing::random_image(w, h, 4, SampleType::u8, rng());
    const Image grey = testing::random_image(w, h, 1, SampleType::u8, rng());

    const BoxBlurParams even{.diameter = 2 + 2 * int(rng() % 4), .border = {}};
    check("box blur two_pass", box_blur_reference(rgba, even), box_blur(ctx, rgba, even, "two_pass"), 0);
    const BoxBlurParams odd{.diameter = 3 + 2 * int(rng() % 4), .border = {BorderMode::reflect101, 0}};
    check("box blur separable_sliding", box_blur_reference(grey, odd), box_blur(ctx, grey, odd, "separable_sliding"),
          0);

    // Parameters that are build options stay fixed, so the threads share their programs.
    EpsilonParams eps;
    eps.radius = 2;
    eps.threshold = 10 + int(rng() % 30);
    check("epsilon", epsilon_reference(grey, eps), epsilon(ctx, grey, eps, "naive"), 0);

    BilateralParams bil;
    bil.sigma_range = 20.0 + double(rng() % 20);
    check("bilateral gauss_table", bilateral_reference(rgba, bil), bilateral(ctx, rgba, bil, "gauss_table"), 1.0);

    // Device-resident: each thread's own images, the shared queue.
    auto in = DeviceImage::upload(ctx, rgba);
    auto out = DeviceImage::allocate(ctx, w, h, 4);
    box_blur(ctx, in, out, even, "two_pass");
    check("device-resident box blur", box_blur_reference(rgba, even), out.download(ctx), 0);
  }
  return problems;
}

TEST(ContextThreads, SeveralThreadsFilteringOnOneContextMatchTheReference) {
  const std::uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  Context ctx;
  std::vector<std::vector<std::string>> problems(kThreads);
  std::vector<std::thread> threads;
  std::atomic<int> ready = 0;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Start together, so the first calls (and their program builds) overlap.
      ++ready;
      while (ready < kThreads) std::this_thread::yield();
      try {
        problems[std::size_t(t)] = filter_on_shared_context(ctx, t, seed);
      } catch (const std::exception& e) {
        problems[std::size_t(t)].push_back(fmt::format("thread {}: {}", t, e.what()));
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& list : problems)
    for (const auto& p : list) ADD_FAILURE() << p;
}

TEST(ContextThreads, FeatureProbeRunsOncePerContext) {
  Context ctx;
  std::atomic<int> probes = 0;
  std::vector<std::thread> threads;
  std::atomic<int> yes = 0;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      if (ctx.feature_works("test.feature", [&] {
            ++probes;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));  // widens the window two probes would share
            return true;
          }))
        ++yes;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(probes, 1);
  EXPECT_EQ(yes, kThreads);
}

// Threads working on one CacheSlot, one after another, find its scratch buffer; another slot and a thread on none
// have their own. A slot given back is the next one taken.
TEST(ContextThreads, ThreadsOnACacheSlotFindItsBuffersAndOthersTheirOwn) {
  Context ctx;
  const auto scratch = [&](const CacheSlot* slot) {
    cl_mem buffer = nullptr;
    std::thread([&] {
      std::optional<WorkOnSlot> working;
      if (slot) working.emplace(*slot);
      buffer = ctx.scratch_buffer("test.slot", 64)();
    }).join();
    return buffer;
  };
  auto first = std::make_unique<CacheSlot>();
  const CacheSlot second;
  EXPECT_NE(first->index(), second.index());
  const cl_mem on_first = scratch(first.get());
  EXPECT_EQ(scratch(first.get()), on_first);
  EXPECT_NE(scratch(&second), on_first);
  EXPECT_NE(scratch(nullptr), on_first);
  const int index = first->index();
  first.reset();
  EXPECT_EQ(CacheSlot().index(), index);
}

// Two threads each cutting their images into bands over the same sub-devices at once: the lanes of each call work on
// slots of their own, so neither meets the other's scratch buffers.
TEST(ContextThreads, ConcurrentCallsOverSubDevicesMatchTheReference) {
  const std::uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  std::vector<std::unique_ptr<Context>> parts;
  try {
    for (DeviceHandle& part : split_device(select_device(), 2)) parts.push_back(std::make_unique<Context>(part));
  } catch (const std::invalid_argument&) {
    GTEST_SKIP() << "the default device does not split into two parts";
  }
  const std::vector<Context*> devices = {parts[0].get(), parts[1].get()};
  std::vector<std::vector<std::string>> problems(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(seed + std::uint64_t(t));
      try {
        for (int round = 0; round < kRounds; ++round) {
          const Image in = testing::random_image(40 + int(rng() % 60), 40 + int(rng() % 60), 4, SampleType::u8, rng());
          const BoxBlurParams params{3 + int(rng() % 6), {}};
          if (auto r = testing::images_equal(box_blur_reference(in, params), box_blur(devices, in, params)); !r)
            problems[std::size_t(t)].push_back(fmt::format("thread {} round {}: {}", t, round, r.message()));
        }
      } catch (const std::exception& e) {
        problems[std::size_t(t)].push_back(fmt::format("thread {}: {}", t, e.what()));
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& list : problems)
    for (const auto& p : list) ADD_FAILURE() << p;
}

}  // namespace
}  // namespace clf
