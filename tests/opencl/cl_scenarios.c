/* OpenCL runtime scenarios (issue 18): what an OpenCL program sees of the model beyond its buffers, for
 * test_opencl_runtime. Runs on the first OpenCL platform the ICD loader gives (OCL_ICD_VENDORS selects NEO under
 * `gpuvp exec`). Usage: cl_scenarios SCENARIO [ARG]
 *   profile ITERATIONS  one kernel of 1024 work items, each ITERATIONS turns of a dependent integer loop, on a
 *                       profiling queue; prints "profile.start_end_ns: N" (CL_PROFILING_COMMAND_END - _START) and
 *                       "profile.checksum: X" (the result, checked here)
 *   forever             a kernel that never ends (it spins on a flag nobody sets); prints "forever: submitted" and
 *                       waits for it with clFinish, which never returns on a model that cannot finish it
 *   abandon             submits a long kernel, prints "abandon: submitted" and exits without waiting for it: a client
 *                       that disconnects while the GPU works
 *   sparse [MIB]        one buffer of MIB MiB (default: the device's largest allocation); a kernel writes its first
 *                       and last dwords;
 *                       prints "sparse.bytes: N", "sparse.first: 0xX" and "sparse.last: 0xX" as read back
 *   fma ITEMS ITERATIONS  ITEMS work items (groups of 256), each ITERATIONS turns of 16 independent float
 *                       multiply-adds (FPU bound at full occupancy: bench_opencl's host speed of the EU array);
 *                       prints "fma.start_end_ns: N" and "fma.checksum: X" (results checked here)
 *   stream ITEMS PASSES  c[i] = 2 a[i] + b[i] over ITEMS floats (memory bound), enqueued PASSES times; prints
 *                       "stream.start_end_ns: N" (of the last pass) and "stream.checksum: X" (results checked here)
 *   chain ITERATIONS    one SIMD8 thread (8 work items, cl_intel_subgroups' required sub-group size 8): ITERATIONS
 *                       turns of 8 dependent float multiply-adds (the dependent-instruction latency, tb/calibration)
 *   slm ITERATIONS      10,752 work items in groups of 256, each ITERATIONS turns of 4 shared local memory reads
 *                       (SLM bandwidth)
 *   l3 ITERATIONS       10,752 work items, each ITERATIONS turns of 4 reads from a 64 KiB buffer, which the L3 holds
 *                       after the first turn (L3 bandwidth)
 *                       each prints "NAME.start_end_ns: N" and "NAME.checksum: X" (results checked here)
 * Exit status: 0 on success, 1 on a wrong result, 2 on an OpenCL error. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cl_context ctx;
static cl_device_id dev;

static void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) {
    fprintf(stderr, "cl_scenarios: %s failed: %d\n", what, err);
    exit(2);
  }
}

static cl_kernel build(const char* source, const char* name) {
  cl_int err;
  cl_program program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  check(err, "clCreateProgramWithSource");
  check(clBuildProgram(program, 1, &dev, "", NULL, NULL), "clBuildProgram");
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

static const char* const kLoop =
    "__kernel void loop(__global uint* o, uint n) {"
    "  uint x = get_global_id(0);"
    "  for (uint i = 0; i < n; ++i) x = x * 1103515245u + 12345u;"
    "  o[get_global_id(0)] = x; }";

enum { kItems = 1024 };

/* The loop's result for work item `id`, computed here. */
static uint32_t loop_reference(uint32_t id, uint32_t n) {
  uint32_t x = id;
  for (uint32_t i = 0; i < n; ++i) x = x * 1103515245u + 12345u;
  return x;
}

