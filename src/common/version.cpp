// SPDX-License-Identifier: Apache-2.0
#include "clfilters/version.hpp"

namespace clf {

const char* version() {
  return CLF_VERSION;
}

}  // namespace clf
