// Host launcher for the edge map and the Jacobi reconstruction (kernels in jacobi.cl).
#include "clfilters/jacobi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "filters/jacobi/jacobi_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {

// ---- DeviceFloatImage ------------------------------------------------------------------------------

DeviceFloatImage DeviceFloatImage::allocate(Context& ctx, int width, int height) {
  if (width < 1 || height < 1)
    throw std::invalid_argument(fmt::format("a float image needs a size of at least 1x1 (got {}x{})", width, height));
  DeviceFloatImage img;
  img.width = width;
  img.height = height;
  img.buffer = ctx.buffer(CL_MEM_READ_WRITE, img.byte_size());
  return img;
}

DeviceFloatImage DeviceFloatImage::upload(Context& ctx, const Image& image) {
  if (image.type != SampleType::f32 || image.channels != 1)
    throw std::invalid_argument(fmt::format("device float images take 1 channel of f32, not {} channel(s) of {}",
                                            image.channels, sample_type_name(image.type)));
  DeviceFloatImage img = allocate(ctx, image.width, image.height);
  check_cl(ctx.queue().enqueueWriteBuffer(img.buffer, CL_TRUE, 0, img.byte_size(), image.data.data()),
           "clEnqueueWriteBuffer");
  return img;
}

Image DeviceFloatImage::download(Context& ctx) const {
  Image out(width, height, 1, SampleType::f32);
  check_cl(ctx.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, byte_size(), out.data.data()), "clEnqueueReadBuffer");
  return out;
}

