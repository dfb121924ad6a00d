// SPDX-License-Identifier: Apache-2.0
// The library's version.
#pragma once

#include "clfilters/export.hpp"

namespace CLF_API clf {

// "MAJOR.MINOR.PATCH", the project version the library was built as (`clfilters --version` prints it).
const char* version();

}  // namespace clf