static int profile(cl_uint iterations) {
  cl_int err;
  cl_command_queue queue = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  check(err, "clCreateCommandQueue");
  cl_kernel k = build(kLoop, "loop");
  cl_mem out = buffer(kItems * 4, NULL);
  check(clSetKernelArg(k, 0, sizeof out, &out), "clSetKernelArg");
  check(clSetKernelArg(k, 1, sizeof iterations, &iterations), "clSetKernelArg");
  const size_t global = kItems, local = 64;
  cl_event event;
  check(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, &event), "clEnqueueNDRangeKernel");
  check(clFinish(queue), "clFinish");
  cl_ulong start = 0, end = 0;
  check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL), "START");
  check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL), "END");
  static uint32_t result[kItems];
  check(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL), "clEnqueueReadBuffer");
  uint32_t checksum = 0;
  int wrong = 0;
  for (uint32_t i = 0; i < kItems; ++i) {
    wrong |= result[i] != loop_reference(i, iterations);
    checksum ^= result[i] + i;
  }
  printf("profile.start_end_ns: %llu\n", (unsigned long long)(end - start));
  printf("profile.checksum: 0x%08x\n", checksum);
  if (end <= start)
    fprintf(stderr, "cl_scenarios: profile: END %llu is not after START %llu\n", (unsigned long long)end,
            (unsigned long long)start);
  if (wrong) fprintf(stderr, "cl_scenarios: profile: wrong results\n");
  clReleaseEvent(event);
  clReleaseMemObject(out);
  clReleaseKernel(k);
  clReleaseCommandQueue(queue);
  return wrong || end <= start;
}

/* Runs `k` `passes` times over `global` items in groups of 256 (or fewer) on a profiling queue; returns the last
 * run's END - START in ns. */
static cl_ulong timed_run(cl_kernel k, size_t global, cl_uint passes) {
  cl_int err;
  cl_command_queue queue = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  check(err, "clCreateCommandQueue");
  const size_t local = global < 256 ? global : 256;
  cl_event event;
  for (cl_uint p = 1; p < passes; ++p) {
    check(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL), "clEnqueueNDRangeKernel");
  }
  check(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, &event), "clEnqueueNDRangeKernel");
  check(clFinish(queue), "clFinish");
  cl_ulong start = 0, end = 0;
  check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL), "START");
  check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL), "END");
  clReleaseEvent(event);
  clReleaseCommandQueue(queue);
  return end - start;
}

/* Reads back `items` floats of `out`, compares each with expected(i, arg), prints "NAME.start_end_ns: N" and
 * "NAME.checksum: X"; returns 1 when a value differs. */
static int report(const char* name, cl_ulong ns, cl_mem out, cl_uint items, float (*expected)(uint32_t, uint32_t),
                  uint32_t arg) {
  float* result = malloc((size_t)items * 4);
  cl_command_queue queue = clCreateCommandQueue(ctx, dev, 0, NULL);
  check(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, (size_t)items * 4, result, 0, NULL, NULL), "clEnqueueReadBuffer");
  uint32_t checksum = 0;
  int wrong = 0;
  for (uint32_t i = 0; i < items; ++i) {
    wrong |= result[i] != expected(i, arg);
    checksum = checksum * 31u + (uint32_t)result[i];
  }
  printf("%s.start_end_ns: %llu\n%s.checksum: 0x%08x\n", name, (unsigned long long)ns, name, checksum);
  if (wrong) fprintf(stderr, "cl_scenarios: %s: wrong results\n", name);
  free(result);
  clReleaseCommandQueue(queue);
  return wrong;
}

static float fma_reference(uint32_t id, uint32_t iterations) { return (float)(16u * id + 120u + 16u * iterations); }
static float stream_reference(uint32_t i, uint32_t unused) {
  (void)unused;
  return 2.0f * (float)i + 1.0f;
}

/* 16 accumulators start at id + k and gain one * one per turn; the kernel cannot fold the turns (one is an argument),
 * and every value stays an integer below 2^24, so that fused or separate rounding give the same exact sum. */
static const char* const kFma =
    "__kernel void fma16(__global float* o, float one, uint n) {"
    "  float x = (float)get_global_id(0);"
    "  float a0 = x, a1 = x + 1, a2 = x + 2, a3 = x + 3, a4 = x + 4, a5 = x + 5, a6 = x + 6, a7 = x + 7;"
    "  float a8 = x + 8, a9 = x + 9, a10 = x + 10, a11 = x + 11, a12 = x + 12, a13 = x + 13, a14 = x + 14;"
    "  float a15 = x + 15;"
    "  for (uint i = 0; i < n; ++i) {"
    "    a0 = mad(a0, one, one); a1 = mad(a1, one, one); a2 = mad(a2, one, one); a3 = mad(a3, one, one);"
    "    a4 = mad(a4, one, one); a5 = mad(a5, one, one); a6 = mad(a6, one, one); a7 = mad(a7, one, one);"
    "    a8 = mad(a8, one, one); a9 = mad(a9, one, one); a10 = mad(a10, one, one); a11 = mad(a11, one, one);"
    "    a12 = mad(a12, one, one); a13 = mad(a13, one, one); a14 = mad(a14, one, one); a15 = mad(a15, one, one);"
    "  }"
    "  o[get_global_id(0)] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + ((a8 + a9) + (a10 + a11)) +"
    "                        ((a12 + a13) + (a14 + a15)); }";

