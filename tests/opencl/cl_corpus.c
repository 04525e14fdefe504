/* OpenCL corpus (issue 18): kernels with the project's own host code, run on whatever OpenCL platform the ICD loader
 * gives first (OCL_ICD_VENDORS selects it: pocl for the CPU reference, Intel's NEO under `gpuvp exec` for the model).
 * Every case prints its output buffers as hex, one line per buffer:
 *     CASE.BUFFER:KIND:ULPS:HEX
 * KIND names the element type (i8..u64, f16, f32, f64; x for raw bytes) and ULPS the distance in units of the last
 * place that two conforming platforms may differ by (0: bit-exact), so that test_opencl_corpus compares the two
 * platforms' outputs element by element. Many cases also check their results against values computed here (libm in
 * double or long double for the builtins, with the OpenCL 1.2 specification's ulp bounds, section 7.4) and the
 * program exits non-zero on a mismatch.
 * Usage: cl_corpus [--list] [CASE...] (default: every case). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue queue;
static int failures;
static int device_has_fp16;

/* Kernel sources as C tokens: CL(...) turns them into one string without a line of escaped quotes. */
#define CL(...) #__VA_ARGS__

static void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) {
    fprintf(stderr, "cl_corpus: %s failed: %d\n", what, err);
    exit(2);
  }
}

