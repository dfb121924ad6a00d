// SPDX-License-Identifier: Apache-2.0
// clfilters: the command line. Subcommands register themselves (tools/commands/ and each filter's
// *_command.cpp). Exit codes: 0 success, 1 runtime error (bad file, device failure), 2 usage error.
#include <fmt/format.h>

#include <algorithm>

#include "clfilters/image_io.hpp"
#include "clfilters/version.hpp"
#include "cli_common.hpp"

int main(int argc, char** argv) {
  using namespace clf::cli;
  // Ctrl-C or a kill leaves no hidden temporary output behind.
  clf::remove_temp_files_on_signals();
  for (int i = 0; i < argc; ++i) invocation() += (i ? " " : "") + std::string(i ? argv[i] : "clfilters");
  CLI::App app{"clfilters: classic image filters on any OpenCL device (GPU, or CPU through PoCL)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("clfilters ") + clf::version());

  auto factories = command_factories();
  std::stable_sort(factories.begin(), factories.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>> commands;
  for (const auto& [order, make] : factories) {
    auto command = make();
    CLI::App* sub = command->add_to(app);
    commands.emplace_back(sub, std::move(command));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kUsageError;
  }

  try {
    for (auto& [sub, command] : commands)
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