namespace {

constexpr std::string_view kKernelFile = "jacobi.cl";
const std::string kNoOptions;  // per-call values are kernel arguments; nothing changes types

void check_size(int width, int height) {
  if (width < 1 || height < 1) throw std::invalid_argument(fmt::format("image {}x{} is empty", width, height));
  // Kernels index with 32-bit ints.
  if (std::int64_t(width) * height * 4 >= (std::int64_t(1) << 31))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (at most 2^29 pixels)", width, height));
}

void check_params(const JacobiParams& p) {
  if (p.iterations < 0) throw std::invalid_argument(fmt::format("iterations must be >= 0, got {}", p.iterations));
  if (p.tolerance && !(*p.tolerance >= 0))
    throw std::invalid_argument(fmt::format("tolerance must be >= 0, got {}", *p.tolerance));
  if (p.check_every < 1) throw std::invalid_argument(fmt::format("check-every must be >= 1, got {}", p.check_every));
}

bool same_buffer(const cl::Buffer& a, const cl::Buffer& b) {
  return a() != nullptr && a() == b();
}

VariantChoice resolve_variant(Context& ctx, std::string_view variant, int w, int h, const TuningConfig& config) {
  VariantChoice choice = jacobi_choose(ctx, variant, w, h, config);
  if (auto why = jacobi_unsupported(ctx.info(), choice.variant, w, h, choice.config)) throw std::invalid_argument(*why);
  return choice;
}

std::string kernel_name(const std::string& variant) {
  if (variant == "host_roundtrip" || variant == "col1d") return "jacobi_col1d";
  if (variant == "row1d") return "jacobi_row1d";
  if (variant == "tiled2d") return "jacobi_tiled2d";
  if (variant == "strip") return "jacobi_strip";
  if (variant == "wavefront") return "jacobi_wavefront";
  return "jacobi_temporal";
}

// Build options: strip's, wavefront's and tiled2d's register arrays need their sizes at compile time;
// wavefront also takes its work-group width and whether it measures the change (jacobi.cl). tiled2d with
// rows 1 is the file's default (ROWS 1), so it shares the program of the kernels without options.
std::string kernel_options(const std::string& variant, const TuningConfig& config, int width, bool measure = false) {
  const VariantInfo& info = *find_variant(jacobi_variants(), variant);
  if (variant == "strip") {
    const int vec = tunable_value(config, info, "vec");
    return fmt::format("-D VEC={} -D ROWS={} -D ALIGNED={}", vec, tunable_value(config, info, "rows"),
                       width % vec == 0 ? 1 : 0);
  }
  if (variant == "wavefront")
    return fmt::format("-D STEPS={} -D COLS={} -D LOCAL_X={} -D MEASURE={}", tunable_value(config, info, "steps"),
                       tunable_value(config, info, "cols"), tunable_value(config, info, "local_x"), measure ? 1 : 0);
  if (variant == "tiled2d") {
    const int rows = tunable_value(config, info, "rows");
    return rows == 1 ? kNoOptions : fmt::format("-D ROWS={}", rows);
  }
  return kNoOptions;
}

// The largest float <= t (t >= 0): change <= t in double exactly when its bits are <= this one's.
cl_uint tolerance_bits(double t) {
  float f = static_cast<float>(std::min(t, double(std::numeric_limits<float>::max())));
  if (double(f) > t) f = std::nextafter(f, 0.0f);
  cl_uint bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

double bits_to_change(cl_uint bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// One kernel launch: `count` iterations starting after iteration `first` (relative to its read-back
// window), reading `src` and writing `dst`.
struct Launch {
  int first;
  int count;
  cl::Buffer src;
  cl::Buffer dst;
};

class Runner {
 public:
  Runner(Context& ctx, const DeviceFloatImage& edges, DeviceFloatImage& u, const JacobiParams& params,
         std::string variant, const TuningConfig& config)
      : ctx_(ctx),
        edges_(edges),
        u_(u),
        params_(params),
        variant_(std::move(variant)),
        info_(*find_variant(jacobi_variants(), variant_)),
        config_(config),
        w_(u.width),
        h_(u.height) {
    kernel_ = &ctx.kernel(kKernelFile, kernel_options(variant_, config_, w_), kernel_name(variant_));
    other_ = ctx.scratch_buffer("jacobi.other", u.byte_size());
    window_ = params.tolerance ? params.check_every : 0;
    changes_ = ctx.scratch_buffer("jacobi.changes",
                                  sizeof(cl_uint) * std::size_t(std::max(window_, kMaxJacobiStepsPerLaunch)));
    tol_bits_ = params.tolerance ? tolerance_bits(*params.tolerance) : 0;
    per_launch_ = jacobi_temporal_steps(config_, info_);
  }

  JacobiDeviceRun run() {
    JacobiDeviceRun result;
    const int n = params_.iterations;
    cl::Buffer cur = u_.buffer, nxt = other_;
    if (params_.tolerance) {
      for (int done = 0; done < n;) {
        const int len = std::min(window_, n - done);
        zero_changes(len);
        std::vector<Launch> launches;
        for (int i = 0; i < len;) {
          const int count = std::min(per_launch_, len - i);
          const int prev_from = launches.empty() ? 0 : launches.back().first;
          const int prev_to = launches.empty() ? 0 : i;
          launches.push_back({i, count, cur, nxt});
          enqueue(launches.back(), prev_from, prev_to, i, result.events);
          advance(cur, nxt, result.events);
          i += count;
        }
        std::vector<cl_uint> bits(static_cast<std::size_t>(len));
        check_cl(ctx_.queue().enqueueReadBuffer(changes_, CL_TRUE, 0, bits.size() * sizeof(cl_uint), bits.data()),
                 "clEnqueueReadBuffer");
        for (int i = 0; i < len; ++i) {
          if (bits_to_change(bits[i]) > *params_.tolerance) continue;
          // Converged at window iteration i. The launches after it did nothing, so its launch's input
          // is intact; a temporal launch that ran past i is rerun for exactly the iterations up to i.
          const Launch& at = *std::find_if(launches.begin(), launches.end(),
                                           [i](const Launch& l) { return l.first <= i && i < l.first + l.count; });
          cl::Buffer result_buffer = at.dst;
          if (variant_ == "host_roundtrip") {
            result_buffer = u_.buffer;  // the copy back after every launch put each iterate into u
          } else if (i < at.first + at.count - 1) {
            enqueue({at.first, i - at.first + 1, at.src, at.dst}, 0, 0, -1, result.events);
          }
          finish(result_buffer, result.events);
          result.iterations = done + i + 1;
          result.last_change = bits_to_change(bits[i]);
          return result;
        }
        done += len;
        result.iterations = done;
        result.last_change = bits_to_change(bits[len - 1]);
      }
    } else {
      for (int done = 0; done < n;) {
        const int count = std::min(per_launch_, n - done);
        const bool last = done + count == n;
        const bool measure = last && params_.report_change;
        if (measure) zero_changes(count);
        enqueue({0, count, cur, nxt}, 0, 0, measure ? 0 : -1, result.events);
        advance(cur, nxt, result.events);
        done += count;
        if (measure) {
          cl_uint bits = 0;
          check_cl(ctx_.queue().enqueueReadBuffer(changes_, CL_TRUE, sizeof(cl_uint) * std::size_t(count - 1),
                                                  sizeof bits, &bits),
                   "clEnqueueReadBuffer");
          result.last_change = bits_to_change(bits);
        }
      }
      result.iterations = n;
    }
    finish(cur, result.events);
    return result;
  }

 private:
  void zero_changes(int count) {
    check_cl(ctx_.queue().enqueueFillBuffer(changes_, cl_uint(0), 0, sizeof(cl_uint) * std::size_t(count)),
             "clEnqueueFillBuffer");
  }

  // After a launch: swap the buffers, or (host_roundtrip, seed 002's starting point) copy the new
  // iterate to the host and back up into the input buffer.
  void advance(cl::Buffer& cur, cl::Buffer& nxt, std::vector<cl::Event>& events) {
    if (variant_ != "host_roundtrip") {
      std::swap(cur, nxt);
      return;
    }
    host_copy_.resize(u_.byte_size());
    cl::Event down, up;
    check_cl(ctx_.queue().enqueueReadBuffer(nxt, CL_TRUE, 0, host_copy_.size(), host_copy_.data(), nullptr, &down),
             "clEnqueueReadBuffer");
    check_cl(ctx_.queue().enqueueWriteBuffer(cur, CL_TRUE, 0, host_copy_.size(), host_copy_.data(), nullptr, &up),
             "clEnqueueWriteBuffer");
    events.push_back(down);
    events.push_back(up);
  }

  // The result must end in u.
  void finish(const cl::Buffer& result_buffer, std::vector<cl::Event>& events) {
    if (same_buffer(result_buffer, u_.buffer)) return;
    cl::Event copy;
    check_cl(ctx_.queue().enqueueCopyBuffer(result_buffer, u_.buffer, 0, 0, u_.byte_size(), nullptr, &copy),
             "clEnqueueCopyBuffer");
    events.push_back(copy);
  }

  // Enqueues one launch. `slot` < 0: do not measure; else the window slot of its first iteration.
  void enqueue(const Launch& l, int prev_from, int prev_to, int slot, std::vector<cl::Event>& events) {
    cl::Kernel& k = slot >= 0 ? measuring_kernel() : *kernel_;
    const auto W = std::size_t(w_), H = std::size_t(h_);
    if (variant_ == "host_roundtrip" || variant_ == "col1d" || variant_ == "row1d") {
      set_kernel_args(k, edges_.buffer, l.src, l.dst, w_, h_, changes_, prev_from, prev_to, slot, tol_bits_);
      const std::size_t items = variant_ == "row1d" ? W : H;
      const int local = variant_ == "host_roundtrip" ? 0 : tunable_value(config_, info_, "local_size");
      events.push_back(local > 0 ? launch(ctx_, k, cl::NDRange(round_up(items, local)), cl::NDRange(local))
                                 : launch(ctx_, k, cl::NDRange(items)));
      return;
    }
    const auto [gx, gy] = jacobi_work_group(config_, info_);
    const auto lx = std::size_t(gx), ly = std::size_t(gy);
    if (variant_ == "strip") {
      const auto vec = std::size_t(tunable_value(config_, info_, "vec"));
      const auto rows = std::size_t(tunable_value(config_, info_, "rows"));
      set_kernel_args(k, edges_.buffer, l.src, l.dst, w_, h_, changes_, prev_from, prev_to, slot, tol_bits_,
                      cl::Local(sizeof(cl_uint) * lx * ly));
      const cl::NDRange global(round_up((W + vec - 1) / vec, lx), round_up((H + rows - 1) / rows, ly));
      events.push_back(launch(ctx_, k, global, cl::NDRange(lx, ly)));
      return;
    }
    if (variant_ == "wavefront") {
      const int steps = jacobi_temporal_steps(config_, info_), cols = tunable_value(config_, info_, "cols");
      const int rows = jacobi_wavefront_rows(ctx_.info(), config_, w_, h_);
      const std::size_t owned = std::size_t(cols) * lx - 2 * std::size_t(steps);
      const std::size_t levels = sizeof(float) * 2 * std::size_t(steps) * (lx + 2);
      set_kernel_args(k, edges_.buffer, l.src, l.dst, w_, h_, l.count, rows, changes_, prev_from, prev_to, slot,
                      tol_bits_, cl::Local(levels), cl::Local(cols > 1 ? levels : sizeof(float)));
      const cl::NDRange global((W + owned - 1) / owned * lx, (H + std::size_t(rows) - 1) / std::size_t(rows));
      events.push_back(launch(ctx_, k, global, cl::NDRange(lx, 1)));
      return;
    }
    const cl::NDRange local(lx, ly);
    if (variant_ == "tiled2d") {
      // Each work-item owns `rows` pixels of its column, ly rows apart: ceil(H / rows) work-items down.
      const auto rows = std::size_t(tunable_value(config_, info_, "rows"));
      set_kernel_args(k, edges_.buffer, l.src, l.dst, w_, h_, changes_, prev_from, prev_to, slot, tol_bits_,
                      cl::Local(sizeof(cl_uint) * lx * ly));
      events.push_back(launch(ctx_, k, cl::NDRange(round_up(W, lx), round_up((H + rows - 1) / rows, ly)), local));
      return;
    }
    const cl::NDRange global(round_up(W, lx), round_up(H, ly));
    const std::size_t halo = 2 * std::size_t(l.count);
    const std::size_t region = sizeof(float) * (lx + halo) * (ly + halo);
    set_kernel_args(k, edges_.buffer, l.src, l.dst, w_, h_, l.count, changes_, prev_from, prev_to, slot, tol_bits_,
                    cl::Local(region), cl::Local(region), cl::Local(region), cl::Local(sizeof(cl_uint) * lx * ly));
    events.push_back(launch(ctx_, k, global, local));
  }

  // The kernel for launches that measure the change: the same one, except for wavefront, whose
  // measuring program is built on first use.
  cl::Kernel& measuring_kernel() {
    if (!measuring_)
      measuring_ = &ctx_.kernel(kKernelFile, kernel_options(variant_, config_, w_, true), kernel_name(variant_));
    return *measuring_;
  }

  Context& ctx_;
  const DeviceFloatImage& edges_;
  DeviceFloatImage& u_;
  const JacobiParams& params_;
  std::string variant_;
  const VariantInfo& info_;
  const TuningConfig& config_;
  int w_, h_;
  cl::Kernel* kernel_ = nullptr;
  cl::Kernel* measuring_ = nullptr;
  cl::Buffer other_, changes_;
  int window_ = 0;
  cl_uint tol_bits_ = 0;
  int per_launch_ = 1;
  std::vector<std::uint8_t> host_copy_;
};

}  // namespace

void jacobi_prepare(Context& ctx, std::string_view variant, int width, int height, const TuningConfig& config) {
  check_size(width, height);
  const VariantChoice choice = resolve_variant(ctx, variant, width, height, config);
  ctx.kernel(kKernelFile, kernel_options(choice.variant, choice.config, width), kernel_name(choice.variant));
}

JacobiDeviceRun jacobi_reconstruct(Context& ctx, const DeviceFloatImage& edges, DeviceFloatImage& u,
                                   const JacobiParams& params, std::string_view variant, const TuningConfig& config) {
  if (edges.width != u.width || edges.height != u.height)
    throw std::invalid_argument(fmt::format("jacobi: the edge map is {}x{} but the iterate is {}x{}", edges.width,
                                            edges.height, u.width, u.height));
  if (same_buffer(edges.buffer, u.buffer)) throw std::invalid_argument("jacobi: the iterate must not alias the edges");
  check_size(u.width, u.height);
  check_params(params);
  const VariantChoice choice = resolve_variant(ctx, variant, u.width, u.height, config);
  return Runner(ctx, edges, u, params, choice.variant, choice.config).run();
}

JacobiResult jacobi_reconstruct(Context& ctx, const Image& edges, const JacobiParams& params, std::string_view variant,
                                const Image& initial, Timing* timing) {
  if (edges.type != SampleType::f32 || edges.channels != 1)
    throw std::invalid_argument(fmt::format("the edge map must be 1 channel of float32, not {} channel(s) of {}",
                                            edges.channels, sample_type_name(edges.type)));
  if (!initial.empty() && (initial.type != SampleType::f32 || initial.channels != 1))
    throw std::invalid_argument(fmt::format("the initial image must be 1 channel of float32, not {} channel(s) of {}",
                                            initial.channels, sample_type_name(initial.type)));
  if (!initial.empty() && (initial.width != edges.width || initial.height != edges.height))
    throw std::invalid_argument(fmt::format("the initial image is {}x{} but the edge map is {}x{}", initial.width,
                                            initial.height, edges.width, edges.height));
  check_params(params);
  // Program builds are one-off costs, not part of the call's time (SPEC "Total time").
  jacobi_prepare(ctx, variant, edges.width, edges.height);
  const auto start = std::chrono::steady_clock::now();
  const DeviceFloatImage d_edges = DeviceFloatImage::upload(ctx, edges);
  DeviceFloatImage u;
  if (initial.empty()) {
    u = DeviceFloatImage::allocate(ctx, edges.width, edges.height);
    check_cl(ctx.queue().enqueueFillBuffer(u.buffer, 0.0f, 0, u.byte_size()), "clEnqueueFillBuffer");
  } else {
    u = DeviceFloatImage::upload(ctx, initial);
  }
  JacobiDeviceRun run = jacobi_reconstruct(ctx, d_edges, u, params, variant);
  JacobiResult result;
  result.iterations = run.iterations;
  result.last_change = run.last_change;
  result.image = u.download(ctx);
  if (timing) {
    timing->kernel_ms = kernel_milliseconds(run.events);
    timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return result;
}

// ---- edge map ----------------------------------------------------------------------------------------

std::vector<cl::Event> jacobi_edges(Context& ctx, const DeviceFloatImage& image, DeviceFloatImage& edges) {
  if (image.width != edges.width || image.height != edges.height)
    throw std::invalid_argument("jacobi_edges: the output must have the image's size");
  if (same_buffer(image.buffer, edges.buffer))
    throw std::invalid_argument("jacobi_edges: the output aliases the input");
  check_size(image.width, image.height);
  cl::Kernel& k = ctx.kernel(kKernelFile, kNoOptions, "jacobi_edges");
  set_kernel_args(k, image.buffer, edges.buffer, image.width, image.height);
  return {launch(ctx, k, cl::NDRange(std::size_t(image.width), std::size_t(image.height)))};
}

Image jacobi_edges(Context& ctx, const Image& image, Timing* timing) {
  const Image grey = to_grey_float(image);
  check_size(grey.width, grey.height);
  ctx.kernel(kKernelFile, kNoOptions, "jacobi_edges");  // build before the clock starts
  const auto start = std::chrono::steady_clock::now();
  const DeviceFloatImage d_in = DeviceFloatImage::upload(ctx, grey);
  DeviceFloatImage d_out = DeviceFloatImage::allocate(ctx, grey.width, grey.height);
  const auto events = jacobi_edges(ctx, d_in, d_out);
  Image out = d_out.download(ctx);
  if (timing) {
    timing->kernel_ms = kernel_milliseconds(events);
    timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return out;
}

}  // namespace clf
