// SPDX-License-Identifier: Apache-2.0
// BandDispenser against simulated workers of known speeds: every row handed out once, in order; shares in proportion
// to speed; a worker 40 times slower than another stops taking bands rather than finish last.
#include "filters/band_dispenser.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace clf {
namespace {

struct Simulated {
  std::vector<int> rows;  // rows each worker filtered
  double makespan = 0;    // when the last band ended
};

// Runs workers of `rates` (rows a second) as an event simulation: the worker that is free first reports its band done
// and takes the next, which costs it `overhead` seconds (a launch and a wait) plus its rows. Rows from `start` on
// (rows before it were handed out already).
Simulated simulate(BandDispenser& dispenser, const std::vector<double>& rates, int height, int start = 0,
                   double overhead = 0) {
  Simulated s{std::vector<int>(rates.size(), 0), 0};
  std::vector<double> free_at(rates.size(), 0);
  std::vector<bool> stopped(rates.size(), false);
  std::vector<std::pair<int, double>> running(rates.size(), {0, 0.0});  // each worker's band: rows, seconds
  int next = start;
  while (true) {
    std::size_t w = rates.size();
    for (std::size_t i = 0; i < rates.size(); ++i)
      if (!stopped[i] && (w == rates.size() || free_at[i] < free_at[w])) w = i;
    if (w == rates.size()) break;
    if (running[w].first > 0) dispenser.done(w, running[w].first, running[w].second);
    running[w] = {0, 0.0};
    const auto band = dispenser.take(w);
    if (!band) {
      stopped[w] = true;
      continue;
    }
    EXPECT_EQ(band->y0, next) << "rows skipped or handed out twice";
    EXPECT_GT(band->y1, band->y0);
    next = band->y1;
    const int rows = band->y1 - band->y0;
    const double seconds = overhead + rows / rates[w];
    free_at[w] += seconds;
    running[w] = {rows, seconds};
    s.rows[w] += rows;
    s.makespan = std::max(s.makespan, free_at[w]);
  }
  EXPECT_EQ(next, height) << "rows left over";
  return s;
}

// The two fast workers of ASlowWorkerIsNotMisledByTheFastOnesFirstShortBands on their own.
double simulate_fast_pair(int height, double overhead) {
  BandDispenser d(height, 2, 16, 16, 2048);
  return simulate(d, {200000, 200000}, height, 0, overhead).makespan;
}

TEST(BandDispenser, EqualWorkersShareEvenlyAndEndTogether) {
  const int height = 8192;
  BandDispenser d(height, 4, 16, 16, 4096);
  const Simulated s = simulate(d, {1000, 1000, 1000, 1000}, height);
  for (int rows : s.rows) EXPECT_NEAR(rows, height / 4, height / 16);
  EXPECT_LT(s.makespan, 1.05 * height / 4000.0);
}

TEST(BandDispenser, SharesFollowSpeedAndASlowWorkerStopsBeforeTheTail) {
  const int height = 16384;
  for (const double slow : {250.0, 2500.0}) {  // 400x and 40x slower than the fast worker
    SCOPED_TRACE(slow);
    BandDispenser d(height, 3, 16, 16, 8192);
    const std::vector<double> rates{100000, 50000, slow};
    const Simulated s = simulate(d, rates, height);
    const double ideal = height / std::accumulate(rates.begin(), rates.end(), 0.0);
    EXPECT_LT(s.makespan, 1.15 * ideal) << "the slow worker held the call up";
    EXPECT_NEAR(double(s.rows[0]) / s.rows[1], 2.0, 0.4);
  }
}

// A band's fixed cost makes a fast worker's first short bands look slow: a slow worker's bands sized from those
// first measurements alone would outlast the fast worker's whole share. Doubling at most keeps them short.
TEST(BandDispenser, ASlowWorkerIsNotMisledByTheFastOnesFirstShortBands) {
  const int height = 16384;
  const double overhead = 1e-3;
  BandDispenser d(height, 3, 16, 16, 2048);
  const std::vector<double> rates{200000, 200000, 2000};
  const Simulated s = simulate(d, rates, height, 0, overhead);
  const double fast_alone = simulate_fast_pair(height, overhead);
  EXPECT_LT(s.makespan, 1.1 * fast_alone) << "the slow worker held the call up (" << s.rows[2] << " rows)";
  EXPECT_GT(s.rows[2], 0) << "the slow worker never helped";
}

TEST(BandDispenser, BandsStayWithinTheLimitAndNothingIsLeftForAFinishedImage) {
  BandDispenser d(100, 2, 40, 8, 30);
  const auto first = d.take(0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->y1 - first->y0, 30) << "above the largest band";
  const Simulated s = simulate(d, {10, 10}, 100, 30);
  EXPECT_EQ(s.rows[0] + s.rows[1], 70);
  EXPECT_FALSE(d.take(0));
  EXPECT_FALSE(d.take(1));
}

// Speeds change as bands finish: the fastest worker still taking bands goes on, even where a worker that stopped had
// measured faster, so no row is left.
TEST(BandDispenser, TheFastestWorkerStillTakingBandsFinishesTheImage) {
  BandDispenser d(100, 2, 10, 10, 10);
  ASSERT_TRUE(d.take(0));
  ASSERT_TRUE(d.take(1));
  d.done(0, 10, 1.0);   // 10 rows a second
  d.done(1, 10, 10.0);  // 1 row a second: stops
  EXPECT_FALSE(d.take(1));
  int taken = 20;
  for (int k = 0; k < 10; ++k)
    if (const auto band = d.take(0)) {
      taken += band->y1 - band->y0;
      d.done(0, band->y1 - band->y0, 100.0);  // now slower than worker 1 measured
    }
  EXPECT_EQ(taken, 100);
}

}  // namespace
}  // namespace clf
