// SPDX-License-Identifier: Apache-2.0
// The reconstruction across MPI ranks, run by mpirun on 2 and on 3 ranks (src/CMakeLists.txt): every rank's rows,
// the count and the last change bit for bit those of the one-device call on the whole image, over random sizes,
// variants, exchange depths, tolerances and initial iterates; the split of the rows; the .npy rows read and written
// with MPI-IO against the one-process reader and writer, and their errors.
#include "filters/jacobi/jacobi_mpi.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>

#include "clfilters/image_io.hpp"
#include "io/mpi_npy_io.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::test_context;

int rank_of(MPI_Comm comm = MPI_COMM_WORLD) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

int size_of(MPI_Comm comm = MPI_COMM_WORLD) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

// One seed for every rank (rank 0's), so that all draw the same cases and inputs.
std::uint64_t shared_seed() {
  std::uint64_t seed = testing::fresh_seed();
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return seed;
}

Image rows_of(const Image& image, int row0, int row1) {
  Image rows = Image::uninitialized(image.width, row1 - row0, image.channels, image.type);
  const std::size_t row_bytes = image.byte_size() / std::size_t(image.height);
  std::memcpy(rows.data.data(), image.data.data() + std::size_t(row0) * row_bytes, rows.byte_size());
  return rows;
}

