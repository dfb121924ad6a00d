// SPDX-License-Identifier: Apache-2.0
// Test helper: an environment variable set for one scope.
#pragma once

#include <cstdlib>
#include <string>

namespace clf {

// Restores the variable's earlier value (or its absence) when the scope ends; a null value unsets it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace clf
