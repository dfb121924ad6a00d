// SPDX-License-Identifier: Apache-2.0
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

#include "filters/image_call.hpp"
#include "filters/jacobi/jacobi_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {

// ---- DeviceFloatImage ------------------------------------------------------------------------------

DeviceFloatImage DeviceFloatImage::allocate(Context& ctx, int width, int height) {
  return allocate_planes<DeviceFloatImage>(ctx, width, height, sizeof(float), "a float image needs",
                                           &DeviceFloatImage::buffer);
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

DeviceFloatImage DeviceFloatImage::view(Context& ctx, cl_mem mem, int width, int height, std::size_t offset,
                                        std::size_t row_pitch) {
  const DeviceImage checked = DeviceImage::view(ctx, mem, width, height, 4, offset, row_pitch);
  return {checked.buffer, width, height, offset, row_pitch};
}

Image DeviceFloatImage::download(Context& ctx) const {
  Image out = bytes().download(ctx);  // the same bytes, read row by row where the view is pitched
  out.channels = 1;
  out.type = SampleType::f32;
  return out;
}

namespace {
DeviceFloatImage as_float(const DeviceImage& bytes) {
  return {bytes.buffer, bytes.width, bytes.height, bytes.offset, bytes.row_pitch};
}
}  // namespace

namespace {

constexpr std::string_view kKernelFile = "jacobi.cl";
const std::string kNoOptions;  // jacobi_edges has no build options

void check_size(int width, int height) {
  if (width < 1 || height < 1) throw std::invalid_argument(fmt::format("image {}x{} is empty", width, height));
  check_image_size(width, height);  // 4-byte samples indexed with 32-bit ints, as the 8-bit filters' RGBA
}

bool same_buffer(const cl::Buffer& a, const cl::Buffer& b) {
  return a() != nullptr && a() == b();
}

ResolvedCall<JacobiCall, JacobiTarget> resolve(Context& ctx, const JacobiCall& call, std::string_view variant,
                                               const TuningConfig& config) {
  check_size(call.width, call.height);
  jacobi_check_params(call.params);
  VariantChoice choice = jacobi_choose(ctx, variant, call.width, call.height, config);
  const auto why = jacobi_table().unsupported(choice.variant, ctx.info(), call, choice.config);
  return plan_call(ctx, jacobi_table(), call, std::move(choice), why);
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
  Runner(Context& ctx, const KernelPlan& plan, const JacobiCall& call, const JacobiLoop& loop, JacobiTarget& target)
      : ctx_(ctx),
        plan_(plan),
        loop_(loop),
        edges_(target.edges),
        u_(target.u),
        launches_(target.launches),
        every_change_(target.every_change),
        params_(call.params) {
    kernel_ = &ctx.kernel(kKernelFile, plan.options, pass().kernel);
    other_ = ctx.scratch_buffer("jacobi.other", u_.byte_size());
    window_ = params_.tolerance ? params_.check_every : 0;
    const int slots = std::max({window_, kMaxJacobiStepsPerLaunch, every_change_ ? params_.iterations : 0});
    changes_ = ctx.scratch_buffer("jacobi.changes", sizeof(cl_uint) * std::size_t(slots));
    tol_bits_ = params_.tolerance ? tolerance_bits(*params_.tolerance) : 0;
  }

  JacobiDeviceRun run() {
    JacobiDeviceRun result;
    const int n = params_.iterations;
    const int per_launch = loop_.steps_per_launch;
    cl::Buffer cur = u_.buffer, nxt = other_;
    if (every_change_) {
      // Every iteration measured, none stopping the run: the banded host call combines the bands' maxima.
      if (n > 0) zero_changes(n);
      for (int done = 0; done < n;) {
        const int count = std::min(per_launch, n - done);
        enqueue({done, count, cur, nxt}, 0, 0, done, result.events);
        advance(cur, nxt, result.events);
        done += count;
      }
      // std::max: GCC 13 otherwise reads a negative n into the size and warns (-Wstringop-overflow).
      every_change_->assign(std::size_t(std::max(n, 0)), 0);
      if (n > 0) {
        cl::Event read;
        check_cl(ctx_.queue().enqueueReadBuffer(changes_, CL_FALSE, 0, sizeof(cl_uint) * std::size_t(n),
                                                every_change_->data(), nullptr, &read),
                 "clEnqueueReadBuffer");
        result.events.push_back(read);
      }
      result.iterations = n;
    } else if (params_.tolerance) {
      for (int done = 0; done < n;) {
        const int len = std::min(window_, n - done);
        zero_changes(len);
        std::vector<Launch> launches;
        for (int i = 0; i < len;) {
          const int count = std::min(per_launch, len - i);
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
          if (loop_.through_host) {
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
        const int count = std::min(per_launch, n - done);
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
  const KernelPlan::Pass& pass() const { return plan_.passes.front(); }

  void zero_changes(int count) {
    check_cl(ctx_.queue().enqueueFillBuffer(changes_, cl_uint(0), 0, sizeof(cl_uint) * std::size_t(count)),
             "clEnqueueFillBuffer");
  }

  // After a launch: swap the buffers, or (through_host) copy the new iterate to the host and back up into
  // the input buffer.
  void advance(cl::Buffer& cur, cl::Buffer& nxt, std::vector<cl::Event>& events) {
    if (!loop_.through_host) {
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
    loop_.set_args(k, {edges_.buffer, l.src, l.dst, l.count, changes_, prev_from, prev_to, slot, tol_bits_});
    events.push_back(launch(ctx_, k, pass().global, pass().local));
    ++launches_;
  }

  // The kernel for launches that measure the change: the same one where the measuring options are the
  // plan's, else (wavefront) built on first use.
  cl::Kernel& measuring_kernel() {
    if (!measuring_) measuring_ = &ctx_.kernel(kKernelFile, loop_.measuring_options, pass().kernel);
    return *measuring_;
  }

  Context& ctx_;
  const KernelPlan& plan_;
  const JacobiLoop& loop_;
  const DeviceFloatImage& edges_;
  DeviceFloatImage& u_;
  int& launches_;
  std::vector<cl_uint>* every_change_;
  const JacobiParams& params_;
  cl::Kernel* kernel_ = nullptr;
  cl::Kernel* measuring_ = nullptr;
  cl::Buffer other_, changes_;
  int window_ = 0;
  cl_uint tol_bits_ = 0;
  std::vector<std::uint8_t> host_copy_;
};

}  // namespace

std::vector<cl::Event> jacobi_run(Context& ctx, const KernelPlan& plan, const JacobiCall& call, const JacobiLoop& loop,
                                  JacobiTarget& target) {
  JacobiDeviceRun run = Runner(ctx, plan, call, loop, target).run();
  target.outcome = run;
  return std::move(run.events);
}

void jacobi_check_params(const JacobiParams& p) {
  if (p.iterations < 0) throw std::invalid_argument(fmt::format("iterations must be >= 0, got {}", p.iterations));
  if (p.tolerance && !(*p.tolerance >= 0))
    throw std::invalid_argument(fmt::format("tolerance must be >= 0, got {}", *p.tolerance));
  if (p.check_every < 1) throw std::invalid_argument(fmt::format("check-every must be >= 1, got {}", p.check_every));
}

const std::vector<VariantInfo>& jacobi_variants() {
  return jacobi_table().infos();
}

std::optional<std::string> jacobi_unsupported(const DeviceInfo& device, std::string_view variant, int width, int height,
                                              const TuningConfig& config) {
  return jacobi_table().unsupported(variant, device, {{}, width, height}, config);
}

void jacobi_prepare(Context& ctx, std::string_view variant, int width, int height, const TuningConfig& config) {
  const KernelPlan plan = resolve(ctx, {{}, width, height}, variant, config).plan;
  try {
    for (const auto& pass : plan.passes) ctx.kernel(kKernelFile, plan.options, pass.kernel);
  } catch (const ClError& e) {
    // "auto" meets the refusal again at the call, which falls back.
    if (variant != "auto" || !is_variant_refusal(e)) throw;
  }
}

JacobiDeviceRun jacobi_reconstruct(Context& ctx, const DeviceFloatImage& edges, DeviceFloatImage& u,
                                   const JacobiParams& params, std::string_view variant, const TuningConfig& config,
                                   const std::vector<cl::Event>& wait) {
  if (edges.width != u.width || edges.height != u.height)
    throw std::invalid_argument(fmt::format("jacobi: the edge map is {}x{} but the iterate is {}x{}", edges.width,
                                            edges.height, u.width, u.height));
  if (same_buffer(edges.buffer, u.buffer)) throw std::invalid_argument("jacobi: the iterate must not alias the edges");
  const JacobiCall call{params, u.width, u.height};
  const auto r = resolve(ctx, call, variant, config);
  // The iterate is read and written: a pitched one is packed before and copied back after.
  JacobiDeviceRun run;
  enqueue_wait(ctx, wait, run.events);
  const DeviceFloatImage packed_edges = as_float(packed_input(ctx, edges.bytes(), run.events, "view edges"));
  const DeviceImage packed_u = packed_input(ctx, u.bytes(), run.events, "view iterate");
  DeviceFloatImage u_packed = as_float(packed_u);
  JacobiTarget target{packed_edges, u_packed};
  try {
    for (auto& e : r.enqueue(ctx, call, target)) run.events.push_back(std::move(e));
  } catch (const ClError& e) {
    // "auto" falls back when the device refuses its choice's build or first launch, before u is written.
    if (variant != "auto" || !is_variant_refusal(e) || target.launches > 0) throw;
    int launches = 0;  // the current attempt's
    target.outcome = run_fallbacks(
        ctx, "reconstruct", r.entry->info.name, e,
        fallback_variants(jacobi_auto_variant(ctx.info(), call.width, call.height), jacobi_variants(),
                          r.entry->info.name),
        [&](const std::string& next) { return !jacobi_unsupported(ctx.info(), next, call.width, call.height); },
        [&](const std::string& next) {
          JacobiTarget attempt{packed_edges, u_packed};
          launches = 0;
          const auto fallback = plan_call(ctx, jacobi_table(), call, {next, {}, "fallback"}, std::nullopt);
          try {
            for (auto& event : fallback.enqueue(ctx, call, attempt)) run.events.push_back(std::move(event));
          } catch (const ClError&) {
            launches = attempt.launches;
            throw;
          }
          return attempt.outcome;
        },
        [&](const ClError& again) { return is_variant_refusal(again) && launches == 0; });
  }
  unpack_output(ctx, packed_u, u.bytes(), run.events);
  static_cast<JacobiOutcome&>(run) = target.outcome;
  return run;
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
  jacobi_check_params(params);
  if (auto banded = jacobi_reconstruct_in_bands(ctx, edges, params, variant, initial, timing))
    return std::move(*banded);
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

std::vector<cl::Event> jacobi_edges(Context& ctx, const DeviceFloatImage& image, DeviceFloatImage& edges,
                                    const std::vector<cl::Event>& wait) {
  if (image.width != edges.width || image.height != edges.height)
    throw std::invalid_argument("jacobi_edges: the output must have the image's size");
  if (same_buffer(image.buffer, edges.buffer))
    throw std::invalid_argument("jacobi_edges: the output aliases the input");
  check_size(image.width, image.height);
  cl::Kernel& k = ctx.kernel(kKernelFile, kNoOptions, "jacobi_edges");
  DeviceImage out = edges.bytes();
  return on_packed_images(ctx, image.bytes(), out, wait, [&](const DeviceImage& in_bytes, DeviceImage& out_bytes) {
    set_kernel_args(k, in_bytes.buffer, out_bytes.buffer, image.width, image.height);
    return std::vector<cl::Event>{launch(ctx, k, cl::NDRange(std::size_t(image.width), std::size_t(image.height)))};
  });
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
