// SPDX-License-Identifier: Apache-2.0
#include "tuning/db/tuning_db.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "clfilters/image_io.hpp"
#include "runtime/kernel_sources.hpp"

namespace clf {
namespace fs = std::filesystem;
using json = nlohmann::json;

// The database's JSON form (found by nlohmann through ADL, so in clf itself). `shipped` is not stored.
void to_json(json& j, const TunedChoice& c) {
  j = {{"variant", c.variant}, {"config", to_string(c.config)}, {"kernel_ms", c.kernel_ms}};
}
void from_json(const json& j, TunedChoice& c) {
  c = {j.at("variant").get<std::string>(), parse_tuning_config(j.at("config").get<std::string>()),
       j.at("kernel_ms").get<double>()};
}

namespace {
// TuningEntry's text fields under their keys, read and written alike.
constexpr std::pair<const char*, std::string TuningEntry::*> kEntryTexts[] = {
    {"vendor", &TuningEntry::vendor},           {"device", &TuningEntry::device},
    {"driver", &TuningEntry::driver},           {"filter", &TuningEntry::filter},
    {"param_class", &TuningEntry::param_class}, {"source_hash", &TuningEntry::source_hash},
    {"size_class", &TuningEntry::size_class}};
}  // namespace

void to_json(json& j, const TuningEntry& e) {
  for (const auto& [key, text] : kEntryTexts) j[key] = e.*text;
  j["best"] = e.best;
  j["runner_up"] = e.runner_up ? json(*e.runner_up) : json(nullptr);
  j["tuned_at"] = e.tuned_at;
}
// tuned_at and runner_up may be missing: read as "" and none.
void from_json(const json& j, TuningEntry& e) {
  for (const auto& [key, text] : kEntryTexts) e.*text = j.at(key).get<std::string>();
  e.best = j.at("best").get<TunedChoice>();
  e.tuned_at = j.value("tuned_at", "");
  if (j.contains("runner_up") && !j.at("runner_up").is_null()) e.runner_up = j.at("runner_up").get<TunedChoice>();
}

namespace {

// Version 1 keyed entries by the hash of the kernel's whole text, so any comment edit orphaned them; version
// 2 by kernel_code_hash.
constexpr int kFormatVersion = 2;
const char* const kSizeClasses[] = {"<=0.3MP", "<=1MP", "<=4MP", "<=16MP", ">16MP"};

std::string hex_key(std::uint64_t hash) {
  return fmt::format("{:016x}", hash);
}

// Version 1's key of each embedded kernel file's text as it is now, and the key it has now. Version 1 entries
// of an unchanged file move to its new key; the others were for a changed kernel and stay so. Computed once: the
// embedded kernels do not change, and hashing them all took a fuzzer's every load of a version 1 file seconds.
const std::map<std::string, std::string>& keys_from_version_1() {
  static const std::map<std::string, std::string> keys = [] {
    std::map<std::string, std::string> all;
    for (const auto& k : embedded_kernels())
      all.emplace(hex_key(fnv1a64(full_kernel_source(k.file))), hex_key(kernel_code_hash(k.file)));
    return all;
  }();
  return keys;
}

bool same_key(const TuningEntry& a, const TuningEntry& b) {
  return a.vendor == b.vendor && a.device == b.device && a.driver == b.driver && a.filter == b.filter &&
         a.param_class == b.param_class && a.size_class == b.size_class;
}

}  // namespace

std::string size_class(int width, int height) {
  const double mp = double(width) * double(height) / 1e6;
  if (mp <= 0.3) return kSizeClasses[0];
  if (mp <= 1.0) return kSizeClasses[1];
  if (mp <= 4.0) return kSizeClasses[2];
  if (mp <= 16.0) return kSizeClasses[3];
  return kSizeClasses[4];
}

int size_class_rank(const std::string& size_class) {
  for (int i = 0; i < 5; ++i)
    if (size_class == kSizeClasses[i]) return i;
  return -100;
}

std::string tuning_db_path() {
  if (const char* p = std::getenv("CLFILTERS_TUNING_DB"); p && *p) return p;
  return (fs::path(cache_directory()) / "tuning.json").string();
}

namespace {
std::vector<TuningEntry> entries_from_json(const json& j) {
  // An integer, compared as one: a float or a huge value is another format, not a cast.
  const json& v = j.contains("format_version") ? j.at("format_version") : json(0);
  const std::int64_t version = v.is_number_integer() ? v.get<std::int64_t>() : -1;
  if (version != kFormatVersion && version != 1) throw std::runtime_error("old or unknown format version");
  static const std::map<std::string, std::string> no_keys;
  const auto& new_keys = version == 1 ? keys_from_version_1() : no_keys;
  std::vector<TuningEntry> entries;
  for (const auto& e : j.at("entries")) {
    auto t = e.get<TuningEntry>();
    if (auto key = new_keys.find(t.source_hash); key != new_keys.end()) t.source_hash = key->second;
    entries.push_back(std::move(t));
  }
  return entries;
}
}  // namespace

// Generated from src/tuning/db/shipped_tuning.json (src/CMakeLists.txt).
extern const char* const kShippedTuningJson;

TuningDb TuningDb::shipped() {
  TuningDb db;
  db.entries_ = entries_from_json(json::parse(kShippedTuningJson));
  return db;
}

TuningDb TuningDb::load(const std::string& path) {
  TuningDb db;
  db.path_ = path;
  std::ifstream in(path);
  if (!in) return db;
  try {
    db.entries_ = entries_from_json(json::parse(in));
  } catch (const std::exception& e) {
    std::error_code ec;
    fs::rename(path, path + ".corrupt", ec);
    fmt::print(stderr, "clfilters: warning: tuning database {} unreadable ({}); set aside as {}.corrupt and rebuilt\n",
               path, e.what(), path);
    db.entries_.clear();
  }
  return db;
}

namespace {
// An exclusive flock on "<database>.lock" for a read-modify-write of the database by several processes (two
// `clfilters tune` at once); the lock goes with the descriptor, so a crashed holder never leaves it taken. Without a
// lock file (a read-only folder) the write goes ahead unlocked and fails there with its own message.
class DbFileLock {
 public:
  explicit DbFileLock(const std::string& db_path) {
    std::error_code ec;
    fs::create_directories(fs::path(db_path).parent_path(), ec);
    fd_ = ::open((db_path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ >= 0)
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~DbFileLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  DbFileLock(const DbFileLock&) = delete;
  DbFileLock& operator=(const DbFileLock&) = delete;

 private:
  int fd_ = -1;
};
}  // namespace

void TuningDb::update(const std::string& path, const std::function<void(TuningDb&)>& change) {
  const DbFileLock lock(path);
  TuningDb db = load(path);
  change(db);
  db.write();
}

void TuningDb::save() const {
  const DbFileLock lock(path_);
  write();
}

void TuningDb::write() const {
  const std::string text = json{{"format_version", kFormatVersion}, {"entries", entries_}}.dump(1) + "\n";
  write_file_atomically(path_, text.data(), text.size());
}

void TuningDb::reset() {
  entries_.clear();
}

void TuningDb::put(const TuningEntry& entry) {
  for (auto& e : entries_)
    if (same_key(e, entry)) {
      e = entry;
      return;
    }
  entries_.push_back(entry);
}

std::vector<const TuningEntry*> TuningDb::ranked(const DeviceInfo& device, const std::string& filter,
                                                 const std::string& param_class, const std::string& source_hash,
                                                 const std::string& size, bool other_sources,
                                                 const std::string& also_hash) const {
  const int want = size_class_rank(size);
  std::vector<std::pair<int, const TuningEntry*>> scored;
  for (const auto& e : entries_) {
    const bool this_source = e.source_hash == source_hash || (!also_hash.empty() && e.source_hash == also_hash);
    if (e.filter != filter || e.param_class != param_class || (!this_source && !other_sources)) continue;
    const int kin = e.device == device.name && e.driver == device.driver_version ? 0
                    : e.vendor == device.vendor                                  ? 1
                                                                                 : 2;
    scored.emplace_back((this_source ? 0 : 10000) + kin * 1000 + std::abs(size_class_rank(e.size_class) - want), &e);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const TuningEntry*> out;
  for (const auto& [score, e] : scored) out.push_back(e);
  return out;
}

namespace {
bool sixteen_bit_class(std::string_view param_class) {
  return param_class.ends_with(" u16");
}
}  // namespace

std::string kernel_source_key(Context& ctx, const std::string& kernel_file, const std::string& param_class) {
  return hex_key(ctx.source_hash(kernel_file, sixteen_bit_class(param_class)));
}

std::string whole_source_key(const std::string& kernel_file, const std::string& param_class) {
  // Memoised: `auto` asks on every call, and hashing a file's code takes a few milliseconds.
  static std::mutex mutex;
  static std::map<std::pair<std::string, bool>, std::string> keys;
  const bool sixteen_bit = sixteen_bit_class(param_class);
  const std::lock_guard lock(mutex);
  auto [it, added] = keys.try_emplace({kernel_file, sixteen_bit});
  if (added) it->second = hex_key(kernel_code_hash(kernel_file, {.cpu_files = true, .sixteen_bit = sixteen_bit}));
  return it->second;
}

std::optional<TunedChoice> lookup_tuned(const TuningDb& user, const TuningDb& shipped, const DeviceInfo& device,
                                        const std::string& filter, const std::string& param_class,
                                        const std::string& source_hash, const std::string& size,
                                        const std::string& also_hash) {
  const auto mine = user.ranked(device, filter, param_class, source_hash, size, false, also_hash);
  const auto ours = shipped.ranked(device, filter, param_class, source_hash, size, false, also_hash);
  // ranked() puts this device's entries first, each list nearest size class first.
  auto first = [](const std::vector<const TuningEntry*>& ranked, auto&& accept) -> const TuningEntry* {
    for (const TuningEntry* e : ranked)
      if (accept(*e)) return e;
    return nullptr;
  };
  auto this_device = [&](const TuningEntry& e) { return e.device == device.name; };
  auto this_vendor = [&](const TuningEntry& e) { return e.vendor == device.vendor; };
  // The user's database before the shipped one, this device before the rest of its vendor.
  const TuningEntry* e = first(mine, this_device);
  bool from_shipped = false;
  if (!e && (e = first(ours, this_device))) from_shipped = true;
  if (!e) e = first(mine, this_vendor);
  if (!e && (e = first(ours, this_vendor))) from_shipped = true;
  if (!e) return std::nullopt;
  TunedChoice choice = e->best;
  choice.shipped = from_shipped;
  return choice;
}

namespace {
std::mutex db_mutex;
std::optional<TuningDb> process_db;
}  // namespace

void reload_tuning_db() {
  std::lock_guard lock(db_mutex);
  process_db.reset();
}

std::optional<TunedChoice> tuned_choice(Context& ctx, const std::string& filter, const std::string& kernel_file,
                                        const std::string& param_class, int width, int height) {
  if (const char* off = std::getenv("CLFILTERS_NO_TUNING"); off && *off && std::string_view(off) != "0")
    return std::nullopt;
  std::lock_guard lock(db_mutex);
  if (!process_db) process_db = TuningDb::load();
  static const TuningDb shipped = TuningDb::shipped();
  return lookup_tuned(*process_db, shipped, ctx.info(), filter, param_class,
                      kernel_source_key(ctx, kernel_file, param_class), size_class(width, height),
                      whole_source_key(kernel_file, param_class));
}

VariantChoice choose_variant(Context& ctx, std::string_view requested, const TuningConfig& config,
                             const std::string& filter, const std::string& kernel_file, const std::string& param_class,
                             int width, int height,
                             const std::function<bool(const std::string&, const TuningConfig&)>& supported,
                             const std::function<std::string()>& rule) {
  if (requested != "auto") return {std::string(requested), config, "requested"};
  if (auto tuned = tuned_choice(ctx, filter, kernel_file, param_class, width, height)) {
    const TuningConfig& c = config.empty() ? tuned->config : config;
    if (supported(tuned->variant, c)) return {tuned->variant, c, tuned->shipped ? "shipped" : "tuned"};
  }
  return {rule(), config, "rule"};
}

}  // namespace clf
