// SPDX-License-Identifier: Apache-2.0
#include "bench/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "clfilters/device_image.hpp"
#include "clfilters/image_io.hpp"
#include "common/synthetic_image.hpp"
#include "runtime/launch.hpp"

// A measurement that was not taken (no naive row, no CPU runs) is null in the JSON report.
NLOHMANN_JSON_NAMESPACE_BEGIN
template <>
struct adl_serializer<std::optional<double>> {
  static void to_json(json& j, const std::optional<double>& v) { j = v ? json(*v) : json(nullptr); }
  static void from_json(const json& j, std::optional<double>& v) {
    v = j.is_null() ? std::nullopt : std::optional(j.get<double>());
  }
};
NLOHMANN_JSON_NAMESPACE_END

namespace clf {
// The JSON report's keys are the members' names.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Stats, median, min, p90)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BenchRow, filter, params, width, height, variant, resolved, status, kernel_ms,
                                   total_ms, call_ms, kernel_runs, total_runs, gpix_per_s, gb_per_s, bandwidth_fraction,
                                   kernel_floor_ms, total_floor_ms, speedup_vs_naive, cpu4_ms, cpu_all_ms,
                                   speedup_vs_cpu4, speedup_vs_cpu_all, input_file, input_sha256)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BenchReport, device, platform, driver, date, command, copy_gb_per_s, upload_gb_per_s,
                                   download_gb_per_s, cpu_threads, rows)

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::string params_text(const ParamMap& p) {
  std::string out;
  for (const auto& [k, v] : p) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02} UTC", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min);
}

// The rows to time: "all", "auto", or names separated by commas, each optionally with explicit
// tunables as the tuner prints them, "unrolled[block_x=2,rows=4]" (unknown names are dropped).
struct SelectedVariant {
  std::string name;
  TuningConfig config;
  std::string label;  // as given
};

std::vector<SelectedVariant> selected_variants(const FilterSpec& spec, const std::string& which) {
  std::vector<SelectedVariant> out;
  if (which == "auto") return {{"auto", {}, "auto"}};
  if (which == "all") {
    for (const auto& v : spec.variants()) out.push_back({v.name, {}, v.name});
    out.push_back({"auto", {}, "auto"});
    return out;
  }
  std::size_t start = 0;
  while (start < which.size()) {
    // The next comma outside brackets ends this entry.
    std::size_t end = start;
    for (int depth = 0; end < which.size() && (depth > 0 || which[end] != ','); ++end)
      depth += which[end] == '[' ? 1 : which[end] == ']' ? -1 : 0;
    const std::string entry = which.substr(start, end - start);
    const auto bracket = entry.find('[');
    const std::string name = entry.substr(0, bracket);
    TuningConfig config;
    if (bracket != std::string::npos) {
      if (entry.back() != ']') throw std::invalid_argument(fmt::format("--variants: missing ']' in '{}'", entry));
      config = parse_tuning_config(entry.substr(bracket + 1, entry.size() - bracket - 2));
    }
    if (name == "auto" || find_variant(spec.variants(), name)) out.push_back({name, config, entry});
    start = end + 1;
  }
  return out;
}

// FILTER_PARAMS_WxH.npy with only [A-Za-z0-9._-]: "box-blur_channels-4_diameter-9_1920x1080.npy".
std::string input_file_name(const std::string& filter, const std::string& params, int w, int h) {
  std::string name = fmt::format("{}_{}_{}x{}.npy", filter, params, w, h);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = c == ' ' ? '_' : '-';
  return name;
}

}  // namespace

std::string sha256_hex(const void* bytes, std::size_t size) {
  static constexpr std::uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  const auto block = [&](const std::uint8_t* p) {
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = std::uint32_t(p[4 * i]) << 24 | std::uint32_t(p[4 * i + 1]) << 16 | std::uint32_t(p[4 * i + 2]) << 8 |
             std::uint32_t(p[4 * i + 3]);
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  };
  const auto* p = static_cast<const std::uint8_t*>(bytes);
  std::size_t full = size / 64 * 64;
  for (std::size_t i = 0; i < full; i += 64) block(p + i);
  // The tail, a 1 bit, zeros, and the length in bits (big-endian) fill one or two last blocks.
  std::uint8_t tail[128] = {};
  const std::size_t rest = size - full;
  if (rest) std::memcpy(tail, p + full, rest);
  tail[rest] = 0x80;
  const std::size_t tail_size = rest < 56 ? 64 : 128;
  const std::uint64_t bits = std::uint64_t(size) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_size - 1 - i] = std::uint8_t(bits >> (8 * i));
  for (std::size_t i = 0; i < tail_size; i += 64) block(tail + i);
  std::string hex;
  for (std::uint32_t v : h) hex += fmt::format("{:08x}", v);
  return hex;
}

