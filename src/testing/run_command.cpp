// SPDX-License-Identifier: Apache-2.0
#include "testing/run_command.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace clf::testing {

CliResult run_shell(const std::string& command) {
  // The parentheses keep the command's own redirections; whatever it leaves on stderr joins stdout.
  FILE* pipe = ::popen(("( " + command + " ) 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace clf::testing
