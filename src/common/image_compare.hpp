// SPDX-License-Identifier: Apache-2.0
// Sample-by-sample comparison with a report of how and where two images differ.
#pragma once

#include <optional>
#include <string>

#include "clfilters/export.hpp"
#include "clfilters/image.hpp"

namespace CLF_API clf {

// nullopt when every sample is within `tolerance`; else "N of M samples differ (tolerance T); largest
// difference D; first at x= y= channel=: expected E, got G" (or the shape mismatch).
std::optional<std::string> compare_images(const Image& expected, const Image& actual, double tolerance = 0.0);

// Sample i as a double, whatever the type.
double sample_as_double(const Image& image, std::size_t i);

}  // namespace clf
