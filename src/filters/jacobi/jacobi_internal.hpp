#pragma once

#include <utility>

#include "clfilters/variant.hpp"

namespace clf {

// Work-group shape (x, y) of tiled2d ("local_x"/"local_y") or temporal ("tile_x"/"tile_y").
std::pair<int, int> jacobi_work_group(const TuningConfig& config, const VariantInfo& variant);
// Iterations per launch of temporal ("steps").
int jacobi_temporal_steps(const TuningConfig& config, const VariantInfo& variant);

}  // namespace clf
