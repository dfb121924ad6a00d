// SPDX-License-Identifier: Apache-2.0
// A test-only hook that makes chosen OpenCL calls fail, so that tests can check what the library and the tool do
// when a driver refuses a build, an allocation, a launch or a map. Set CLFILTERS_FAULT to a comma-separated list
// of POINT (every such call fails) or POINT:N (only the Nth, counted from 1 in the process), where POINT is build,
// alloc, enqueue or map; e.g. CLFILTERS_FAULT=build:1,alloc:3. Unset, it costs one getenv per call.
#pragma once

#include "clfilters/export.hpp"

namespace CLF_API clf {

enum class FaultPoint { build, alloc, enqueue, map };

// Whether this call at `point` is to fail. Each call counts, so "build:2" fails the second build of the process.
// A change of CLFILTERS_FAULT within the process starts the counts again.
bool injected_fault(FaultPoint point);

}  // namespace clf
