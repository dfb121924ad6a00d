// SPDX-License-Identifier: Apache-2.0
// The reconstruction across MPI ranks. Each rank holds its band of rows with `depth` halo rows on each side and runs
// `depth` iterations between two exchanges (temporal blocking, as the out-of-core bands of jacobi_bands.cpp do): an
// error from the band's artificial edge moves one row an iteration, so after `depth` iterations its own rows are
// exact, and the neighbours' own rows refill the halos. The iterates are the one-device run's bit for bit, since every
// variant computes each pixel from the same four neighbours in the same order.
//
// The exchange overlaps the band's iterations: the rows a neighbour needs are first computed alone, in a strip of
// 3 x depth rows around them (their own dependency cone), read back and sent with MPI_Isend while the device runs the
// whole band. The strips cost 6 x depth rows of extra work a pass against the band's rows.
#include "filters/jacobi/jacobi_mpi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "filters/image_call.hpp"
#include "filters/jacobi/jacobi_internal.hpp"
#include "runtime/host_transfer.hpp"

namespace clf {
namespace {

constexpr int kTagUp = 1;    // rows going to the rank above (rank - 1)
constexpr int kTagDown = 2;  // rows going to the rank below (rank + 1)

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double bits_to_change(cl_uint bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(fmt::format("{} failed: {}", call, std::string(text, std::size_t(length))));
}

// The rows a neighbour needs, computed ahead of the band: local rows [from, to) of the band, of which the `depth` rows
// from `send` (relative to the strip) go to `peer`, and `depth` rows from `peer` land at the band's row `halo`.
struct Strip {
  int peer = MPI_PROC_NULL;
  int send_tag = 0, recv_tag = 0;
  int from = 0, to = 0, send = 0, halo = 0;
  DeviceFloatImage edges, u;
  Context::PinnedBuffer* out = nullptr;
  Context::PinnedBuffer* in = nullptr;
  cl::Event read;
};

class RankRun {
 public:
  RankRun(MPI_Comm comm, Context& ctx, const Image& edges, const Image& initial, RankRows rows, int depth,
          VariantChoice choice, JacobiMpiTiming* timing)
      : comm_(comm),
        ctx_(ctx),
        rows_(rows),
        depth_(depth),
        width_(edges.width),
        held_(edges.height),
        row_bytes_(std::size_t(edges.width) * sizeof(float)),
        choice_(std::move(choice)),
        timing_(timing) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    edges_ = DeviceFloatImage::allocate(ctx, width_, held_);
    u_ = DeviceFloatImage::allocate(ctx, width_, held_);
    write_staged(ctx, edges_.buffer, edges.data.data(), edges.byte_size());
    if (initial.empty())
      check_cl(ctx.queue().enqueueFillBuffer(u_.buffer, 0.0f, 0, u_.byte_size()), "clEnqueueFillBuffer");
    else
      write_staged(ctx, u_.buffer, initial.data.data(), initial.byte_size());
    // The top strip's rows reach `depth` below the rows it sends, the bottom one's `depth` above; each is clamped to
    // the rows held, where the image's own edge (zero outside) stands.
    if (rank > 0) add_strip(rank - 1, kTagUp, kTagDown, 0, std::min(held_, 3 * depth), depth, 0, "up");
    if (rank + 1 < size) {
      const int from = std::max(0, held_ - 3 * depth);
      add_strip(rank + 1, kTagDown, kTagUp, from, held_, held_ - 2 * depth - from, held_ - depth, "down");
    }
    check_cl(ctx.queue().finish(), "clFinish");
  }