Stats stats_of(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) { return v[std::min(v.size() - 1, std::size_t(std::ceil(q * double(v.size()))) - 1)]; };
  return {v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]), v.front(), at(0.9)};
}

double measure_copy_bandwidth(Context& ctx) {
  const std::size_t bytes = std::size_t(std::min<std::uint64_t>(
      {std::uint64_t(1) << 30, ctx.info().max_alloc_bytes / 2, ctx.info().global_mem_bytes / 8}));
  cl::Buffer a = ctx.buffer(CL_MEM_READ_WRITE, bytes), b = ctx.buffer(CL_MEM_READ_WRITE, bytes);
  const cl_uint pattern = 0x5A5A5A5A;
  check_cl(ctx.queue().enqueueFillBuffer(a, pattern, 0, bytes), "clEnqueueFillBuffer");
  std::vector<double> gbs;
  for (int i = 0; i < 6; ++i) {
    cl::Event e;
    check_cl(ctx.queue().enqueueCopyBuffer(a, b, 0, 0, bytes, nullptr, &e), "clEnqueueCopyBuffer");
    const double ms = kernel_milliseconds({e});
    if (i > 0) gbs.push_back(2.0 * double(bytes) / (ms * 1e-3) / 1e9);  // first one warms up
  }
  return stats_of(gbs).median;
}

std::pair<double, double> measure_host_transfer(Context& ctx) {
  const std::size_t bytes = std::size_t(std::min<std::uint64_t>(
      {std::uint64_t(1) << 28, ctx.info().max_alloc_bytes / 2, ctx.info().global_mem_bytes / 8}));
  cl::Buffer pinned = ctx.buffer(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
  cl::Buffer device = ctx.buffer(CL_MEM_READ_WRITE, bytes);
  cl::CommandQueue& q = ctx.queue();
  cl_int err = CL_SUCCESS;
  void* host = q.enqueueMapBuffer(pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, &err);
  check_cl(err, "clEnqueueMapBuffer");
  std::memset(host, 0x5A, bytes);
  const auto rate = [&](bool up) {
    std::vector<double> gbs;
    for (int i = 0; i < 6; ++i) {
      const auto start = std::chrono::steady_clock::now();
      check_cl(up ? q.enqueueWriteBuffer(device, CL_TRUE, 0, bytes, host)
                  : q.enqueueReadBuffer(device, CL_TRUE, 0, bytes, host),
               "clEnqueue{Write,Read}Buffer");
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i > 0) gbs.push_back(double(bytes) / s / 1e9);  // the first one warms up
    }
    return stats_of(gbs).median;
  };
  const std::pair<double, double> rates{rate(true), rate(false)};
  check_cl(q.enqueueUnmapMemObject(pinned, host), "clEnqueueUnmapMemObject");
  check_cl(q.finish(), "clFinish");
  return rates;
}

