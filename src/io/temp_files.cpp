// SPDX-License-Identifier: Apache-2.0
// The registry of live temporary files and the signal handler that removes them (see temp_files.hpp).
#include "io/temp_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <random>
#include <system_error>
#include <thread>

#include "clfilters/image_io.hpp"
#include "io/image_io_internal.hpp"

namespace clf {
namespace io_detail {
namespace {

// A fixed table, so that the signal handler reads it without locks or allocation: a slot is claimed (kWriting),
// filled, then published (kLive) with release order; the handler unlinks the kLive ones.
enum SlotState : int { kFree = 0, kWriting = 1, kLive = 2 };
struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX] = {};
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");
std::array<Slot, 64> slots;

extern "C" void remove_temp_files_and_reraise(int sig) {
  const int saved_errno = errno;
  for (Slot& s : slots)
    if (s.state.load(std::memory_order_acquire) == kLive) ::unlink(s.path);
  errno = saved_errno;
  // SA_RESETHAND restored the default action; the signal is blocked until this returns, then it ends the process
  // as it would have without the handler (exit status 128 + signal in the shell).
  ::raise(sig);
}

std::string errno_message(int err) {
  return std::error_code(err, std::generic_category()).message();
}

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

RegisteredTempFile::RegisteredTempFile(const std::string& path) {
  if (path.size() >= PATH_MAX) return;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    int expected = kFree;
    if (!slots[i].state.compare_exchange_strong(expected, kWriting, std::memory_order_acq_rel)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].state.store(kLive, std::memory_order_release);
    slot_ = int(i);
    return;
  }
}

RegisteredTempFile& RegisteredTempFile::operator=(RegisteredTempFile&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void RegisteredTempFile::release() {
  if (slot_ >= 0) slots[std::size_t(slot_)].state.store(kFree, std::memory_order_release);
  slot_ = -1;
}

CreatedTempFile create_temp_file_beside(const std::filesystem::path& target, const std::filesystem::path& shown) {
  const std::filesystem::path dir = target.parent_path();
  // Our own O_EXCL name rather than mkstemp: the file then gets the usual 0666 & ~umask mode. The name is cut so
  // that a long target name still leaves room for the suffix.
  std::mt19937 rng(std::random_device{}());
  for (int attempt = 0;; ++attempt) {
    std::string name =
        (dir / fmt::format(".{}.tmp-{:06x}", target.filename().string().substr(0, 200), rng() & 0xFFFFFF)).string();
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    const int err = errno;
    // Registered once it is ours: registering first could remove another process's file of the same name.
    if (fd >= 0) return {fd, name, RegisteredTempFile(name)};
    if (err != EEXIST || attempt == 100)
      fail(shown, fmt::format("cannot create a temporary file in {}: {}", dir.empty() ? "." : dir.string(),
                              errno_message(err)));
  }
}

OutputTarget output_target(const std::filesystem::path& path, bool streams) {
  if (!path.has_filename()) fail(path, "cannot write: not a file name");
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {path, false};  // a new file; its folder is checked when the temporary is made
    fail(path, "cannot write: " + errno_message(errno));
  }
  std::filesystem::path target = path;
  if (S_ISLNK(st.st_mode)) {
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) fail(path, "is a symbolic link to a file that does not exist; not writing through it");
      fail(path, "cannot write through the symbolic link: " + errno_message(errno));
    }
    // A regular file is replaced where it is; a stream (/dev/stdout to a pipe) is opened through the link.
    char resolved[PATH_MAX];
    if (S_ISREG(st.st_mode)) {
      if (!::realpath(path.c_str(), resolved))
        fail(path, "cannot write through the symbolic link: " + errno_message(errno));
      target = resolved;
    }
  }
  if (!S_ISREG(st.st_mode)) {
    if (streams && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) return {target, true};
    fail(path, fmt::format("cannot replace: it exists and is {}", file_kind(st.st_mode)));
  }
  // rename() would replace a file the user may not write wherever its folder is writable: refuse it instead.
  if (::access(target.c_str(), W_OK) != 0)
    fail(path, fmt::format("cannot write: {} (the file exists; refusing to replace it)", errno_message(errno)));
  return {target, false};
}

ReplacedFile::ReplacedFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

ReplacedFile::~ReplacedFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ReplacedFile::close_in_background() {
  if (fd_ < 0) return;
  try {
    std::thread([fd = fd_] { ::close(fd); }).detach();
    fd_ = -1;
  } catch (const std::system_error&) {
    // No thread to spare: the destructor closes it here.
  }
}

}  // namespace io_detail

void check_output_path(const std::filesystem::path& path, bool streams) {
  io_detail::output_target(path, streams);
}

void remove_temp_files_on_signals() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // A signal the process ignores (a background job's SIGINT) or handles itself is left alone.
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
    struct sigaction action {};
    action.sa_handler = io_detail::remove_temp_files_and_reraise;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    ::sigaction(sig, &action, nullptr);
  }
}

}  // namespace clf