  JacobiResult run(const JacobiParams& params) {
    const int n = params.iterations;
    // The maxima are combined over the ranks every check_every iterations under a tolerance, else once at the end.
    const int window = params.tolerance ? params.check_every : std::max(n, 1);
    if (params.tolerance) snapshot_ = DeviceFloatImage::allocate(ctx_, width_, held_);
    JacobiResult result;
    for (int done = 0; done < n;) {
      const int len = std::min(window, n - done);
      if (params.tolerance) copy_rows(u_, 0, snapshot_, 0, held_);
      std::vector<cl_uint> changes;
      for (int i = 0; i < len;) {
        const int count = std::min(depth_, len - i);
        const bool measure = params.tolerance || (params.report_change && done + i + count == n);
        for (cl_uint bits : pass(count, measure)) changes.push_back(bits);
        i += count;
      }
      if (!changes.empty()) {
        // Floats >= 0 compare as their bits, as the one-device run's maxima do.
        const auto start = Clock::now();
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, changes.data(), int(changes.size()), MPI_UNSIGNED, MPI_MAX, comm_),
                  "MPI_Allreduce");
        if (timing_) timing_->reduce_ms += ms_since(start);
      }
      if (params.tolerance) {
        for (int s = 0; s < len; ++s) {
          if (bits_to_change(changes[std::size_t(s)]) > *params.tolerance) continue;
          // Converged at window iteration s: from the window's first iterate again, up to there.
          copy_rows(snapshot_, 0, u_, 0, held_);
          for (int i = 0; i <= s; i += depth_) pass(std::min(depth_, s + 1 - i), false);
          result.iterations = done + s + 1;
          result.last_change = bits_to_change(changes[std::size_t(s)]);
          result.image = own_rows();
          return result;
        }
      }
      if (!changes.empty()) result.last_change = bits_to_change(changes.back());
      done += len;
    }
    result.iterations = n;
    result.image = own_rows();
    return result;
  }

  double kernel_ms() const { return kernel_ms_; }

 private:
  void add_strip(int peer, int send_tag, int recv_tag, int from, int to, int send, int halo, const char* name) {
    Strip s;
    s.peer = peer;
    s.send_tag = send_tag;
    s.recv_tag = recv_tag;
    s.from = from;
    s.to = to;
    s.send = send;
    s.halo = halo;
    s.edges = DeviceFloatImage::allocate(ctx_, width_, to - from);
    s.u = DeviceFloatImage::allocate(ctx_, width_, to - from);
    copy_rows(edges_, from, s.edges, 0, to - from);
    const std::size_t bytes = std::size_t(depth_) * row_bytes_;
    s.out = &ctx_.pinned_buffer(fmt::format("jacobi.mpi.{}.out", name), bytes);
    s.in = &ctx_.pinned_buffer(fmt::format("jacobi.mpi.{}.in", name), bytes);
    strips_.push_back(std::move(s));
  }

  void copy_rows(const DeviceFloatImage& src, int src_row, DeviceFloatImage& dst, int dst_row, int rows) {
    check_cl(ctx_.queue().enqueueCopyBuffer(src.buffer, dst.buffer, std::size_t(src_row) * row_bytes_,
                                            std::size_t(dst_row) * row_bytes_, std::size_t(rows) * row_bytes_),
             "clEnqueueCopyBuffer");
  }

  // `count` iterations on `u`, a `rows`-row image: every launch of the chosen variant. With `changes`, each
  // iteration's largest change over the rank's own rows.
  void iterate(const DeviceFloatImage& edges, DeviceFloatImage& u, int count, std::vector<cl_uint>* changes,
               std::vector<cl::Event>& events) {
    JacobiCall call{{}, width_, u.height};
    call.params.iterations = count;
    if (changes) {
      call.measured_from = rows_.y0 - rows_.in0;
      call.measured_to = rows_.y1 - rows_.in0;
    }
    JacobiTarget target{edges, u};
    target.every_change = changes;
    for (cl::Event& e : plan_call(ctx_, jacobi_table(), call, choice_, std::nullopt).enqueue(ctx_, call, target))
      events.push_back(std::move(e));
  }

  // `count` (<= depth) iterations of the band, with the halo exchange that makes its held rows the next iterate.
  std::vector<cl_uint> pass(int count, bool measure) {
    std::vector<cl::Event> events;
    const std::size_t halo_bytes = std::size_t(depth_) * row_bytes_;
    for (Strip& s : strips_) {
      copy_rows(u_, s.from, s.u, 0, s.to - s.from);
      iterate(s.edges, s.u, count, nullptr, events);
      check_cl(ctx_.queue().enqueueReadBuffer(s.u.buffer, CL_FALSE, std::size_t(s.send) * row_bytes_, halo_bytes,
                                              s.out->data, nullptr, &s.read),
               "clEnqueueReadBuffer");
    }
    std::vector<cl_uint> changes;
    iterate(edges_, u_, count, measure ? &changes : nullptr, events);
    check_cl(ctx_.queue().flush(), "clFlush");

    // While the band's kernels run: the strips' rows out, the neighbours' in.
    const auto start = Clock::now();
    std::vector<MPI_Request> requests;
    for (Strip& s : strips_) {
      requests.emplace_back();
      check_mpi(MPI_Irecv(s.in->data, int(halo_bytes), MPI_BYTE, s.peer, s.recv_tag, comm_, &requests.back()),
                "MPI_Irecv");
    }
    for (Strip& s : strips_) {
      check_cl(s.read.wait(), "clWaitForEvents");
      requests.emplace_back();
      check_mpi(MPI_Isend(s.out->data, int(halo_bytes), MPI_BYTE, s.peer, s.send_tag, comm_, &requests.back()),
                "MPI_Isend");
    }
    check_mpi(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    if (timing_) {
      timing_->exchange_ms += ms_since(start);
      timing_->halo_bytes += strips_.size() * halo_bytes;
      timing_->exchanges += 1;
    }
    // In order after the band's kernels: the halos of the new iterate.
    for (Strip& s : strips_)
      check_cl(ctx_.queue().enqueueWriteBuffer(u_.buffer, CL_FALSE, std::size_t(s.halo) * row_bytes_, halo_bytes,
                                               s.in->data),
               "clEnqueueWriteBuffer");
    check_cl(ctx_.queue().finish(), "clFinish");
    if (timing_) kernel_ms_ += kernel_milliseconds(events);
    return changes;
  }

  Image own_rows() {
    Image image = Image::uninitialized(width_, rows_.y1 - rows_.y0, 1, SampleType::f32);
    read_staged(ctx_, u_.buffer, image.data.data(), image.byte_size(),
                {.device_offset = std::size_t(rows_.y0 - rows_.in0) * row_bytes_});
    return image;
  }

  MPI_Comm comm_;
  Context& ctx_;
  RankRows rows_;
  int depth_, width_, held_;
  std::size_t row_bytes_;
  VariantChoice choice_;
  JacobiMpiTiming* timing_;
  DeviceFloatImage edges_, u_, snapshot_;
  std::vector<Strip> strips_;
  double kernel_ms_ = 0;
};

