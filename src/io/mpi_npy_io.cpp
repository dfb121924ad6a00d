// SPDX-License-Identifier: Apache-2.0
// .npy rows through MPI-IO (mpi_npy_io.hpp). Reads and writes are collective (MPI_File_read_at_all and
// MPI_File_write_at_all), so the MPI library may merge the ranks' rows into large requests to the file system.
#include "io/mpi_npy_io.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <vector>

#include "io/temp_files.hpp"

namespace clf {
namespace {

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, std::size_t(length));
}

// One row of `image`'s width and channels as an MPI type, so that counts are rows: an image's bytes may exceed an
// int, its rows do not.
class RowType {
 public:
  RowType(const std::filesystem::path& path, int width, int channels, SampleType type) {
    const std::uint64_t bytes = std::uint64_t(width) * std::uint64_t(channels) * sample_size(type);
    if (bytes > INT_MAX) io_detail::fail(path, fmt::format("rows of {} bytes are too long for MPI-IO", bytes));
    MPI_Type_contiguous(int(bytes), MPI_BYTE, &type_);
    MPI_Type_commit(&type_);
    bytes_ = bytes;
  }
  ~RowType() { MPI_Type_free(&type_); }
  RowType(const RowType&) = delete;
  RowType& operator=(const RowType&) = delete;
  MPI_Datatype get() const { return type_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  std::uint64_t bytes_ = 0;
};

// Throws the first failing rank's message, naming `path` where it does not already, on every rank.
void agree(MPI_Comm comm, const std::optional<std::string>& error) {
  if (auto first = first_error(comm, error)) throw ImageIoError(*first);
}

std::optional<std::string> mpi_failure(const std::filesystem::path& path, const char* what, int code) {
  if (code == MPI_SUCCESS) return std::nullopt;
  return fmt::format("{}: cannot {}: {}", path.string(), what, mpi_error_text(code));
}

}  // namespace

std::optional<std::string> first_error(MPI_Comm comm, const std::optional<std::string>& error) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = error ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return std::nullopt;
  std::string text = error ? *error : std::string();
  int length = int(text.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  text.resize(std::size_t(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, first, comm);
  return text;
}

Image read_npy_rows(MPI_Comm comm, const std::filesystem::path& path, const io_detail::NpyLayout& layout, int row0,
                    int row1) {
  const RowType row(path, layout.width, layout.channels, layout.type);
  Image rows = Image::uninitialized(layout.width, row1 - row0, layout.channels, layout.type);
  MPI_File file;
  const int opened = MPI_File_open(comm, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &file);
  agree(comm, mpi_failure(path, "open", opened));
  std::optional<std::string> error =
      mpi_failure(path, "read",
                  MPI_File_read_at_all(file, MPI_Offset(layout.data_offset + std::uint64_t(row0) * row.bytes()),
                                       rows.data.data(), row1 - row0, row.get(), MPI_STATUS_IGNORE));
  MPI_File_close(&file);
  agree(comm, error);
  if (layout.swapped) io_detail::swap_bytes(rows.data.data(), rows.byte_size(), sample_size(layout.type));
  return rows;
}

void write_npy_rows(MPI_Comm comm, const std::filesystem::path& path, const Image& rows, int row0, int height) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const RowType row(path, rows.width, rows.channels, rows.type);
  // Rank 0 makes the temporary file (and keeps it registered for removal on a signal) and renames it at the end.
  io_detail::CreatedTempFile temp;
  std::filesystem::path target;
  std::optional<std::string> error;
  if (rank == 0) {
    try {
      target = io_detail::output_target(path).path;
      temp = io_detail::create_temp_file_beside(target, path);
      ::close(temp.fd);
    } catch (const ImageIoError& e) {
      error = e.what();
    }
  }
  agree(comm, error);
  int length = int(temp.path.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  std::string temp_path = temp.path;
  temp_path.resize(std::size_t(length));
  MPI_Bcast(temp_path.data(), length, MPI_CHAR, 0, comm);

  const std::string header = io_detail::npy_header(rows.type, rows.width, height, rows.channels);
  Image little;  // the rows in little-endian order, where this machine's is the other
  if constexpr (std::endian::native == std::endian::big) {
    little = rows;
    io_detail::swap_bytes(little.data.data(), little.byte_size(), sample_size(rows.type));
  }
  const Image& out = little.empty() ? rows : little;
  MPI_File file;
  const int opened = MPI_File_open(comm, temp_path.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
  error = mpi_failure(path, "write", opened);
  if (opened == MPI_SUCCESS) {
    if (rank == 0)
      error = mpi_failure(path, "write",
                          MPI_File_write_at(file, 0, header.data(), int(header.size()), MPI_CHAR, MPI_STATUS_IGNORE));
    const auto offset = MPI_Offset(header.size() + std::uint64_t(row0) * row.bytes());
    const int written = MPI_File_write_at_all(file, offset, out.data.data(), out.height, row.get(), MPI_STATUS_IGNORE);
    if (!error) error = mpi_failure(path, "write", written);
    const int closed = MPI_File_close(&file);
    if (!error) error = mpi_failure(path, "write", closed);
  }
  error = first_error(comm, error);
  if (rank == 0) {
    if (!error && std::rename(temp_path.c_str(), target.c_str()) != 0)
      error = fmt::format("{}: cannot replace: {}", path.string(), std::strerror(errno));
    if (error) std::remove(temp_path.c_str());
    temp.registration.release();
  }
  agree(comm, error);
}

Image gather_rows(MPI_Comm comm, const Image& rows, int height, int root) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const RowType row("", rows.width, rows.channels, rows.type);
  std::vector<int> counts(static_cast<std::size_t>(size)), starts(static_cast<std::size_t>(size));
  MPI_Gather(&rows.height, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm);
  for (std::size_t r = 1; r < counts.size(); ++r) starts[r] = starts[r - 1] + counts[r - 1];
  Image whole;
  if (rank == root) whole = Image::uninitialized(rows.width, height, rows.channels, rows.type);
  MPI_Gatherv(rows.data.data(), rows.height, row.get(), whole.data.data(), counts.data(), starts.data(), row.get(),
              root, comm);
  return whole;
}

}  // namespace clf
