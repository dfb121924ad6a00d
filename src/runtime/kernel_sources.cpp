#include "runtime/kernel_sources.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace clf {

std::string_view embedded_kernel_source(std::string_view file) {
  for (const auto& k : embedded_kernels())
    if (k.file == file) return k.source;
  throw std::invalid_argument("no embedded kernel file named " + std::string(file));
}

std::string full_kernel_source(std::string_view kernel_file) {
  constexpr std::string_view kSharedHeader = "border.cl";
  return fmt::format("#line 1 \"{}\"\n{}\n#line 1 \"{}\"\n{}\n", kSharedHeader,
                     embedded_kernel_source(kSharedHeader), kernel_file, embedded_kernel_source(kernel_file));
}

std::string kernel_code(std::string_view text) {
  // Backslash-newlines first, as the compiler's second phase does: they may split a comment's // or a token.
  std::string source;
  source.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && text.substr(i + 1, 1) == "\n")
      ++i;
    else if (text[i] == '\\' && text.substr(i + 1, 2) == "\r\n")
      i += 2;
    else
      source += text[i];
  }
  enum class Gap { none, space, newline };  // the whitespace owed before the next character kept
  Gap gap = Gap::none;
  bool line_start = true, in_directive = false;
  std::string code;
  code.reserve(source.size());
  const auto keep = [&](std::string_view kept) {
    if (line_start && kept[0] == '#') {  // a preprocessor line, which a newline must start and end
      in_directive = true;
      gap = Gap::newline;
    }
    if (gap != Gap::none && !code.empty()) code += gap == Gap::newline ? '\n' : ' ';
    gap = Gap::none;
    line_start = false;
    code += kept;
  };
  std::size_t i = 0;
  while (i < source.size()) {
    const char c = source[i];
    const char next = i + 1 < source.size() ? source[i + 1] : '\0';
    if (c == '/' && next == '/') {
      i = std::min(source.find('\n', i), source.size());
      gap = std::max(gap, Gap::space);
    } else if (c == '/' && next == '*') {
      const std::size_t end = source.find("*/", i + 2);
      i = end == std::string::npos ? source.size() : end + 2;
      gap = std::max(gap, Gap::space);
    } else if (c == '"' || c == '\'') {  // kept as written, escapes included
      std::size_t end = i + 1;
      while (end < source.size() && source[end] != c) end += source[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, source.size());
      keep(std::string_view(source).substr(i, end - i));
      i = end;
    } else if (c == '\n') {
      line_start = true;
      gap = std::max(gap, in_directive ? Gap::newline : Gap::space);
      in_directive = false;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
      gap = std::max(gap, Gap::space);
      ++i;
    } else {
      keep(std::string_view(source).substr(i, 1));
      ++i;
    }
  }
  return code;
}

std::uint64_t kernel_code_hash(std::string_view kernel_file) {
  return fnv1a64(kernel_code(full_kernel_source(kernel_file)));
}

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace clf
