// SPDX-License-Identifier: Apache-2.0
// Row-parallel loops for the CPU references.
#pragma once

#include <functional>

namespace clf {

// Number of threads `threads` means: 0 = all hardware threads.
int resolve_thread_count(int threads);

// Calls body(y_begin, y_end) on disjoint row ranges covering [0, rows) from up to `threads` threads.
void parallel_rows(int rows, int threads, const std::function<void(int, int)>& body);

}  // namespace clf
