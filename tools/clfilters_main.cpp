// SPDX-License-Identifier: Apache-2.0
// clfilters: the command line. Subcommands register themselves (tools/commands/ and each filter's
// *_command.cpp). Exit codes: 0 success, 1 runtime error (bad file, device failure), 2 usage error.
#include <fmt/format.h>

#include "clfilters/image_io.hpp"
#include "cli_common.hpp"

int main(int argc, char** argv) {
  using namespace clf::cli;
  // Ctrl-C or a kill leaves no hidden temporary output behind.
  clf::remove_temp_files_on_signals();
  for (int i = 0; i < argc; ++i) invocation() += (i ? " " : "") + std::string(i ? argv[i] : "clfilters");
  const std::unique_ptr<CliApp> cli = make_cli_app();
  CLI::App& app = cli->app;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kUsageError;
  }
  apply_global_options(*cli);

  try {
    for (auto& [sub, command] : cli->commands)
      if (sub->parsed()) return command->run();
  } catch (const UsageError& e) {
    fmt::print(stderr, "clfilters: {}\n", e.what());
    return kUsageError;
  } catch (const clf::ClError& e) {
    fmt::print(stderr, "clfilters: OpenCL error: {}\n", e.what());
    return kRuntimeError;
  } catch (const std::invalid_argument& e) {
    // Device selection and filter parameter problems.
    fmt::print(stderr, "clfilters: {}\n", e.what());
    return kUsageError;
  } catch (const std::exception& e) {
    // Image files (ImageIoError names the file), no OpenCL platform, anything else at run time.
    fmt::print(stderr, "clfilters: {}\n", e.what());
    return kRuntimeError;
  }
  return 0;
}