static int fma16(cl_uint items, cl_uint iterations) {
  if (items == 0 || items > 65536 || iterations > 100000) {
    fprintf(stderr, "cl_scenarios: fma: ITEMS in 1..65536, ITERATIONS up to 100000\n");
    return 2;
  }
  cl_kernel k = build(kFma, "fma16");
  cl_mem out = buffer((size_t)items * 4, NULL);
  const float one = 1.0f;
  check(clSetKernelArg(k, 0, sizeof out, &out), "clSetKernelArg");
  check(clSetKernelArg(k, 1, sizeof one, &one), "clSetKernelArg");
  check(clSetKernelArg(k, 2, sizeof iterations, &iterations), "clSetKernelArg");
  const cl_ulong ns = timed_run(k, items, 1);
  const int wrong = report("fma", ns, out, items, fma_reference, iterations);
  clReleaseMemObject(out);
  clReleaseKernel(k);
  return wrong;
}

static const char* const kStream =
    "__kernel void stream(__global const float* a, __global const float* b, __global float* c) {"
    "  size_t i = get_global_id(0); c[i] = 2.0f * a[i] + b[i]; }";

static int stream(cl_uint items, cl_uint passes) {
  if (items == 0 || items > (1u << 22) || passes == 0 || passes > 1000) {
    fprintf(stderr, "cl_scenarios: stream: ITEMS in 1..4194304, PASSES in 1..1000\n");
    return 2;
  }
  const size_t bytes = (size_t)items * 4;
  float* host = malloc(bytes);
  for (uint32_t i = 0; i < items; ++i) host[i] = (float)i;
  cl_mem a = buffer(bytes, host);
  for (uint32_t i = 0; i < items; ++i) host[i] = 1.0f;
  cl_mem b = buffer(bytes, host);
  cl_mem c = buffer(bytes, NULL);
  cl_kernel k = build(kStream, "stream");
  check(clSetKernelArg(k, 0, sizeof a, &a), "clSetKernelArg");
  check(clSetKernelArg(k, 1, sizeof b, &b), "clSetKernelArg");
  check(clSetKernelArg(k, 2, sizeof c, &c), "clSetKernelArg");
  const cl_ulong ns = timed_run(k, items, passes);
  free(host);
  const int wrong = report("stream", ns, c, items, stream_reference, 0);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
  clReleaseKernel(k);
  return wrong;
}

static const char* const kChain =
    "__kernel __attribute__((reqd_work_group_size(8, 1, 1))) __attribute__((intel_reqd_sub_group_size(8)))"
    "void chain(__global float* o, float one, uint n) {"
    "  float x = (float)get_global_id(0);"
    "  for (uint i = 0; i < n; ++i) {"
    "    x = mad(x, one, one); x = mad(x, one, one); x = mad(x, one, one); x = mad(x, one, one);"
    "    x = mad(x, one, one); x = mad(x, one, one); x = mad(x, one, one); x = mad(x, one, one);"
    "  }"
    "  o[get_global_id(0)] = x; }";

static float chain_reference(uint32_t id, uint32_t iterations) { return (float)(id + 8u * iterations); }

/* Each item fills four SLM words, then sums four of the group's words per turn, a different 128-byte run of them
 * (one SIMD32 message of two lines) each time. */
static const char* const kSlm =
    "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))"
    "void slm(__global float* o, uint n) {"
    "  __local float buf[1024];"
    "  uint l = get_local_id(0);"
    "  for (uint k = 0; k < 4; ++k) buf[l + 256 * k] = (float)((l + k) & 255);"
    "  barrier(CLK_LOCAL_MEM_FENCE);"
    "  float s = 0;"
    "  for (uint i = 0; i < n; ++i) {"
    "    uint b = (l + 32 * i) & 1023;"
    "    s += buf[b]; s += buf[(b + 256) & 1023]; s += buf[(b + 512) & 1023]; s += buf[(b + 768) & 1023];"
    "  }"
    "  o[get_global_id(0)] = s; }";

