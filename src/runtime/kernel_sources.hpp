// SPDX-License-Identifier: Apache-2.0
// The .cl files embedded at build time (cmake/EmbedKernels.cmake generates the table).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clf {

struct EmbeddedKernel {
  std::string_view file;    // "box_blur.cl"
  std::string_view source;  // the file's text
};

const std::vector<EmbeddedKernel>& embedded_kernels();

// The text of an embedded file; throws std::invalid_argument if there is no such file.
std::string_view embedded_kernel_source(std::string_view file);

// A kernel file as programs are built from it: the shared common/border.cl, then the file with each line
// `#include "part.cl"` replaced by that embedded file (a large family is split over several files this way), each
// after a #line directive so the compiler's messages name the right file and line.
std::string full_kernel_source(std::string_view kernel_file);

// The code as the compiler sees it, for keys that should outlive comment and layout edits (the tuning
// database's): backslash-newlines joined, comments and #line directives removed, and the tokens one space apart,
// with a newline where a preprocessor line ends (and no space between a #define's name and its parameter list).
std::string kernel_code(std::string_view text);

// kernel_code as an 8-bit build compiles it: each `#if SAMPLE_BITS == 16` block (a kernel's 16-bit form) removed,
// its `#else` part kept without the directives. Such a block must not have an #elif of its own.
std::string eight_bit_code(std::string_view code);

// What of a kernel file's code keys its tuning entries (kernel_code_hash).
struct CodeKeyScope {
  // The files only CPU variants include (named *_cpu_*.cl): GPU entries leave them out, so that editing a CPU
  // variant keeps the GPUs' tuned entries.
  bool cpu_files = true;
  // The `#if SAMPLE_BITS == 16` blocks: only 16-bit classes (" u16") take them, so that editing a 16-bit form keeps
  // the 8-bit entries.
  bool sixteen_bit = false;
};

// The hash of kernel_code of the file as full_kernel_source expands it, within `scope`: the tuning database's key.
std::uint64_t kernel_code_hash(std::string_view kernel_file, const CodeKeyScope& scope = {});

// 64-bit FNV-1a, used for cache keys.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace clf
