// SPDX-License-Identifier: Apache-2.0
// The guide samples as benchmark filters: "matrix-add" (WxH floats) and "dot-product" (WxH float4
// pairs). Their "pixels" are elements and pairs.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>

#include "clfilters/guide_samples.hpp"
#include "common/parallel.hpp"
#include "common/synthetic_image.hpp"
#include "filters/filter_spec.hpp"
#include "filters/guide_samples/guide_samples_internal.hpp"

namespace clf {
namespace {

std::vector<float> download(Context& ctx, const cl::Buffer& b, std::size_t n) {
  std::vector<float> v(n);
  check_cl(ctx.queue().enqueueReadBuffer(b, CL_TRUE, 0, n * sizeof(float), v.data()), "clEnqueueReadBuffer");
  return v;
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
        a_dev_(upload_floats(ctx, a_)),
        b_dev_(upload_floats(ctx, b_)),
        sum_dev_(ctx.buffer(CL_MEM_READ_WRITE, count * sizeof(float))) {}

  std::optional<std::string> unsupported(const std::string& variant, const TuningConfig& config) const override {
    return matrix_add_table().unsupported(variant, ctx_.info(), {a_.size()}, config);
  }
  std::vector<cl::Event> enqueue(const std::string& variant, const TuningConfig& config) override {
    return matrix_add(ctx_, a_dev_, b_dev_, sum_dev_, a_.size(), variant, config);
  }
  double run_host_to_host(const std::string& variant, const TuningConfig& config) override {
    const auto start = std::chrono::steady_clock::now();
    cl::Buffer a = upload_floats(ctx_, a_), b = upload_floats(ctx_, b_);
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
  std::pair<std::uint64_t, std::uint64_t> host_bytes() const override { return {8ull * a_.size(), 4ull * a_.size()}; }
  std::uint64_t pixels() const override { return a_.size(); }
  std::string auto_variant() const override { return kMatrixAddAuto; }

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
        inputs_{a_, b_, upload_floats(ctx, a_), upload_floats(ctx, b_)},
        result_dev_(ctx.buffer(CL_MEM_READ_WRITE, count * 4)) {}

  std::optional<std::string> unsupported(const std::string& variant, const TuningConfig& config) const override {
    return dot_product_table().unsupported(variant, ctx_.info(), {count_}, config);
  }
  // The pairs stay on the device from call to call: the buffers uploaded here, the images on first use.
  std::vector<cl::Event> enqueue(const std::string& variant, const TuningConfig& config) override {
    return run(variant, config, inputs_);
  }
  // From the host: the variant uploads the copies it reads.
  double run_host_to_host(const std::string& variant, const TuningConfig& config) override {
    const auto start = std::chrono::steady_clock::now();
    DotProductInputs fresh{a_, b_};
    run(variant, config, fresh);
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
  std::pair<std::uint64_t, std::uint64_t> host_bytes() const override { return {32ull * count_, 4ull * count_}; }
  std::uint64_t pixels() const override { return count_; }
  std::string auto_variant() const override { return kDotProductAuto; }

 private:
  std::vector<cl::Event> run(const std::string& variant, const TuningConfig& config, DotProductInputs& inputs) {
    // A name the table does not hold ("auto") runs the auto variant.
    const DotProductTable& table = dot_product_table();
    const DotProductTable::Entry* entry = table.find(variant);
    if (!entry) entry = &table.at(kDotProductAuto);
    DotProductTarget target{inputs, result_dev_};
    return entry->enqueue(ctx_, {}, {count_}, config, target);
  }

  Context& ctx_;
  std::size_t count_;
  std::vector<float> a_, b_;
  DotProductInputs inputs_;
  cl::Buffer result_dev_;
};

// Either sample: no parameters, and `Instance` set up over width * height elements.
template <class Instance>
class SampleSpec : public BasicFilterSpec {
 public:
  SampleSpec(std::string name, const std::vector<VariantInfo>& (*variant_list)())
      : BasicFilterSpec(std::move(name), "guide_samples.cl", variant_list) {}
  std::vector<ParamMap> bench_cases() const override { return {{}}; }
  std::unique_ptr<FilterInstance> instantiate(Context& ctx, int width, int height, const ParamMap& params,
                                              std::uint64_t seed) const override {
    check_param_keys(params, name(), {});
    return std::make_unique<Instance>(ctx, std::size_t(width) * height, seed);
  }
};

}  // namespace

const FilterSpec& matrix_add_filter_spec() {
  static const SampleSpec<MatrixAddInstance> spec("matrix-add", matrix_add_variants);
  return spec;
}
const FilterSpec& dot_product_filter_spec() {
  static const SampleSpec<DotInstance> spec("dot-product", dot_product_variants);
  return spec;
}

}  // namespace clf
