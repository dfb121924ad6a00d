// SPDX-License-Identifier: Apache-2.0
// Format dispatch (magic bytes when reading, extension when writing) and atomic file output.
#include "clfilters/image_io.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <system_error>

#include "io/image_io_internal.hpp"
#include "io/temp_files.hpp"

namespace clf {
namespace io_detail {

void fail(const std::filesystem::path& path, std::string_view problem) {
  std::string message = fmt::format("{}: {}", path.string(), problem);
  std::replace_if(
      message.begin(), message.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, ' ');
  throw ImageIoError(message);
}

std::uint64_t allocatable_bytes() {
  const long page = ::sysconf(_SC_PAGESIZE), pages = ::sysconf(_SC_PHYS_PAGES);
  std::uint64_t bytes = page > 0 && pages > 0 ? std::uint64_t(page) * std::uint64_t(pages) : UINT64_MAX;
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    // What the process maps already (its first field, in pages) counts against the limit.
    std::uint64_t mapped_pages = 0;
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
      unsigned long long n = 0;
      if (std::fscanf(statm, "%llu", &n) == 1) mapped_pages = n;
      std::fclose(statm);
    }
    const std::uint64_t mapped = mapped_pages * std::uint64_t(page > 0 ? page : 4096);
    bytes = std::min<std::uint64_t>(bytes, limit.rlim_cur > mapped ? limit.rlim_cur - mapped : 0);
  }
  return bytes;
}

std::string readable_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = double(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.{}f} {}", value, value < 10 ? 1 : 0, units[unit]);
}

void check_dimensions(const std::filesystem::path& path, std::uint64_t width, std::uint64_t height,
                      std::uint64_t channels, std::uint64_t sample_bytes, std::uint64_t extra_bytes) {
  if (width == 0 || height == 0 || channels == 0) {
    fail(path, fmt::format("empty image ({} x {} x {})", width, height, channels));
  }
  // Each side fits in int first, so that the products below cannot overflow 64 bits.
  if (width > INT_MAX || height > INT_MAX || channels > INT_MAX || width * height > kMaxSamples ||
      width * height * channels > kMaxSamples) {
    fail(path, fmt::format("image too large ({} x {} x {} samples, the limit is 2^31)", width, height, channels));
  }
  if (width * height > max_image_pixels())
    fail(path, fmt::format("image too large ({} x {} pixels, the limit is {}; --max-pixels or CLFILTERS_MAX_PIXELS "
                           "sets it)",
                           width, height, max_image_pixels()));
  // The pixels, as decoded (a 1-bit palette image expands 32 times), and what the decoder holds beside them.
  const std::uint64_t needed = width * height * channels * sample_bytes + extra_bytes;
  if (const std::uint64_t available = allocatable_bytes(); needed > available)
    fail(path, fmt::format("image too large for the memory available ({} x {} x {} needs {}, {} can be allocated)",
                           width, height, channels, readable_bytes(needed), readable_bytes(available)));
}

void swap_bytes(std::uint8_t* data, std::size_t size, std::size_t sample_bytes) {
  for (std::size_t i = 0; i + sample_bytes <= size; i += sample_bytes) {
    std::reverse(data + i, data + i + sample_bytes);
  }
}

}  // namespace io_detail

namespace {

using namespace io_detail;

std::string errno_message(int err) {
  return std::error_code(err, std::generic_category()).message();
}

// Owns a file descriptor.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string too_large(std::uint64_t limit) {
  return fmt::format("file too large (more than {} bytes, the most an image of {} pixels needs)", limit,
                     max_image_pixels());
}

Bytes read_file(const std::filesystem::path& path) {
  // No image file of the largest image read_image takes is larger: 16 bytes a pixel (4 channels of float32).
  const std::uint64_t limit = max_image_pixels() * 16 + (1u << 20);
  const Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) fail(path, "cannot open: " + errno_message(errno));
  Bytes bytes;
  struct stat st {};
  // One spare byte lets a regular file's end be seen without growing the buffer.
  if (::fstat(file.fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if (std::uint64_t(st.st_size) > limit) fail(path, too_large(limit));
    bytes.reserve(static_cast<std::size_t>(st.st_size) + 1);
  }
  for (;;) {
    const std::size_t used = bytes.size();
    const std::size_t room = bytes.capacity() > used ? bytes.capacity() - used : std::max<std::size_t>(used, 1 << 16);
    // A stream is refused for the memory it would need before the allocation fails.
    if (used + room > bytes.capacity() && used + room > allocatable_bytes())
      fail(path, fmt::format("file too large for the memory available (more than {} read, {} can be allocated)",
                             readable_bytes(used), readable_bytes(allocatable_bytes())));
    bytes.resize(used + room);
    const ssize_t n = ::read(file.fd, bytes.data() + used, bytes.size() - used);
    const int err = errno;
    bytes.resize(used + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n == 0) return bytes;
    if (n < 0 && err != EINTR) fail(path, "cannot read: " + errno_message(err));
    if (bytes.size() > limit) fail(path, too_large(limit));
  }
}

