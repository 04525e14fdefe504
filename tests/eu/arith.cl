// Project OpenCL kernel corpus (issue 17): integer and float arithmetic. Compiled by `ocloc -device skl` at test
// time; every native instruction gpuvp disassembles must match iga64 (tests/test_eu_disasm.cpp).
__kernel void saxpy(__global const float* x, __global float* y, float a) {
  size_t i = get_global_id(0);
  y[i] = a * x[i] + y[i];
}

__kernel void int_ops(__global int* out, __global const int* a, __global const int* b, uint s) {
  size_t i = get_global_id(0);
  int x = a[i], y = b[i];
  out[4 * i + 0] = (x * y + (x >> (s & 7))) ^ (y << 3);
  out[4 * i + 1] = max(x, y) - min(x, y) + abs(x) + mul_hi(x, y);
  out[4 * i + 2] = (x > y ? x : y) | (int)rotate((uint)x, 5u) | popcount(y) | clz(x);
  out[4 * i + 3] = mad24(x, y, 7) + add_sat(x, y) + hadd(x, y);
}

__kernel void long_ops(__global long* out, __global const long* a, ulong k) {
  size_t i = get_global_id(0);
  long x = a[i];
  out[i] = x * (long)k + (x >> 3) - (x & 0xFFFF0000FFFFL);
}

__kernel void float_ops(__global float4* out, __global const float4* a, __global const float4* b) {
  size_t i = get_global_id(0);
  float4 x = a[i], y = b[i];
  out[i] = fma(x, y, (float4)(1.5f)) + fabs(x - y) * 0.25f + fmin(x, y) + copysign(x, y) + (x > y ? x : y);
}
