// SPDX-License-Identifier: Apache-2.0
#include "cli_app.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "clfilters/version.hpp"

namespace clf::cli {

std::unique_ptr<CliApp> make_cli_app() {
  auto cli = std::make_unique<CliApp>();
  CLI::App& app = cli->app;
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("clfilters ") + clf::version());
  // Also accepted after the subcommand's own options ("clfilters box-blur in.png out.png --max-pixels 1000000").
  app.fallthrough();
  app.add_option("--max-pixels", cli->max_pixels,
                 "the largest image or video frame read, in pixels (default $CLFILTERS_MAX_PIXELS, else 2^30); "
                 "larger inputs are refused before any memory is allocated for them")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));

  auto factories = command_factories();
  std::stable_sort(factories.begin(), factories.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (const auto& [order, make] : factories) {
    auto command = make();
    CLI::App* sub = command->add_to(app);
    cli->commands.emplace_back(sub, std::move(command));
  }
  return cli;
}

void apply_global_options(const CliApp& cli) {
  if (cli.max_pixels != 0) ::setenv("CLFILTERS_MAX_PIXELS", std::to_string(cli.max_pixels).c_str(), 1);
}

}  // namespace clf::cli
