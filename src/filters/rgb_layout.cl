// SPDX-License-Identifier: Apache-2.0
// RGB (3 samples a pixel) to RGBA (alpha the largest sample) and back, on the device: the host calls and the Python
// DeviceImage take RGB, the filters RGBA. `pixels` bounds the last work-item's group.
//
// 8-bit: whole words rather than 3-byte pixels. A work-item converts a group of pixels with 16-byte loads and stores
// (on PoCL at 1080p twice as fast as a pixel a work-item with vload3), the last, partial group pixel by pixel. Words
// are little-endian (__ENDIAN_LITTLE__; a big-endian device takes the pixel path throughout). Buffers are 16-byte
// aligned (buffer_over_host), so every whole group is too.

#ifdef __ENDIAN_LITTLE__
#define WORDS 1
#else
#define WORDS 0
#endif

// Pixels 4k .. 4k+3 of RGB words a, b, c as RGBA words.
inline uint4 rgba_words(uint a, uint b, uint c) {
  const uint alpha = 0xFF000000u;
  return (uint4)(a | alpha, (a >> 24) | (b << 8) | alpha, (b >> 16) | (c << 16) | alpha, (c >> 8) | alpha);
}

// 16 pixels a work-item: 3 loads, 4 stores of uint4.
__kernel void rgba_from_rgb(__global const uchar* rgb, __global uchar* rgba, uint pixels) {
  const size_t i = get_global_id(0) * 16;
  if (WORDS && i + 16 <= pixels) {
    __global const uint4* in = (__global const uint4*)(rgb + 3 * i);
    __global uint4* out = (__global uint4*)(rgba + 4 * i);
    const uint4 a = in[0], b = in[1], c = in[2];
    out[0] = rgba_words(a.x, a.y, a.z);
    out[1] = rgba_words(a.w, b.x, b.y);
    out[2] = rgba_words(b.z, b.w, c.x);
    out[3] = rgba_words(c.y, c.z, c.w);
    return;
  }
  for (size_t k = i; k < min(i + 16, (size_t)pixels); ++k) vstore4((uchar4)(vload3(k, rgb), (uchar)255), k, rgba);
}

// 4 pixels a work-item: one uint4 load, three uint stores.
__kernel void rgb_from_rgba(__global const uchar* rgba, __global uchar* rgb, uint pixels) {
  const size_t i = get_global_id(0) * 4;
  if (WORDS && i + 4 <= pixels) {
    const uint4 p = *(__global const uint4*)(rgba + 4 * i);
    vstore3((uint3)((p.x & 0xFFFFFFu) | (p.y << 24), ((p.y >> 8) & 0xFFFFu) | (p.z << 16),
                    ((p.z >> 16) & 0xFFu) | (p.w << 8)),
            0, (__global uint*)(rgb + 3 * i));
    return;
  }
  for (size_t k = i; k < min(i + 4, (size_t)pixels); ++k) vstore3(vload4(k, rgba).xyz, k, rgb);
}

// 16-bit samples: 4 pixels a work-item, a pixel at a time.
__kernel void rgba16_from_rgb16(__global const ushort* rgb, __global ushort* rgba, uint pixels) {
  const size_t i = get_global_id(0) * 4;
  for (size_t k = i; k < min(i + 4, (size_t)pixels); ++k) vstore4((ushort4)(vload3(k, rgb), (ushort)65535), k, rgba);
}

__kernel void rgb16_from_rgba16(__global const ushort* rgba, __global ushort* rgb, uint pixels) {
  const size_t i = get_global_id(0) * 4;
  for (size_t k = i; k < min(i + 4, (size_t)pixels); ++k) vstore3(vload4(k, rgba).xyz, k, rgb);
}
