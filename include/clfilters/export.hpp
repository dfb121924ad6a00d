// SPDX-License-Identifier: Apache-2.0
// What the shared library exports: every namespace a public header opens is `namespace CLF_API clf`, and the
// library is built with hidden visibility, so only these declarations are visible to its users.
#pragma once

// The standard attribute syntax: GCC and clang both take it on a namespace (clang refuses __attribute__ there).
#if defined(__GNUC__) || defined(__clang__)
#define CLF_API [[gnu::visibility("default")]]
#else
#define CLF_API
#endif
