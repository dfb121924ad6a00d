// SPDX-License-Identifier: Apache-2.0
// clfilters box-blur IN OUT --diameter 9 [--border ...] [--variant ...] [--device ...] [--time]
// Video (video_filter.hpp): every plane is filtered by default.
#include <fmt/format.h>

#include "clfilters/box_blur.hpp"
#include "cli_common.hpp"
#include "video_filter.hpp"

namespace clf::cli {
namespace {

class BoxBlurCommand : public ChannelFilterCommand<BoxBlurParams> {
 public:
  BoxBlurCommand()
      : ChannelFilterCommand("box blur: the rounded mean of a d x d window, every channel",
                             {.filter = kBoxBlurCalls, .default_planes = "all", .alpha = Alpha::filtered}) {}

 private:
  void add_filter_options(CLI::App* cmd) override {
    cmd->add_option("-d,--diameter", params_.diameter,
                    fmt::format("window diameter, 1..{}, odd or even", kMaxBoxDiameter))
        ->capture_default_str();
  }

  void check_params(SampleType type) override { box_blur_check_params(params_, type); }

  std::string describe() const override {
    return fmt::format("box-blur d={} border={}", params_.diameter, to_string(params_.border));
  }
};

const CommandRegistrar registrar(100, [] { return std::unique_ptr<Command>(new BoxBlurCommand); });

}  // namespace
}  // namespace clf::cli