bool starts_with(ByteView file, std::string_view magic) {
  return file.size() >= magic.size() && std::equal(magic.begin(), magic.end(), file.begin(),
                                                   [](char m, std::uint8_t b) { return std::uint8_t(m) == b; });
}

bool is_pnm(ByteView file) {
  // Any Netpbm magic (P1..P7) goes to the PNM decoder, which names the unsupported kinds.
  return file.size() >= 2 && file[0] == 'P' && file[1] >= '1' && file[1] <= '7' &&
         (file.size() == 2 || std::isspace(file[2]));
}

}  // namespace

ImageFormat format_from_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".png") return ImageFormat::png;
  if (ext == ".jpg" || ext == ".jpeg") return ImageFormat::jpeg;
  if (ext == ".pgm" || ext == ".ppm" || ext == ".pnm") return ImageFormat::pnm;
  if (ext == ".npy") return ImageFormat::npy;
  fail(path, fmt::format("{} (use .png, .jpg, .jpeg, .pgm, .ppm, .pnm or .npy)",
                         ext.empty() ? "no file extension to choose the image format"
                                     : fmt::format("unknown image file extension '{}'", ext)));
}

std::uint64_t max_image_pixels() {
  if (const char* env = std::getenv("CLFILTERS_MAX_PIXELS"); env && *env) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(env, env + std::strlen(env), v);
    if (ec == std::errc() && *end == '\0' && v >= 1) return v;
  }
  return std::uint64_t{1} << 30;
}

Image io_detail::decode_image(ByteView file, const std::filesystem::path& path) {
  try {
    if (file.empty()) fail(path, "empty file");
    if (starts_with(file, "\x89PNG")) return decode_png(file, path);
    if (starts_with(file, "\xFF\xD8\xFF")) return decode_jpeg(file, path);
    if (starts_with(file, "\x93NUMPY")) return decode_npy(file, path);
    if (is_pnm(file)) return decode_pnm(file, path);
  } catch (const std::bad_alloc&) {
    fail(path, "not enough memory to read it");
  }
  fail(path, "unsupported image format (not PNG, JPEG, PGM/PPM or NPY)");
}

Image read_image(const std::filesystem::path& path) {
  Bytes file;
  try {
    file = read_file(path);
  } catch (const std::bad_alloc&) {
    fail(path, "not enough memory to read it");
  }
  return decode_image(file, path);
}

void write_image(const Image& image, const std::filesystem::path& path, const WriteOptions& options) {
  const ImageFormat format = format_from_extension(path);
  if (image.width < 1 || image.height < 1 || image.channels < 1) {
    fail(path, fmt::format("cannot write an empty image ({} x {} x {})", image.width, image.height, image.channels));
  }
  const std::size_t expected = Image::byte_size_for(image.width, image.height, image.channels, image.type);
  if (image.data.size() != expected) {
    fail(path, fmt::format("cannot write: image data holds {} bytes, {} x {} x {} {} needs {}", image.data.size(),
                           image.width, image.height, image.channels, sample_type_name(image.type), expected));
  }
  Bytes bytes;
  switch (format) {
    case ImageFormat::png: bytes = encode_png(image, path, options.png_compression); break;
    case ImageFormat::jpeg: bytes = encode_jpeg(image, path, options.jpeg_quality); break;
    case ImageFormat::pnm: bytes = encode_pnm(image, path); break;
    case ImageFormat::npy: bytes = encode_npy(image, path); break;
  }
  write_file_atomically(path, bytes.data(), bytes.size());
}

void write_file_atomically(const std::filesystem::path& path, const void* bytes, std::size_t size) {
  const OutputTarget target = output_target(path);
  CreatedTempFile created = create_temp_file_beside(target.path, path);
  // Closes and removes the temporary file on any failure.
  struct TempFile {
    CreatedTempFile& file;
    bool keep = false;
    ~TempFile() {
      if (file.fd >= 0) ::close(file.fd);
      if (!keep) ::unlink(file.path.c_str());
      file.registration.release();
    }
  } temp{created};

  const auto* p = static_cast<const std::uint8_t*>(bytes);
  while (size > 0) {
    const ssize_t n = ::write(created.fd, p, std::min<std::size_t>(size, 1 << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "cannot write: " + errno_message(errno));
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  const int closed = ::close(created.fd);
  created.fd = -1;
  if (closed != 0) fail(path, "cannot write: " + errno_message(errno));
  // Renamed without an fsync, as ffmpeg and cp leave their outputs: the rename keeps a failed run from leaving a
  // partial file; writing back to the disk is the system's (an fsync costs the disk's speed: 0.4 s of a 746 MB video).
  ReplacedFile replaced(target.path);
  if (::rename(created.path.c_str(), target.path.c_str()) != 0) fail(path, "cannot replace: " + errno_message(errno));
  temp.keep = true;
  replaced.close_in_background();
}

}  // namespace clf
