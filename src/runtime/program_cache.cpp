// SPDX-License-Identifier: Apache-2.0
// Context construction and the program cache (memory and disk).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "clfilters/image_io.hpp"
#include "clfilters/runtime.hpp"
#include "runtime/cache_slot.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/kernel_sources.hpp"
#include "runtime/program_cache_file.hpp"

namespace clf {
namespace fs = std::filesystem;

namespace {

// The CacheSlot the calling thread works on (WorkOnSlot), or -1.
thread_local int working_slot = -1;

// The calling thread, or the slot it works on, as part of a cache key.
std::string thread_key() {
  if (working_slot >= 0) return fmt::format("slot {}", working_slot);
  return fmt::format("{:x}", std::hash<std::thread::id>{}(std::this_thread::get_id()));
}

// The CacheSlots held now.
std::mutex slots_mutex;
std::vector<bool> slots_held;

bool is_pocl(const DeviceInfo& info) {
  return info.platform_name.find("Portable Computing Language") != std::string::npos;
}

// CLFILTERS_NO_DISK_CACHE=1 turns the disk cache off, =0 on; unset, it is on except on PoCL. PoCL compiles
// every kernel of a program when its binary is written or read back (the same cost pyopencl met), which made a
// cold run of the box blur take 9.8 s against 2.7 s without it on the 2-core machine; PoCL's own kernel cache
// (~/.cache/pocl) already keeps what it built, so a warm run takes 0.2 s either way.
bool disk_cache_enabled(const DeviceInfo& info) {
  const char* off = std::getenv("CLFILTERS_NO_DISK_CACHE");
  if (off && *off) return std::string_view(off) == "0";
  return !is_pocl(info);
}

// PoCL's compiler prints its warnings on the process's stderr, where a user of the command line met "5 warnings
// generated." at every cold epsilon build (clang's -Wpsabi note on the uint16 kernels: an ABI remark, not a fault).
// -w, a standard build option, keeps them quiet; other drivers keep warnings in the build log. Code is unchanged.
std::string compiler_options(const DeviceInfo& info, const std::string& options) {
  return is_pocl(info) ? options + " -w" : options;
}

// CLFILTERS_BUILD_OPTIONS is added to every build: for a person looking at the compiler's work, e.g.
// -cl-nv-verbose on NVIDIA, whose ptxas report (registers, spills) then lands in the cache's .txt files.
// Read at each call and part of every cache key, so a change within one process rebuilds.
std::string with_environment_options(const std::string& options) {
  const char* extra = std::getenv("CLFILTERS_BUILD_OPTIONS");
  return extra && *extra ? options + " " + extra : options;
}

std::string build_log(const cl::Program& program, const cl::Device& device) {
  std::string log;
  program.getBuildInfo(device, CL_PROGRAM_BUILD_LOG, &log);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::vector<unsigned char> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

constexpr char kCacheMagic[8] = {'C', 'L', 'F', 'P', 'R', 'O', 'G', '1'};
constexpr std::size_t kCacheHeaderBytes = sizeof(kCacheMagic) + 2 * sizeof(std::uint64_t);

std::uint64_t binary_hash(const unsigned char* data, std::size_t size) {
  return fnv1a64(std::string_view(reinterpret_cast<const char*>(data), size));
}

void put_u64(std::vector<unsigned char>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

std::uint64_t get_u64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(p[i]) << (8 * i);
  return v;
}

void require_usable(const DeviceInfo& info) {
  if (opencl_c_version(info) < kMinOpenClC)
    throw std::invalid_argument(fmt::format("device {} offers \"{}\"; clfilters' kernels need OpenCL C 1.2 or later",
                                            info.name, info.opencl_c_version));
}

}  // namespace

std::vector<unsigned char> program_cache_file(const std::vector<unsigned char>& binary) {
  std::vector<unsigned char> file(kCacheMagic, kCacheMagic + sizeof(kCacheMagic));
  file.reserve(kCacheHeaderBytes + binary.size());
  put_u64(file, binary.size());
  put_u64(file, binary_hash(binary.data(), binary.size()));
  file.insert(file.end(), binary.begin(), binary.end());
  return file;
}

std::optional<std::vector<unsigned char>> binary_from_program_cache_file(const std::vector<unsigned char>& file) {
  if (file.size() < kCacheHeaderBytes || !std::equal(kCacheMagic, kCacheMagic + sizeof(kCacheMagic), file.begin()))
    return std::nullopt;
  const unsigned char* body = file.data() + kCacheHeaderBytes;
  const std::size_t size = file.size() - kCacheHeaderBytes;
  if (get_u64(file.data() + 8) != size || size == 0 || get_u64(file.data() + 16) != binary_hash(body, size))
    return std::nullopt;
  return std::vector<unsigned char>(body, body + size);
}

CacheSlot::CacheSlot() {
  const std::lock_guard lock(slots_mutex);
  index_ = int(std::find(slots_held.begin(), slots_held.end(), false) - slots_held.begin());
  if (index_ == int(slots_held.size())) slots_held.push_back(false);
  slots_held[std::size_t(index_)] = true;
}

CacheSlot::~CacheSlot() {
  const std::lock_guard lock(slots_mutex);
  slots_held[std::size_t(index_)] = false;
}

WorkOnSlot::WorkOnSlot(const CacheSlot& slot) : previous_(working_slot) {
  working_slot = slot.index();
}

WorkOnSlot::~WorkOnSlot() {
  working_slot = previous_;
}

std::string cache_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return (fs::path(xdg) / "clfilters").string();
  if (const char* home = std::getenv("HOME"); home && *home) return (fs::path(home) / ".cache" / "clfilters").string();
  return (fs::temp_directory_path() / "clfilters-cache").string();
}

// Every map below is guarded by `mutex`; entries are never erased, so references handed out stay valid. Kernels
// and scratch buffers are keyed by thread too: clSetKernelArg on one kernel object from two threads would race, and
// two calls sharing a scratch buffer would overwrite each other's intermediates.
struct Context::Cached {
  std::recursive_mutex mutex;
  std::map<std::string, cl::Program, std::less<>> programs;
  std::map<std::string, cl::Kernel, std::less<>> kernels;
  std::map<std::string, std::pair<cl::Buffer, std::size_t>, std::less<>> scratch;
  // Pinned staging by thread and name; a std::map, so references stay valid as entries are added.
  std::map<std::string, PinnedBuffer, std::less<>> pinned;
  std::map<std::string, bool, std::less<>> features;
  std::map<std::string, std::uint64_t, std::less<>> source_hashes;
  std::map<std::string, ClError, std::less<>> failed_builds;
  std::map<std::string, VariantFallback, std::less<>> last_fallbacks;  // by thread
  std::set<std::string, std::less<>> fallbacks_met;                    // filter, refused and ran
  std::array<cl::CommandQueue, 2> side_queues;
};

Context::Context(std::string_view device_selector) : Context(select_device(device_selector)) {}

Context::Context(DeviceHandle device) : device_(std::move(device)), cached_(std::make_unique<Cached>()) {
  require_usable(device_.info);
  cl_int err = CL_SUCCESS;
  context_ = cl::Context(device_.device, nullptr, nullptr, nullptr, &err);
  check_cl(err, "clCreateContext");
  profiling_queue();
}

Context::Context(cl_context context, cl_device_id device, cl_command_queue queue)
    : device_(device_handle(device)), cached_(std::make_unique<Cached>()) {
  require_usable(device_.info);
  if (!context || !queue) throw std::invalid_argument("adopting an OpenCL context: the context or queue is null");
  // The C++ wrappers retain here and release when this Context goes; the caller keeps its own references.
  context_ = cl::Context(context, true);
  cl::CommandQueue adopted(queue, true);
  cl_command_queue_properties props = 0;
  check_cl(adopted.getInfo(CL_QUEUE_PROPERTIES, &props), "clGetCommandQueueInfo");
  cl_context queue_context = nullptr;
  cl_device_id queue_device = nullptr;
  check_cl(adopted.getInfo(CL_QUEUE_CONTEXT, &queue_context), "clGetCommandQueueInfo");
  check_cl(adopted.getInfo(CL_QUEUE_DEVICE, &queue_device), "clGetCommandQueueInfo");
  if (queue_context != context || queue_device != device)
    throw std::invalid_argument("adopting an OpenCL context: the queue belongs to another context or device");
  // Filters rely on commands running in order: each kernel reads what the one before it wrote.
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    throw std::invalid_argument(
        "adopting an OpenCL context: the queue is out of order; clfilters needs an in-order "
        "queue");
  profiling_ = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
  (profiling_ ? queue_ : plain_queue_) = std::move(adopted);
}

Context::~Context() {
  // Never throws: finishing may fail if the device is lost, and there is nothing to do about it here.
  for (auto& [key, pinned] : cached_->pinned) unmap_pinned(pinned);
  if (queue_()) queue_.finish();
  if (plain_queue_()) plain_queue_.finish();
}

cl::CommandQueue& Context::profiling_queue() {
  const std::lock_guard lock(cached_->mutex);
  if (!queue_()) {
    cl_int err = CL_SUCCESS;
    queue_ = cl::CommandQueue(context_, device_.device, CL_QUEUE_PROFILING_ENABLE, &err);
    check_cl(err, "clCreateCommandQueue");
  }
  return queue_;
}

cl::CommandQueue& Context::plain_queue() {
  const std::lock_guard lock(cached_->mutex);
  if (!plain_queue_()) {
    cl_int err = CL_SUCCESS;
    plain_queue_ = cl::CommandQueue(context_, device_.device, 0, &err);
    check_cl(err, "clCreateCommandQueue");
  }
  return plain_queue_;
}

cl::CommandQueue& Context::side_queue(int index) {
  const std::lock_guard lock(cached_->mutex);
  cl::CommandQueue& queue = cached_->side_queues.at(std::size_t(index));
  if (!queue()) {
    cl_int err = CL_SUCCESS;
    queue = cl::CommandQueue(context_, device_.device, 0, &err);
    check_cl(err, "clCreateCommandQueue");
  }
  return queue;
}

void Context::set_profiling(bool on) {
  const std::lock_guard lock(cached_->mutex);
  if (on == profiling_) return;
  check_cl(queue().finish(), "clFinish");
  profiling_ = on;
}

std::uint64_t Context::source_hash(std::string_view kernel_file, bool sixteen_bit) const {
  // Memoised: `auto` looks the tuning database up with it on every call.
  const std::string key = fmt::format("{}{}", kernel_file, sixteen_bit ? " u16" : "");
  const std::lock_guard lock(cached_->mutex);
  auto it = cached_->source_hashes.find(key);
  if (it == cached_->source_hashes.end()) {
    const CodeKeyScope scope{.cpu_files = (info().type & CL_DEVICE_TYPE_CPU) != 0, .sixteen_bit = sixteen_bit};
    it = cached_->source_hashes.emplace(key, kernel_code_hash(kernel_file, scope)).first;
  }
  return it->second;
}

cl::Program& Context::program(std::string_view kernel_file, const std::string& options) {
  return program_from_source(kernel_file, full_kernel_source(kernel_file), with_environment_options(options));
}

cl::Program& Context::program_from_source(std::string_view kernel_file, const std::string& source,
                                          const std::string& options) {
  const std::uint64_t text_hash = fnv1a64(source);
  const std::string key = fmt::format("{}\n{}\n{:016x}", kernel_file, options, text_hash);
  const std::lock_guard lock(cached_->mutex);
  if (auto it = cached_->programs.find(key); it != cached_->programs.end()) return it->second;
  const auto& info = device_.info;
  // Keyed by platform (with its version: a PoCL update changes its binaries, pocl issue 596), device, driver,
  // source and options, so an update or an edited kernel rebuilds.
  const std::uint64_t disk_key =
      fnv1a64(fmt::format("{}\n{}\n{}\n{}\n{}\n{:016x}\n{}", info.platform_name, info.platform_version, info.name,
                          info.driver_version, info.device_version, text_hash, options));
  const fs::path disk_path = fs::path(cache_directory()) / "programs" / fmt::format("{:016x}.bin", disk_key);
  const std::vector<cl::Device> devices{device_.device};
  cl_int err = CL_SUCCESS;

  // A cached binary cut short or changed (its header's length and hash disagree), or one that fails to load or
  // build (driver update), is rebuilt from source and written again.
  if (disk_cache_enabled(info)) {
    std::error_code ec;
    if (fs::exists(disk_path, ec)) {
      if (auto binary = binary_from_program_cache_file(read_bytes(disk_path))) {
        cl::Program::Binaries binaries{std::move(*binary)};
        cl::Program from_binary(context_, devices, binaries, nullptr, &err);
        if (err == CL_SUCCESS && from_binary.build(devices, options.c_str()) == CL_SUCCESS)
          return cached_->programs.emplace(key, std::move(from_binary)).first->second;
      }
    }
  }

  // A build the compiler refused is not tried again on this context: the same error comes back at once (a
  // fallback variant then costs no second failed compile).
  if (auto failed = cached_->failed_builds.find(key); failed != cached_->failed_builds.end()) throw failed->second;
  cl::Program program(context_, source, false, &err);
  check_cl(err, "clCreateProgramWithSource");
  const bool injected = injected_fault(FaultPoint::build);
  err = injected ? CL_BUILD_PROGRAM_FAILURE : program.build(devices, compiler_options(info, options).c_str());
  if (err != CL_SUCCESS) {
    ClError error(err,
                  fmt::format("clBuildProgram({}, \"{}\"){}", kernel_file, options,
                              injected ? " [injected by CLFILTERS_FAULT]" : ""),
                  injected ? "" : build_log(program, device_.device));
    if (err == CL_BUILD_PROGRAM_FAILURE) cached_->failed_builds.emplace(key, error);
    throw error;
  }

  if (disk_cache_enabled(info)) {
    std::vector<std::vector<unsigned char>> binaries;
    if (program.getInfo(CL_PROGRAM_BINARIES, &binaries) == CL_SUCCESS && binaries.size() == 1 && !binaries[0].empty()) {
      std::error_code ec;
      fs::create_directories(disk_path.parent_path(), ec);
      try {
        // Atomic (temporary file + rename): processes building the same program at once each write a whole file,
        // and the last rename wins; no lock is needed.
        const std::vector<unsigned char> file = program_cache_file(binaries[0]);
        write_file_atomically(disk_path, file.data(), file.size());
        // What the binary was built from, for a person or a tool reading the cache: NVIDIA's
        // binaries are the driver's PTX.
        const std::string about =
            fmt::format("{} {}\n{} ({}, driver {})\n{}", kernel_file, options, info.name, info.platform_name,
                        info.driver_version, build_log(program, device_.device));
        write_file_atomically(fs::path(disk_path).replace_extension(".txt"), about.data(), about.size());
      } catch (const std::exception&) {
        // A read-only cache directory only costs a rebuild next time.
      }
    }
  }
  return cached_->programs.emplace(key, std::move(program)).first->second;
}

cl::Kernel& Context::kernel(std::string_view kernel_file, const std::string& options, const std::string& name) {
  // The environment's options are read once, so the kernel's key and its program's are the same build.
  const std::string all_options = with_environment_options(options);
  const std::string key = fmt::format("{}\n{}\n{}\n{}", thread_key(), kernel_file, all_options, name);
  const std::lock_guard lock(cached_->mutex);
  if (auto it = cached_->kernels.find(key); it != cached_->kernels.end()) return it->second;
  cl_int err = CL_SUCCESS;
  cl::Kernel k(program_from_source(kernel_file, full_kernel_source(kernel_file), all_options), name.c_str(), &err);
  check_cl(err, fmt::format("clCreateKernel({})", name).c_str());
  return cached_->kernels.emplace(key, std::move(k)).first->second;
}

cl::Buffer Context::buffer(cl_mem_flags flags, std::size_t bytes, void* host) {
  cl_int err = CL_SUCCESS;
  cl::Buffer b;
  if (injected_fault(FaultPoint::alloc))
    err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
  else
    b = cl::Buffer(context_, flags, bytes == 0 ? 1 : bytes, host, &err);
  if (err != CL_SUCCESS) throw ClError(err, fmt::format("clCreateBuffer({} bytes)", bytes));
  return b;
}

bool Context::feature_works(std::string_view feature, const std::function<bool()>& probe) {
  const std::lock_guard lock(cached_->mutex);
  auto it = cached_->features.find(feature);
  if (it == cached_->features.end()) it = cached_->features.emplace(std::string(feature), probe()).first;
  return it->second;
}

cl::Buffer& Context::scratch_buffer(std::string_view name, std::size_t bytes) {
  const std::string key = thread_key() + "\n" + std::string(name);
  const std::lock_guard lock(cached_->mutex);
  auto it = cached_->scratch.find(key);
  if (it == cached_->scratch.end()) it = cached_->scratch.emplace(key, std::pair{cl::Buffer(), 0}).first;
  if (it->second.second < bytes) {
    // Commands already enqueued keep the old buffer alive (OpenCL retains it), so replacing is safe.
    it->second = {buffer(CL_MEM_READ_WRITE, bytes), bytes};
  }
  return it->second.first;
}

void Context::unmap_pinned(PinnedBuffer& pinned) {
  if (!pinned.data) return;
  // No copy may still use the memory when it is unmapped.
  if (pinned.last_copy()) pinned.last_copy.wait();
  queue().enqueueUnmapMemObject(pinned.buffer, pinned.data);
  queue().finish();
  pinned = {};
}

Context::PinnedBuffer& Context::pinned_buffer(std::string_view name, std::size_t bytes) {
  const std::string key = thread_key() + "\n" + std::string(name);
  const std::lock_guard lock(cached_->mutex);
  PinnedBuffer& pinned = cached_->pinned[key];
  if (pinned.bytes < bytes) {
    unmap_pinned(pinned);
    cl::Buffer b = buffer(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
    cl_int err = CL_SUCCESS;
    void* data = queue().enqueueMapBuffer(b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) throw ClError(err, fmt::format("clEnqueueMapBuffer({} bytes)", bytes));
    pinned = {std::move(b), static_cast<std::uint8_t*>(data), bytes, {}};
  }
  return pinned;
}

bool Context::record_fallback(VariantFallback fallback) {
  const std::lock_guard lock(cached_->mutex);
  const bool first =
      cached_->fallbacks_met.insert(fmt::format("{}\n{}\n{}", fallback.filter, fallback.refused, fallback.ran)).second;
  cached_->last_fallbacks[thread_key()] = std::move(fallback);
  return first;
}

std::optional<VariantFallback> Context::last_fallback() const {
  const std::lock_guard lock(cached_->mutex);
  const auto it = cached_->last_fallbacks.find(thread_key());
  if (it == cached_->last_fallbacks.end()) return std::nullopt;
  return it->second;
}

}  // namespace clf
