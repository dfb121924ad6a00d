// Shared by every kernel file: border handling (SPEC.md, "Borders") and exact rounding.
// Prepended to each filter's source by the runtime (src/runtime/program_cache.cpp).
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
