// Project OpenCL kernel corpus (issue 17): math built-ins.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void transcendental(__global float* out, __global const float* in) {
  size_t i = get_global_id(0);
  float x = in[i];
  out[8 * i + 0] = sqrt(x) + rsqrt(x);
  out[8 * i + 1] = exp(x) + exp2(x);
  out[8 * i + 2] = log(x) + log2(x);
  out[8 * i + 3] = sin(x) + cos(x);
  out[8 * i + 4] = pow(x, 2.5f) + powr(x, 0.5f);
  out[8 * i + 5] = native_sin(x) + native_recip(x) + native_divide(x, 3.0f);
  out[8 * i + 6] = floor(x) + ceil(x) + trunc(x) + rint(x) + fract(x, &out[8 * i + 7]);
}

__kernel void int_div(__global int* q, __global uint* r, __global const int* a, __global const int* b) {
  size_t i = get_global_id(0);
  q[i] = a[i] / b[i];
  r[i] = (uint)a[i] % (uint)b[i];
}

__kernel void double_math(__global double* out, __global const double* in) {
  size_t i = get_global_id(0);
  out[i] = fma(in[i], in[i], 1.0) / in[i] + sqrt(in[i]);
}
