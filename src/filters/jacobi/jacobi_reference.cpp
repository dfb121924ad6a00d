// SPDX-License-Identifier: Apache-2.0
// CPU references for the edge map and the Jacobi reconstruction, in double precision, straight from
// docs/SPEC.md, plus the conversion of any input image to the one float channel both work on.
#include <fmt/format.h>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <thread>

#include "clfilters/jacobi.hpp"
#include "common/image_compare.hpp"
#include "common/parallel.hpp"

namespace clf {

Image to_grey_float(const Image& image) {
  Image out(image.width, image.height, 1, SampleType::f32);
  auto o = out.samples<float>();
  if (image.channels == 1) {
    for (std::size_t i = 0; i < o.size(); ++i) o[i] = static_cast<float>(sample_as_double(image, i));
    return out;
  }
  if (image.type != SampleType::u8 || image.channels > 4)
    throw std::invalid_argument(
        fmt::format("expected a grey image, 8-bit colour, or 1 channel of any type; got {} "
                    "channel(s) of {}",
                    image.channels, sample_type_name(image.type)));
  const auto px = image.samples<std::uint8_t>();
  const std::size_t c = static_cast<std::size_t>(image.channels);
  for (std::size_t i = 0; i < o.size(); ++i) {
    const std::uint8_t* p = &px[i * c];
    // Grey+alpha keeps its grey; colour becomes grey as SPEC says for Sobel's input.
    o[i] = c == 2 ? p[0] : static_cast<float>((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8);
  }
  return out;
}

Image jacobi_edges_reference(const Image& image) {
  const Image grey = to_grey_float(image);
  const int w = grey.width, h = grey.height;
  const auto u = grey.samples<float>();
  auto at = [&](int x, int y) -> double {
    return (x < 0 || x >= w || y < 0 || y >= h) ? 0.0 : u[std::size_t(y) * w + x];
  };
  Image out(w, h, 1, SampleType::f32);
  auto e = out.samples<float>();
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      e[std::size_t(y) * w + x] =
          static_cast<float>(at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1) - 4.0 * at(x, y));
  return out;
}

JacobiReference jacobi_reference(const Image& edges, const JacobiParams& params, const Image& initial, int threads) {
  if (edges.type != SampleType::f32 || edges.channels != 1)
    throw std::invalid_argument("jacobi_reference: the edge map must be 1 channel of float32");
  if (!initial.empty() && (initial.type != SampleType::f32 || initial.channels != 1 || initial.width != edges.width ||
                           initial.height != edges.height))
    throw std::invalid_argument("jacobi_reference: the initial image must be f32, 1 channel, the edge map's size");
  jacobi_check_params(params);
  const int w = edges.width, h = edges.height;
  const std::size_t n = std::size_t(w) * std::size_t(h);
  const auto e_in = edges.samples<float>();
  std::vector<double> e(e_in.begin(), e_in.end());
  std::vector<double> a(n, 0.0), b(n, 0.0);
  if (!initial.empty()) std::copy(initial.samples<float>().begin(), initial.samples<float>().end(), a.begin());

  JacobiReference ref;
  ref.width = w;
  ref.height = h;
  // Small images: thread start-up and two barriers per iteration would cost more than the work.
  const int workers = std::clamp(n < 65536 ? 1 : resolve_thread_count(threads), 1, std::max(h, 1));
  std::vector<double> thread_max(static_cast<std::size_t>(workers), 0.0);
  std::barrier sync(workers);
  const double* final_values = a.data();

  auto work = [&](int t) {
    const int y0 = h * t / workers, y1 = h * (t + 1) / workers;
    double* cur = a.data();
    double* nxt = b.data();
    for (int it = 0; it < params.iterations; ++it) {
      double m = 0;
      for (int y = y0; y < y1; ++y)
        for (int x = 0; x < w; ++x) {
          const std::size_t i = std::size_t(y) * w + x;
          const double left = x > 0 ? cur[i - 1] : 0.0, right = x + 1 < w ? cur[i + 1] : 0.0;
          const double up = y > 0 ? cur[i - w] : 0.0, down = y + 1 < h ? cur[i + w] : 0.0;
          const double v = (left + right + up + down - e[i]) / 4.0;
          const double d = std::fabs(v - cur[i]);
          if (!(d <= m)) m = d;  // keeps a NaN, so a NaN never counts as converged
          nxt[i] = v;
        }
      thread_max[t] = m;
      sync.arrive_and_wait();
      double largest = 0;
      for (double tm : thread_max)
        if (!(tm <= largest)) largest = tm;
      if (t == 0) ref.changes.push_back(largest);
      std::swap(cur, nxt);
      sync.arrive_and_wait();  // everyone has read thread_max before the next iteration writes it
      if (params.tolerance && largest <= *params.tolerance) break;
    }
    if (t == 0) final_values = cur;
  };
  if (workers == 1) {
    work(0);
  } else {
    std::vector<std::jthread> pool;
    for (int t = 0; t < workers; ++t) pool.emplace_back(work, t);
  }
  ref.iterations = static_cast<int>(ref.changes.size());
  ref.values.assign(final_values, final_values + n);
  return ref;
}

double jacobi_relative_l2(const JacobiReference& reference, const Image& got) {
  if (got.type != SampleType::f32 || got.channels != 1 || got.width != reference.width ||
      got.height != reference.height)
    throw std::invalid_argument("jacobi_relative_l2: the image must be f32, 1 channel, the reference's size");
  const auto g = got.samples<float>();
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double r = reference.values[i];
    diff += (g[i] - r) * (g[i] - r);
    norm += r * r;
  }
  if (norm == 0) return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff / norm);
}

}  // namespace clf
