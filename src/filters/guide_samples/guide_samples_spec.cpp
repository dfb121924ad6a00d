// The guide samples as benchmark filters: "matrix-add" (WxH floats) and "dot-product" (WxH float4
// pairs). Their "pixels" are elements and pairs.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

#include "clfilters/guide_samples.hpp"
#include "common/parallel.hpp"
#include "filters/filter_spec.hpp"

namespace clf {
namespace {

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

cl::Buffer upload(Context& ctx, const std::vector<float>& v) {
  cl::Buffer b = ctx.buffer(CL_MEM_READ_WRITE, v.size() * sizeof(float));
  check_cl(ctx.queue().enqueueWriteBuffer(b, CL_TRUE, 0, v.size() * sizeof(float), v.data()), "clEnqueueWriteBuffer");
  return b;
}

std::vector<float> download(Context& ctx, const cl::Buffer& b, std::size_t n) {
  std::vector<float> v(n);
  check_cl(ctx.queue().enqueueReadBuffer(b, CL_TRUE, 0, n * sizeof(float), v.data()), "clEnqueueReadBuffer");
  return v;
}

void reject_params(const ParamMap& params, const std::string& filter) {
  if (!params.empty())
    throw std::invalid_argument(fmt::format("{} has no parameter '{}'", filter, params.begin()->first));
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

class MatrixAddInstance : public FilterInstance {
 public:
  MatrixAddInstance(Context& ctx, std::size_t count, std::uint64_t seed)
      : ctx_(ctx),
        a_(random_floats(count, seed)),
        b_(random_floats(count, seed + 1)),
        a_dev_(upload(ctx, a_)),
        b_dev_(upload(ctx, b_)),
        sum_dev_(ctx.buffer(CL_MEM_READ_WRITE, count * sizeof(float))) {}

  std::optional<std::string> unsupported(const std::string& variant, const TuningConfig& config) const override {
    const VariantInfo* v = find_variant(matrix_add_variants(), variant);
    if (!v) return "unknown variant " + variant;
    if (std::size_t(tunable_value(config, *v, "local")) > ctx_.info().max_work_group_size)
      return "work-group larger than the device allows";
    return std::nullopt;
  }
  std::vector<cl::Event> enqueue(const std::string& variant, const TuningConfig& config) override {
    return matrix_add(ctx_, a_dev_, b_dev_, sum_dev_, a_.size(), variant, config);
  }
  double run_host_to_host(const std::string& variant, const TuningConfig& config) override {
    const auto start = std::chrono::steady_clock::now();
    cl::Buffer a = upload(ctx_, a_), b = upload(ctx_, b_);
    matrix_add(ctx_, a, b, sum_dev_, a_.size(), variant, config);
    download(ctx_, sum_dev_, a_.size());
    return ms_since(start);
  }
  std::optional<std::string> check_output() override {
    const auto got = download(ctx_, sum_dev_, a_.size());
    const auto want = matrix_add_reference(a_, b_);
    std::size_t wrong = 0, first = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
      if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && wrong++ == 0) first = i;
    if (!wrong) return std::nullopt;
    return fmt::format("{} of {} sums differ; first at {}: expected {}, got {}", wrong, want.size(), first, want[first],
                       got[first]);
  }
  void run_reference(int threads) override {
    std::vector<float> out(a_.size());
    parallel_rows(int(std::min<std::size_t>(a_.size(), 1 << 30)), threads, [&](int i0, int i1) {
      for (int i = i0; i < i1; ++i) out[std::size_t(i)] = a_[std::size_t(i)] + b_[std::size_t(i)];
    });
  }
  std::uint64_t bytes_moved() const override { return 12ull * a_.size(); }
  std::uint64_t pixels() const override { return a_.size(); }
  std::string auto_variant() const override { return "float4"; }

 private:
  Context& ctx_;
  std::vector<float> a_, b_;
  cl::Buffer a_dev_, b_dev_, sum_dev_;
};

class DotInstance : public FilterInstance {
 public:
  DotInstance(Context& ctx, std::size_t count, std::uint64_t seed)
      : ctx_(ctx),
        count_(count),
        a_(random_floats(4 * count, seed)),
        b_(random_floats(4 * count, seed + 1)),
        a_dev_(upload(ctx, a_)),
        b_dev_(upload(ctx, b_)),
        result_dev_(ctx.buffer(CL_MEM_READ_WRITE, count * 4)) {}

