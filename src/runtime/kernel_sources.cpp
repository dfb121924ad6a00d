// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernel_sources.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>

namespace clf {

std::string_view embedded_kernel_source(std::string_view file) {
  for (const auto& k : embedded_kernels())
    if (k.file == file) return k.source;
  throw std::invalid_argument("no embedded kernel file named " + std::string(file));
}

namespace {

// A file that only CPU variants include (box_blur_cpu_bands.cl): GPU programs never run its code.
bool is_cpu_only_file(std::string_view name) {
  return name.find("_cpu_") != std::string_view::npos;
}

// `text` with each line `#include "name.cl"` that names an embedded file replaced by that file (expanded the same
// way), between #line directives so that the compiler's messages name the right file and line; without the CPU-only
// files when `cpu_files` is false (the code that keys GPU tuning entries, never compiled).
std::string expand_includes(std::string_view file, std::string_view text, int depth, bool cpu_files) {
  if (depth > 8) throw std::invalid_argument(fmt::format("{}: kernel files include each other too deeply", file));
  std::string out;
  int line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    ++line_number;
    pos = end + 1;
    constexpr std::string_view kInclude = "#include \"";
    if (line.starts_with(kInclude) && line.ends_with('"')) {
      const std::string_view name = line.substr(kInclude.size(), line.size() - kInclude.size() - 1);
      if (!cpu_files && is_cpu_only_file(name)) continue;
      out +=
          fmt::format("#line 1 \"{}\"\n{}\n#line {} \"{}\"\n", name,
                      expand_includes(name, embedded_kernel_source(name), depth + 1, cpu_files), line_number + 1, file);
    } else {
      out.append(line);
      out += '\n';
    }
  }
  return out;
}

std::string kernel_source(std::string_view kernel_file, bool cpu_files) {
  constexpr std::string_view kSharedHeader = "border.cl";
  return fmt::format("#line 1 \"{}\"\n{}\n#line 1 \"{}\"\n{}\n", kSharedHeader, embedded_kernel_source(kSharedHeader),
                     kernel_file, expand_includes(kernel_file, embedded_kernel_source(kernel_file), 0, cpu_files));
}

}  // namespace

std::string full_kernel_source(std::string_view kernel_file) {
  return kernel_source(kernel_file, true);
}

