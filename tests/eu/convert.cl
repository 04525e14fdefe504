// Project OpenCL kernel corpus (issue 17): int/float/half/double conversions.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void to_int(__global int* out, __global const float* in) {
  size_t i = get_global_id(0);
  out[3 * i] = convert_int_sat_rte(in[i]);
  out[3 * i + 1] = (int)in[i];
  out[3 * i + 2] = convert_int_rtp(in[i] * 3.0f);
}

__kernel void to_float(__global float* out, __global const int* a, __global const uint* b, __global const short* c) {
  size_t i = get_global_id(0);
  out[i] = (float)a[i] + convert_float_rtz(b[i]) + (float)c[i];
}

__kernel void halves(__global half* out, __global const half* in, __global const float* f) {
  size_t i = get_global_id(0);
  half h = in[i] * (half)2.0h + (half)f[i];
  out[i] = h;
  vstore_half(f[i] * 0.5f, i, (__global half*)out + 1024);
}

__kernel void doubles(__global double* out, __global const double* in, __global const float* f,
                      __global const long* l) {
  size_t i = get_global_id(0);
  double d = in[i] * 1.25 + (double)f[i] + (double)l[i];
  out[i] = d / 3.0 + sqrt(fabs(d));
}

__kernel void narrow(__global uchar* out, __global const int* in, __global char* s) {
  size_t i = get_global_id(0);
  out[i] = convert_uchar_sat(in[i]);
  s[i] = (char)(in[i] >> 4);
}