static float slm_reference(uint32_t id, uint32_t iterations) {
  float s = 0;
  const uint32_t l = id % 256;
  for (uint32_t i = 0; i < iterations; ++i) {
    const uint32_t b = (l + 32 * i) & 1023;
    for (uint32_t k = 0; k < 4; ++k) {
      const uint32_t w = (b + 256 * k) & 1023;
      s += (float)(((w % 256) + w / 256) & 255);
    }
  }
  return s;
}

static const char* const kL3 =
    "__kernel void l3(__global const float* a, __global float* o, uint n) {"
    "  uint g = get_global_id(0);"
    "  float s = 0;"
    "  for (uint i = 0; i < n; ++i) {"
    "    uint b = (g + 4096 * i) & 16383;"
    "    s += a[b]; s += a[(b + 1024) & 16383]; s += a[(b + 2048) & 16383]; s += a[(b + 3072) & 16383];"
    "  }"
    "  o[g] = s; }";

static float l3_reference(uint32_t id, uint32_t iterations) {
  float s = 0;
  for (uint32_t i = 0; i < iterations; ++i) {
    const uint32_t b = (id + 4096 * i) & 16383;
    for (uint32_t k = 0; k < 4; ++k) s += (float)(((b + 1024 * k) & 16383) & 255);
  }
  return s;
}

enum { kMicroItems = 10752 };

/* The micro-benchmarks of tb/calibration: `source`'s kernel `name` over `items` items (its own groups), with the
 * output buffer as argument 0 (or 1 after a 64 KiB input for l3) and `iterations` as the last argument. */
static int micro(const char* source, const char* name, cl_uint items, cl_uint iterations,
                 float (*expected)(uint32_t, uint32_t)) {
  if (iterations == 0 || iterations > 16000) {
    fprintf(stderr, "cl_scenarios: %s: ITERATIONS in 1..16000\n", name);
    return 2;
  }
  cl_kernel k = build(source, name);
  cl_mem out = buffer((size_t)items * 4, NULL);
  cl_mem in = NULL;
  cl_uint arg = 0;
  if (strcmp(name, "l3") == 0) {
    static float words[16384];
    for (uint32_t i = 0; i < 16384; ++i) words[i] = (float)(i & 255);
    in = buffer(sizeof words, words);
    check(clSetKernelArg(k, arg++, sizeof in, &in), "clSetKernelArg");
  }
  check(clSetKernelArg(k, arg++, sizeof out, &out), "clSetKernelArg");
  if (strcmp(name, "chain") == 0) {
    const float one = 1.0f;
    check(clSetKernelArg(k, arg++, sizeof one, &one), "clSetKernelArg");
  }
  check(clSetKernelArg(k, arg, sizeof iterations, &iterations), "clSetKernelArg");
  const cl_ulong ns = timed_run(k, items, 1);
  const int wrong = report(name, ns, out, items, expected, iterations);
  if (in) clReleaseMemObject(in);
  clReleaseMemObject(out);
  clReleaseKernel(k);
  return wrong;
}

static int forever(void) {
  cl_int err;
  cl_command_queue queue = clCreateCommandQueue(ctx, dev, 0, &err);
  check(err, "clCreateCommandQueue");
  /* The flag is read from memory every turn (volatile): the compiler cannot prove the loop ends. */
  cl_kernel k = build(
      "__kernel void spin(__global volatile uint* flag, __global uint* o) {"
      "  uint turns = 0;"
      "  while (flag[0] == 0) ++turns;"
      "  o[get_global_id(0)] = turns; }",
      "spin");
  const uint32_t zero = 0;
  cl_mem flag = buffer(4, &zero), out = buffer(64 * 4, NULL);
  check(clSetKernelArg(k, 0, sizeof flag, &flag), "clSetKernelArg");
  check(clSetKernelArg(k, 1, sizeof out, &out), "clSetKernelArg");
  const size_t global = 64, local = 64;
  check(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL), "clEnqueueNDRangeKernel");
  check(clFlush(queue), "clFlush");
  printf("forever: submitted\n");
  fflush(stdout);
  err = clFinish(queue);
  printf("forever: clFinish returned %d\n", err);
  return err == CL_SUCCESS ? 1 : 0;
}

