// SPDX-License-Identifier: Apache-2.0
// Rows of .npy files read and written by every rank of an MPI communicator at once, with MPI-IO: no rank holds more
// than its own rows, so an image larger than one node's memory goes through. The files must be on a file system
// every rank sees. Built only where MPI is found.
#pragma once

#include <mpi.h>

#include <filesystem>
#include <optional>
#include <string>

#include "clfilters/image.hpp"
#include "io/image_io_internal.hpp"

namespace clf {

// Collective: the message of the first rank whose `error` is set, on every rank, or nullopt where none is. Lets
// the ranks fail together on a problem only some of them met, instead of the others waiting forever.
std::optional<std::string> first_error(MPI_Comm comm, const std::optional<std::string>& error);

// Rows [row0, row1) of the array in the .npy at `path`, whose header gave `layout` (io_detail::read_npy_layout), as
// an Image of row1 - row0 rows in this machine's byte order. Collective; throws ImageIoError naming the file on every
// rank where any rank's read failed.
Image read_npy_rows(MPI_Comm comm, const std::filesystem::path& path, const io_detail::NpyLayout& layout, int row0,
                    int row1);

// Writes the .npy at `path` of a `height`-row image of which this rank holds `rows`, from row `row0` (the ranks' rows
// cover the image once). Every rank writes its rows into one temporary file beside `path`, which rank 0 renames into
// place once all have, so a failure anywhere leaves no partial output. Collective; throws ImageIoError naming the
// file on every rank where any rank failed.
void write_npy_rows(MPI_Comm comm, const std::filesystem::path& path, const Image& rows, int row0, int height);

// The image on rank `root` (empty elsewhere), of each rank's `rows` in rank order (MPI_Gatherv).
Image gather_rows(MPI_Comm comm, const Image& rows, int height, int root);

}  // namespace clf
