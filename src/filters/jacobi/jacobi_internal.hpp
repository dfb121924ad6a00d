#pragma once

#include <cstddef>
#include <utility>

#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace clf {

// Work-group shape (x, y) of tiled2d and strip ("local_x"/"local_y"), temporal ("tile_x"/"tile_y") or
// wavefront ("local_x", 1).
std::pair<int, int> jacobi_work_group(const TuningConfig& config, const VariantInfo& variant);
// Iterations per launch: temporal's and wavefront's "steps", 1 for the other variants.
int jacobi_temporal_steps(const TuningConfig& config, const VariantInfo& variant);
// wavefront's output rows per work-group: its "rows" tunable, or for 0 a count that gives the device
// at most 12 work-groups per compute unit (whole waves).
int jacobi_wavefront_rows(const DeviceInfo& device, const TuningConfig& config, int width, int height);
// wavefront's local memory per work-group (both local arguments).
std::size_t jacobi_wavefront_local_bytes(const TuningConfig& config);

}  // namespace clf
