// SPDX-License-Identifier: Apache-2.0
// clfilters-mpi: the reconstruction across the ranks of an MPI job.
//   mpirun -np N clfilters-mpi reconstruct EDGES.npy OUT [--iterations K] [--tolerance T] [--check-every M]
//                                          [--exchange-every D] [--initial FILE] [--variant V] [--device LIST] [--time]
// Each rank reads its band of EDGES (and of a float32 .npy --initial) with MPI-IO, runs it on its own device and
// writes its rows of a .npy OUT with MPI-IO, so no rank ever holds the whole image; an 8-bit OUT (a quarter of the
// float32 bytes) is gathered to rank 0, which writes it. Exit codes as clfilters': 0, 1 runtime error, 2 usage error.
#include <fmt/format.h>
#include <mpi.h>

#include <cstdlib>
#include <map>

#include "clfilters/image_io.hpp"
#include "cli_common.hpp"
#include "filters/jacobi/jacobi_mpi.hpp"
#include "io/mpi_npy_io.hpp"
#include "reconstruct_options.hpp"

namespace {

using namespace clf;
using namespace clf::cli;

struct Ranks {
  MPI_Comm world = MPI_COMM_WORLD;
  int rank = 0, size = 1;
  int local_rank = 0;  // among the ranks on this node, which picks its device
};

Ranks ranks() {
  Ranks r;
  MPI_Comm_rank(r.world, &r.rank);
  MPI_Comm_size(r.world, &r.size);
  MPI_Comm node;
  MPI_Comm_split_type(r.world, MPI_COMM_TYPE_SHARED, r.rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &r.local_rank);
  MPI_Comm_free(&node);
  return r;
}

// Runs `step` on every rank. Where any rank fails, every rank gets the first failing rank's message and an exit code,
// and rank 0 prints it: the ranks end together instead of waiting on one that left. `step` must be local, or
// collective in a way that fails on every rank at once (the MPI-IO calls).
template <class F>
std::optional<int> together(const Ranks& r, F&& step) {
  std::optional<std::string> error;
  int code = 0;
  try {
    step();
  } catch (const UsageError& e) {
    error = e.what();
    code = kUsageError;
  } catch (const std::invalid_argument& e) {
    error = e.what();
    code = kUsageError;
  } catch (const ClError& e) {
    error = fmt::format("OpenCL error: {}", e.what());
    code = kRuntimeError;
  } catch (const std::exception& e) {
    error = e.what();
    code = kRuntimeError;
  }
  MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, r.world);
  const auto first = first_error(r.world, error);
  if (!first) return std::nullopt;
  if (r.rank == 0) fmt::print(stderr, "clfilters-mpi: {}\n", *first);
  return code;
}

// --device's default: $CLFILTERS_DEVICE, else every GPU of the node (a rank each), else the default device.
std::string device_list(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("CLFILTERS_DEVICE"); env && *env) return env;
  for (const DeviceHandle& d : list_devices())
    if (d.info.type & CL_DEVICE_TYPE_GPU) return "all-gpus";
  return "";
}

// Every rank's `text`, on rank 0.
std::vector<std::string> gather_text(const Ranks& r, const std::string& text) {
  int length = int(text.size());
  std::vector<int> lengths(std::size_t(r.size)), starts(std::size_t(r.size));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, r.world);
  for (std::size_t i = 1; i < lengths.size(); ++i) starts[i] = starts[i - 1] + lengths[i - 1];
  std::string all(std::size_t(starts.back() + lengths.back()), ' ');
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), starts.data(), MPI_CHAR, 0, r.world);
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < lengths.size(); ++i) texts.push_back(all.substr(std::size_t(starts[i]), lengths[i]));
  return texts;
}

// "3 x NAME (PLATFORM), 1 x ..." of the ranks' texts, in the order first seen; the text alone where all ranks have it
// and `alone_when_one`.
std::string counted(const std::vector<std::string>& texts, bool alone_when_one = false) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& t : texts) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == t; });
    if (it == counts.end())
      counts.emplace_back(t, 1);
    else
      ++it->second;
  }
  if (alone_when_one && counts.size() == 1) return counts.front().first;
  std::string out;
  for (const auto& [text, n] : counts) out += fmt::format("{}{} x {}", out.empty() ? "" : ", ", n, text);
  return out;
}

// Rows [row0, row1) of `image`.
Image rows_of(const Image& image, int row0, int row1) {
  Image rows = Image::uninitialized(image.width, row1 - row0, image.channels, image.type);
  const std::size_t row_bytes = image.byte_size() / std::size_t(image.height);
  std::copy_n(image.data.data() + std::size_t(row0) * row_bytes, rows.byte_size(), rows.data.data());
  return rows;
}

double slowest(const Ranks& r, double value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, r.world);
  return value;
}

