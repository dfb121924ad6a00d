// SPDX-License-Identifier: Apache-2.0
// The host call of the reconstruction in bands of rows (jacobi_bands.cpp): bit for bit the one-piece run of the same
// variant, and within the double-precision reference's tolerance; the tolerance stop's count, change and iterate; the
// rule that cuts an image into bands; a band that does not fit; an error in any band.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "clfilters/jacobi.hpp"
#include "filters/jacobi/jacobi_internal.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::test_context;

// Random float edges: uniform in [-1000, 1000], never all zero.
Image random_floats(int w, int h, std::uint64_t seed) {
  return testing::random_image(w, h, 1, SampleType::f32, seed);
}

// The last image of this size freed is poisoned, so that the banded call's new iterates most likely start in
// poisoned memory and a row no band writes shows; the variant's second iterate on the device is poisoned too.
void poison_result_memory(Context& ctx, int w, int h) {
  Image freed = Image::uninitialized(w, h, 1, SampleType::f32);
  testing::poison(freed);
  const std::size_t bytes = freed.byte_size();
  check_cl(
      ctx.queue().enqueueWriteBuffer(ctx.scratch_buffer("jacobi.other", bytes), CL_TRUE, 0, bytes, freed.data.data()),
      "clEnqueueWriteBuffer");
}

// The banded call against the one-piece call: the same iterate bit for bit, count and last change.
void expect_same_run(const JacobiResult& whole, const JacobiResult& banded) {
  EXPECT_EQ(banded.iterations, whole.iterations);
  EXPECT_EQ(banded.last_change, whole.last_change);
  EXPECT_TRUE(testing::images_equal(whole.image, banded.image));
}

// Band heights of 1 row, of fewer rows than a pass's 16 iterations, and of more with a last band shorter than the
// rest (47 = 20 + 20 + 7), on a sample of variants (one-step, tiled with rows, both temporal blockings); 37
// iterations are passes of 16, 16 and 5. With an initial iterate, and against the reference too.
TEST(JacobiBands, EveryBandHeightGivesTheOnePieceIterate) {
  Context& ctx = test_context();
  const int w = 61, h = 47;
  const auto seed = testing::fresh_seed();
  const Image edges = random_floats(w, h, seed);
  const Image initial = random_floats(w, h, seed + 1);
  JacobiParams params;
  params.iterations = 37;
  params.report_change = true;
  const JacobiReference reference = jacobi_reference(edges, params, initial);
  for (const char* variant : {"row1d", "tiled2d", "temporal", "wavefront"}) {
    ASSERT_FALSE(jacobi_band_rows(ctx.info(), w, h, kMaxJacobiStepsPerLaunch)) << "bands without being asked";
    const JacobiResult whole = jacobi_reconstruct(ctx, edges, params, variant, initial);
    ASSERT_TRUE(whole.last_change);
    for (const char* rows : {"1", "5", "20"}) {
      SCOPED_TRACE(fmt::format("variant={} band rows={} seed={}", variant, rows, seed));
      const ScopedEnv bands("CLFILTERS_BAND_ROWS", rows);
      ASSERT_EQ(jacobi_band_rows(ctx.info(), w, h, kMaxJacobiStepsPerLaunch), std::atoi(rows));
      poison_result_memory(ctx, w, h);
      const JacobiResult banded = jacobi_reconstruct(ctx, edges, params, variant, initial);
      expect_same_run(whole, banded);
      EXPECT_LE(jacobi_relative_l2(reference, banded.image), 1e-5);
    }
  }
}

// Zero initial iterate (the default), iterations below one pass, and "auto" (the whole image's choice on every band).
TEST(JacobiBands, ShortRunsAndAutoGiveTheOnePieceIterate) {
  Context& ctx = test_context();
  const auto seed = testing::fresh_seed();
  const Image edges = random_floats(40, 23, seed);
  for (int n : {0, 1, 3, 16, 17}) {
    SCOPED_TRACE(fmt::format("n={} seed={}", n, seed));
    JacobiParams params;
    params.iterations = n;
    const JacobiResult whole = jacobi_reconstruct(ctx, edges, params, "auto");
    const ScopedEnv bands("CLFILTERS_BAND_ROWS", "6");
    poison_result_memory(ctx, 40, 23);
    expect_same_run(whole, jacobi_reconstruct(ctx, edges, params, "auto"));
  }
}

// The tolerance stop: the iteration it stops at lies inside a pass (the pass runs again up to it), at a pass's end,
// or nowhere; the count, the last change and the iterate are the one-piece run's, whatever check_every says. Every
// variant, since each kernel measures only the band's own rows its own way (a halo row's change would stop the run
// elsewhere).
TEST(JacobiBands, TheToleranceStopIsTheOnePieceStop) {
  Context& ctx = test_context();
  const int w = 53, h = 31;
  const auto seed = testing::fresh_seed();
  const Image edges = random_floats(w, h, seed);
  const Image initial = random_floats(w, h, seed + 1);
  int check_every = 5;
  for (const auto& info : jacobi_variants()) {
    const std::string& variant = info.name;
    for (int at : {23, 32, 0}) {
      JacobiParams params;
      params.iterations = 60;
      params.check_every = check_every = check_every == 5 ? 48 : 5;
      if (at > 0) {
        // The largest change of iteration `at`: the run stops there, or earlier should the changes not fall.
        JacobiParams probe = params;
        probe.iterations = at;
        probe.report_change = true;
        params.tolerance = *jacobi_reconstruct(ctx, edges, probe, variant, initial).last_change;
      } else {
        params.tolerance = 0.0;  // never reached: all 60 iterations
      }
      SCOPED_TRACE(fmt::format("variant={} at={} check_every={} seed={}", variant, at, check_every, seed));
      const JacobiResult whole = jacobi_reconstruct(ctx, edges, params, variant, initial);
      ASSERT_TRUE(whole.last_change);
      if (at > 0) {
        EXPECT_GT(whole.iterations, 0);
        EXPECT_LE(whole.iterations, at);
      } else {
        EXPECT_EQ(whole.iterations, params.iterations);
      }
      for (const char* rows : {"3", "13"}) {
        SCOPED_TRACE(fmt::format("band rows={}", rows));
        const ScopedEnv bands("CLFILTERS_BAND_ROWS", rows);
        poison_result_memory(ctx, w, h);
        expect_same_run(whole, jacobi_reconstruct(ctx, edges, params, variant, initial));
      }
    }
  }
}

