// Project OpenCL kernel corpus (issue 17): loops and branches (structured and divergent control flow).
__kernel void loops(__global int* out, __global const int* n) {
  size_t i = get_global_id(0);
  int acc = 0;
  for (int k = 0; k < n[i]; ++k) {
    if (k % 3 == 0) continue;
    acc += k * k;
    if (acc > 1000) break;
  }
  out[i] = acc;
}

__kernel void branches(__global float* out, __global const float* in) {
  size_t i = get_global_id(0);
  float v = in[i];
  if (v < 0.0f) {
    v = -v * 2.0f;
  } else if (v < 1.0f) {
    v = sqrt(v);
  } else {
    v = v * v + 1.0f;
  }
  switch ((int)v & 3) {
    case 0: v += 1.0f; break;
    case 1: v -= 2.0f; break;
    case 2: v *= 3.0f; break;
    default: v = 0.0f;
  }
  out[i] = v;
}

__kernel void collatz(__global uint* steps, __global const uint* start) {
  size_t i = get_global_id(0);
  uint x = start[i], n = 0;
  while (x != 1 && n < 1000) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++n;
  }
  steps[i] = n;
}
