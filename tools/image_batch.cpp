// SPDX-License-Identifier: Apache-2.0
// Many images through one filter command (-o DIR): one device and its programs for all of them, with decoding
// and encoding on their own threads beside the device's work.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>

#include "clfilters/image_io.hpp"
#include "cli_common.hpp"
#include "filters/multi_device.hpp"

namespace clf::cli {
namespace fs = std::filesystem;

std::vector<ImageJob> image_jobs(const ImageCommandOptions& options) {
  if (options.output_dir.empty()) return {{options.input, options.output}};
  std::vector<ImageJob> jobs;
  std::map<fs::path, std::string> output_of;  // normalised output -> the input that writes it
  std::set<fs::path> inputs;
  for (const std::string& in : options.files) inputs.insert(fs::weakly_canonical(in));
  for (const std::string& in : options.files) {
    if (in == "-" || in.empty()) throw UsageError("-o DIR takes image files, not '-' (stdin is for video)");
    fs::path out = fs::path(options.output_dir) / fs::path(in).filename();
    if (!options.output_format.empty()) out.replace_extension(options.output_format);
    const fs::path key = fs::weakly_canonical(out);
    if (inputs.count(key)) throw UsageError(fmt::format("{}: the output would overwrite an input", out.string()));
    if (const auto [it, fresh] = output_of.emplace(key, in); !fresh)
      throw UsageError(fmt::format("{} and {} would both be written to {}", it->second, in, out.string()));
    jobs.push_back({in, out.string()});
  }
  return jobs;
}

namespace {

// "3/120 images, 2.4/s, 1.3 s" on one updating line of a terminal's stderr; nothing elsewhere.
class ProgressLine {
 public:
  ProgressLine(std::string command, std::size_t total, bool enabled)
      : command_(std::move(command)), total_(total), enabled_(enabled && ::isatty(STDERR_FILENO)) {}
  void show(std::size_t done) const {
    if (!enabled_) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    fmt::print(stderr, "\r{}: {}/{} images, {:.1f}/s, {:.1f} s\x1b[K", command_, done, total_, s > 0 ? done / s : 0.0,
               s);
    std::fflush(stderr);
  }
  // Before another line: clears the progress line.
  void clear() const {
    if (enabled_) fmt::print(stderr, "\r\x1b[K");
  }