static int abandon(void) {
  cl_int err;
  cl_command_queue queue = clCreateCommandQueue(ctx, dev, 0, &err);
  check(err, "clCreateCommandQueue");
  cl_kernel k = build(kLoop, "loop");
  cl_mem out = buffer(kItems * 4, NULL);
  const cl_uint iterations = 20000;
  check(clSetKernelArg(k, 0, sizeof out, &out), "clSetKernelArg");
  check(clSetKernelArg(k, 1, sizeof iterations, &iterations), "clSetKernelArg");
  const size_t global = kItems, local = 64;
  check(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL), "clEnqueueNDRangeKernel");
  check(clFlush(queue), "clFlush");
  printf("abandon: submitted\n");
  fflush(stdout);
  /* Gone without waiting: the runtime's connections close while the GPU still works. */
  _Exit(0);
}

static int sparse(size_t mib) {
  cl_int err;
  cl_command_queue queue = clCreateCommandQueue(ctx, dev, 0, &err);
  check(err, "clCreateCommandQueue");
  cl_ulong max_alloc = 0;
  check(clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL), "clGetDeviceInfo");
  const size_t bytes = mib != 0 && (cl_ulong)mib << 20 <= max_alloc ? mib << 20 : (size_t)max_alloc & ~(size_t)4095;
  cl_mem big = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  check(err, "clCreateBuffer");
  cl_kernel k =
      build("__kernel void ends(__global uint* b, uint last) { b[0] = 0x600DF00Du; b[last] = 0xFEEDFACEu; }", "ends");
  const cl_uint last = (cl_uint)(bytes / 4 - 1);
  check(clSetKernelArg(k, 0, sizeof big, &big), "clSetKernelArg");
  check(clSetKernelArg(k, 1, sizeof last, &last), "clSetKernelArg");
  const size_t global = 1;
  check(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, NULL, 0, NULL, NULL), "clEnqueueNDRangeKernel");
  uint32_t first_value = 0, last_value = 0;
  check(clEnqueueReadBuffer(queue, big, CL_TRUE, 0, 4, &first_value, 0, NULL, NULL), "clEnqueueReadBuffer");
  check(clEnqueueReadBuffer(queue, big, CL_TRUE, bytes - 4, 4, &last_value, 0, NULL, NULL), "clEnqueueReadBuffer");
  printf("sparse.bytes: %zu\nsparse.first: 0x%08x\nsparse.last: 0x%08x\n", bytes, first_value, last_value);
  clReleaseMemObject(big);
  clReleaseKernel(k);
  clReleaseCommandQueue(queue);
  return first_value != 0x600DF00Du || last_value != 0xFEEDFACEu;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: cl_scenarios profile ITERATIONS | forever | abandon | sparse [MIB] | fma ITEMS ITERATIONS | "
            "stream ITEMS PASSES | chain | slm | l3 ITERATIONS\n");
    return 2;
  }
  cl_platform_id platform;
  check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
  cl_int err;
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  check(err, "clCreateContext");
  int status = 2;
  if (strcmp(argv[1], "profile") == 0 && argc == 3) {
    status = profile((cl_uint)strtoul(argv[2], NULL, 0));
  } else if (strcmp(argv[1], "forever") == 0) {
    status = forever();
  } else if (strcmp(argv[1], "abandon") == 0) {
    status = abandon();
  } else if (strcmp(argv[1], "fma") == 0 && argc == 4) {
    status = fma16((cl_uint)strtoul(argv[2], NULL, 0), (cl_uint)strtoul(argv[3], NULL, 0));
  } else if (strcmp(argv[1], "stream") == 0 && argc == 4) {
    status = stream((cl_uint)strtoul(argv[2], NULL, 0), (cl_uint)strtoul(argv[3], NULL, 0));
  } else if (strcmp(argv[1], "chain") == 0 && argc == 3) {
    status = micro(kChain, "chain", 8, (cl_uint)strtoul(argv[2], NULL, 0), chain_reference);
  } else if (strcmp(argv[1], "slm") == 0 && argc == 3) {
    status = micro(kSlm, "slm", kMicroItems, (cl_uint)strtoul(argv[2], NULL, 0), slm_reference);
  } else if (strcmp(argv[1], "l3") == 0 && argc == 3) {
    status = micro(kL3, "l3", kMicroItems, (cl_uint)strtoul(argv[2], NULL, 0), l3_reference);
  } else if (strcmp(argv[1], "sparse") == 0) {
    status = sparse(argc == 3 ? (size_t)strtoul(argv[2], NULL, 0) : 0);
  } else {
    fprintf(stderr, "cl_scenarios: unknown scenario '%s'\n", argv[1]);
  }
  clReleaseContext(ctx);
  return status;
}
