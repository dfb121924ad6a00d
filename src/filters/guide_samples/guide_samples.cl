// SPDX-License-Identifier: Apache-2.0
// Seed 003 section 9.1: the guide's small samples.

// 9.1.2, original: one float per work-item, 4 bytes read from each input and 4 written.
__kernel void matrix_add_scalar(__global const float* a, __global const float* b, __global float* sum, uint count) {
  const uint i = get_global_id(0);
  if (i < count) sum[i] = a[i] + b[i];
}

// 9.1.2, optimised: float4 loads and stores (16 bytes each); `vectors` float4 per work-item, strided by
// the global size so neighbouring work-items stay on neighbouring addresses. The last count % 4 floats
// are done by the first work-item.
__kernel void matrix_add_float4(__global const float* a, __global const float* b, __global float* sum, uint count,
                                uint vectors) {
  const uint quads = count / 4;
  const uint stride = get_global_size(0);
  for (uint k = 0, q = get_global_id(0); k < vectors && q < quads; ++k, q += stride)
    vstore4(vload4(q, a) + vload4(q, b), q, sum);
  if (get_global_id(0) == 0)
    for (uint i = quads * 4; i < count; ++i) sum[i] = a[i] + b[i];
}

// 9.1.3, original: dot products of float4 pairs from linear buffers.
__kernel void dot_buffer(__global const float4* a, __global const float4* b, __global float* result, uint count) {
  const uint i = get_global_id(0);
  if (i < count) result[i] = dot(a[i], b[i]);
}

// 9.1.3, optimised: the same data read through the texture path (read_imagef).
__constant sampler_t kNearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
__kernel void dot_image(__read_only image2d_t a, __read_only image2d_t b, __global float* result, uint count,
                        int width) {
  const int2 pos = (int2)(get_global_id(0), get_global_id(1));
  const uint i = (uint)(pos.y * width + pos.x);
  if (pos.x < width && i < count) result[i] = dot(read_imagef(a, kNearest, pos), read_imagef(b, kNearest, pos));
}