// A device capped by CLFILTERS_DEVICE_MEMORY cuts an image it cannot hold in one piece into bands, with the
// uncapped device's result; the halo, and so the band that must fit, follows the iterations a pass runs.
TEST(JacobiBands, AMemoryCapCutsTheImageIntoBands) {
  const int w = 61, h = 100;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image edges = random_floats(w, h, seed);
  JacobiParams params;
  params.iterations = 40;
  const JacobiResult whole = jacobi_reconstruct(test_context(), edges, params, "tiled2d");
  {
    const ScopedEnv cap("CLFILTERS_DEVICE_MEMORY", "128K");
    Context ctx;  // the cap is read where the device is described
    // 3 planes of 24400 bytes are more than half of 128 KiB; a slot of 13107 bytes holds 53 rows, 21 with the halos.
    EXPECT_EQ(jacobi_band_rows(ctx.info(), w, h, kMaxJacobiStepsPerLaunch), 21);
    expect_same_run(whole, jacobi_reconstruct(ctx, edges, params, "tiled2d"));
  }
  const ScopedEnv cap("CLFILTERS_DEVICE_MEMORY", "16K");
  Context ctx;
  // A slot of 1638 bytes holds 6 rows: not 1 with 16 each side, but 2 with 2 each side.
  const std::string why =
      testing::thrown_message<std::invalid_argument>([&] { jacobi_reconstruct(ctx, edges, params, "tiled2d"); });
  EXPECT_NE(why.find("61x100"), std::string::npos) << why;
  EXPECT_NE(why.find("16 halo rows"), std::string::npos) << why;
  params.iterations = 2;
  EXPECT_EQ(jacobi_band_rows(ctx.info(), w, h, 2), 2);
  expect_same_run(jacobi_reconstruct(test_context(), edges, params, "tiled2d"),
                  jacobi_reconstruct(ctx, edges, params, "tiled2d"));
}

// The rule: one piece while the edge map and two iterates fit the allocation limit and half the memory; else bands
// whose five buffers fit both.
TEST(JacobiBands, AnImageTooLargeForTheDeviceIsCutIntoBandsThatFit) {
  DeviceInfo small;
  small.max_alloc_bytes = std::uint64_t(1) << 20;
  small.global_mem_bytes = std::uint64_t(64) << 20;
  const int w = 4096;
  const std::size_t row = std::size_t(w) * 4;
  EXPECT_FALSE(jacobi_band_rows(small, w, 64, 16)) << "1 MiB planes fit";
  EXPECT_EQ(jacobi_band_rows(small, w, 65, 16), int((std::size_t(1) << 20) / row) - 32);
  // Within the allocation limit, but three planes are more than half the memory: half of it in five buffers.
  small.max_alloc_bytes = std::uint64_t(1) << 30;
  EXPECT_FALSE(jacobi_band_rows(small, w, 682, 16));
  EXPECT_EQ(jacobi_band_rows(small, w, 683, 16), int((std::size_t(64) << 20) / 10 / row) - 32);
  EXPECT_EQ(jacobi_band_rows(small, w, 683, 4), int((std::size_t(64) << 20) / 10 / row) - 8);
  small.global_mem_bytes = row * 10 * 32;  // a buffer of 32 rows: not one row with 16 each side
  EXPECT_THROW(jacobi_band_rows(small, w, 2000, 16), std::invalid_argument);
  EXPECT_EQ(jacobi_band_rows(small, w, 2000, 15), 2);
}

// A failure in any band (an allocation of its buffers or staging, a kernel launch of a later band or pass) ends the
// call with that error: no hang, no result.
TEST(JacobiBands, AFailureInAnyBandEndsTheCallWithItsError) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image edges = random_floats(40, 30, seed);
  JacobiParams params;
  params.iterations = 20;
  params.tolerance = 0.0;
  const JacobiResult whole = jacobi_reconstruct(test_context(), edges, params, "tiled2d");
  const ScopedEnv bands("CLFILTERS_BAND_ROWS", "4");
  int failed = 0;
  for (const char* fault : {"alloc:1", "alloc:2", "alloc:4", "alloc:7", "enqueue:1", "enqueue:9", "enqueue:150"}) {
    SCOPED_TRACE(fault);
    Context ctx;  // fresh: every buffer of the call is allocated anew
    const ScopedEnv injected("CLFILTERS_FAULT", fault);
    try {
      expect_same_run(whole, jacobi_reconstruct(ctx, edges, params, "tiled2d"));
    } catch (const ClError&) {
      ++failed;
    }
  }
  EXPECT_GE(failed, 6) << "the faults did not reach the bands";
}

}  // namespace
}  // namespace clf