// A per-process folder for the files of a test, shared by the ranks (rank 0's name).
std::filesystem::path shared_folder(const std::string& name) {
  std::string path;
  if (rank_of() == 0) {
    path = (std::filesystem::temp_directory_path() / fmt::format("clf-mpi-{}-{}", name, ::getpid())).string();
    std::filesystem::create_directories(path);
  }
  int length = int(path.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  path.resize(std::size_t(length));
  MPI_Bcast(path.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return path;
}

TEST(JacobiMpiRows, CoverTheImageOnceWithHalosInside) {
  for (int height : {3, 4, 17, 100})
    for (int ranks = 1; ranks <= std::min(height, 5); ++ranks) {
      const int depth = jacobi_exchange_depth(height, ranks, 16);
      int next = 0;
      for (int r = 0; r < ranks; ++r) {
        const RankRows rows = jacobi_rank_rows(height, ranks, r, depth);
        EXPECT_EQ(rows.y0, next);
        EXPECT_GE(rows.y1 - rows.y0, depth) << "a halo would reach past the next rank";
        EXPECT_LE(rows.y1 - rows.y0, height / ranks + 1);
        EXPECT_EQ(rows.in0, std::max(0, rows.y0 - depth));
        EXPECT_EQ(rows.in1, std::min(height, rows.y1 + depth));
        next = rows.y1;
      }
      EXPECT_EQ(next, height);
    }
  EXPECT_THROW(jacobi_exchange_depth(2, 3, 8), std::invalid_argument);
  EXPECT_THROW(jacobi_exchange_depth(10, 2, 0), std::invalid_argument);
  EXPECT_EQ(jacobi_exchange_depth(1000, 2, 40), kMaxJacobiStepsPerLaunch);
}

// Random cases: sizes from one row a rank up, every variant, depths from 1 to past the bands' rows, a tolerance that
// stops the run inside a window of check_every iterations or none, an initial iterate or zeros.
TEST(JacobiMpi, EveryRankHasTheOneDeviceIterate) {
  Context& ctx = test_context();
  const int ranks = size_of(), rank = rank_of();
  const std::uint64_t seed = shared_seed();
  std::mt19937_64 rng(seed);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::vector<VariantInfo>& variants = jacobi_variants();
  for (int c = 0; c < 24; ++c) {
    const int w = pick(1, 70), h = pick(ranks, 90);
    const Image edges = testing::random_image(w, h, 1, SampleType::f32, seed + std::uint64_t(c));
    const Image initial =
        pick(0, 1) ? testing::random_image(w, h, 1, SampleType::f32, seed + 100 + std::uint64_t(c)) : Image();
    JacobiParams params;
    params.iterations = pick(0, 70);
    params.report_change = true;
    params.check_every = pick(1, 20);
    const std::string variant = variants[std::size_t(pick(0, int(variants.size()) - 1))].name;
    if (jacobi_unsupported(ctx.info(), variant, w, h)) continue;  // the same device on every rank: all skip
    if (pick(0, 1) && params.iterations > 0) {
      // The change after `at` iterations: the run stops there or before (the largest change does not grow).
      JacobiParams probe = params;
      probe.iterations = pick(1, params.iterations);
      params.tolerance = *jacobi_reconstruct(ctx, edges, probe, variant, initial).last_change;
    }
    const int depth = jacobi_exchange_depth(h, ranks, pick(1, 20));
    SCOPED_TRACE(fmt::format("case {} (seed {}): {}x{} {} n={} tolerance={} check_every={} depth={} initial={}", c,
                             seed, w, h, variant, params.iterations, params.tolerance.value_or(-1), params.check_every,
                             depth, !initial.empty()));

    const JacobiResult whole = jacobi_reconstruct(ctx, edges, params, variant, initial);
    const RankRows rows = jacobi_rank_rows(h, ranks, rank, depth);
    const VariantChoice choice = jacobi_mpi_prepare(ctx, variant, w, rows.in1 - rows.in0);
    JacobiMpiTiming timing;
    const JacobiResult mine = jacobi_reconstruct_mpi(MPI_COMM_WORLD, ctx, rows_of(edges, rows.in0, rows.in1),
                                                     initial.empty() ? Image() : rows_of(initial, rows.in0, rows.in1),
                                                     h, params, depth, choice, &timing);
    EXPECT_EQ(mine.iterations, whole.iterations);
    EXPECT_EQ(mine.last_change, whole.last_change);
    EXPECT_TRUE(testing::images_equal(rows_of(whole.image, rows.y0, rows.y1), mine.image));
    if (ranks > 1 && params.iterations > 0) {
      EXPECT_GT(timing.halo_bytes, 0u);
    }
  }
}

// Each rank writes its rows of a float32 and of an RGB u8 image; the one-process reader reads the files whole, and
// rows read back by MPI-IO are the image's. The 8-bit rows gathered on rank 0 are the image.
TEST(MpiNpyIo, RowsWrittenAndReadAreTheImage) {
  const int ranks = size_of(), rank = rank_of();
  const std::filesystem::path folder = shared_folder("rows");
  const std::uint64_t seed = shared_seed();
  for (const auto& [channels, type] : {std::pair{1, SampleType::f32}, std::pair{3, SampleType::u8}}) {
    const Image image = testing::random_image(37, 3 * ranks + 2, channels, type, seed + std::uint64_t(channels));
    const RankRows rows = jacobi_rank_rows(image.height, ranks, rank, 0);
    const std::filesystem::path path = folder / fmt::format("rows{}.npy", channels);
    write_npy_rows(MPI_COMM_WORLD, path, rows_of(image, rows.y0, rows.y1), rows.y0, image.height);
    EXPECT_TRUE(testing::images_equal(image, read_image(path)));
    // Rows of another split, halos included.
    const RankRows other = jacobi_rank_rows(image.height, ranks, ranks - 1 - rank, 2);
    const Image got = read_npy_rows(MPI_COMM_WORLD, path, io_detail::read_npy_layout(path), other.in0, other.in1);
    EXPECT_TRUE(testing::images_equal(rows_of(image, other.in0, other.in1), got));
    const Image gathered = gather_rows(MPI_COMM_WORLD, rows_of(image, rows.y0, rows.y1), image.height, 0);
    EXPECT_TRUE(rank == 0 ? testing::images_equal(image, gathered) : gathered.empty());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::filesystem::remove_all(folder);
}

// A read of a missing file and a write into a missing folder fail on every rank with the file's name, and the write
// leaves nothing behind; an existing output survives a failed write.
TEST(MpiNpyIo, FailuresReachEveryRankAndLeaveNothing) {
  const int rank = rank_of();
  const std::filesystem::path folder = shared_folder("errors");
  const Image rows = testing::random_image(5, 2, 1, SampleType::f32, shared_seed());
  const io_detail::NpyLayout layout{SampleType::f32, false, 5, 2 * size_of(), 1, 128};
  try {
    read_npy_rows(MPI_COMM_WORLD, folder / "missing.npy", layout, 0, 2);
    ADD_FAILURE() << "read a missing file";
  } catch (const ImageIoError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.npy"), std::string::npos) << e.what();
  }
  try {
    write_npy_rows(MPI_COMM_WORLD, folder / "no" / "out.npy", rows, 2 * rank, 2 * size_of());
    ADD_FAILURE() << "wrote into a missing folder";
  } catch (const ImageIoError& e) {
    EXPECT_NE(std::string(e.what()).find("out.npy"), std::string::npos) << e.what();
  }
  // A directory where the output goes is refused before anything is written.
  std::filesystem::create_directories(folder / "taken.npy");
  EXPECT_THROW(write_npy_rows(MPI_COMM_WORLD, folder / "taken.npy", rows, 2 * rank, 2 * size_of()), ImageIoError);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::vector<std::string> left;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) left.push_back(entry.path().filename());
    EXPECT_EQ(left, std::vector<std::string>{"taken.npy"});
    std::filesystem::remove_all(folder);
  }
}

}  // namespace
}  // namespace clf

// gtest's main under MPI: every rank runs every test; the job fails where any rank's test failed. An exception ends
// its rank, and mpirun the job, rather than the other ranks waiting for it in the next collective call.
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  GTEST_FLAG_SET(catch_exceptions, false);
  int failed = RUN_ALL_TESTS();
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