BenchReport run_bench(Context& ctx, const BenchOptions& options,
                      const std::function<void(const std::string&)>& progress) {
  BenchReport report;
  report.device = ctx.info().name;
  report.platform = ctx.info().platform_name;
  report.driver = ctx.info().driver_version;
  report.date = today();
  report.copy_gb_per_s = measure_copy_bandwidth(ctx);
  std::tie(report.upload_gb_per_s, report.download_gb_per_s) = measure_host_transfer(ctx);
  report.cpu_threads = int(std::max(1u, std::thread::hardware_concurrency()));
  std::mt19937_64 seeds(std::random_device{}());

  for (const FilterSpec* spec : options.filters.empty() ? all_filter_specs() : options.filters) {
    const auto cases = options.cases.empty() ? spec->bench_cases() : options.cases;
    for (const auto& params : cases)
      for (const auto& [w, h] : options.sizes) {
        std::string input_file, input_sha256;
        std::unique_ptr<FilterInstance> instance;
        {
          SyntheticPhotoCapture capture;
          instance = spec->instantiate(ctx, w, h, params, seeds());
          // Filters draw one photo per instance (Jacobi derives its edge map from it); guide samples none.
          if (!options.save_inputs_dir.empty() && !capture.images.empty()) {
            const Image& input = capture.images.front();
            std::filesystem::create_directories(options.save_inputs_dir);
            input_file = (std::filesystem::path(options.save_inputs_dir) /
                          input_file_name(spec->name(), params_text(params), w, h))
                             .string();
            write_image(input, input_file);
            input_sha256 = sha256_hex(input.data.data(), input.data.size());
          }
        }
        // The CPU reference at 4 threads and at all threads (seed 001's table).
        std::optional<double> cpu4, cpu_all;
        if (options.cpu_runs > 0) {
          if (progress) progress(fmt::format("{} {} {}x{}: CPU reference", spec->name(), params_text(params), w, h));
          for (int threads : {4, report.cpu_threads}) {
            std::vector<double> t;
            for (int i = 0; i < options.cpu_runs; ++i) {
              const auto s = Clock::now();
              instance->run_reference(threads);
              t.push_back(ms_since(s));
            }
            (threads == 4 ? cpu4 : cpu_all) = stats_of(t).median;
          }
        }
        std::optional<double> naive_ms;
        for (const auto& [variant, config, label] : selected_variants(*spec, options.variants)) {
          BenchRow row;
          row.filter = spec->name();
          row.params = params_text(params);
          row.width = w;
          row.height = h;
          row.variant = row.resolved = label;
          row.input_file = input_file;
          row.input_sha256 = input_sha256;
          if (variant == "auto") row.resolved = instance->auto_variant();
          row.cpu4_ms = cpu4;
          row.cpu_all_ms = cpu_all;
          if (progress) progress(fmt::format("{} {} {}x{}: {}", spec->name(), row.params, w, h, variant));
          try {
            if (auto why = variant == "auto" ? std::nullopt : instance->unsupported(variant, config)) {
              row.status = "skipped: " + *why;
              report.rows.push_back(row);
              continue;
            }
            kernel_milliseconds(instance->enqueue(variant, config));
            if (auto diff = instance->check_output()) {
              if (!options.unchecked) {
                row.status = "WRONG: " + *diff;
                report.rows.push_back(row);
                continue;
              }
              row.variant += " UNCHECKED";
            }
            const auto row_start = Clock::now();
            const double cap_ms = options.max_seconds_per_row * 1e3;
            for (int i = 0; i < options.warmup && ms_since(row_start) < cap_ms / 4; ++i)
              kernel_milliseconds(instance->enqueue(variant, config));
            std::vector<double> kernel, total;
            for (int i = 0; i < options.runs && (i < 3 || ms_since(row_start) < cap_ms); ++i)
              kernel.push_back(kernel_milliseconds(instance->enqueue(variant, config)));
            // The call on a queue without profiling, as a latency-minded user would run it: profiling
            // events cost the H200 ~7 us per 1080p call. Warm-ups and runs under
            // the same row cap as the kernel's.
            std::vector<double> call;
            {
              const ProfilingOff plain(ctx);
              for (int i = 0; i < options.warmup && ms_since(row_start) < cap_ms / 4; ++i)
                wait_for(ctx, instance->enqueue(variant, config), options.call_wait);
              for (int i = 0; i < options.runs && (i < 3 || ms_since(row_start) < cap_ms); ++i) {
                const auto call_start = Clock::now();
                wait_for(ctx, instance->enqueue(variant, config), options.call_wait);
                call.push_back(ms_since(call_start));
              }
            }
            row.call_ms = stats_of(call);
            for (int i = 0; i < options.total_runs && (i < 3 || ms_since(row_start) < cap_ms); ++i)
              total.push_back(instance->run_host_to_host(variant, config));
            row.kernel_ms = stats_of(kernel);
            row.total_ms = stats_of(total);
            row.kernel_runs = int(kernel.size());
            row.total_runs = int(total.size());
            row.status = "ok";
          } catch (const std::exception& e) {
            std::string what = e.what();
            if (auto nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
            row.status = "failed: " + what;
            report.rows.push_back(row);
            continue;
          }
          const double s = row.kernel_ms.median * 1e-3;
          row.gpix_per_s = double(instance->pixels()) / s / 1e9;
          row.gb_per_s = double(instance->bytes_moved()) / s / 1e9;
          row.bandwidth_fraction = report.copy_gb_per_s > 0 ? row.gb_per_s / report.copy_gb_per_s : 0;
          row.kernel_floor_ms = double(instance->bytes_moved()) / (report.copy_gb_per_s * 1e6);
          const auto [up, down] = instance->host_bytes();
          row.total_floor_ms = row.kernel_floor_ms;
          if (!ctx.works_in_host_memory())
            row.total_floor_ms +=
                double(up) / (report.upload_gb_per_s * 1e6) + double(down) / (report.download_gb_per_s * 1e6);
          // The first variant of every spec is its baseline (the seeds' "naive").
          if (label == spec->variants().front().name) naive_ms = row.kernel_ms.median;
          if (naive_ms) row.speedup_vs_naive = *naive_ms / row.kernel_ms.median;
          if (cpu4) row.speedup_vs_cpu4 = *cpu4 / row.kernel_ms.median;
          if (cpu_all) row.speedup_vs_cpu_all = *cpu_all / row.kernel_ms.median;
          report.rows.push_back(row);
        }
      }
  }
  return report;
}

namespace {
std::string opt(const std::optional<double>& v, const char* fmt_spec = "{:.2f}") {
  return v ? fmt::format(fmt::runtime(fmt_spec), *v) : "-";
}
}  // namespace

std::string format_table(const BenchReport& r) {
  std::string out = fmt::format(
      "Device: {} ({}, driver {}); copy bandwidth {:.1f} GB/s; pinned upload {:.1f} GB/s, download {:.1f} "
      "GB/s; CPU reference threads: 4 and {}\n",
      r.device, r.platform, r.driver, r.copy_gb_per_s, r.upload_gb_per_s, r.download_gb_per_s, r.cpu_threads);
  out += fmt::format(
      "{:<12} {:<28} {:>11} {:<26} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8} {:>6} {:>8} {:>8} {:>8}\n",
      "filter", "params", "size", "variant", "kern med", "kern min", "kern p90", "kern floor", "total med", "tot floor",
      "Gpix/s", "GB/s", "%bw", "x naive", "x cpu4", "x cpuN");
  for (const auto& row : r.rows) {
    const std::string variant = row.variant == "auto" ? "auto=" + row.resolved : row.variant;
    const std::string size = fmt::format("{}x{}", row.width, row.height);
    if (row.status != "ok") {
      out += fmt::format("{:<12} {:<28} {:>11} {:<26} {}\n", row.filter, row.params, size, variant, row.status);
      continue;
    }
    out += fmt::format(
        "{:<12} {:<28} {:>11} {:<26} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>8.2f} {:>8.1f} "
        "{:>5.0f}% {:>8} {:>8} {:>8}\n",
        row.filter, row.params, size, variant, row.kernel_ms.median, row.kernel_ms.min, row.kernel_ms.p90,
        row.kernel_floor_ms, row.total_ms.median, row.total_floor_ms, row.gpix_per_s, row.gb_per_s,
        100 * row.bandwidth_fraction, opt(row.speedup_vs_naive), opt(row.speedup_vs_cpu4), opt(row.speedup_vs_cpu_all));
  }
  return out;
}

std::string format_csv(const BenchReport& r) {
  std::string out =
      "device,filter,params,width,height,variant,resolved,status,kernel_median_ms,kernel_min_ms,kernel_p90_ms,"
      "total_median_ms,total_min_ms,total_p90_ms,call_median_ms,gpix_per_s,gb_per_s,bandwidth_fraction,copy_gb_per_s,"
      "speedup_vs_naive,cpu4_ms,cpu_all_ms,speedup_vs_cpu4,speedup_vs_cpu_all,kernel_runs,total_runs,kernel_floor_ms,"
      "total_floor_ms\n";
  auto quoted = [](const std::string& s) {
    std::string q(1, '"');
    for (char c : s) q.append(c == '"' ? 2 : 1, c);  // CSV doubles embedded quotes
    q.push_back('"');
    return q;
  };
  for (const auto& row : r.rows) {
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.4f},{:.3f},{:.4f},{:.1f},{},{},{},"
        "{},{},{},{},{:.6f},{:.6f}\n",
        quoted(r.device), row.filter, quoted(row.params), row.width, row.height, quoted(row.variant),
        quoted(row.resolved), quoted(row.status), row.kernel_ms.median, row.kernel_ms.min, row.kernel_ms.p90,
        row.total_ms.median, row.total_ms.min, row.total_ms.p90, row.call_ms.median, row.gpix_per_s, row.gb_per_s,
        row.bandwidth_fraction, r.copy_gb_per_s, opt(row.speedup_vs_naive, "{:.4f}"), opt(row.cpu4_ms, "{:.4f}"),
        opt(row.cpu_all_ms, "{:.4f}"), opt(row.speedup_vs_cpu4, "{:.4f}"), opt(row.speedup_vs_cpu_all, "{:.4f}"),
        row.kernel_runs, row.total_runs, row.kernel_floor_ms, row.total_floor_ms);
  }
  return out;
}

