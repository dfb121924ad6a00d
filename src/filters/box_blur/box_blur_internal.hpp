#pragma once

#include "clfilters/runtime.hpp"

namespace clf {

struct TileShape {
  int width;
  int height;
};

// Work-group shape of the local_tile variant on this device.
TileShape box_local_tile_shape(const DeviceInfo& device);

}  // namespace clf
