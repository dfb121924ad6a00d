// SPDX-License-Identifier: Apache-2.0
// Temporary output files that a signal must not leave behind, and the checks an output path passes before it is
// written. Every writer that renames a temporary file into place (images, video, caches) registers it here.
#pragma once

#include <filesystem>
#include <string>

namespace clf::io_detail {

// Registers a temporary file for as long as it lives, so that SIGINT or SIGTERM removes it
// (remove_temp_files_on_signals, clfilters/image_io.hpp). The file itself is the owner's to remove or rename.
class RegisteredTempFile {
 public:
  RegisteredTempFile() = default;
  explicit RegisteredTempFile(const std::string& path);
  ~RegisteredTempFile() { release(); }
  RegisteredTempFile(const RegisteredTempFile&) = delete;
  RegisteredTempFile& operator=(const RegisteredTempFile&) = delete;
  RegisteredTempFile(RegisteredTempFile&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  RegisteredTempFile& operator=(RegisteredTempFile&& other) noexcept;
  // Forgets the file: called after it was renamed or removed.
  void release();

 private:
  int slot_ = -1;  // -1: not registered (the registry was full or the path too long)
};

// Creates "<dir>/.<name>.tmp-XXXXXX" beside `target` with O_EXCL and mode 0666 & ~umask, registered for removal
// on a signal. Throws ImageIoError naming `shown` (the path the user gave) if it cannot.
struct CreatedTempFile {
  int fd = -1;
  std::string path;
  RegisteredTempFile registration;
};
CreatedTempFile create_temp_file_beside(const std::filesystem::path& target, const std::filesystem::path& shown);

// The file at `path`, held open while a rename replaces it (where it is a regular file that can be opened), so that
// its release, freeing its pages and blocks, comes at this handle's closing rather than inside rename():
// close_in_background() then moves it off the calling thread, to overlap what the process does next (a 746 MB video's
// release took 0.33-0.41 s on the NVIDIA H100 machine, the process's end after it 0.15-0.2 s).
class ReplacedFile {
 public:
  explicit ReplacedFile(const std::string& path);
  ~ReplacedFile();
  ReplacedFile(const ReplacedFile&) = delete;
  ReplacedFile& operator=(const ReplacedFile&) = delete;
  // Closes it on a detached thread: the process's exit still waits for the release, but not before its own work.
  void close_in_background();

 private:
  int fd_ = -1;
};

// Where an output named `path` is written, checked before anything is: `path` itself, or for a symbolic link the
// file it points to (cp and ffmpeg write through a link; the link stays). `direct` is true for an existing FIFO or
// character device that a stream may be written into (only when `streams` is true). Throws ImageIoError naming
// `path` for an output that must not be replaced: one that exists and is not a regular file (a directory, a FIFO
// or device for images), a link to nothing, or a file the user may not write.
struct OutputTarget {
  std::filesystem::path path;
  bool direct = false;
};
OutputTarget output_target(const std::filesystem::path& path, bool streams = false);

}  // namespace clf::io_detail
