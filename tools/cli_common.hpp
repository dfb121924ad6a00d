// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the clfilters command line: the command registry, the application that declares every
// subcommand (CliApp), the options every image filter takes, and the error conventions (exit 0 success, 1 runtime
// error, 2 usage error).
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clfilters/border.hpp"
#include "clfilters/device_image.hpp"
#include "clfilters/image.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"
#include "filters/filter_spec.hpp"
#include "filters/image_call.hpp"

namespace clf::cli {

constexpr int kRuntimeError = 1;
constexpr int kUsageError = 2;

// A problem with the command's arguments found after parsing; main prints it and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A subcommand. Each registers itself with a CommandRegistrar in its own .cpp file.
class Command {
 public:
  virtual ~Command() = default;
  virtual CLI::App* add_to(CLI::App& app) = 0;  // declares the subcommand and its options
  virtual int run() = 0;                        // runs it after parsing; returns the exit code
};

using CommandFactory = std::unique_ptr<Command> (*)();
// `order` sorts the subcommands in --help (devices 0, filters 100+, tools 900+).
struct CommandRegistrar {
  CommandRegistrar(int order, CommandFactory factory);
};
std::vector<std::pair<int, CommandFactory>>& command_factories();

// The command line as typed ("clfilters bench box-blur --sizes ..."), for result files.
std::string& invocation();

// What every image filter command takes: IN OUT, or IN... -o DIR [--format EXT]; [--border] [--variant]
// [--device] [--time] [--quality] [--png-compression].
struct ImageCommandOptions {
  std::vector<std::string> files;  // as given: IN OUT, or the inputs of a batch
  std::string output_dir;          // -o: a batch, each input written to DIR/<its file name>
  std::string output_format;       // --format: a batch's outputs in this format instead of each input's
  std::string input;               // IN (a batch's first input)
  std::string output;              // OUT (empty for a batch)
  std::string device;
  std::string variant = "auto";
  std::string border = "replicate";
  bool time = false;
  int jpeg_quality = 95;
  int png_compression = 1;
};
void add_image_options(CLI::App* cmd, ImageCommandOptions& options, const std::vector<VariantInfo>& variants,
                       bool with_border = true);

// A number option's check, in place of CLI11's PositiveNumber and NonNegativeNumber, whose messages print the
// largest double in full: at least `min` (more than `min` when `strict`), "--runs: must be > 0, got -1".
CLI::Validator number_at_least(double min, bool strict);
inline const CLI::Validator kPositive = number_at_least(0, true);
inline const CLI::Validator kNonNegative = number_at_least(0, false);

// --quality and --png-compression, how OUT is written (add_image_options adds them).
void add_output_options(CLI::App* cmd, ImageCommandOptions& options);

// Checks done before any work, each throwing UsageError with one line.
Border parse_border_option(const std::string& text);
// A comma-separated option's items, in order (a trailing comma adds no item).
std::vector<std::string> split_commas(const std::string& text);
// --params' "key=value,key=value" as a filter's parameter set.
ParamMap parse_params_option(const std::string& text);
void check_variant_name(const std::string& variant, const std::vector<VariantInfo>& variants);
// OUT's extension (a usage error), then whether OUT may be written (check_output_path: a runtime error).
void check_output_extension(const std::string& path);

// Reads IN; a runtime error (exit 1) names the file if it cannot be read.
Image read_input(const std::string& path);
// Refuses `input` (read from `path`), with one line naming the file and the sizes, if the device cannot hold even
// one byte a sample of it, in and out: before any allocation.
void check_device_memory(const Context& ctx, const Image& input, const std::string& path);
// Called in a catch block: rethrows a device or host allocation failure as one line naming the file and the size,
// anything else as it is.
[[noreturn]] void report_allocation_failure(const Context& ctx, const Image& input, const std::string& path);
// `run()` on the device for `input` (read from `path`), with both of the above; `whole` false: a call that cuts an
// image too large for the device into bands, so only its allocation failures are reported so.
template <class F>
auto run_on_device(const Context& ctx, const Image& input, const std::string& path, F&& run, bool whole = true) {
  if (whole) check_device_memory(ctx, input, path);
  try {
    return run();
  } catch (...) {
    report_allocation_failure(ctx, input, path);
  }
}

// Writes `path` atomically with the JPEG quality and PNG compression options.
void write_output(const Image& image, const std::string& path, const ImageCommandOptions& options);
struct ImageFilterSteps;
// Refuses (one line naming `path`) an input the filter of `steps` cannot take: not 8-bit (or, where it takes them,
// 16-bit) with 1 to 4 channels, or, where its host call is not cut into bands, 2^29 pixels or more.
void check_filter_input(const Image& input, const std::string& path, const ImageFilterSteps& steps);
// Refuses, before the work, a 16-bit input whose (16-bit) result would go to a JPEG `output`, which holds 8 bits.
void check_output_depth(const Image& input, const std::string& path, const std::string& output);
// "box-blur d=9 ... on DEVICE (PLATFORM): WxHxC -> OUT" and, with --time, the timings.
// The variant that ran, for the result line: the choice and its reason ("fused_prefix[rows=8] (tuned)"), or the
// variant "auto" fell back to when the device refused the choice ("naive (fallback: fused_prefix was refused)").
std::string variant_that_ran(const Context& ctx, const VariantChoice& choice);

void print_result(const std::string& description, const Context& ctx, const Image& input,
                  const ImageCommandOptions& options, const Timing& timing);

// One input and where its output goes.
struct ImageJob {
  std::string input;
  std::string output;
};
// What a command reads and writes: IN and OUT; or with -o DIR each input and DIR/<its file name>, with --format's
// extension if given, and then usage errors for a stream input ("-"), two inputs with one output, or an output that
// is its own input.
std::vector<ImageJob> image_jobs(const ImageCommandOptions& options);

// What an image filter command supplies to run_image_filter.
struct ImageFilterSteps {
  std::string command;                       // "box-blur", for messages
  const std::vector<VariantInfo>* variants;  // the names --variant accepts
  std::function<void()> check_params;        // throws std::invalid_argument (a usage error) or UsageError
  // Whether 16-bit images are filtered too; then, before each input's choice and call, `set_sample_type` (if given)
  // sets and checks the parameters for its samples (a std::invalid_argument is that input's usage error).
  bool takes_u16 = false;
  std::function<void(SampleType)> set_sample_type = nullptr;
  // The variant a call on `input` runs, and why it cannot run, if it cannot.
  std::function<std::pair<VariantChoice, std::optional<std::string>>(Context&, const Image& input)> choose;
  std::function<Image(Context&, const Image& input, Timing*)> run;
  // The call over several devices (--device with a list); null: the filter runs on one device.
  std::function<Image(const std::vector<Context*>&, const Image& input, Timing*)> run_on_devices = nullptr;
  std::function<std::string()> describe;  // the parameters, "box-blur d=9 border=replicate"
  // Whether the host call cuts an image larger than the device, or of 2^29 pixels or more, into bands: such an image
  // is then not refused up front.
  bool cut_into_bands = false;
  bool quiet = false;  // no result line
};

// The `choose` step of a filter whose public calls take the channels the device runs an input as: `choose` and
// `unsupported` are its X_choose and X_unsupported, `alpha` how it treats a fourth channel (device_channels).
// `params` and `variant` are read when the step runs.
template <class Params>
std::function<std::pair<VariantChoice, std::optional<std::string>>(Context&, const Image&)> choose_step(
    const Params& params, const std::string& variant, Alpha alpha,
    VariantChoice (*choose)(Context&, const Params&, std::string_view, int, int, int, const TuningConfig&, SampleType),
    std::optional<std::string> (*unsupported)(const DeviceInfo&, std::string_view, const Params&, int, int, int,
                                              const TuningConfig&, SampleType)) {
  return [&params, &variant, alpha, choose, unsupported](Context& ctx, const Image& input) {
    const int c = device_channels(input.channels, alpha);
    VariantChoice choice = choose(ctx, params, variant, input.width, input.height, c, {}, input.type);
    auto why = unsupported(ctx.info(), choice.variant, params, input.width, input.height, c, choice.config, input.type);
    return std::pair{std::move(choice), std::move(why)};
  };
}

// The steps every image filter command takes, in order: its parameters and --variant and OUT's extension
// (usage errors, exit 2, before anything is read), IN (8-bit, 1 to 4 channels, else one line naming the file,
// exit 1), the device, the variant the call will run (a usage error if it cannot), the filter, OUT (atomic), and
// the result line. Returns the exit code.
int run_image_filter(const ImageCommandOptions& options, const ImageFilterSteps& steps);
// The filter on `input` (read from `path`): the variant its call runs (a UsageError where it cannot), then the call
// with run_on_device's checks. Returns the output and the variant that ran (variant_that_ran).
std::pair<Image, std::string> filter_on_device(Context& ctx, const Image& input, const std::string& path,
                                               const ImageFilterSteps& steps, Timing& timing);
// The same over a batch (-o DIR), run by run_image_filter: one device and its programs for every input; the next
// input is decoded and the last output encoded while the device filters. A file that fails is reported in one
// line and the others go on; the exit is then 1. On a terminal, a progress line on stderr.
// With several devices, the files are handed out to a thread per device (a faster device takes more), each reading,
// filtering and writing its files.
int run_image_batch(const ImageCommandOptions& options, const ImageFilterSteps& steps);

// Whether --device names several devices (select_devices): a comma, an item SEL/N, or all, all-gpus, all-cpus. A
// single selector keeps select_device's handling and messages.
bool is_device_list(const std::string& device);
// A Context on each device of the list, made on this thread (PoCL's state made on a thread that then ends broke the
// ASan build's thread exit); a bad list is a usage error naming the item.
std::vector<std::unique_ptr<Context>> open_devices(const std::string& device);
std::vector<Context*> pointers(const std::vector<std::unique_ptr<Context>>& contexts);
// "2 devices: NAME [0:0.0], NAME [0:0.1] (PLATFORM)", for the result lines.
std::string describe_devices(const std::vector<Context*>& devices);
// The variants the devices run, each device's once ("a; b").
std::string variants_that_ran(const std::vector<Context*>& devices, const std::vector<VariantChoice>& choices);

// The clfilters command line without running anything: every subcommand declared on one CLI::App, and the
// options every subcommand takes. main() parses it and runs the chosen command; the command-line fuzzer
// (fuzz/fuzz_cli.cpp) only parses it.
struct CliApp {
  CLI::App app{"clfilters: classic image filters on any OpenCL device (GPU, or CPU through PoCL)"};
  std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>> commands;
  std::uint64_t max_pixels = 0;  // --max-pixels; 0: not given
};

// The application with every registered subcommand, in their --help order.
std::unique_ptr<CliApp> make_cli_app();

// Applies the options every subcommand takes (after parsing, before any command runs): --max-pixels sets
// CLFILTERS_MAX_PIXELS, which the readers and the video pipeline read.
void apply_global_options(const CliApp& cli);

}  // namespace clf::cli