namespace {

// Punctuators of more than one character, longest first: the compiler splits "a+++b" as a ++ + b.
constexpr std::string_view kLongPunctuators[] = {"...", "<<=", ">>=", "->", "++", "--", "<<", ">>",
                                                 "<=",  ">=",  "==",  "!=", "&&", "||", "*=", "/=",
                                                 "%=",  "+=",  "-=",  "&=", "^=", "|=", "##"};

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The length of the token that starts at source[i] (not whitespace, not a comment).
std::size_t token_length(std::string_view source, std::size_t i) {
  const char c = source[i];
  if (c == '"' || c == '\'') {  // a literal, escapes included
    std::size_t end = i + 1;
    while (end < source.size() && source[end] != c && source[end] != '\n') end += source[end] == '\\' ? 2 : 1;
    return std::min(end + 1, source.size()) - i;
  }
  const bool number = std::isdigit(static_cast<unsigned char>(c)) ||
                      (c == '.' && i + 1 < source.size() && std::isdigit(static_cast<unsigned char>(source[i + 1])));
  if (number) {  // a preprocessing number: 1.5e+3f, 0x1p-4, 255u
    std::size_t end = i + 1;
    while (end < source.size()) {
      const char e = source[end];
      if ((e == '+' || e == '-') && std::strchr("eEpP", source[end - 1]))
        ++end;
      else if (is_word_char(e) || e == '.')
        ++end;
      else
        break;
    }
    return end - i;
  }
  if (is_word_char(c)) {
    std::size_t end = i + 1;
    while (end < source.size() && is_word_char(source[end])) ++end;
    return end - i;
  }
  for (std::string_view p : kLongPunctuators)
    if (source.substr(i, p.size()) == p) return p.size();
  return 1;
}

// The name of the preprocessor directive whose '#' ends just before source[i] ("" if none).
std::string_view kernel_directive_name(std::string_view source, std::size_t i) {
  while (i < source.size() && (source[i] == ' ' || source[i] == '\t')) ++i;
  std::size_t end = i;
  while (end < source.size() && is_word_char(source[end])) ++end;
  return source.substr(i, end - i);
}

}  // namespace

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
  // Then the tokens, one space apart, and a newline where a preprocessor line ends. Whitespace between tokens
  // means nothing to the compiler, with one exception kept: a "(" right after a #define's name makes a
  // function-like macro, written here as "NAME(" with no space.
  std::string code;
  code.reserve(source.size());
  bool line_start = true, in_directive = false;
  int directive_tokens = 0;  // tokens so far on the current preprocessor line
  bool define_line = false;  // the current preprocessor line is a #define
  bool space_before = true;  // whitespace (or a comment) precedes the next token
  std::size_t i = 0;
  while (i < source.size()) {
    const char c = source[i];
    const char next = i + 1 < source.size() ? source[i + 1] : '\0';
    if (c == '/' && next == '/') {
      i = std::min(source.find('\n', i), source.size());
      space_before = true;
    } else if (c == '/' && next == '*') {
      const std::size_t end = source.find("*/", i + 2);
      i = end == std::string::npos ? source.size() : end + 2;
      space_before = true;
    } else if (c == '\n') {
      if (in_directive) code += '\n';
      in_directive = false;
      line_start = true;
      space_before = true;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
      space_before = true;
      ++i;
    } else {
      const std::size_t n = token_length(source, i);
      const std::string_view token = std::string_view(source).substr(i, n);
      if (line_start && token == "#" && kernel_directive_name(source, i + 1) == "line") {
        // #line only renames lines for the compiler's messages: not code. Skip to the end of the line.
        i = std::min(source.find('\n', i), source.size());
        continue;
      }
      if (line_start && token == "#") {
        in_directive = true;
        directive_tokens = 0;
        define_line = false;
        if (!code.empty() && code.back() != '\n') code += '\n';
      } else if (!code.empty() && code.back() != '\n') {
        // "#define F(x)": no space between a function-like macro's name and its "(".
        const bool macro_parameters = in_directive && define_line && directive_tokens == 3 && token == "(";
        if (!(macro_parameters && !space_before)) code += ' ';
      }
      code += token;
      if (in_directive) {
        ++directive_tokens;
        if (directive_tokens == 2) define_line = token == "define";
      }
      line_start = false;
      space_before = false;
      i += n;
    }
  }
  return code;
}

std::string eight_bit_code(std::string_view code) {
  // kernel_code's lines: each preprocessor line, and the code between two of them. Removing a block can bring two
  // pieces of code together; they are joined with a space, as kernel_code writes code with no directive between.
  std::string out, pending;
  const auto emit_code = [&](bool newline) {
    if (pending.empty()) return;
    out += pending;
    if (newline) out += '\n';
    pending.clear();
  };
  // Inside a 16-bit block: the depth of conditionals opened within it, and whether its #else part is being kept.
  bool in_block = false, keeping_else = false;
  int depth = 0;
  for (std::size_t i = 0; i < code.size();) {
    const std::size_t end = std::min(code.find('\n', i), code.size());
    const std::string_view line = code.substr(i, end - i);
    i = end + 1;
    if (in_block) {
      const bool opens = line.starts_with("# if ") || line.starts_with("# ifdef ") || line.starts_with("# ifndef ");
      if (opens) ++depth;
      if (depth == 0 && line == "# else") {
        keeping_else = true;
        continue;
      }
      if (line == "# endif" && depth-- == 0) {
        in_block = false;
        continue;
      }
      if (!keeping_else) continue;
    } else if (line == "# if SAMPLE_BITS == 16") {
      in_block = true, keeping_else = false, depth = 0;
      continue;
    }
    if (line.starts_with("#")) {
      emit_code(true);
      out += line;
      out += '\n';
    } else if (!line.empty()) {
      if (!pending.empty()) pending += ' ';
      pending += line;
    }
  }
  emit_code(false);
  return out;
}

std::uint64_t kernel_code_hash(std::string_view kernel_file, const CodeKeyScope& scope) {
  const std::string code = kernel_code(kernel_source(kernel_file, scope.cpu_files));
  return fnv1a64(scope.sixteen_bit ? code : eight_bit_code(code));
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
