// SPDX-License-Identifier: Apache-2.0
// The benchmark harness (seed 001's method, docs/SPEC.md "Timing"): warm-up runs, then timed runs; kernel
// time from profiling events (the sum over every kernel of a call) and total time from host input to
// host output, each as median, min and p90; throughput, effective bandwidth against the device's
// measured copy bandwidth, and speedups over the filter's first (naive) variant and the CPU reference.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "clfilters/device_image.hpp"
#include "clfilters/export.hpp"
#include "filters/filter_spec.hpp"

namespace CLF_API clf {

struct BenchOptions {
  std::vector<const FilterSpec*> filters;  // empty: all
  std::vector<std::pair<int, int>> sizes = {{1920, 1080}};
  std::string variants = "all";  // all | auto | comma-separated names
  std::vector<ParamMap> cases;   // empty: each filter's bench_cases()
  int warmup = 10;
  int runs = 50;
  int total_runs = 10;  // host-to-host runs for the total time
  int cpu_runs = 3;     // reference runs per thread count; 0 skips the CPU columns
  // A variant whose calls are slow (naive on a CPU) stops its warm-up and timed runs after this many
  // seconds, with at least 3 timed runs; the row records how many ran.
  double max_seconds_per_row = 20;
  // How the `call` column's synchronised call waits for the device (wait_for).
  // spin: 30.5 us against 30.8-31.4 with clFinish for the H200 1080p box blur call.
  WaitMode call_wait = WaitMode::spin;
  // Non-empty: each case's input (what synthetic_photo drew for it) is written to this folder as
  // FILTER_PARAMS_WxH.npy and its SHA-256 recorded in the rows, so peers can run on the same bytes.
  std::string save_inputs_dir;
  // A variant whose output differs from the reference is timed anyway, its label marked " UNCHECKED":
  // for diagnostic builds (CLFILTERS_BUILD_OPTIONS) that take part of a kernel's work out.
  bool unchecked = false;
};

struct Stats {
  double median = 0, min = 0, p90 = 0;
};

struct BenchRow {
  std::string filter;
  std::string params;  // "channels=4 diameter=9"
  int width = 0, height = 0;
  std::string variant;  // "auto" rows show what it resolved to in `resolved`
  std::string resolved;
  std::string status;  // "ok", "skipped: ...", "WRONG: ...", "failed: ..."
  Stats kernel_ms, total_ms;
  Stats call_ms;  // host wall time of one device-resident call, enqueue to completion, profiling off
  int kernel_runs = 0, total_runs = 0;
  double gpix_per_s = 0, gb_per_s = 0, bandwidth_fraction = 0;
  // What the bandwidths measured at start allow: the kernel's bytes at the copy bandwidth, and that plus the host
  // bytes (input up, output down) at the pinned transfer rates; no transfer on a device computing in host memory.
  double kernel_floor_ms = 0, total_floor_ms = 0;
  std::optional<double> speedup_vs_naive, speedup_vs_cpu4, speedup_vs_cpu_all;
  std::optional<double> cpu4_ms, cpu_all_ms;
  std::string input_file;    // with save_inputs_dir: the saved input's path ("" if none was drawn)
  std::string input_sha256;  // of its samples (row-major, interleaved), as hex
};

struct BenchReport {
  std::string device, platform, driver, date, command;
  double copy_gb_per_s = 0;                           // clEnqueueCopyBuffer, bytes read + written per second
  double upload_gb_per_s = 0, download_gb_per_s = 0;  // pinned host memory to the device and back
  int cpu_threads = 0;                                // "all threads" for the CPU reference
  std::vector<BenchRow> rows;
};

// clEnqueueCopyBuffer of a large buffer (up to 1 GiB, within the device's limits); median of 5.
double measure_copy_bandwidth(Context& ctx);
// Pinned host memory (CL_MEM_ALLOC_HOST_PTR, mapped) to a device buffer and back, 256 MiB at most, median of 5:
// {upload, download} in GB/s, the rates a host-to-host call can reach.
std::pair<double, double> measure_host_transfer(Context& ctx);

Stats stats_of(std::vector<double> samples);

// SHA-256 of `size` bytes as 64 hex digits (FIPS 180-4), to show two programs read the same input.
std::string sha256_hex(const void* bytes, std::size_t size);

BenchReport run_bench(Context& ctx, const BenchOptions& options,
                      const std::function<void(const std::string&)>& progress = {});

std::string format_table(const BenchReport& report);
std::string format_csv(const BenchReport& report);
std::string format_json(const BenchReport& report);
// Bar chart of speedup over the naive variant: one group per filter, case and size, a bar per variant.
std::string plot_svg(const BenchReport& report);

}  // namespace clf