 private:
  std::string command_;
  std::size_t total_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Runs `f`, turning what it throws into one line for the file's report (UsageError's "why the variant cannot run
// here" included: in a batch it concerns that file alone).
template <class F>
std::optional<std::string> failure_of(F&& f) {
  try {
    f();
    return std::nullopt;
  } catch (const ClError& e) {
    return fmt::format("OpenCL error: {}", e.what());
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

// The batch over several devices: the files are handed out to a thread per device, each reading, filtering and
// writing its own, so one thread's decoding and encoding overlap the other devices' work.
int run_batch_on_devices(const ImageCommandOptions& options, const ImageFilterSteps& steps,
                         const std::vector<ImageJob>& jobs) {
  if (!steps.run_on_devices)
    throw UsageError(fmt::format("--device {}: {} runs on one device", options.device, steps.command));
  const std::vector<std::unique_ptr<Context>> contexts = open_devices(options.device);
  const std::vector<Context*> devices = pointers(contexts);
  const ProgressLine progress(steps.command, jobs.size(), !steps.quiet);
  std::mutex mutex;  // guards what follows
  std::size_t failed = 0, done = 0;
  std::set<std::string> variants;
  Timing sum;
  // set_sample_type sets the command's parameters for an input's depth: it runs alone (the lock held exclusively),
  // and a file runs while they are its depth's (the lock shared).
  std::shared_mutex params_mutex;
  std::optional<SampleType> params_type;
  ImageFilterSteps plain = steps;
  plain.set_sample_type = nullptr;
  share_out(devices, jobs.size(), 1, [&](Context& ctx, std::size_t, std::size_t i) {
    const ImageJob& job = jobs[i];
    std::string ran;
    Timing timing;
    const auto why = failure_of([&] {
      const Image input = read_input(job.input);
      check_filter_input(input, job.input, steps);
      check_output_depth(input, job.input, job.output);
      std::optional<Image> output;
      while (!output) {
        {
          const std::shared_lock shared(params_mutex);
          if (!steps.set_sample_type || params_type == input.type) {
            auto [filtered, variant] = filter_on_device(ctx, input, job.input, plain, timing);
            output = std::move(filtered);
            ran = std::move(variant);
            break;
          }
        }
        const std::unique_lock alone(params_mutex);
        if (params_type == input.type) continue;
        params_type.reset();
        try {
          steps.set_sample_type(input.type);
        } catch (const std::invalid_argument& e) {
          throw UsageError(fmt::format("{}: {}", job.input, e.what()));
        }
        params_type = input.type;
      }
      write_output(*output, job.output, options);
    });
    const std::lock_guard lock(mutex);
    if (why) {
      progress.clear();
      fmt::print(stderr, "clfilters: {}\n",
                 why->starts_with(job.input) ? *why : fmt::format("{}: {}", job.input, *why));
      ++failed;
    } else {
      variants.insert(std::move(ran));
      sum.kernel_ms += timing.kernel_ms;
      sum.total_ms += timing.total_ms;
    }
    progress.show(++done);
  });
  progress.clear();
  if (!steps.quiet) {
    std::string ran;
    for (const std::string& v : variants) ran += (ran.empty() ? "" : "; ") + v;
    fmt::print("{} variant={} on {}: {} of {} images -> {}\n", steps.describe(), ran.empty() ? "none" : ran,
               describe_devices(devices), jobs.size() - failed, jobs.size(), options.output_dir);
    if (options.time)
      fmt::print("kernel {:.3f} ms, total {:.3f} ms, summed over the images\n", sum.kernel_ms, sum.total_ms);
  }
  return failed ? kRuntimeError : 0;
}

}  // namespace

int run_image_batch(const ImageCommandOptions& options, const ImageFilterSteps& steps) {
  const std::vector<ImageJob> jobs = image_jobs(options);
  for (const ImageJob& job : jobs) {
    try {
      format_from_extension(job.output);
    } catch (const ImageIoError& e) {
      throw UsageError(e.what());
    }
  }
  std::error_code made;
  fs::create_directories(options.output_dir, made);
  if (made || !fs::is_directory(options.output_dir))
    throw std::runtime_error(fmt::format("{}: cannot make the output directory{}", options.output_dir,
                                         made ? ": " + made.message() : std::string()));
  for (const ImageJob& job : jobs) check_output_path(job.output);
  if (is_device_list(options.device)) return run_batch_on_devices(options, steps, jobs);

  // The first input decodes while the device is set up.
  const auto read = [](const std::string& path) { return std::async(std::launch::async, read_input, path); };
  std::future<Image> next = read(jobs.front().input);
  Context ctx(options.device);
  const ProgressLine progress(steps.command, jobs.size(), !steps.quiet);
  std::size_t failed = 0;
  const auto report = [&](const std::string& line) {
    progress.clear();
    fmt::print(stderr, "clfilters: {}\n", line);
    ++failed;
  };
  std::set<std::string> variants;
  Timing sum;
  // Three stages, one image in each: the next input decodes and the last output encodes while this one filters.
  std::future<void> writing;
  const auto finish_writing = [&] {
    if (!writing.valid()) return;
    if (auto why = failure_of([&] { writing.get(); })) report(*why);
  };
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const ImageJob& job = jobs[i];
    std::optional<Image> input;
    if (auto why = failure_of([&] { input = next.get(); })) report(*why);
    if (i + 1 < jobs.size()) next = read(jobs[i + 1].input);
    if (!input) {
      progress.show(i + 1);
      continue;
    }
    Image output;
    const auto why = failure_of([&] {
      check_filter_input(*input, job.input, steps);
      check_output_depth(*input, job.input, job.output);
      Timing timing;
      auto [filtered, ran] = filter_on_device(ctx, *input, job.input, steps, timing);
      output = std::move(filtered);
      variants.insert(std::move(ran));
      sum.kernel_ms += timing.kernel_ms;
      sum.total_ms += timing.total_ms;
    });
    if (why) {
      // Device and filter errors name the file only where they come from it.
      report(why->starts_with(job.input) ? *why : fmt::format("{}: {}", job.input, *why));
    } else {
      finish_writing();
      writing = std::async(std::launch::async,
                           [&options, &job, out = std::move(output)] { write_output(out, job.output, options); });
    }
    progress.show(i + 1);
  }
  finish_writing();
  progress.clear();
  if (!steps.quiet) {
    std::string ran;
    for (const std::string& v : variants) ran += (ran.empty() ? "" : "; ") + v;
    fmt::print("{} variant={} on {} ({}): {} of {} images -> {}\n", steps.describe(), ran.empty() ? "none" : ran,
               ctx.info().name, ctx.info().platform_name, jobs.size() - failed, jobs.size(), options.output_dir);
    if (options.time)
      fmt::print("kernel {:.3f} ms, total {:.3f} ms, summed over the images\n", sum.kernel_ms, sum.total_ms);
  }
  return failed ? kRuntimeError : 0;
}

}  // namespace clf::cli
