// SPDX-License-Identifier: Apache-2.0
#include "filters/band_dispenser.hpp"

#include <algorithm>
#include <cmath>

namespace clf {

BandDispenser::BandDispenser(int height, std::size_t workers, int first_rows, int min_rows, int max_rows)
    : height_(height),
      first_rows_(std::max(1, first_rows)),
      min_rows_(std::max(1, min_rows)),
      max_rows_(std::max(1, max_rows)),
      rows_done_(workers, 0.0),
      seconds_(workers, 0.0),
      last_rows_(workers, 0),
      stopped_(workers, false) {}

std::optional<BandDispenser::Band> BandDispenser::take(std::size_t worker) {
  const std::lock_guard lock(mutex_);
  const int left = height_ - next_;
  if (left <= 0) return std::nullopt;
  int rows = first_rows_;
  if (seconds_[worker] > 0) {
    const auto rate = [&](std::size_t w) { return seconds_[w] > 0 ? rows_done_[w] / seconds_[w] : 0.0; };
    double all = 0, fastest = 0;
    for (std::size_t w = 0; w < seconds_.size(); ++w)
      if (!stopped_[w]) all += rate(w), fastest = std::max(fastest, rate(w));
    // Seconds for the rows left on every measured worker still taking bands, and the rows this one does in that
    // time. The fastest of them never stops, so every row is taken.
    const double share = rate(worker) * (left / all);
    if (share < min_rows_ && rate(worker) < fastest) {
      stopped_[worker] = true;
      return std::nullopt;
    }
    rows = std::min(std::max(min_rows_, int(std::ceil(share / 2))), 2 * last_rows_[worker]);
  }
  rows = std::min({rows, max_rows_, left});
  last_rows_[worker] = rows;
  const Band band{next_, next_ + rows};
  next_ += rows;
  return band;
}

void BandDispenser::done(std::size_t worker, int rows, double seconds) {
  const std::lock_guard lock(mutex_);
  rows_done_[worker] += rows;
  seconds_[worker] += std::max(seconds, 1e-9);
}

}  // namespace clf
