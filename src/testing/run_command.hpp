// SPDX-License-Identifier: Apache-2.0
// Running a shell command from a test and collecting its exit code and output.
#pragma once

#include <string>

namespace clf::testing {

struct CliResult {
  int code;            // the exit status, or -1 if the command did not exit normally
  std::string output;  // stdout and stderr together, unless the command redirects them
};

// Runs `command` through the shell; it may hold pipes and redirections.
CliResult run_shell(const std::string& command);

}  // namespace clf::testing