std::string format_json(const BenchReport& r) {
  return nlohmann::json(r).dump(1) + "\n";
}

std::string plot_svg(const BenchReport& r) {
  // Groups in report order; bars are the variants with a speedup (auto excluded: it repeats one).
  struct Group {
    std::string filter, detail;
    std::vector<std::pair<std::string, double>> bars;
  };
  std::vector<Group> groups;
  double top = 1;
  for (const auto& row : r.rows) {
    if (row.status != "ok" || !row.speedup_vs_naive || row.variant == "auto") continue;
    const std::string detail = fmt::format("{} {}x{}", row.params, row.width, row.height);
    if (groups.empty() || groups.back().filter != row.filter || groups.back().detail != detail)
      groups.push_back({row.filter, detail, {}});
    groups.back().bars.emplace_back(row.variant, *row.speedup_vs_naive);
    top = std::max(top, *row.speedup_vs_naive);
  }
  const double log_top = std::ceil(std::log10(top) + 1e-9);  // log scale from 0.1x to the next power of 10
  const double bar_w = 22, gap = 48, left = 60, plot_h = 300, base_y = 50 + plot_h;
  const std::string title = fmt::format("Speedup over naive (kernel time, log scale), {}", r.device);
  double width = left + 20;
  for (const auto& g : groups) width += std::max(double(g.bars.size()) * bar_w, 6.0 * double(g.detail.size())) + gap;
  width = std::max(width, 7.5 * double(title.size()) + left);
  auto y_of = [&](double v) { return base_y - plot_h * (std::log10(std::max(v, 0.1)) + 1) / (log_top + 1); };
  const char* colours[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                           "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"24\" font-size=\"14\">{}</text>\n",
      width, base_y + 170, left, title);
  for (int e = -1; e <= int(log_top); ++e) {
    const double v = std::pow(10.0, e), y = y_of(v);
    svg += fmt::format(
        "<line x1=\"{}\" x2=\"{:.0f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/><text x=\"{}\" "
        "y=\"{:.1f}\" text-anchor=\"end\">{}x</text>\n",
        left, width, y, y, e == 0 ? "#888" : "#ddd", left - 5, y + 4, v < 1 ? "0.1" : fmt::format("{:g}", v));
  }
  double x = left + 10;
  for (const auto& g : groups) {
    const double group_start = x;
    for (std::size_t i = 0; i < g.bars.size(); ++i) {
      const double y = y_of(g.bars[i].second), y1 = y_of(1.0);
      svg += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"{}\"><title>{} {} {}: "
          "{:.2f}x</title></rect>\n",
          x, std::min(y, y1), bar_w - 3, std::max(1.0, std::abs(y1 - y)), colours[i % 10], g.filter, g.detail,
          g.bars[i].first, g.bars[i].second);
      svg += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(55)\">{}</text>\n", x + 5, base_y + 6,
                         g.bars[i].first);
      x += bar_w;
    }
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-weight=\"bold\">{}</text>\n", group_start, base_y + 135,
                       g.filter);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\">{}</text>\n", group_start, base_y + 150,
                       g.detail);
    x = std::max(x, group_start + 6.0 * double(g.detail.size())) + gap;
  }
  return svg + "</svg>\n";
}

}  // namespace clf
