// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness for the command line: the input is the arguments, one per line, parsed by the same
// CLI::App the clfilters command builds (every subcommand and option), without running any command, so no
// OpenCL device is needed. Help and usage errors are formatted as the command would print them. Each argument
// also goes through the value parsers a command applies after parsing (--border, --params).
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cli_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> arguments{"clfilters"};
  std::string current;
  for (std::size_t i = 0; i < size && arguments.size() < 64; ++i) {
    if (data[i] == '\n') {
      arguments.push_back(std::move(current));
      current.clear();
    } else {
      current += char(data[i]);
    }
  }
  if (!current.empty()) arguments.push_back(std::move(current));
  std::vector<char*> argv;
  for (std::string& a : arguments) argv.push_back(a.data());

  const std::unique_ptr<clf::cli::CliApp> cli = clf::cli::make_cli_app();
  try {
    cli->app.parse(int(argv.size()), argv.data());
    int parsed = 0;
    for (const auto& [sub, command] : cli->commands) parsed += sub->parsed() ? 1 : 0;
    if (parsed != 1) std::abort();  // exactly one subcommand runs after a successful parse
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    cli->app.exit(e, out, err);
  }
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    try {
      (void)clf::cli::parse_border_option(arguments[i]);
    } catch (const clf::cli::UsageError&) {
    }
    try {
      (void)clf::cli::parse_params_option(arguments[i]);
    } catch (const clf::cli::UsageError&) {
    }
  }
  return 0;
}