static cl_kernel build_with(const char* source, const char* name, const char* options) {
  cl_int err;
  /* OpenCL C 1.2 makes double a core optional feature; the pragma keeps compilers that still want it quiet. */
  const char* sources[2] = {"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n", source};
  cl_program program = clCreateProgramWithSource(ctx, 2, sources, NULL, &err);
  check(err, "clCreateProgramWithSource");
  err = clBuildProgram(program, 1, &dev, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(program, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    fprintf(stderr, "cl_corpus: build of %s (%s) failed: %s\n", name, options, log);
    exit(2);
  }
  cl_kernel kernel = clCreateKernel(program, name, &err);
  check(err, "clCreateKernel");
  clReleaseProgram(program);
  return kernel;
}

static cl_kernel build(const char* source, const char* name) { return build_with(source, name, ""); }

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

static void print_typed(const char* name, const char* kind, int ulps, const void* data, size_t bytes) {
  const unsigned char* p = (const unsigned char*)data;
  printf("%s:%s:%d:", name, kind, ulps);
  for (size_t i = 0; i < bytes; ++i) printf("%02x", p[i]);
  printf("\n");
}

static void print_hex(const char* name, const void* data, size_t bytes) { print_typed(name, "x", 0, data, bytes); }

static void expect(int ok, const char* name, int index) {
  if (!ok) {
    if (failures < 20) fprintf(stderr, "cl_corpus: %s: wrong result at %d\n", name, index);
    ++failures;
  }
}

/* ---- Table-driven cases ------------------------------------------------------------------------------------------
 * A case is a kernel named k, build options, an argument list and an NDRange. Arguments (space separated):
 *   in:KIND:COUNT:PATTERN    a buffer initialised from PATTERN, not printed
 *   out:KIND:COUNT[:ULPS]    a buffer zeroed before the run and printed after it
 *   io:KIND:COUNT:PATTERN[:ULPS]  initialised and printed
 *   f32=VALUE, i32=VALUE, u32=VALUE, f64=VALUE  a scalar
 *   local:BYTES              a __local buffer
 * Patterns (deterministic, seeded by the case and argument): bits (random bits), small (integers in [-100, 100]),
 * real (reals in [-1000, 1000] with 12 random fraction bits), unit ([-1, 1]), pos ((0, 100]), idx (the index),
 * halves (random bits of a half per element), zero. Integer kinds take a pattern's value converted. */

enum Kind { K_I8, K_U8, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64, K_F16, K_F32, K_F64, K_COUNT };
static const char* const kind_names[K_COUNT] = {"i8",  "u8",  "i16", "u16", "i32", "u32",
                                                "i64", "u64", "f16", "f32", "f64"};
static const size_t kind_sizes[K_COUNT] = {1, 1, 2, 2, 4, 4, 8, 8, 2, 4, 8};

typedef struct {
  const char* name;
  const char* source;
  const char* options;
  const char* args;
  cl_uint dims;
  size_t global[3];
  size_t local[3]; /* 0: let the runtime choose */
  size_t offset[3];
  /* Optional check against values computed here: every argument's host copy, in order (NULL for scalars/locals). */
  void (*verify)(void** host, const size_t* counts);
} TableCase;

static uint64_t rng_state;
static uint64_t rng_next(void) { /* splitmix64: a well-mixed, seedable sequence */
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static enum Kind parse_kind(const char* text, const char* case_name) {
  for (int k = 0; k < K_COUNT; ++k)
    if (strcmp(text, kind_names[k]) == 0) return (enum Kind)k;
  fprintf(stderr, "cl_corpus: case %s: unknown kind '%s'\n", case_name, text);
  exit(2);
}

static void store_value(void* data, enum Kind kind, size_t index, double real, uint64_t bits, int use_bits) {
  unsigned char* p = (unsigned char*)data + index * kind_sizes[kind];
  switch (kind) {
    case K_F32: {
      const float f = (float)real;
      if (use_bits)
        memcpy(p, &bits, 4);
      else
        memcpy(p, &f, 4);
      return;
    }
    case K_F64:
      if (use_bits)
        memcpy(p, &bits, 8);
      else
        memcpy(p, &real, 8);
      return;
    default: {
      const uint64_t v = use_bits ? bits : (uint64_t)(int64_t)real;
      memcpy(p, &v, kind_sizes[kind]); /* little-endian: the low bytes */
      return;
    }
  }
}

static void fill(void* data, enum Kind kind, size_t count, const char* pattern, const char* case_name) {
  for (size_t i = 0; i < count; ++i) {
    const uint64_t r = rng_next();
    const double frac = (double)(r >> 52) / 4096.0; /* 12 random bits */
    if (strcmp(pattern, "bits") == 0)
      store_value(data, kind, i, 0, r, 1);
    else if (strcmp(pattern, "small") == 0)
      store_value(data, kind, i, (double)((int64_t)(r % 201) - 100), 0, 0);
    else if (strcmp(pattern, "real") == 0)
      store_value(data, kind, i, (double)((int64_t)(r % 2000) - 1000) + (kind >= K_F16 ? frac : 0), 0, 0);
    else if (strcmp(pattern, "unit") == 0)
      store_value(data, kind, i, (double)((int64_t)(r % 4097) - 2048) / 2048, 0, 0);
    else if (strcmp(pattern, "pos") == 0)
      store_value(data, kind, i, (double)(r % 100) + 1 - frac, 0, 0);
    else if (strcmp(pattern, "idx") == 0)
      store_value(data, kind, i, (double)i, 0, 0);
    else if (strcmp(pattern, "halves") == 0)
      store_value(data, kind, i, 0, r & 0xFFFF, 1);
    else if (strcmp(pattern, "zero") == 0)
      store_value(data, kind, i, 0, 0, 1);
    else {
      fprintf(stderr, "cl_corpus: case %s: unknown pattern '%s'\n", case_name, pattern);
      exit(2);
    }
  }
}

enum { kMaxArgs = 12 };

static void run_table_case(const TableCase* c) {
  cl_kernel k = build_with(c->source, "k", c->options ? c->options : "");
  rng_state = 0;
  for (const char* p = c->name; *p; ++p) rng_state = rng_state * 131 + (unsigned char)*p;
  char spec[512];
  snprintf(spec, sizeof spec, "%s", c->args);
  void* host[kMaxArgs] = {0};
  size_t counts[kMaxArgs] = {0};
  cl_mem mems[kMaxArgs] = {0};
  char printed_kind[kMaxArgs][4] = {{0}};
  int ulps[kMaxArgs] = {0};
  int printed[kMaxArgs] = {0};
  size_t bytes[kMaxArgs] = {0};
  cl_uint n = 0;
  for (char *save = NULL, *tok = strtok_r(spec, " ", &save); tok; tok = strtok_r(NULL, " ", &save), ++n) {
    if (n == kMaxArgs) {
      fprintf(stderr, "cl_corpus: case %s: too many arguments\n", c->name);
      exit(2);
    }
    char* field[5] = {0};
    int fields = 0;
    for (char *s2 = NULL, *f = strtok_r(tok, ":", &s2); f && fields < 5; f = strtok_r(NULL, ":", &s2))
      field[fields++] = f;
    char* eq = strchr(field[0], '=');
    if (eq) { /* a scalar */
      *eq = '\0';
      const enum Kind kind = parse_kind(field[0], c->name);
      unsigned char value[8];
      store_value(value, kind, 0, strtod(eq + 1, NULL), 0, 0);
      check(clSetKernelArg(k, n, kind_sizes[kind], value), "clSetKernelArg (scalar)");
    } else if (strcmp(field[0], "local") == 0 && fields == 2) {
      check(clSetKernelArg(k, n, strtoul(field[1], NULL, 0), NULL), "clSetKernelArg (local)");
    } else if (fields >= 3) {
      const enum Kind kind = parse_kind(field[1], c->name);
      counts[n] = strtoul(field[2], NULL, 0);
      bytes[n] = counts[n] * kind_sizes[kind];
      host[n] = calloc(bytes[n], 1);
      const int is_in = strcmp(field[0], "in") == 0, is_io = strcmp(field[0], "io") == 0;
      const int is_out = strcmp(field[0], "out") == 0;
      if (!is_in && !is_io && !is_out) {
        fprintf(stderr, "cl_corpus: case %s: unknown argument '%s'\n", c->name, field[0]);
        exit(2);
      }
      if (is_in || is_io) fill(host[n], kind, counts[n], fields > 3 ? field[3] : "zero", c->name);
      mems[n] = buffer(bytes[n], host[n]);
      if (is_out) {
        const unsigned char zero = 0;
        check(clEnqueueFillBuffer(queue, mems[n], &zero, 1, 0, bytes[n], 0, NULL, NULL), "clEnqueueFillBuffer");
      }
      printed[n] = !is_in;
      const char* tolerance = is_out ? field[3] : field[4];
      ulps[n] = tolerance ? atoi(tolerance) : 0;
      snprintf(printed_kind[n], sizeof printed_kind[n], "%s", kind_names[kind]);
      check(clSetKernelArg(k, n, sizeof(cl_mem), &mems[n]), "clSetKernelArg (buffer)");
    } else {
      fprintf(stderr, "cl_corpus: case %s: bad argument '%s'\n", c->name, tok);
      exit(2);
    }
  }
  const int any_local = c->local[0] != 0;
  const int any_offset = c->offset[0] || c->offset[1] || c->offset[2];
  check(clEnqueueNDRangeKernel(queue, k, c->dims, any_offset ? c->offset : NULL, c->global, any_local ? c->local : NULL,
                               0, NULL, NULL),
        "clEnqueueNDRangeKernel");
  for (cl_uint a = 0; a < n; ++a) {
    if (!printed[a]) continue;
    read_back(mems[a], host[a], bytes[a]);
    char label[96];
    snprintf(label, sizeof label, "%s.%u", c->name, a);
    print_typed(label, printed_kind[a], ulps[a], host[a], bytes[a]);
  }
  if (c->verify) c->verify(host, counts);
  for (cl_uint a = 0; a < n; ++a) {
    if (mems[a]) clReleaseMemObject(mems[a]);
    free(host[a]);
  }
  clReleaseKernel(k);
}

/* ---- Kernel templates -------------------------------------------------------------------------------------------- */

/* Integer arithmetic for any integer scalar or vector type T (AS: T's as_ reinterpretation): sixteen results a work
 * item. Divisors avoid 0 and -1 (INT_MIN / -1 is undefined); OpenCL masks shift counts to the width of the type. */
static const char* const kIntegerArithmetic =
    CL(__kernel void k(__global const T* a, __global const T* b, __global T* o) {
      size_t i = get_global_id(0);
      T x = a[i], y = b[i];
      T d = ((y == (T)0) | (y == (T)-1)) ? (T)7 : y;
      __global T* r = o + 16 * i;
      r[0] = x + y;
      r[1] = x - y;
      r[2] = x * y;
      r[3] = x / d;
      r[4] = x % d;
      r[5] = x << y;
      r[6] = x >> y;
      r[7] = (x & y) ^ (~x | y);
      r[8] = min(x, y) + max(x, d);
      r[9] = mul_hi(x, y);
      r[10] = add_sat(x, y) ^ sub_sat(x, y);
      r[11] = hadd(x, y) + rhadd(x, d);
      r[12] = rotate(x, y);
      r[13] = clz(x) + popcount(y);
      r[14] = AS(abs_diff(x, y)) + AS(abs(x));
      r[15] = (x < y) ? x : ((x == d) ? (T)1 : y);
    });

/* Floating-point arithmetic for float, double and their vectors: o holds results IEEE 754 rounds exactly (no
 * contraction: each product stands alone), q division and square root (float: 2.5 and 3 ulp in OpenCL 1.2; double:
 * correctly rounded). ceil's result gets + 0.0: IGC 1.0.12504 builds double ceil as trunc(x) + (x > 0 && inexact ?
 * 1.0 : 0.0), which in IEEE round-to-nearest gives +0 (-0 + +0) for x in (-1, 0) where OpenCL C wants -0; the sum
 * makes every platform print +0 there. */
static const char* const kFloatArithmetic =
    CL(__kernel void k(__global const T* a, __global const T* b, __global T* o, __global T* q) {
      size_t i = get_global_id(0);
      T x = a[i], y = b[i];
      __global T* r = o + 12 * i;
      r[0] = x + y;
      r[1] = x - y;
      r[2] = x * y;
      r[3] = fma(x, y, x);
      r[4] = fmin(x, y);
      r[5] = fmax(x, y);
      r[6] = floor(x);
      r[7] = ceil(y) + (T)0.0;
      r[8] = trunc(x);
      r[9] = rint(y);
      r[10] = round(x);
      r[11] = (x < y) ? copysign(x, y) : fabs(y);
      q[2 * i] = x / y;
      q[2 * i + 1] = sqrt(fabs(x));
    });

/* ---- Checks against values computed here ------------------------------------------------------------------------ */

/* Distance in ulps of the float got from the real ref (the spacing of floats at ref; NaN only equals NaN). */
static double ulp_error_f(float got, double ref) {
  if (isinf((float)ref)) ref = (float)ref; /* beyond the largest float: the correctly rounded result is infinite */
  if (isnan(ref) || isnan(got)) return (isnan(ref) && isnan(got)) ? 0 : 1e9;
  if (isinf(ref) || isinf(got)) return ((double)got == ref) ? 0 : 1e9;
  int e;
  frexp(ref, &e);
  if (e < -125) e = -125; /* subnormal spacing */
  return fabs((double)got - ref) / ldexp(1.0, e - 24);
}

static double ulp_error_d(double got, long double ref) {
  if (isnan(ref) || isnan(got)) return (isnan(ref) && isnan(got)) ? 0 : 1e9;
  if (isinf(ref) || isinf(got)) return ((long double)got == ref) ? 0 : 1e9;
  int e;
  frexpl(ref, &e);
  if (e < -1021) e = -1021;
  return (double)(fabsl((long double)got - ref) / ldexpl(1.0L, e - 53));
}

/* int: every result computed here with C's wrapping arithmetic on 32 bits (the kernel's, since OpenCL has two's
 * complement integers). */
static void verify_int_arithmetic(void** host, const size_t* counts) {
  const int32_t* a = (const int32_t*)host[0];
  const int32_t* b = (const int32_t*)host[1];
  const int32_t* o = (const int32_t*)host[2];
  for (size_t i = 0; i < counts[0]; ++i) {
    const int32_t x = a[i], y = b[i], d = (y == 0 || y == -1) ? 7 : y;
    const uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
    int64_t sat_add = (int64_t)x + y, sat_sub = (int64_t)x - y;
    sat_add = sat_add > INT32_MAX ? INT32_MAX : sat_add < INT32_MIN ? INT32_MIN : sat_add;
    sat_sub = sat_sub > INT32_MAX ? INT32_MAX : sat_sub < INT32_MIN ? INT32_MIN : sat_sub;
    const uint32_t rot = (ux << (uy & 31)) | (uy & 31 ? ux >> (32 - (uy & 31)) : 0);
    int clz = 0;
    while (clz < 32 && !(ux & (0x80000000u >> clz))) ++clz;
    const int pop = __builtin_popcount(uy);
    const uint32_t absdiff = x > y ? (uint32_t)((int64_t)x - y) : (uint32_t)((int64_t)y - x);
    const int32_t want[16] = {
        (int32_t)(ux + uy),
        (int32_t)(ux - uy),
        (int32_t)(ux * uy),
        x / d,
        x % d,
        (int32_t)(ux << (uy & 31)),
        x >> (y & 31),
        (int32_t)((ux & uy) ^ (~ux | uy)),
        (int32_t)((uint32_t)(x < y ? x : y) + (uint32_t)(x > d ? x : d)),
        (int32_t)(((int64_t)x * y) >> 32),
        (int32_t)((int32_t)sat_add ^ (int32_t)sat_sub),
        (int32_t)((uint32_t)(int32_t)(((int64_t)x + y) >> 1) + (uint32_t)(int32_t)(((int64_t)x + d + 1) >> 1)),
        (int32_t)rot,
        clz + pop,
        (int32_t)(absdiff + (uint32_t)(x < 0 ? -(int64_t)x : x)),
        x < y ? x : (x == d ? 1 : y)};
    for (int j = 0; j < 16; ++j) expect(o[16 * i + j] == want[j], "int_int", (int)(16 * i + j));
  }
}

/* float: the exact results with C's float arithmetic, division and square root within the OpenCL bounds. */
static void verify_float_arithmetic(void** host, const size_t* counts) {
  const float* a = (const float*)host[0];
  const float* b = (const float*)host[1];
  const float* o = (const float*)host[2];
  const float* q = (const float*)host[3];
  for (size_t i = 0; i < counts[0]; ++i) {
    const float x = a[i], y = b[i];
    const float want[12] = {x + y,       x - y,       x * y,     fmaf(x, y, x),
                            fminf(x, y), fmaxf(x, y), floorf(x), ceilf(y) + 0.0f,
                            truncf(x),   rintf(y),    roundf(x), x < y ? copysignf(x, y) : fabsf(y)};
    for (int j = 0; j < 12; ++j) expect(memcmp(&o[12 * i + j], &want[j], 4) == 0, "float", (int)(12 * i + j));
    expect(ulp_error_f(q[2 * i], (double)x / y) <= 2.5, "float.div", (int)i);
    expect(ulp_error_f(q[2 * i + 1], sqrt(fabs((double)x))) <= 3, "float.sqrt", (int)i);
  }
}

static void verify_double_arithmetic(void** host, const size_t* counts) {
  const double* a = (const double*)host[0];
  const double* b = (const double*)host[1];
  const double* o = (const double*)host[2];
  const double* q = (const double*)host[3];
  for (size_t i = 0; i < counts[0]; ++i) {
    const double x = a[i], y = b[i];
    const double want[14] = {x + y,      x - y,        x * y,    fma(x, y, x),
                             fmin(x, y), fmax(x, y),   floor(x), ceil(y) + 0.0,
                             trunc(x),   rint(y),      round(x), x < y ? copysign(x, y) : fabs(y),
                             x / y,      sqrt(fabs(x))};
    for (int j = 0; j < 12; ++j) expect(memcmp(&o[12 * i + j], &want[j], 8) == 0, "double", (int)(12 * i + j));
    expect(memcmp(&q[2 * i], &want[12], 8) == 0, "double.div", (int)i);
    expect(memcmp(&q[2 * i + 1], &want[13], 8) == 0, "double.sqrt", (int)i);
  }
}

/* Single-precision builtins: o[8i..8i+7] against libm in double, within the OpenCL 1.2 bounds (table 7.1). */
static const char* const kMathFloat =
    CL(__kernel void k(__global const float* a, __global const float* b, __global float* o) {
      size_t i = get_global_id(0);
      float x = a[i], y = b[i];
      __global float* r = o + 8 * i;
      r[0] = sin(x);
      r[1] = cos(x);
      r[2] = exp(x * 0.0625f);
      r[3] = log(fabs(x) + 0.5f);
      r[4] = atan2(x, y);
      r[5] = pow(fabs(y) + 0.25f, x * 0.03125f);
      r[6] = rsqrt(fabs(y) + 1.0f);
      r[7] = fmod(x, y);
    });

static void verify_math_float(void** host, const size_t* counts) {
  const float* a = (const float*)host[0];
  const float* b = (const float*)host[1];
  const float* o = (const float*)host[2];
  static const double bound[8] = {4, 4, 3, 3, 6, 16, 2, 0};
  for (size_t i = 0; i < counts[0]; ++i) {
    const float x = a[i], y = b[i];
    const double ref[8] = {sin(x),
                           cos(x),
                           exp((double)(x * 0.0625f)),
                           log((double)(fabsf(x) + 0.5f)),
                           atan2(x, y),
                           pow((double)(fabsf(y) + 0.25f), (double)(x * 0.03125f)),
                           1.0 / sqrt((double)(fabsf(y) + 1.0f)),
                           fmod(x, y)};
    for (int j = 0; j < 8; ++j) expect(ulp_error_f(o[8 * i + j], ref[j]) <= bound[j], "math_float", (int)(8 * i + j));
  }
}

static const char* const kMathFloat2 =
    CL(__kernel void k(__global const float* a, __global const float* b, __global float* o) {
      size_t i = get_global_id(0);
      float x = a[i], y = b[i];
      __global float* r = o + 8 * i;
      r[0] = tan(x * 0.01f);
      r[1] = exp2(x * 0.0625f);
      r[2] = log2(fabs(y) + 1.0f);
      r[3] = cbrt(x);
      r[4] = hypot(x, y);
      r[5] = atan(y);
      r[6] = asin(x * 0.0009765625f);
      r[7] = sinh(y * 0.0625f);
    });

static void verify_math_float2(void** host, const size_t* counts) {
  const float* a = (const float*)host[0];
  const float* b = (const float*)host[1];
  const float* o = (const float*)host[2];
  static const double bound[8] = {5, 3, 3, 2, 4, 5, 4, 4};
  for (size_t i = 0; i < counts[0]; ++i) {
    const float x = a[i], y = b[i];
    const double ref[8] = {tan((double)(x * 0.01f)),
                           exp2((double)(x * 0.0625f)),
                           log2((double)(fabsf(y) + 1.0f)),
                           cbrt(x),
                           hypot(x, y),
                           atan(y),
                           asin((double)(x * 0.0009765625f)),
                           sinh((double)(y * 0.0625f))};
    for (int j = 0; j < 8; ++j) expect(ulp_error_f(o[8 * i + j], ref[j]) <= bound[j], "math_float2", (int)(8 * i + j));
  }
}

static const char* const kMathDouble =
    CL(__kernel void k(__global const double* a, __global const double* b, __global double* o) {
      size_t i = get_global_id(0);
      double x = a[i], y = b[i];
      __global double* r = o + 6 * i;
      r[0] = sin(x);
      r[1] = exp(x * 0.0625);
      r[2] = log(fabs(y) + 0.5);
      r[3] = pow(fabs(y) + 0.25, x * 0.03125);
      r[4] = cbrt(y);
      r[5] = atan2(y, x);
    });

static void verify_math_double(void** host, const size_t* counts) {
  const double* a = (const double*)host[0];
  const double* b = (const double*)host[1];
  const double* o = (const double*)host[2];
  static const double bound[6] = {4, 3, 3, 16, 2, 6};
  for (size_t i = 0; i < counts[0]; ++i) {
    const double x = a[i], y = b[i];
    const long double ref[6] = {sinl(x),
                                expl((long double)(x * 0.0625)),
                                logl((long double)(fabs(y) + 0.5)),
                                powl((long double)(fabs(y) + 0.25), (long double)(x * 0.03125)),
                                cbrtl(y),
                                atan2l(y, x)};
    for (int j = 0; j < 6; ++j) expect(ulp_error_d(o[6 * i + j], ref[j]) <= bound[j], "math_double", (int)(6 * i + j));
  }
}

/* Conversions between float and integers in every rounding mode, with and without saturation. */
static const char* const kConvertFloatToInt =
    CL(__kernel void k(__global const float* a, __global int* o, __global uchar* c, __global short* s) {
      size_t i = get_global_id(0);
      float x = a[i] * 0.5f;
      __global int* r = o + 8 * i;
      r[0] = convert_int(x);
      r[1] = convert_int_rte(x);
      r[2] = convert_int_rtp(x);
      r[3] = convert_int_rtn(x);
      r[4] = convert_int_sat(x * 4.0e6f);
      r[5] = (int)convert_uint_sat_rte(x * 1.0e7f);
      r[6] = (int)convert_long_rtz(x * 1.0e9f);
      r[7] = (int)(convert_ulong_sat(x * 1.0e12f) >> 20);
      c[i] = convert_uchar_sat_rte(x);
      s[i] = convert_short_sat_rtn(x * 100.0f);
    });

static const char* const kConvertIntToFloat =
    CL(__kernel void k(__global const int* a, __global const long* w, __global float* o, __global double* d) {
      size_t i = get_global_id(0);
      int x = a[i];
      long y = w[i];
      __global float* r = o + 8 * i;
      r[0] = convert_float(x);
      r[1] = convert_float_rtz(x);
      r[2] = convert_float_rtp(x);
      r[3] = convert_float_rtn(x);
      r[4] = convert_float((uint)x);
      r[5] = convert_float(y);
      r[6] = convert_float_rtz((ulong)y);
      r[7] = convert_float(y >> 20);
      d[2 * i] = convert_double(y);
      d[2 * i + 1] = convert_double((ulong)y);
    });

static const char* const kConvertDouble =
    CL(__kernel void k(__global const double* a, __global float* f, __global long* l, __global int* n) {
      size_t i = get_global_id(0);
      double x = a[i] * 1.000000119;
      f[4 * i] = convert_float(x);
      f[4 * i + 1] = convert_float_rtz(x);
      f[4 * i + 2] = convert_float_rtp(x);
      f[4 * i + 3] = convert_float_rtn(x);
      l[2 * i] = convert_long_rte(x * 1.0e6);
      l[2 * i + 1] = convert_long_sat(x * 1.0e17);
      n[i] = convert_int_sat_rtz(x * 1.0e7);
    });

static const char* const kConvertNarrow = CL(__kernel void k(__global const int* a, __global char* c, __global uchar* u,
                                                             __global short* s, __global ushort* us) {
  size_t i = get_global_id(0);
  int x = a[i];
  c[2 * i] = convert_char_sat(x);
  c[2 * i + 1] = convert_char(x);
  u[2 * i] = convert_uchar_sat(x >> 16);
  u[2 * i + 1] = (uchar)(x >> 3);
  s[2 * i] = convert_short_sat(x);
  s[2 * i + 1] = convert_short_sat((long)x * 3);
  us[2 * i] = convert_ushort_sat(x);
  us[2 * i + 1] = convert_ushort(x) ^ (ushort)as_uint(x);
});

/* Half storage (core OpenCL: vload_half/vstore_half in every rounding mode) over every magnitude of half. */
static const char* const kHalfStorage =
    CL(__kernel void k(__global const float* a, __global const ushort* h, __global half* o, __global float* f) {
      size_t i = get_global_id(0);
      float x = a[i] * exp2((float)((int)(i % 48) - 28));
      vstore_half(x, 4 * i, o);
      vstore_half_rtz(x, 4 * i + 1, o);
      vstore_half_rtp(x, 4 * i + 2, o);
      vstore_half_rtn(x, 4 * i + 3, o);
      f[i] = vload_half(i, (__global const half*)h);
    });

/* Control flow: nested divergent if/else, a switch, data-dependent loops with break and continue, early return. */
static const char* const kDivergent = CL(__kernel void k(__global const int* a, __global int* o) {
  size_t i = get_global_id(0);
  int x = a[i], acc = 0;
  if (x & 1) {
    if (x & 2)
      acc = x * 3;
    else
      acc = x - 5;
  } else if (x & 4) {
    acc = -x;
  } else {
    switch ((x >> 3) & 3) {
      case 0:
        acc = 11;
        break;
      case 1:
        acc = x >> 1;
        break;
      case 2:
        acc = x ^ 0x55;
        break;
      default:
        acc = 1;
    }
  }
  o[2 * i] = acc;
  if (x < -50) return;
  int steps = 0;
  for (int v = x & 0x3FF; v != 1 && v != 0 && steps < 200; ++steps) {
    if (v & 1) {
      v = 3 * v + 1;
      continue;
    }
    v >>= 1;
    if (v == 16) break;
  }
  o[2 * i + 1] = steps;
});

/* Loops: a data-dependent trip count nested in a fixed one, with a while loop. */
static const char* const kLoops = CL(__kernel void k(__global const uint* a, __global uint* o) {
  size_t i = get_global_id(0);
  uint x = a[i], h = 2166136261u;
  for (int j = 0; j < 8; ++j) {
    uint n = (x >> (4 * j)) & 15;
    for (uint t = 0; t < n; ++t) h = (h ^ (t + j)) * 16777619u;
  }
  uint bits = 0;
  while (x) {
    x &= x - 1;
    ++bits;
  }
  o[i] = h ^ (bits << 24);
});

/* A private array indexed by data: IGC keeps it in scratch memory (BTI 255 / r0.5). */
static const char* const kPrivateArray = CL(__kernel void k(__global const uint* a, __global uint* o) {
  size_t i = get_global_id(0);
  uint t[160];
  for (int j = 0; j < 160; ++j) t[j] = a[i] * (j + 1) + j;
  for (int j = 0; j < 320; ++j) {
    uint p = t[j % 160] % 160;
    t[p] += t[(p + 7) % 160] ^ j;
  }
  uint s = 0;
  for (int j = 0; j < 160; ++j) s = s * 31 + t[j];
  o[i] = s;
});

/* Many live values of double at once: more than the GRF holds, so the compiler spills. */
static const char* const kSpill = CL(__kernel void k(__global const double* a, __global double* o) {
  size_t i = get_global_id(0);
  double v[48];
  for (int j = 0; j < 48; ++j) v[j] = a[(i + j) % get_global_size(0)] + j;
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 48; ++j) v[j] = v[j] * 0.5 + v[(j + 13) % 48] * 0.25;
  double s = 0;
  for (int j = 0; j < 48; ++j) s += v[j] * (j + 1);
  o[i] = s;
});

/* Inclusive prefix sum of each work-group in local memory (Hillis-Steele with double buffering). */
static const char* const kPrefixSum = CL(__kernel void k(__global const uint* a, __global uint* o, __local uint* s) {
  uint l = get_local_id(0), n = get_local_size(0);
  __local uint* src = s;
  __local uint* dst = s + n;
  src[l] = a[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = 1; d < n; d *= 2) {
    dst[l] = l >= d ? src[l] + src[l - d] : src[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint* t = src;
    src = dst;
    dst = t;
  }
  o[get_global_id(0)] = src[l];
});

static void verify_prefix_sum(void** host, const size_t* counts) {
  const uint32_t* a = (const uint32_t*)host[0];
  const uint32_t* o = (const uint32_t*)host[1];
  uint32_t sum = 0;
  for (size_t i = 0; i < counts[0]; ++i) {
    sum = (i % 128 == 0) ? a[i] : sum + a[i];
    expect(o[i] == sum, "prefix_sum", (int)i);
  }
}

/* C = A x B with 16x16 tiles in local memory (2D NDRange, 2D work-groups). */
static const char* const kMatmulTiled =
    CL(__kernel void k(__global const float* A, __global const float* B, __global float* C, int n) {
      __local float ta[16][16];
      __local float tb[16][16];
      int col = get_global_id(0), row = get_global_id(1);
      int lx = get_local_id(0), ly = get_local_id(1);
      float acc = 0.0f;
      for (int t = 0; t < n; t += 16) {
        ta[ly][lx] = A[row * n + t + lx];
        tb[ly][lx] = B[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < 16; ++j) acc = fma(ta[ly][j], tb[j][lx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      C[row * n + col] = acc;
    });

static void verify_matmul(void** host, const size_t* counts) {
  const float* A = (const float*)host[0];
  const float* B = (const float*)host[1];
  const float* C = (const float*)host[2];
  (void)counts;
  for (int row = 0; row < 64; ++row)
    for (int col = 0; col < 64; ++col) {
      float acc = 0.0f;
      for (int j = 0; j < 64; ++j) acc = fmaf(A[row * 64 + j], B[j * 64 + col], acc);
      expect(memcmp(&C[row * 64 + col], &acc, 4) == 0, "matmul", row * 64 + col);
    }
}

/* A 64-bin histogram in local memory with local atomics, merged into the global one with global atomics. */
static const char* const kHistogram =
    CL(__kernel void k(__global const uint* a, __global uint* hist, __local uint* bins) {
      uint l = get_local_id(0);
      if (l < 64) bins[l] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      atomic_inc(&bins[a[get_global_id(0)] % 64]);
      atomic_add(&bins[(a[get_global_id(0)] >> 8) % 64], 2);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (l < 64) atomic_add(&hist[l], bins[l]);
    });

static void verify_histogram(void** host, const size_t* counts) {
  const uint32_t* a = (const uint32_t*)host[0];
  const uint32_t* hist = (const uint32_t*)host[1];
  uint32_t want[64] = {0};
  for (size_t i = 0; i < counts[0]; ++i) {
    want[a[i] % 64] += 1;
    want[(a[i] >> 8) % 64] += 2;
  }
  for (int b = 0; b < 64; ++b) expect(hist[b] == want[b], "histogram", b);
}

/* Every 32-bit global atomic whose result does not depend on the order of the work items. */
static const char* const kGlobalAtomics = CL(__kernel void k(__global const int* a, __global int* g, __global uint* u) {
  int x = a[get_global_id(0)];
  atomic_add(&g[0], x);
  atomic_sub(&g[1], x);
  atomic_min(&g[2], x);
  atomic_max(&g[3], x);
  atomic_and(&g[4], x | 0x10000);
  atomic_or(&g[5], x & 0x7F0);
  atomic_xor(&g[6], x);
  atomic_inc(&g[7]);
  atomic_dec(&g[8]);
  atomic_min(&u[0], (uint)x);
  atomic_max(&u[1], (uint)x);
  if (x == a[0]) atomic_xchg(&g[9], 1234);
  atomic_cmpxchg(&g[10], 0, 77);
});

/* 64-bit atomics (cl_khr_int64_base_atomics and extended: both platforms have them). */
static const char* const kAtomics64 = CL(__kernel void k(__global const long* a, __global long* g) {
  long x = a[get_global_id(0)];
  atom_add(&g[0], x);
  atom_min(&g[1], x);
  atom_max(&g[2], x);
  atom_xor(&g[3], x);
  atom_inc(&g[4]);
});

/* Work-item functions in 2D with a global offset: ids, sizes and groups of every item. */
static const char* const kIds2d = CL(__kernel void k(__global uint* o) {
  size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1);
  __global uint* r = o + 8 * (y * get_global_size(0) + x);
  r[0] = get_global_id(0);
  r[1] = get_global_id(1);
  r[2] = get_local_id(0) | (get_local_id(1) << 16);
  r[3] = get_group_id(0) | (get_group_id(1) << 16);
  r[4] = get_num_groups(0) | (get_num_groups(1) << 16);
  r[5] = get_local_size(0) | (get_local_size(1) << 16);
  r[6] = get_global_offset(0) | (get_global_offset(1) << 16);
  r[7] = get_work_dim();
});

static const char* const kIds3d = CL(__kernel void k(__global uint* o) {
  size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1);
  size_t z = get_global_id(2) - get_global_offset(2);
  __global uint* r = o + 4 * ((z * get_global_size(1) + y) * get_global_size(0) + x);
  r[0] = get_global_id(0) | (get_global_id(1) << 10) | (get_global_id(2) << 20);
  r[1] = get_local_id(0) | (get_local_id(1) << 10) | (get_local_id(2) << 20);
  r[2] = get_group_id(0) | (get_group_id(1) << 10) | (get_group_id(2) << 20);
  r[3] = get_num_groups(0) | (get_num_groups(1) << 10) | (get_num_groups(2) << 20) | (get_work_dim() << 30);
});

/* Work-groups that are not a multiple of the SIMD width: the last thread of each group runs with the right mask. */
static const char* const kOddGroup = CL(__kernel void k(__global const uint* a, __global uint* o, __local uint* s) {
  uint l = get_local_id(0), n = get_local_size(0);
  s[l] = a[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  o[get_global_id(0)] = s[(l + 1) % n] * 3 + s[n - 1 - l] + (uint)get_group_id(0);
});

/* Many more work-groups than the EU array has hardware threads: the walker dispatches them in waves. */
static const char* const kWaves = CL(__kernel void k(__global const uint* a, __global uint* o) {
  size_t i = get_global_id(0);
  uint x = a[i];
  o[i] = (x * 2654435761u) ^ (x >> 7) ^ (uint)get_group_id(0);
});

/* Byte and short stores and loads (byte scattered messages), vload/vstore at unaligned element offsets. */
static const char* const kBytes = CL(__kernel void k(__global const uchar* a, __global uchar* o, __global ushort* s,
                                                     __global float* f, __global const float* src) {
  size_t i = get_global_id(0);
  o[i] = a[i] + a[(i * 7) % get_global_size(0)];
  s[i] = (ushort)(a[i] << 8) | a[i ^ 1];
  float3 v = vload3(i, src + 1);
  vstore3(v * 2.0f, i, f + 3);
});

/* Vector swizzles, shuffles and select on int8/float4, and relational builtins. */
static const char* const kVectors = CL(__kernel void k(__global const int8* a, __global const float4* b,
                                                       __global int8* o, __global float4* f, __global int4* rel) {
  size_t i = get_global_id(0);
  int8 x = a[i];
  float4 y = b[i];
  o[i] = shuffle(x, (uint8)(7, 6, 5, 4, 3, 2, 1, 0)) + x.s01234567.s76543210 * (int8)(x.lo, x.hi);
  o[i] = select(o[i], x, x > (int8)0) ^ bitselect(x, ~x, (int8)0x0F0F0F0F);
  f[i] = y.wzyx * y.xxyy + (float4)(dot(y, y), length(y.xy), y.z, y.w * 2.0f);
  rel[i] = isless(y, y.yzwx) + isgreaterequal(y, (float4)0.0f) * 2 + signbit(y) * 4 + isequal(y, y.wxyz) * 8;
});

/* Special values through float arithmetic and the relational/classification builtins. */
static const char* const kSpecialValues =
    CL(__kernel void k(__global const uint* bits, __global int* cls, __global float* o) {
      size_t i = get_global_id(0);
      float x = as_float(bits[i]), y = as_float(bits[(i + 5) % get_global_size(0)]);
      cls[i] = isnan(x) | (isinf(x) << 1) | (isfinite(x) << 2) | (isnormal(x) << 3) | (signbit(x) << 4) |
               ((x < y) << 5) | ((x == y) << 6) | (isunordered(x, y) << 7) | (ilogb(x) << 8);
      o[3 * i] = fmin(x, y);
      o[3 * i + 1] = copysign(fabs(y), x);
      o[3 * i + 2] = nextafter(x, y);
    });

/* Two kernels in sequence on the same buffers: the second reads what the first wrote. */
static const char* const kTwoKernels = CL(
    __kernel void k(__global uint* a, __global uint* o) {
      size_t i = get_global_id(0);
      a[i] = a[i] * 3 + 1;
    } __kernel void k2(__global uint* a, __global uint* o) {
      size_t i = get_global_id(0), n = get_global_size(0);
      o[i] = a[i] + a[(i + 1) % n] + a[(i + n - 1) % n];
    });

/* Integer builtins: mad24/mul24, mad_hi, mad_sat, clamp, upsample, abs, and the long variants. */
static const char* const kIntegerBuiltins =
    CL(__kernel void k(__global const int* a, __global const int* b, __global int* o, __global long* w) {
      size_t i = get_global_id(0);
      int x = a[i], y = b[i];
      o[6 * i] = mad24(x >> 8, y >> 8, x);
      o[6 * i + 1] = mul24(x >> 9, y >> 9);
      o[6 * i + 2] = mad_hi(x, y, y);
      o[6 * i + 3] = mad_sat(x, y, x);
      o[6 * i + 4] = clamp(x, -1000, y);
      o[6 * i + 5] = (int)abs(x) + (int)upsample((short)x, (ushort)y);
      long lx = upsample(x, (uint)y);
      w[3 * i] = mul_hi(lx, (long)y * 977);
      w[3 * i + 1] = mad_sat(lx, (long)y, lx);
      w[3 * i + 2] = rotate(lx, (long)x) ^ (long)clz(lx) ^ ((long)popcount(lx) << 56);
    });

static void run_two_kernels(void) {
  enum { N = 1024 };
  uint32_t a[N], o[N];
  for (int i = 0; i < N; ++i) a[i] = (uint32_t)(i * 2654435761u);
  cl_mem ba = buffer(sizeof a, a), bo = buffer(sizeof o, NULL);
  cl_kernel k1 = build(kTwoKernels, "k"), k2 = build(kTwoKernels, "k2");
  for (int j = 0; j < 2; ++j) {
    check(clSetKernelArg(k1, (cl_uint)j, sizeof(cl_mem), j ? &bo : &ba), "clSetKernelArg");
    check(clSetKernelArg(k2, (cl_uint)j, sizeof(cl_mem), j ? &bo : &ba), "clSetKernelArg");
  }
  const size_t global = N, local = 64;
  run(k1, 1, &global, &local);
  run(k2, 1, &global, &local);
  run(k1, 1, &global, &local);
  read_back(bo, o, sizeof o);
  uint32_t once[N];
  for (int i = 0; i < N; ++i) once[i] = a[i] * 3 + 1;
  for (int i = 0; i < N; ++i) expect(o[i] == once[i] + once[(i + 1) % N] + once[(i + N - 1) % N], "two_kernels", i);
  print_hex("two_kernels.o", o, sizeof o);
  read_back(ba, a, sizeof a);
  print_hex("two_kernels.a", a, sizeof a);
  clReleaseMemObject(ba);
  clReleaseMemObject(bo);
  clReleaseKernel(k1);
  clReleaseKernel(k2);
}

/* Half arithmetic needs cl_khr_fp16, which pocl 3.1 lacks: with it, the kernel's sums and products; without it, the
 * same values computed here. Both are checked against float arithmetic rounded to half here (float has more than
 * twice half's precision, so rounding a float sum or product once more gives the correctly rounded half). */
static uint16_t half_from_float_rte(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000;
  const float a = fabsf(f);
  if (isnan(f)) return (uint16_t)(sign | 0x7E00);
  if (a >= 65520.0f) return (uint16_t)(sign | 0x7C00);
  if (a < ldexpf(1.0f, -14)) return (uint16_t)(sign | (uint16_t)rintf(a * ldexpf(1.0f, 24))); /* subnormal */
  int e;
  const float m = frexpf(a, &e);                /* a = m * 2^e, m in [0.5, 1) */
  uint32_t mant = (uint32_t)rintf(m * 2048.0f); /* 11 bits, rounded to nearest even */
  if (mant == 2048) {
    mant = 1024;
    ++e;
  }
  if (e + 14 >= 31) return (uint16_t)(sign | 0x7C00);
  return (uint16_t)(sign | ((uint32_t)(e + 14) << 10) | (mant & 0x3FF));
}

static float float_from_half(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 0x3FF;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400), e - 25);
  return (h & 0x8000) ? -v : v;
}

static void run_half_arithmetic(void) {
  enum { N = 512 };
  uint16_t a[N], b[N], got[2 * N], want[2 * N];
  rng_state = 0x4A1F;
  for (int i = 0; i < N; ++i) {
    a[i] = half_from_float_rte((float)((int)(rng_next() % 4001) - 2000) / 16.0f);
    b[i] = half_from_float_rte((float)((int)(rng_next() % 401) - 200) / 8.0f);
    want[2 * i] = half_from_float_rte(float_from_half(a[i]) + float_from_half(b[i]));
    want[2 * i + 1] = half_from_float_rte(float_from_half(a[i]) * float_from_half(b[i]));
  }
  if (device_has_fp16) {
    cl_kernel k = build(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
        "__kernel void k(__global const half* a, __global const half* b, __global half* o) {"
        "  size_t i = get_global_id(0); o[2 * i] = a[i] + b[i]; o[2 * i + 1] = a[i] * b[i]; }",
        "k");
    cl_mem ba = buffer(sizeof a, a), bb = buffer(sizeof b, b), bo = buffer(sizeof got, NULL);
    clSetKernelArg(k, 0, sizeof ba, &ba);
    clSetKernelArg(k, 1, sizeof bb, &bb);
    clSetKernelArg(k, 2, sizeof bo, &bo);
    const size_t global = N, local = 32;
    run(k, 1, &global, &local);
    read_back(bo, got, sizeof got);
    clReleaseMemObject(ba);
    clReleaseMemObject(bb);
    clReleaseMemObject(bo);
    clReleaseKernel(k);
  } else {
    fprintf(stderr, "cl_corpus: half_arithmetic: no cl_khr_fp16 on this device: printing the values computed here\n");
    memcpy(got, want, sizeof got);
  }
  for (int i = 0; i < 2 * N; ++i) expect(got[i] == want[i], "half_arithmetic", i);
  print_typed("half_arithmetic.o", "f16", 0, got, sizeof got);
}

/* Uneven global sizes need OpenCL 2.0 non-uniform work-groups (pocl 3.1 has none): the kernel's results depend only
 * on the global id, so pocl runs it with the runtime's choice of work-group and the same values come out. */
static void run_non_uniform(void) {
  enum { N = 1000 };
  uint32_t o[N], sizes[N];
  char version[64] = "";
  clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_VERSION, sizeof version, version, NULL);
  const int cl2 = strstr(version, "OpenCL C 2.") != NULL || strstr(version, "OpenCL C 3.") != NULL;
  cl_kernel k = build_with(
      "__kernel void k(__global uint* o, __global uint* sizes) {"
      "  size_t i = get_global_id(0); o[i] = (uint)(i * i) ^ 0xA5A5u; sizes[i] = get_local_size(0); }",
      "k", cl2 ? "-cl-std=CL2.0" : "");
  cl_mem bo = buffer(sizeof o, NULL), bs = buffer(sizeof sizes, NULL);
  clSetKernelArg(k, 0, sizeof bo, &bo);
  clSetKernelArg(k, 1, sizeof bs, &bs);
  const size_t global = N, local = 64;
  run(k, 1, &global, cl2 ? &local : NULL);
  read_back(bo, o, sizeof o);
  read_back(bs, sizes, sizeof sizes);
  for (int i = 0; i < N; ++i) {
    expect(o[i] == (((uint32_t)(i * i)) ^ 0xA5A5u), "non_uniform.o", i);
    if (cl2) expect(sizes[i] == (i < 960 ? 64u : 40u), "non_uniform.sizes", i); /* the last group has 1000 % 64 */
  }
  print_hex("non_uniform.o", o, sizeof o);
  clReleaseMemObject(bo);
  clReleaseMemObject(bs);
  clReleaseKernel(k);
}

#define INT_CASE(NAME, TYPE, AS, KIND, WIDTH, VERIFY)                                                            \
  {                                                                                                              \
    NAME, kIntegerArithmetic, "-DT=" TYPE " -DAS=" AS,                                                           \
        "in:" KIND ":1024:bits in:" KIND ":1024:bits out:" KIND ":16384", 1, {1024 / (WIDTH)}, {64}, {0}, VERIFY \
  }
#define FLOAT_CASE(NAME, TYPE, KIND, WIDTH, DIV_ULPS, VERIFY)                                            \
  {                                                                                                      \
    NAME, kFloatArithmetic, "-DT=" TYPE,                                                                 \
        "in:" KIND ":1024:real in:" KIND ":1024:real out:" KIND ":12288 out:" KIND ":2048:" DIV_ULPS, 1, \
        {1024 / (WIDTH)}, {32}, {0}, VERIFY                                                              \
  }

static const TableCase table_cases[] = {
    INT_CASE("int_char", "char", "as_char", "i8", 1, NULL),
    INT_CASE("int_uchar", "uchar", "as_uchar", "u8", 1, NULL),
    INT_CASE("int_short", "short", "as_short", "i16", 1, NULL),
    INT_CASE("int_ushort", "ushort", "as_ushort", "u16", 1, NULL),
    INT_CASE("int_int", "int", "as_int", "i32", 1, verify_int_arithmetic),
    INT_CASE("int_uint", "uint", "as_uint", "u32", 1, NULL),
    INT_CASE("int_long", "long", "as_long", "i64", 1, NULL),
    INT_CASE("int_ulong", "ulong", "as_ulong", "u64", 1, NULL),
    INT_CASE("int_char16", "char16", "as_char16", "i8", 16, NULL),
    INT_CASE("int_uchar4", "uchar4", "as_uchar4", "u8", 4, NULL),
    INT_CASE("int_short8", "short8", "as_short8", "i16", 8, NULL),
    INT_CASE("int_int4", "int4", "as_int4", "i32", 4, NULL),
    INT_CASE("int_uint2", "uint2", "as_uint2", "u32", 2, NULL),
    INT_CASE("int_long2", "long2", "as_long2", "i64", 2, NULL),
    INT_CASE("int_ulong4", "ulong4", "as_ulong4", "u64", 4, NULL),
    FLOAT_CASE("float", "float", "f32", 1, "5", verify_float_arithmetic),
    FLOAT_CASE("float4", "float4", "f32", 4, "5", NULL),
    FLOAT_CASE("float16", "float16", "f32", 16, "5", NULL),
    FLOAT_CASE("double", "double", "f64", 1, "0", verify_double_arithmetic),
    FLOAT_CASE("double2", "double2", "f64", 2, "0", NULL),
    FLOAT_CASE("double8", "double8", "f64", 8, "0", NULL),
    /* Builtins: the two platforms may each be off by the bound, so they may differ by twice it. */
    {"math_float",
     kMathFloat,
     "",
     "in:f32:1024:real in:f32:1024:real out:f32:8192:32",
     1,
     {1024},
     {64},
     {0},
     verify_math_float},
    {"math_float2",
     kMathFloat2,
     "",
     "in:f32:1024:real in:f32:1024:real out:f32:8192:10",
     1,
     {1024},
     {64},
     {0},
     verify_math_float2},
    {"math_double",
     kMathDouble,
     "",
     "in:f64:512:real in:f64:512:real out:f64:3072:32",
     1,
     {512},
     {32},
     {0},
     verify_math_double},
    {"convert_float_int",
     kConvertFloatToInt,
     "",
     "in:f32:1024:real out:i32:8192 out:u8:1024 out:i16:1024",
     1,
     {1024},
     {64},
     {0},
     NULL},
    {"convert_int_float",
     kConvertIntToFloat,
     "",
     "in:i32:1024:bits in:i64:1024:bits out:f32:8192 out:f64:2048",
     1,
     {1024},
     {64},
     {0},
     NULL},
    {"convert_double",
     kConvertDouble,
     "",
     "in:f64:1024:real out:f32:4096 out:i64:2048 out:i32:1024",
     1,
     {1024},
     {64},
     {0},
     NULL},
    {"convert_narrow",
     kConvertNarrow,
     "",
     "in:i32:1024:bits out:i8:2048 out:u8:2048 out:i16:2048 out:u16:2048",
     1,
     {1024},
     {64},
     {0},
     NULL},
    {"half_storage",
     kHalfStorage,
     "",
     "in:f32:2048:real in:u16:2048:halves out:f16:8192 out:f32:2048",
     1,
     {2048},
     {64},
     {0},
     NULL},
    {"divergent", kDivergent, "", "in:i32:2048:small out:i32:4096", 1, {2048}, {64}, {0}, NULL},
    {"loops", kLoops, "", "in:u32:1024:bits out:u32:1024", 1, {1024}, {32}, {0}, NULL},
    {"private_array", kPrivateArray, "", "in:u32:512:bits out:u32:512", 1, {512}, {32}, {0}, NULL},
    {"spill", kSpill, "", "in:f64:256:real out:f64:256", 1, {256}, {16}, {0}, NULL},
    {"prefix_sum",
     kPrefixSum,
     "",
     "in:u32:2048:bits out:u32:2048 local:1024",
     1,
     {2048},
     {128},
     {0},
     verify_prefix_sum},
    {"matmul_tiled",
     kMatmulTiled,
     "",
     "in:f32:4096:unit in:f32:4096:unit out:f32:4096 i32=64",
     2,
     {64, 64},
     {16, 16},
     {0},
     verify_matmul},
    {"histogram", kHistogram, "", "in:u32:4096:bits out:u32:64 local:256", 1, {4096}, {256}, {0}, verify_histogram},
    {"global_atomics", kGlobalAtomics, "", "in:i32:2048:bits io:i32:11:zero io:u32:2:zero", 1, {2048}, {64}, {0}, NULL},
    {"atomics64", kAtomics64, "", "in:i64:1024:bits io:i64:5:zero", 1, {1024}, {64}, {0}, NULL},
    {"ids_2d", kIds2d, "", "out:u32:12288", 2, {48, 32}, {16, 4}, {5, 7}, NULL},
    {"ids_3d", kIds3d, "", "out:u32:6144", 3, {16, 8, 12}, {4, 2, 3}, {2, 3, 1}, NULL},
    {"odd_group", kOddGroup, "", "in:u32:1200:bits out:u32:1200 local:96", 1, {1200}, {24}, {0}, NULL},
    {"waves", kWaves, "", "in:u32:131072:bits out:u32:131072", 1, {131072}, {128}, {0}, NULL},
    {"bytes",
     kBytes,
     "",
     "in:u8:1024:bits out:u8:1024 out:u16:1024 out:f32:3076 in:f32:3076:real",
     1,
     {1024},
     {64},
     {0},
     NULL},
    {"vectors",
     kVectors,
     "",
     "in:i32:2048:bits in:f32:1024:small out:i32:2048 out:f32:1024:4 out:i32:1024",
     1,
     {256},
     {32},
     {0},
     NULL},
    {"special_values", kSpecialValues, "", "in:u32:1024:bits out:i32:1024 out:f32:3072", 1, {1024}, {64}, {0}, NULL},
    {"integer_builtins",
     kIntegerBuiltins,
     "",
     "in:i32:1024:bits in:i32:1024:bits out:i32:6144 out:i64:3072",
     1,
     {1024},
     {64},
     {0},
     NULL},
};

/* ---- Hand-written cases ----------------------------------------------------------------------------------------- */

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
  print_typed("integer.q", "i32", 0, q, sizeof q);
  print_typed("integer.r", "u32", 0, r, sizeof r);
  print_typed("integer.w", "i64", 0, wide, sizeof wide);
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
static const struct Case cases[] = {{"saxpy", case_saxpy},
                                    {"integer", case_integer},
                                    {"reduce", case_reduce},
                                    {"two_kernels", run_two_kernels},
                                    {"half_arithmetic", run_half_arithmetic},
                                    {"non_uniform", run_non_uniform}};
enum { kHandWritten = sizeof cases / sizeof cases[0], kTable = sizeof table_cases / sizeof table_cases[0] };

static const char* case_name(size_t c) { return c < kHandWritten ? cases[c].name : table_cases[c - kHandWritten].name; }

static void run_case(size_t c) {
  if (c < kHandWritten)
    cases[c].run();
  else
    run_table_case(&table_cases[c - kHandWritten]);
  fflush(stdout);
}

int main(int argc, char** argv) {
  const size_t count = kHandWritten + kTable;
  if (argc == 2 && strcmp(argv[1], "--list") == 0) {
    for (size_t c = 0; c < count; ++c) printf("%s\n", case_name(c));
    return 0;
  }
  for (int a = 1; a < argc; ++a) {
    int known = 0;
    for (size_t c = 0; c < count; ++c) known |= strcmp(argv[a], case_name(c)) == 0;
    if (!known) {
      fprintf(stderr, "cl_corpus: unknown case '%s'\n", argv[a]);
      return 2;
    }
  }
  cl_platform_id platform;
  cl_int err = clGetPlatformIDs(1, &platform, NULL);
  check(err, "clGetPlatformIDs");
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
  char extensions[4096] = "";
  clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, NULL);
  device_has_fp16 = strstr(extensions, "cl_khr_fp16") != NULL;
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  check(err, "clCreateContext");
  queue = clCreateCommandQueue(ctx, dev, 0, &err);
  check(err, "clCreateCommandQueue");
  for (size_t c = 0; c < count; ++c) {
    int wanted = argc < 2;
    for (int a = 1; a < argc; ++a) wanted |= strcmp(argv[a], case_name(c)) == 0;
    if (wanted) run_case(c);
  }
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  return failures ? 1 : 0;
}