  std::optional<std::string> unsupported(const std::string& variant, const TuningConfig&) const override {
    if (!find_variant(dot_product_variants(), variant)) return "unknown variant " + variant;
    if (variant == "image") {
      const auto& d = ctx_.info();
      if (!d.image_support) return std::string("needs image support");
      if ((count_ + d.image2d_max_width - 1) / d.image2d_max_width > d.image2d_max_height)
        return std::string("too many pairs for the device's largest 2D image");
    }
    return std::nullopt;
  }
  std::vector<cl::Event> enqueue(const std::string& variant, const TuningConfig&) override {
    if (variant != "image") return dot_product(ctx_, a_dev_, b_dev_, result_dev_, count_);
    if (!a_img_)
      a_img_ = make_float4_image(ctx_, a_.data(), count_), b_img_ = make_float4_image(ctx_, b_.data(), count_);
    return dot_product(ctx_, *a_img_, *b_img_, result_dev_, count_);
  }
  double run_host_to_host(const std::string& variant, const TuningConfig&) override {
    const auto start = std::chrono::steady_clock::now();
    if (variant == "image") {
      const auto a = make_float4_image(ctx_, a_.data(), count_), b = make_float4_image(ctx_, b_.data(), count_);
      dot_product(ctx_, a, b, result_dev_, count_);
    } else {
      cl::Buffer a = upload(ctx_, a_), b = upload(ctx_, b_);
      dot_product(ctx_, a, b, result_dev_, count_);
    }
    download(ctx_, result_dev_, count_);
    return ms_since(start);
  }
  // SPEC: each result within 1e-6 * sum |a_i b_i| of a double-precision reference.
  std::optional<std::string> check_output() override {
    const auto got = download(ctx_, result_dev_, count_);
    const auto want = dot_product_reference(a_, b_);
    std::size_t wrong = 0, first = 0;
    for (std::size_t i = 0; i < count_; ++i) {
      double magnitude = 0;
      for (int c = 0; c < 4; ++c) magnitude += std::fabs(double(a_[4 * i + c]) * double(b_[4 * i + c]));
      if (!(std::fabs(double(got[i]) - want[i]) <= 1e-6 * magnitude) && wrong++ == 0) first = i;
    }
    if (!wrong) return std::nullopt;
    return fmt::format("{} of {} dot products off by more than 1e-6 * sum|ab|; first at {}: expected {}, got {}", wrong,
                       count_, first, want[first], got[first]);
  }
  void run_reference(int threads) override { dot_product_reference(a_, b_, threads); }
  std::uint64_t bytes_moved() const override { return 36ull * count_; }
  std::uint64_t pixels() const override { return count_; }
  std::string auto_variant() const override { return "buffer"; }

 private:
  Context& ctx_;
  std::size_t count_;
  std::vector<float> a_, b_;
  cl::Buffer a_dev_, b_dev_, result_dev_;
  std::optional<Float4Image> a_img_, b_img_;
};

class MatrixAddSpec : public FilterSpec {
 public:
  std::string name() const override { return "matrix-add"; }
  std::string kernel_file() const override { return "guide_samples.cl"; }
  const std::vector<VariantInfo>& variants() const override { return matrix_add_variants(); }
  std::vector<ParamMap> bench_cases() const override { return {{}}; }
  std::unique_ptr<FilterInstance> instantiate(Context& ctx, int width, int height, const ParamMap& params,
                                              std::uint64_t seed) const override {
    reject_params(params, name());
    return std::make_unique<MatrixAddInstance>(ctx, std::size_t(width) * height, seed);
  }
};

class DotProductSpec : public FilterSpec {
 public:
  std::string name() const override { return "dot-product"; }
  std::string kernel_file() const override { return "guide_samples.cl"; }
  const std::vector<VariantInfo>& variants() const override { return dot_product_variants(); }
  std::vector<ParamMap> bench_cases() const override { return {{}}; }
  std::unique_ptr<FilterInstance> instantiate(Context& ctx, int width, int height, const ParamMap& params,
                                              std::uint64_t seed) const override {
    reject_params(params, name());
    return std::make_unique<DotInstance>(ctx, std::size_t(width) * height, seed);
  }
};

}  // namespace

const FilterSpec& matrix_add_filter_spec() {
  static const MatrixAddSpec spec;
  return spec;
}
const FilterSpec& dot_product_filter_spec() {
  static const DotProductSpec spec;
  return spec;
}

}  // namespace clf
