// SPDX-License-Identifier: Apache-2.0
// Row-parallel loops for the CPU references.
#pragma once

#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

namespace clf {

// Number of threads `threads` means: 0 = all hardware threads.
inline int resolve_thread_count(int threads) {
  if (threads > 0) return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

// Calls body(y_begin, y_end) on disjoint row ranges covering [0, rows) from up to `threads` threads.
inline void parallel_rows(int rows, int threads, const std::function<void(int, int)>& body) {
  const int n = std::min(resolve_thread_count(threads), std::max(rows, 1));
  if (n <= 1) {
    body(0, rows);
    return;
  }
  std::vector<std::jthread> pool;
  for (int t = 0; t < n; ++t) {
    const int y0 = rows * t / n, y1 = rows * (t + 1) / n;
    pool.emplace_back([&body, y0, y1] { body(y0, y1); });
  }
}

}  // namespace clf
