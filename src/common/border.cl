// SPDX-License-Identifier: Apache-2.0
// Shared by every kernel file: border handling (docs/SPEC.md, "Borders") and exact rounding.
// Prepended to each filter's source by the runtime (src/runtime/program_cache.cpp).
// fast_exp2 and fast_sqrt: native_exp2 and native_sqrt, except on NVIDIA (the host passes
// -D NV_PTX_FTZ=1 there, DeviceInfo::fast_math_options). NVIDIA's compiler emits those builtins as
// ex2.approx.f32 / sqrt.approx.f32 even under -cl-denorms-are-zero, and ptxas wraps each MUFU in a
// subnormal fix-up (FSETP and two FMUL): three more instructions than the .ftz forms, which are one
// MUFU each (in the SASS of the driver's PTX). Subnormal inputs and results flush to zero.
#if NV_PTX_FTZ
inline float fast_exp2(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
inline float fast_sqrt(float x) {
  float r;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
#else
#define fast_exp2 native_exp2
#define fast_sqrt native_sqrt
#endif

#define BORDER_REPLICATE 0
#define BORDER_REFLECT101 1
#define BORDER_CONSTANT 2

// Where coordinate i of an axis of length n reads from; -1 means "use the constant".
// reflect101 keeps reflecting until the index lands inside (windows wider than the image).
inline int border_index(int i, int n, int mode) {
  if ((uint)i < (uint)n) return i;
  if (mode == BORDER_REPLICATE) return clamp(i, 0, n - 1);
  if (mode == BORDER_REFLECT101) {
    if (n == 1) return 0;
    const int period = 2 * (n - 1);
    int m = i % period;
    m = m < 0 ? m + period : m;
    return m < n ? m : period - m;
  }
  return -1;
}
