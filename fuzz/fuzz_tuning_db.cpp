// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness for the tuning database: load a file (a corrupt one is set aside with a warning, never
// an error), rank its entries for a device as `auto` does, and save it again.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tuning/db/tuning_db.hpp"

namespace {

const std::filesystem::path& work_folder() {
  static const std::filesystem::path folder = [] {
    std::string name = (std::filesystem::temp_directory_path() / "clf-fuzz-tuning-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) std::abort();
    return std::filesystem::path(name);
  }();
  return folder;
}

}  // namespace

// Version 1 files are rekeyed by hashing every embedded kernel, once a process: done here, before the inputs are
// timed, so that the first version 1 input is not a timeout on a loaded machine.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string path = (work_folder() / "tuning.json").string();
  std::ofstream(path) << R"({"format_version": 1, "entries": []})";
  (void)clf::TuningDb::load(path);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = (work_folder() / "tuning.json").string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  clf::TuningDb db = clf::TuningDb::load(path);
  clf::DeviceInfo device;
  device.name = "Fuzz Device";
  device.vendor = "NVIDIA Corporation";
  device.driver_version = "1.0";
  for (const clf::TuningEntry& e : db.entries()) {
    (void)db.ranked(device, e.filter, e.param_class, e.source_hash, e.size_class, true);
    (void)clf::lookup_tuned(db, db, device, e.filter, e.param_class, e.source_hash, "<=1MP");
  }
  db.save();
  // What was saved loads again with the same entries.
  if (clf::TuningDb::load(path).entries().size() != db.entries().size()) std::abort();
  return 0;
}
