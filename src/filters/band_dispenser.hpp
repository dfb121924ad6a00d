// SPDX-License-Identifier: Apache-2.0
// Bands of rows for workers of unequal speed: the lanes of several devices, a GPU beside a CPU among them.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

namespace clf {

// Hands out an image's rows top to bottom. A worker's first band has `first_rows` rows, so that a slow worker's
// first band stays short; after that each takes half of what its measured speed finishes in the time the rows left
// would take every worker together (guided self-scheduling, weighted by speed), at least `min_rows`, at most
// `max_rows` and at most twice its last band. The doubling keeps a slow worker's bands short while the others' speeds
// are still measured on short bands, whose fixed costs make them look slower than they are. A worker that would finish
// even `min_rows` after the others have finished everything takes nothing more (a worker told so once must not ask
// again), so a slow device never holds the call up with a last band of its own. Thread-safe.
class BandDispenser {
 public:
  struct Band {
    int y0, y1;  // rows y0 .. y1 - 1
  };
  BandDispenser(int height, std::size_t workers, int first_rows, int min_rows, int max_rows);
  // The next band for `worker`, or nothing: no rows left, or none worth this worker's time.
  std::optional<Band> take(std::size_t worker);
  // `worker` finished a band of `rows` rows in `seconds`.
  void done(std::size_t worker, int rows, double seconds);

 private:
  std::mutex mutex_;
  int height_, next_ = 0, first_rows_, min_rows_, max_rows_;
  std::vector<double> rows_done_, seconds_;  // per worker, over its finished bands
  std::vector<int> last_rows_;               // per worker, its last band's rows
  std::vector<bool> stopped_;                // workers that were told to take nothing more
};

}  // namespace clf
