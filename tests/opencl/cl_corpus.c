/* OpenCL corpus (issue 18): kernels with the project's own host code, run on whatever OpenCL platform the ICD loader
 * gives first (OCL_ICD_VENDORS selects it: pocl for the CPU reference, Intel's NEO under `gpuvp exec` for the model).
 * Every case prints its output buffers as hex, one line per case, so that two platforms' outputs compare byte for
 * byte; each case also checks its results against values computed here and exits non-zero on a mismatch.
 * Usage: cl_corpus [CASE...] (default: every case). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue queue;
static int failures;

static void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) {
    fprintf(stderr, "cl_corpus: %s failed: %d\n", what, err);
    exit(2);
  }
}

static cl_kernel build(const char* source, const char* name) {
  cl_int err;
  cl_program program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  check(err, "clCreateProgramWithSource");
  err = clBuildProgram(program, 1, &dev, "", NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[4096] = "";
    clGetProgramBuildInfo(program, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "cl_corpus: build of %s failed: %s\n", name, log);
    exit(2);
  }
  cl_kernel kernel = clCreateKernel(program, name, &err);
  check(err, "clCreateKernel");
  clReleaseProgram(program);
  return kernel;
}

static cl_mem buffer(size_t bytes, const void* init) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes, (void*)init, &err);
  check(err, "clCreateBuffer");
  return m;
}

static void run(cl_kernel k, cl_uint dims, const size_t* global, const size_t* local) {
  check(clEnqueueNDRangeKernel(queue, k, dims, NULL, global, local, 0, NULL, NULL), "clEnqueueNDRangeKernel");
}

static void read_back(cl_mem m, void* out, size_t bytes) {
  check(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL), "clEnqueueReadBuffer");
}

static void print_hex(const char* name, const void* data, size_t bytes) {
  const unsigned char* p = (const unsigned char*)data;
  printf("%s:", name);
  for (size_t i = 0; i < bytes; ++i) printf("%02x", p[i]);
  printf("\n");
}

static void expect(int ok, const char* name, int index) {
  if (!ok) {
    if (failures < 20) fprintf(stderr, "cl_corpus: %s: wrong result at %d\n", name, index);
    ++failures;
  }
}

/* y = a * x + y over 4096 floats, work-groups of 64 (IGC picks SIMD32: two threads a group). */
static void case_saxpy(void) {
  enum { N = 4096 };
  static float x[N], y[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i * 0.25f;
    y[i] = 1000.0f - (float)i;
  }
  cl_kernel k = build(
      "__kernel void saxpy(__global const float* x, __global float* y, float a) {"
      "  int i = get_global_id(0); y[i] = a * x[i] + y[i]; }",
      "saxpy");
  cl_mem bx = buffer(sizeof x, x), by = buffer(sizeof y, y);
  const float a = 3.0f;
  clSetKernelArg(k, 0, sizeof bx, &bx);
  clSetKernelArg(k, 1, sizeof by, &by);
  clSetKernelArg(k, 2, sizeof a, &a);
  const size_t global = N, local = 64;
  run(k, 1, &global, &local);
  float out[N];
  read_back(by, out, sizeof out);
  for (int i = 0; i < N; ++i) expect(out[i] == 3.0f * x[i] + y[i], "saxpy", i); /* exact: one rounding each */
  print_hex("saxpy", out, sizeof out);
  clReleaseMemObject(bx);
  clReleaseMemObject(by);
  clReleaseKernel(k);
}

/* Integer division and remainder of signed and unsigned ints, shifts and a 64-bit multiply-add. */
static void case_integer(void) {
  enum { N = 1024 };
  static int32_t a[N], b[N];
  static int64_t wide[N];
  for (int i = 0; i < N; ++i) {
    a[i] = (int32_t)(0x9E3779B9u * (uint32_t)(i + 1));
    b[i] = (i % 7 == 0) ? -(i + 3) : (i % 13) + 1;
  }
  cl_kernel k = build(
      "__kernel void integer(__global const int* a, __global const int* b, __global int* q, __global uint* r,"
      "                      __global long* w) {"
      "  int i = get_global_id(0);"
      "  q[i] = a[i] / b[i] + (a[i] % b[i]) * 3;"
      "  r[i] = ((uint)a[i] / (uint)(b[i] & 0xFF | 1)) ^ ((uint)a[i] >> (i & 31)) ^ (a[i] << (b[i] & 31));"
      "  w[i] = (long)a[i] * (long)b[i] + ((long)i << 40); }",
      "integer");
  cl_mem ba = buffer(sizeof a, a), bb = buffer(sizeof b, b), bq = buffer(sizeof a, NULL), br = buffer(sizeof a, NULL),
         bw = buffer(sizeof wide, NULL);
  clSetKernelArg(k, 0, sizeof ba, &ba);
  clSetKernelArg(k, 1, sizeof bb, &bb);
  clSetKernelArg(k, 2, sizeof bq, &bq);
  clSetKernelArg(k, 3, sizeof br, &br);
  clSetKernelArg(k, 4, sizeof bw, &bw);
  const size_t global = N, local = 32;
  run(k, 1, &global, &local);
  int32_t q[N];
  uint32_t r[N];
  read_back(bq, q, sizeof q);
  read_back(br, r, sizeof r);
  read_back(bw, wide, sizeof wide);
  for (int i = 0; i < N; ++i) {
    expect(q[i] == a[i] / b[i] + (a[i] % b[i]) * 3, "integer.q", i);
    const uint32_t ua = (uint32_t)a[i];
    const uint32_t rr = (ua / (((uint32_t)b[i] & 0xFF) | 1)) ^ (ua >> (i & 31)) ^ (uint32_t)(ua << (b[i] & 31));
    expect(r[i] == rr, "integer.r", i);
    expect(wide[i] == (int64_t)a[i] * b[i] + ((int64_t)i << 40), "integer.w", i);
  }
  print_hex("integer.q", q, sizeof q);
  print_hex("integer.r", r, sizeof r);
  print_hex("integer.w", wide, sizeof wide);
  clReleaseMemObject(ba);
  clReleaseMemObject(bb);
  clReleaseMemObject(bq);
  clReleaseMemObject(br);
  clReleaseMemObject(bw);
  clReleaseKernel(k);
}

