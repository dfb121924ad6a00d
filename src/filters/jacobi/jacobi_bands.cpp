// SPDX-License-Identifier: Apache-2.0
// The host call of the reconstruction out of core: the image in bands of rows, with temporal blocking. Each pass runs
// k iterations (k <= kMaxJacobiStepsPerLaunch) on every band, uploaded with k halo rows on each side (fewer at the
// image's edges, where SPEC's zero outside holds as in one piece). An error from the artificial edge of a band moves
// one row an iteration, so after k iterations the band's own rows are exact: only they go back, into the host's next
// iterate, while every band reads the current one. The iterates are the one-piece run's bit for bit, since every
// variant computes each pixel from the same four neighbours in the same order.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "filters/image_call.hpp"
#include "filters/jacobi/jacobi_internal.hpp"
#include "runtime/host_transfer.hpp"

namespace clf {
namespace {

// Two slots of a band's edges and iterate, so that one band's upload overlaps the previous band's kernels, and the
// variant's second iterate (Runner's "jacobi.other"), all of a band's size.
constexpr int kBandSlots = 2;
constexpr int kBandBuffers = 2 * kBandSlots + 1;
// One piece: the edge map, the iterate and the variant's second iterate.
constexpr int kOnePieceBuffers = 3;

double bits_to_change(cl_uint bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

struct Band {
  int y0, y1;    // its own rows, written back
  int in0, in1;  // the rows uploaded: `halo` more on each side, within the image
};

class BandedRun {
 public:
  BandedRun(Context& ctx, const Image& edges, const VariantChoice& choice, int band_rows, int max_halo, Timing* timing)
      : ctx_(ctx),
        edges_(edges),
        choice_(choice),
        band_rows_(band_rows),
        row_bytes_(std::size_t(edges.width) * sizeof(float)),
        timing_(timing) {
    const std::size_t slot_bytes = std::size_t(std::min(edges.height, band_rows + 2 * max_halo)) * row_bytes_;
    for (int s = 0; s < kBandSlots; ++s) {
      edge_slots_.push_back(ctx.scratch_buffer(fmt::format("jacobi.bands.edges.{}", s), slot_bytes));
      u_slots_.push_back(ctx.scratch_buffer(fmt::format("jacobi.bands.u.{}", s), slot_bytes));
    }
  }

  int launches() const { return launches_; }
  double kernel_ms() const { return kernel_ms_; }

  JacobiResult run(const JacobiParams& params, const Image& initial) {
    const int n = params.iterations;
    Image cur = initial.empty() ? Image(edges_.width, edges_.height, 1, SampleType::f32) : initial;
    Image next = Image::uninitialized(edges_.width, edges_.height, 1, SampleType::f32);
    JacobiResult result;
    for (int done = 0; done < n;) {
      const int count = std::min(kMaxJacobiStepsPerLaunch, n - done);
      // The one-piece run measures every iteration under a tolerance, and the last one for report_change.
      const bool measure = params.tolerance || (params.report_change && done + count == n);
      const std::vector<cl_uint> changes = pass(cur, next, count, measure);
      int stop = -1;
      if (params.tolerance)
        for (int i = 0; i < count && stop < 0; ++i)
          if (bits_to_change(changes[std::size_t(i)]) <= *params.tolerance) stop = i;
      if (stop >= 0) {
        // Converged at iteration done + stop + 1: cur is intact, so the pass runs again up to there.
        if (stop + 1 < count) pass(cur, next, stop + 1, false);
        result.iterations = done + stop + 1;
        result.last_change = bits_to_change(changes[std::size_t(stop)]);
        result.image = std::move(next);
        return result;
      }
      if (measure) result.last_change = bits_to_change(changes[std::size_t(count - 1)]);
      std::swap(cur, next);
      done += count;
    }
    result.iterations = n;
    result.image = std::move(cur);
    return result;
  }

 private:
  Band band(int b, int halo) const {
    const int y0 = b * band_rows_, y1 = std::min(edges_.height, y0 + band_rows_);
    return {y0, y1, std::max(0, y0 - halo), std::min(edges_.height, y1 + halo)};
  }

  // `count` iterations of every band from `cur` into `next`; with `measure`, each iteration's largest change over the
  // image: the largest of the bands' maxima over their own rows. A halo row's change is not one of the image's (its
  // value is wrong), so the kernels measure only the rows a call names (JacobiCall::measured_from/to): the maxima
  // come with the iterations at no extra pass over memory, where measuring on the host would need every iterate
  // there.
  std::vector<cl_uint> pass(const Image& cur, Image& next, int count, bool measure) {
    const int bands = (edges_.height + band_rows_ - 1) / band_rows_;
    std::vector<std::vector<cl_uint>> band_changes(static_cast<std::size_t>(bands));
    std::vector<cl::Event> computed(static_cast<std::size_t>(bands));
    std::vector<cl::Event> events;
    cl::CommandQueue& up = ctx_.side_queue(0);
    cl::CommandQueue& down = ctx_.side_queue(1);
    // Band b's rows go down after band b + 1's kernels are enqueued, so they overlap those kernels; the slot band b
    // used takes band b + 2's upload only once they are down (read_staged returns then).
    const auto download = [&](int b) {
      const Band k = band(b, count);
      read_staged(ctx_, u_slots_[std::size_t(b % kBandSlots)], next.data.data() + std::size_t(k.y0) * row_bytes_,
                  std::size_t(k.y1 - k.y0) * row_bytes_,
                  {.device_offset = std::size_t(k.y0 - k.in0) * row_bytes_,
                   .queue = &down,
                   .wait = {computed[std::size_t(b)]}});
    };
    try {
      for (int b = 0; b < bands; ++b) {
        const Band k = band(b, count);
        const std::size_t slot = std::size_t(b % kBandSlots);
        const std::size_t offset = std::size_t(k.in0) * row_bytes_, bytes = std::size_t(k.in1 - k.in0) * row_bytes_;
        std::vector<cl::Event> slot_free;
        if (b >= kBandSlots) slot_free.push_back(computed[std::size_t(b - kBandSlots)]);
        write_staged(ctx_, edge_slots_[slot], edges_.data.data() + offset, bytes,
                     {.queue = &up, .wait = std::move(slot_free)});
        std::vector<cl::Event> uploaded{
            write_staged(ctx_, u_slots_[slot], cur.data.data() + offset, bytes, {.queue = &up})};
        check_cl(ctx_.queue().enqueueBarrierWithWaitList(&uploaded), "clEnqueueBarrierWithWaitList");

        const DeviceFloatImage d_edges{edge_slots_[slot], edges_.width, k.in1 - k.in0};
        DeviceFloatImage d_u{u_slots_[slot], edges_.width, k.in1 - k.in0};
        JacobiCall call{{}, edges_.width, k.in1 - k.in0};
        call.params.iterations = count;
        call.measured_from = k.y0 - k.in0;
        call.measured_to = k.y1 - k.in0;
        JacobiTarget target{d_edges, d_u};
        if (measure) target.every_change = &band_changes[std::size_t(b)];
        // The whole image's choice on every band (checked by the caller), never one for the band's size.
        const auto planned = plan_call(ctx_, jacobi_table(), call, choice_, std::nullopt);
        try {
          for (cl::Event& e : planned.enqueue(ctx_, call, target)) events.push_back(std::move(e));
        } catch (...) {
          launches_ += target.launches;
          throw;
        }
        launches_ += target.launches;
        // In order: the marker completes after the band's kernels and the read of its maxima.
        check_cl(ctx_.queue().enqueueMarkerWithWaitList(nullptr, &computed[std::size_t(b)]),
                 "clEnqueueMarkerWithWaitList");
        check_cl(ctx_.queue().flush(), "clFlush");
        if (b >= 1) download(b - 1);
      }
      download(bands - 1);
      check_cl(ctx_.queue().finish(), "clFinish");
    } catch (...) {
      // Reads of the maxima into band_changes may be in flight: they must end before it goes.
      ctx_.queue().finish();
      up.finish();
      down.finish();
      throw;
    }
    if (timing_) kernel_ms_ += kernel_milliseconds(events);  // kept per pass: a long run has many events

    std::vector<cl_uint> changes(measure ? std::size_t(count) : 0, 0);
    for (const auto& c : band_changes)
      for (std::size_t i = 0; i < c.size(); ++i) changes[i] = std::max(changes[i], c[i]);  // floats >= 0 as bits
    return changes;
  }

  Context& ctx_;
  const Image& edges_;
  const VariantChoice& choice_;
  int band_rows_;
  std::size_t row_bytes_;
  Timing* timing_;
  std::vector<cl::Buffer> edge_slots_, u_slots_;
  int launches_ = 0;
  double kernel_ms_ = 0;
};

}  // namespace

std::optional<int> jacobi_band_rows(const DeviceInfo& device, int width, int height, int halo) {
  if (width < 1 || height < 1 || halo < 0) return std::nullopt;
  const std::uint64_t row_bytes = std::uint64_t(width) * sizeof(float), bytes = row_bytes * std::uint64_t(height);
  int rows = 0;
  if (const char* forced = std::getenv("CLFILTERS_BAND_ROWS"); forced && *forced) {
    rows = std::max(1, std::atoi(forced));
  } else {
    // As host_call_band_rows: each allocation within the device's limit, and together at most half its memory.
    if (bytes <= device.max_alloc_bytes && kOnePieceBuffers * bytes <= device.global_mem_bytes / 2) return std::nullopt;
    const std::uint64_t slot_bytes =
        std::min<std::uint64_t>(device.max_alloc_bytes, device.global_mem_bytes / (2 * kBandBuffers));
    const std::uint64_t slot_rows = slot_bytes / row_bytes;
    if (slot_rows < std::uint64_t(2 * halo + 1))
      throw std::invalid_argument(fmt::format(
          "jacobi: a {}x{} float image ({} bytes) does not fit the device ({} bytes, {} an allocation), nor does a "
          "band of 1 row and {} halo rows each side ({} buffers of {} bytes, {} bytes a buffer at most)",
          width, height, bytes, device.global_mem_bytes, device.max_alloc_bytes, halo, kBandBuffers,
          std::uint64_t(2 * halo + 1) * row_bytes, slot_bytes));
    rows = int(std::min<std::uint64_t>(slot_rows - std::uint64_t(2 * halo), std::uint64_t(height)));
  }
  if (rows >= height) return std::nullopt;
  return rows;
}

std::optional<JacobiResult> jacobi_reconstruct_in_bands(Context& ctx, const Image& edges, const JacobiParams& params,
                                                        std::string_view variant, const Image& initial,
                                                        Timing* timing) {
  const int max_halo = std::min(params.iterations, kMaxJacobiStepsPerLaunch);
  const auto rows = jacobi_band_rows(ctx.info(), edges.width, edges.height, max_halo);
  if (!rows) return std::nullopt;
  const JacobiCall whole{params, edges.width, edges.height};
  const auto run_with = [&](const VariantChoice& choice, int& launches) {
    // Program builds are one-off costs, not part of the call's time (SPEC "Total time").
    jacobi_prepare(ctx, choice.variant, edges.width, edges.height, choice.config);
    const auto start = std::chrono::steady_clock::now();
    BandedRun run(ctx, edges, choice, *rows, max_halo, timing);
    try {
      JacobiResult result = run.run(params, initial);
      if (timing) {
        timing->kernel_ms = run.kernel_ms();
        timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      }
      return result;
    } catch (const ClError&) {
      launches = run.launches();
      throw;
    }
  };
  const VariantChoice choice = jacobi_choose(ctx, variant, edges.width, edges.height);
  if (auto why = jacobi_table().unsupported(choice.variant, ctx.info(), whole, choice.config))
    throw std::invalid_argument(*why);
  int launches = 0;
  try {
    return run_with(choice, launches);
  } catch (const ClError& e) {
    // As in one piece: "auto" falls back when the device refuses its choice's build or first launch.
    if (variant != "auto" || !is_variant_refusal(e) || launches > 0) throw;
    return run_fallbacks(
        ctx, "reconstruct", choice.variant, e,
        fallback_variants(jacobi_auto_variant(ctx.info(), edges.width, edges.height), jacobi_variants(),
                          choice.variant),
        [&](const std::string& next) { return !jacobi_unsupported(ctx.info(), next, edges.width, edges.height); },
        [&](const std::string& next) {
          launches = 0;
          return run_with({next, {}, "fallback"}, launches);
        },
        [&](const ClError& again) { return is_variant_refusal(again) && launches == 0; });
  }
}

}  // namespace clf