int reconstruct(const Ranks& r, ReconstructOptions& options, int exchange_every) {
  ImageCommandOptions& o = options.image;
  io_detail::NpyLayout layout{};
  int depth = 0;
  const auto check_initial_size = [&](int width, int height) {
    if (width != layout.width || height != layout.height)
      throw std::runtime_error(fmt::format("{}: the initial image is {}x{} but the edge map {} is {}x{}",
                                           options.initial, width, height, o.input, layout.width, layout.height));
  };
  // A float32 .npy initial iterate is read by rows as the edge map is; any other image whole, by every rank.
  std::optional<io_detail::NpyLayout> initial_layout;
  if (auto code = together(r, [&] {
        finish_reconstruct_options(options);
        if (r.rank == 0) check_output_extension(o.output);  // rank 0 renames OUT into place
        if (!is_npy(o.input))
          throw std::runtime_error(fmt::format("{}: the edge map must be a float32 .npy of shape H x W", o.input));
        layout = io_detail::read_npy_layout(o.input);
        if (auto problem = edge_map_problem(o.input, layout.type, layout.width, layout.height, layout.channels);
            !problem.empty())
          throw std::runtime_error(problem);
        depth = jacobi_exchange_depth(layout.height, r.size, exchange_every);
        if (options.initial.empty() || !is_npy(options.initial)) return;
        const io_detail::NpyLayout l = io_detail::read_npy_layout(options.initial);
        if (l.type != SampleType::f32 || l.channels != 1) return;
        check_initial_size(l.width, l.height);
        initial_layout = l;
      }))
    return *code;
  const RankRows rows = jacobi_rank_rows(layout.height, r.size, r.rank, depth);
  Image edges, initial;
  if (auto code = together(r, [&] { edges = read_npy_rows(r.world, o.input, layout, rows.in0, rows.in1); }))
    return *code;
  if (auto code = together(r, [&] {
        if (initial_layout) {
          initial = read_npy_rows(r.world, options.initial, *initial_layout, rows.in0, rows.in1);
        } else if (!options.initial.empty()) {
          Image grey;
          try {
            grey = to_grey_float(read_input(options.initial));
          } catch (const std::invalid_argument& e) {
            throw std::runtime_error(fmt::format("{}: {}", options.initial, e.what()));
          }
          check_initial_size(grey.width, grey.height);
          initial = rows_of(grey, rows.in0, rows.in1);
        }
      }))
    return *code;

  std::unique_ptr<Context> ctx;
  VariantChoice choice;
  if (auto code = together(r, [&] {
        const std::vector<DeviceHandle> devices = select_devices(device_list(o.device));
        ctx = std::make_unique<Context>(devices[std::size_t(r.local_rank) % devices.size()]);
        choice = jacobi_mpi_prepare(*ctx, o.variant, layout.width, edges.height);
      }))
    return *code;

  JacobiResult result;
  JacobiMpiTiming timing;
  try {
    result =
        jacobi_reconstruct_mpi(r.world, *ctx, edges, initial, layout.height, options.params, depth, choice, &timing);
  } catch (const std::exception& e) {
    // The other ranks wait in the exchange: only ending the job frees them.
    fmt::print(stderr, "clfilters-mpi: rank {} ({}): {}\n", r.rank, ctx->info().name, e.what());
    MPI_Abort(r.world, kRuntimeError);
  }

  if (is_npy(o.output)) {
    if (auto code = together(r, [&] { write_npy_rows(r.world, o.output, result.image, rows.y0, layout.height); }))
      return *code;
  } else {
    const Image whole = gather_rows(r.world, to_u8(result.image), layout.height, 0);
    if (auto code = together(r, [&] {
          if (r.rank == 0) write_output(whole, o.output, o);
        }))
      return *code;
  }

  const auto devices = gather_text(r, fmt::format("{} ({})", ctx->info().name, ctx->info().platform_name));
  const auto variants = gather_text(r, variant_that_ran(*ctx, choice));
  const double total = slowest(r, timing.total_ms), kernel = slowest(r, timing.kernel_ms),
               exchange = slowest(r, timing.exchange_ms), reduce = slowest(r, timing.reduce_ms);
  if (r.rank != 0) return 0;
  fmt::print("reconstruct variant={} on {} ranks ({}): {}x{} -> {}\n", counted(variants, true), r.size,
             counted(devices), layout.width, layout.height, o.output);
  fmt::print("{}\n", iterations_line(options.params, result));
  if (o.time)
    fmt::print(
        "kernel {:.3f} ms, exchange {:.3f} ms, reduce {:.3f} ms, total {:.3f} ms (slowest rank); {} exchanges of {} "
        "rows each way ({} bytes a rank sends at most)\n",
        kernel, exchange, reduce, total, timing.exchanges, depth, std::size_t(2) * depth * layout.width * 4);
  else
    fmt::print("total {:.3f} ms\n", total);
  return 0;
}

int run(int argc, char** argv) {
  remove_temp_files_on_signals();
  const Ranks r = ranks();
  CLI::App app{"clfilters-mpi: the reconstruction across the ranks of an MPI job (mpirun -np N clfilters-mpi ...)"};
  app.require_subcommand(1);
  ReconstructOptions options;
  CLI::App* cmd = add_reconstruct_command(app, options);
  cmd->add_option("--device", options.image.device,
                  "the node's devices, a rank each by its index on the node (a list as clfilters' --device takes: "
                  "all-gpus, pocl/4, 0,1); default $CLFILTERS_DEVICE, else every GPU, else the first CPU");
  int exchange_every = 8;
  cmd->add_option("--exchange-every", exchange_every,
                  "iterations between two halo exchanges, and the halos' depth in rows (at most 16 and the "
                  "smallest band's rows)")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parses the same line; one prints.
    if (r.rank == 0) return app.exit(e) == 0 ? 0 : kUsageError;
    return e.get_exit_code() == 0 ? 0 : kUsageError;
  }
  return reconstruct(r, options, exchange_every);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int code = run(argc, argv);
  MPI_Finalize();
  return code;
}