/* A work-group sum in local memory with barriers (tree reduction), and a global atomic counter of odd elements. */
static void case_reduce(void) {
  enum { N = 2048, L = 128 };
  static uint32_t in[N];
  for (int i = 0; i < N; ++i) in[i] = (uint32_t)(i * 2654435761u) >> 8;
  cl_kernel k = build(
      "__kernel void reduce(__global const uint* in, __global uint* sums, __global uint* odd, __local uint* s) {"
      "  uint l = get_local_id(0), n = get_local_size(0);"
      "  s[l] = in[get_global_id(0)];"
      "  if (in[get_global_id(0)] & 1) atomic_inc(odd);"
      "  barrier(CLK_LOCAL_MEM_FENCE);"
      "  for (uint h = n / 2; h > 0; h /= 2) {"
      "    if (l < h) s[l] += s[l + h];"
      "    barrier(CLK_LOCAL_MEM_FENCE);"
      "  }"
      "  if (l == 0) sums[get_group_id(0)] = s[0]; }",
      "reduce");
  const uint32_t zero = 0;
  cl_mem bin = buffer(sizeof in, in), bsums = buffer(N / L * 4, NULL), bodd = buffer(4, &zero);
  clSetKernelArg(k, 0, sizeof bin, &bin);
  clSetKernelArg(k, 1, sizeof bsums, &bsums);
  clSetKernelArg(k, 2, sizeof bodd, &bodd);
  clSetKernelArg(k, 3, L * 4, NULL);
  const size_t global = N, local = L;
  run(k, 1, &global, &local);
  uint32_t sums[N / L], odd = 0;
  read_back(bsums, sums, sizeof sums);
  read_back(bodd, &odd, 4);
  uint32_t expected_odd = 0;
  for (int g = 0; g < N / L; ++g) {
    uint32_t sum = 0;
    for (int i = 0; i < L; ++i) sum += in[g * L + i];
    expect(sums[g] == sum, "reduce.sums", g);
  }
  for (int i = 0; i < N; ++i) expected_odd += in[i] & 1;
  expect(odd == expected_odd, "reduce.odd", 0);
  print_hex("reduce.sums", sums, sizeof sums);
  print_hex("reduce.odd", &odd, 4);
  clReleaseMemObject(bin);
  clReleaseMemObject(bsums);
  clReleaseMemObject(bodd);
  clReleaseKernel(k);
}

struct Case {
  const char* name;
  void (*run)(void);
};
static const struct Case cases[] = {{"saxpy", case_saxpy}, {"integer", case_integer}, {"reduce", case_reduce}};

int main(int argc, char** argv) {
  cl_platform_id platform;
  cl_int err = clGetPlatformIDs(1, &platform, NULL);
  check(err, "clGetPlatformIDs");
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  check(err, "clCreateContext");
  queue = clCreateCommandQueue(ctx, dev, 0, &err);
  check(err, "clCreateCommandQueue");
  const size_t count = sizeof cases / sizeof cases[0];
  for (size_t c = 0; c < count; ++c) {
    int wanted = argc < 2;
    for (int a = 1; a < argc; ++a) wanted |= strcmp(argv[a], cases[c].name) == 0;
    if (wanted) cases[c].run();
  }
  for (int a = 1; a < argc; ++a) {
    int known = 0;
    for (size_t c = 0; c < count; ++c) known |= strcmp(argv[a], cases[c].name) == 0;
    if (!known) {
      fprintf(stderr, "cl_corpus: unknown case '%s'\n", argv[a]);
      return 2;
    }
  }
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  return failures ? 1 : 0;
}