// Builds the launches that measure the change too (wavefront's are another build), so that no build lands in the
// timed run.
void prepare_measuring(Context& ctx, const VariantChoice& choice, int width, int held) {
  JacobiCall call{{}, width, held};
  call.measure = true;
  const KernelPlan plan = jacobi_table().at(choice.variant).plan(ctx, call, choice.config);
  for (const auto& p : plan.passes) ctx.kernel("jacobi.cl", plan.options, p.kernel);
}

}  // namespace

VariantChoice jacobi_mpi_prepare(Context& ctx, std::string_view variant, int width, int held) {
  VariantChoice choice = jacobi_choose(ctx, variant, width, held);
  if (auto why = jacobi_unsupported(ctx.info(), choice.variant, width, held, choice.config))
    throw std::invalid_argument(*why);
  try {
    jacobi_prepare(ctx, choice.variant, width, held, choice.config);
    prepare_measuring(ctx, choice, width, held);
    return choice;
  } catch (const ClError& e) {
    if (variant != "auto" || !is_variant_refusal(e)) throw;
    return run_fallbacks(
        ctx, "reconstruct", choice.variant, e,
        fallback_variants(jacobi_auto_variant(ctx.info(), width, held), jacobi_variants(), choice.variant),
        [&](const std::string& next) { return !jacobi_unsupported(ctx.info(), next, width, held); },
        [&](const std::string& next) {
          VariantChoice fallback{next, {}, "fallback"};
          jacobi_prepare(ctx, next, width, held);
          prepare_measuring(ctx, fallback, width, held);
          return fallback;
        });
  }
}

RankRows jacobi_rank_rows(int height, int ranks, int rank, int depth) {
  const int base = height / ranks, extra = height % ranks;
  RankRows r;
  r.y0 = rank * base + std::min(rank, extra);
  r.y1 = r.y0 + base + (rank < extra ? 1 : 0);
  r.in0 = std::max(0, r.y0 - depth);
  r.in1 = std::min(height, r.y1 + depth);
  return r;
}

int jacobi_exchange_depth(int height, int ranks, int wanted) {
  if (wanted < 1) throw std::invalid_argument(fmt::format("exchange-every must be >= 1, got {}", wanted));
  if (ranks < 1 || height < ranks)
    throw std::invalid_argument(
        fmt::format("{} ranks need at least {} rows, one a rank; the image has {}", ranks, ranks, height));
  return std::min({wanted, kMaxJacobiStepsPerLaunch, height / ranks});
}

JacobiResult jacobi_reconstruct_mpi(MPI_Comm comm, Context& ctx, const Image& edges, const Image& initial, int height,
                                    const JacobiParams& params, int depth, const VariantChoice& choice,
                                    JacobiMpiTiming* timing) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  jacobi_check_params(params);
  const RankRows rows = jacobi_rank_rows(height, size, rank, depth);
  if (depth != jacobi_exchange_depth(height, size, depth))
    throw std::invalid_argument(
        fmt::format("jacobi: a halo {} rows deep does not fit bands of {} rows", depth, height / size));
  const auto check = [&](const Image& image, const char* what) {
    if (image.type != SampleType::f32 || image.channels != 1 || image.height != rows.in1 - rows.in0)
      throw std::invalid_argument(
          fmt::format("jacobi: rank {} needs {} rows {}..{} as 1 channel of float32, got {} "
                      "rows of {} channel(s) of {}",
                      rank, what, rows.in0, rows.in1, image.height, image.channels, sample_type_name(image.type)));
  };
  check(edges, "edge map");
  if (!initial.empty()) check(initial, "initial iterate");
  if (!initial.empty() && initial.width != edges.width)
    throw std::invalid_argument("jacobi: the initial iterate's width is not the edge map's");

  // Program builds (jacobi_mpi_prepare) are one-off costs, not part of the run's time (SPEC "Total time").
  const auto start = Clock::now();
  RankRun run(comm, ctx, edges, initial, rows, depth, choice, timing);
  JacobiResult result = run.run(params);
  if (timing) {
    timing->total_ms = ms_since(start);
    timing->kernel_ms = run.kernel_ms();
  }
  return result;
}

}  // namespace clf
