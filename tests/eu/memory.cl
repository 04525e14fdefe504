// Project OpenCL kernel corpus (issue 17): barriers, local memory and atomics.
__kernel void reduce(__global const float* in, __global float* out, __local float* scratch) {
  size_t l = get_local_id(0);
  scratch[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = scratch[0];
}

__kernel void histogram(__global const uchar* data, __global uint* bins) {
  __local uint local_bins[256];
  size_t l = get_local_id(0);
  for (size_t b = l; b < 256; b += get_local_size(0)) local_bins[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&local_bins[data[get_global_id(0)]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t b = l; b < 256; b += get_local_size(0)) atomic_add(&bins[b], local_bins[b]);
}

__kernel void atomics(__global int* counters, __global const int* v) {
  size_t i = get_global_id(0);
  atomic_add(&counters[0], v[i]);
  atomic_min(&counters[1], v[i]);
  atomic_max(&counters[2], v[i]);
  atomic_xchg(&counters[3], v[i]);
  atomic_cmpxchg(&counters[4], 0, v[i]);
  atomic_or(&counters[5], v[i]);
  barrier(CLK_GLOBAL_MEM_FENCE);
}
