// OpenCL kernels compiled by Intel's ocloc for Skylake (Gen9) at test time (tests/test_eu_compaction.cpp): IGC emits a
// stream mixing compacted and native instructions, which gpuvp's disassembler walks and prints as iga64 does.
__kernel void saxpy_loop(__global float* y, __global const float* x, float a, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
  for (int k = 0; k < n; ++k) {
    if (y[k] > 3.0f) break;
    y[k] = sqrt(y[k]) / (x[k] + 1.0f);
  }
}

__kernel void int_mix(__global int* out, __global const int* in, int shift) {
  int i = get_global_id(0);
  int v = in[i];
  int r = (v << shift) ^ (v >> 3);
  r = r > 100 ? r - 7 : r * 3;
  out[i] = r + popcount(v) + clz(v) + abs(v) + (v & 0xFF);
}

__kernel void conversions(__global float* f, __global const uint* u, __global short* s) {
  int i = get_global_id(0);
  float x = convert_float(u[i]) * 0.5f;
  f[i] = fmax(x, 1.0f) + floor(x) + exp(x) + log(x + 1.0f);
  s[i] = convert_short_sat(x);
}
