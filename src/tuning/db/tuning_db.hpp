// SPDX-License-Identifier: Apache-2.0
// The per-device tuning database: which variant and tunables won for a filter, a parameter class and
// a size class on a device. A JSON file in the cache directory; lookups fall back from the exact
// device and size class to the nearest size class, then to another device of the same vendor.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "clfilters/export.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace CLF_API clf {

struct TunedChoice {
  std::string variant;
  TuningConfig config;
  double kernel_ms = 0;
  bool shipped = false;  // from the database shipped in the binary, not the user's
};

struct TuningEntry {
  std::string vendor;
  std::string device;
  std::string driver;
  std::string filter;       // "box-blur"
  std::string param_class;  // the filter's parameter class, e.g. "d<=3"; "" when one class fits all
  std::string source_hash;  // hex hash of the kernel source the timing was taken with
  std::string size_class;   // see size_class()
  TunedChoice best;
  std::optional<TunedChoice> runner_up;
  std::string tuned_at;  // ISO date
};

// "<=0.3MP", "<=1MP", "<=4MP", "<=16MP", ">16MP", ordered by size_class_rank.
std::string size_class(int width, int height);
int size_class_rank(const std::string& size_class);

// $XDG_CACHE_HOME/clfilters/tuning.json, or $CLFILTERS_TUNING_DB if set.
std::string tuning_db_path();

class TuningDb {
 public:
  // Loads `path`. A missing file is an empty database; a corrupt or old-format one is set aside with a
  // warning on stderr (renamed to *.corrupt) and rebuilt, never an error.
  static TuningDb load(const std::string& path = tuning_db_path());
  // The database shipped in the binary (src/tuning/db/shipped_tuning.json): the winners measured on the
  // NVIDIA H200 and H100, which `bench/run-gpu.sh OUT build,tune` rewrites. Read-only: it has no path.
  static TuningDb shipped();
  // Writes every entry of this database to its file, replacing what the file held: atomic (temporary file +
  // rename), under the database's lock file ("<path>.lock", flock).
  void save() const;
  // A read-modify-write that other processes cannot interleave: under the lock file, loads `path`, applies
  // `change` and saves. Two `clfilters tune` runs at once each add their entries this way, so both are kept.
  static void update(const std::string& path, const std::function<void(TuningDb&)>& change);
  void reset();  // forgets every entry of this database

  void put(const TuningEntry& entry);  // replaces the entry with the same key
  const std::vector<TuningEntry>& entries() const { return entries_; }

  // The entries for this filter, class and kernel source (`source_hash`; others are for a changed kernel),
  // nearest first: this device (name and driver), then the same vendor's other devices, then the rest,
  // each by distance from `size_class`; ties keep the file's order. With `other_sources`, the entries of
  // other versions of the kernel follow, ranked the same way (the tuner's first guesses after an edit).
  // `also_hash`, when given, counts as this source too.
  std::vector<const TuningEntry*> ranked(const DeviceInfo& device, const std::string& filter,
                                         const std::string& param_class, const std::string& source_hash,
                                         const std::string& size_class, bool other_sources = false,
                                         const std::string& also_hash = {}) const;

 private:
  void write() const;  // save() without the lock

  std::string path_;
  std::vector<TuningEntry> entries_;
};

// The tuning database's key (hex) for a kernel file's entries of `param_class` on ctx's device: Context::source_hash,
// with the 16-bit forms for the classes of 16-bit calls (" u16").
std::string kernel_source_key(Context& ctx, const std::string& kernel_file, const std::string& param_class);
// The key of the whole file (the CPU variants' files included) that every entry had before GPU entries left those
// files out: an entry under it was tuned on this very code, so it still holds on any device.
std::string whole_source_key(const std::string& kernel_file, const std::string& param_class);
// What `auto` takes from the databases: the user's entry for this device, else the shipped one for this device,
// else the user's for another device of its vendor, else the shipped one; each nearest size class first. Entries
// under `source_hash` or `also_hash` count.
std::optional<TunedChoice> lookup_tuned(const TuningDb& user, const TuningDb& shipped, const DeviceInfo& device,
                                        const std::string& filter, const std::string& param_class,
                                        const std::string& source_hash, const std::string& size_class,
                                        const std::string& also_hash = {});
// What `auto` uses: the process-wide database (loaded once) and the shipped one, through lookup_tuned.
// Filters call this before their built-in rule. CLFILTERS_NO_TUNING=1 turns it off.
std::optional<TunedChoice> tuned_choice(Context& ctx, const std::string& filter, const std::string& kernel_file,
                                        const std::string& param_class, int width, int height);
// How every filter resolves a requested variant: a named variant as given ("requested"); "auto" the
// tuned choice if there is one and `supported` accepts it ("tuned", or "shipped" from the shipped database),
// else `rule()` ("rule"). A non-empty
// `config` overrides the tunables.
VariantChoice choose_variant(Context& ctx, std::string_view requested, const TuningConfig& config,
                             const std::string& filter, const std::string& kernel_file, const std::string& param_class,
                             int width, int height,
                             const std::function<bool(const std::string&, const TuningConfig&)>& supported,
                             const std::function<std::string()>& rule);

// Makes the next tuned_choice() re-read the file (after `clfilters tune` wrote it).
void reload_tuning_db();

}  // namespace clf
