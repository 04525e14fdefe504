#include "tlm/gen/eu/fast_path.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace gpuvp::gen::eu {
namespace {

std::atomic<bool> g_enabled{true};

enum class Op : std::uint8_t { kAdd, kMul, kMad, kMov, kAnd, kOr, kXor, kShl };

// Four lanes at a time in GCC/Clang vector types. They move to and from the GRF through memcpy, which the compilers
// turn into plain unaligned vector loads and stores: a register region may start at any dword, and clang keeps the
// vector type's 16-byte alignment despite aligned(4) (fuzz_eu found a misaligned store through a cast pointer).
template <typename T>
struct Vec;
template <>
struct Vec<float> {
  using type = float __attribute__((vector_size(16), may_alias, aligned(4)));
};
template <>
struct Vec<std::int32_t> {
  using type = std::int32_t __attribute__((vector_size(16), may_alias, aligned(4)));
};
template <>
struct Vec<std::uint32_t> {
  using type = std::uint32_t __attribute__((vector_size(16), may_alias, aligned(4)));
};

template <typename T>
inline typename Vec<T>::type load(const std::uint8_t* grf, const FastOp& op, unsigned i, unsigned chunk) {
  using V = typename Vec<T>::type;
  if (i == 1 && op.src1_immediate) {
    T v;
    std::memcpy(&v, &op.imm, sizeof v);
    return V{v, v, v, v};
  }
  if ((op.scalar >> i & 1U) != 0) {
    T v;
    std::memcpy(&v, grf + op.src[i], sizeof v);
    return V{v, v, v, v};
  }
  V v;
  std::memcpy(&v, grf + op.src[i] + 16 * chunk, sizeof v);
  return v;
}

// The first NaN source of each lane (src0, then src1), quieted, where one is a NaN: what the generic interpreter
// returns (executor.cpp first_nan), whichever operand order the compiler gave the host instruction. For integer types
// nothing is a NaN. A mad applies it to (src1, src2) and then to src0, which comes first.
template <typename T, typename V>
V first_nan(V r, V a, V b) {
  if constexpr (std::is_same_v<T, float>) {
    using M = typename Vec<std::int32_t>::type;
    const M quiet = {0x00400000, 0x00400000, 0x00400000, 0x00400000};
    // NaN lanes: the one value unequal to itself.
    const M nan_a = reinterpret_cast<M>(a != a);  // NOLINT(misc-redundant-expression)
    const M nan_b = reinterpret_cast<M>(b != b);  // NOLINT(misc-redundant-expression)
    M bits = reinterpret_cast<M>(r);
    bits = (bits & ~nan_b) | ((reinterpret_cast<M>(b) | quiet) & nan_b);
    bits = (bits & ~nan_a) | ((reinterpret_cast<M>(a) | quiet) & nan_a);
    return reinterpret_cast<V>(bits);
  } else {
    return r;
  }
}

// All sources of the instruction are read before its destination is written (the hardware's order): a destination
// equal to a source is then safe.
template <Op kOp, typename T, unsigned N>
void run(ThreadState& thread, const FastOp& op) {
  using V = typename Vec<T>::type;
  std::uint8_t* grf = thread.grf.data();
  V result[N / 4];
  for (unsigned c = 0; c < N / 4; ++c) {
    const V a = load<T>(grf, op, 0, c);
    if constexpr (kOp == Op::kMov) {
      result[c] = a;
    } else {
      const V b = load<T>(grf, op, 1, c);
      if constexpr (kOp == Op::kAdd) {
        result[c] = first_nan<T>(a + b, a, b);
      } else if constexpr (kOp == Op::kMul) {
        result[c] = first_nan<T>(a * b, a, b);
      } else if constexpr (kOp == Op::kMad) {
        const V m = load<T>(grf, op, 2, c);
        for (unsigned k = 0; k < 4; ++k) result[c][k] = std::fma(b[k], m[k], a[k]);  // src0 + src1 * src2, fused
        result[c] = first_nan<T>(first_nan<T>(result[c], b, m), a, a);
      } else if constexpr (kOp == Op::kAnd) {
        result[c] = a & b;
      } else if constexpr (kOp == Op::kOr) {
        result[c] = a | b;
      } else if constexpr (kOp == Op::kXor) {
        result[c] = a ^ b;
      } else {
        result[c] = a << (b & 31U);
      }
    }
  }
  for (unsigned c = 0; c < N / 4; ++c) std::memcpy(grf + op.dst + 16 * c, &result[c], sizeof result[c]);
}

// cmp: all ones / zero into a dword destination (unless null) and one flag bit per channel; an unordered (NaN)
// comparison is false except for "not equal", as the generic interpreter has it.
template <typename T, unsigned N, unsigned kCond>
void compare(ThreadState& thread, const FastOp& op) {
  using V = typename Vec<T>::type;
  using M = typename Vec<std::int32_t>::type;
  std::uint8_t* grf = thread.grf.data();
  M out[N / 4];
  std::uint32_t bits = 0;
  for (unsigned c = 0; c < N / 4; ++c) {
    const V a = load<T>(grf, op, 0, c);
    const V b = load<T>(grf, op, 1, c);
    if constexpr (kCond == 1) {
      out[c] = reinterpret_cast<M>(a == b);
    } else if constexpr (kCond == 2) {
      out[c] = reinterpret_cast<M>(a != b);
    } else if constexpr (kCond == 3) {
      out[c] = reinterpret_cast<M>(a > b);
    } else if constexpr (kCond == 4) {
      out[c] = reinterpret_cast<M>(a >= b);
    } else if constexpr (kCond == 5) {
      out[c] = reinterpret_cast<M>(a < b);
    } else {
      out[c] = reinterpret_cast<M>(a <= b);
    }
    for (unsigned k = 0; k < 4; ++k) bits |= static_cast<std::uint32_t>(out[c][k] & 1) << (4 * c + k);
  }
  if (!op.dst_null) {
    for (unsigned c = 0; c < N / 4; ++c) std::memcpy(grf + op.dst + 16 * c, &out[c], sizeof out[c]);
  }
  constexpr std::uint32_t kMask = N == 32 ? 0xFFFFFFFFU : (1U << N) - 1;
  std::uint32_t& flag = thread.flags[op.flag_word];
  flag = (flag & ~(kMask << op.flag_shift)) | bits << op.flag_shift;
}

template <typename T, unsigned N>
FastOp::Fn compare_fn(unsigned cond) {
  switch (cond) {
    case 1:
      return compare<T, N, 1>;
    case 2:
      return compare<T, N, 2>;
    case 3:
      return compare<T, N, 3>;
    case 4:
      return compare<T, N, 4>;
    case 5:
      return compare<T, N, 5>;
    case 6:
      return compare<T, N, 6>;
    default:
      return nullptr;
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// mad with the host's vector FMA (a fused multiply-add is exact, so the result equals the library fma's).
__attribute__((target("avx2,fma"))) inline __m256 mad_source(const std::uint8_t* grf, const FastOp& op, unsigned i,
                                                             unsigned chunk) {
  const auto* p = reinterpret_cast<const float*>(grf + op.src[i]);
  return (op.scalar >> i & 1U) != 0 ? _mm256_broadcast_ss(p) : _mm256_loadu_ps(p + 8 * chunk);
}

// first_nan for eight floats: the first NaN of src0, src1, src2 (pass a source twice for two), quieted.
__attribute__((target("avx2,fma"))) inline __m256 first_nan_ps(__m256 r, __m256 a, __m256 b, __m256 c) {
  const __m256 quiet = _mm256_castsi256_ps(_mm256_set1_epi32(0x00400000));
  r = _mm256_blendv_ps(r, _mm256_or_ps(c, quiet), _mm256_cmp_ps(c, c, _CMP_UNORD_Q));
  r = _mm256_blendv_ps(r, _mm256_or_ps(b, quiet), _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
  return _mm256_blendv_ps(r, _mm256_or_ps(a, quiet), _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

// The same for four doubles.
__attribute__((target("avx2,fma"))) inline __m256d first_nan_pd(__m256d r, __m256d a, __m256d b, __m256d c) {
  const __m256d quiet = _mm256_castsi256_pd(_mm256_set1_epi64x(0x0008000000000000LL));
  r = _mm256_blendv_pd(r, _mm256_or_pd(c, quiet), _mm256_cmp_pd(c, c, _CMP_UNORD_Q));
  r = _mm256_blendv_pd(r, _mm256_or_pd(b, quiet), _mm256_cmp_pd(b, b, _CMP_UNORD_Q));
  return _mm256_blendv_pd(r, _mm256_or_pd(a, quiet), _mm256_cmp_pd(a, a, _CMP_UNORD_Q));
}

template <unsigned N>
__attribute__((target("avx2,fma"))) void run_mad_fma(ThreadState& thread, const FastOp& op) {
  std::uint8_t* grf = thread.grf.data();
  __m256 result[N / 8];
  for (unsigned c = 0; c < N / 8; ++c) {
    const __m256 a = mad_source(grf, op, 0, c), b = mad_source(grf, op, 1, c), m = mad_source(grf, op, 2, c);
    result[c] = first_nan_ps(_mm256_fmadd_ps(b, m, a), a, b, m);
  }
  for (unsigned c = 0; c < N / 8; ++c) _mm256_storeu_ps(reinterpret_cast<float*>(grf + op.dst) + 8 * c, result[c]);
}
bool host_has_fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
// CPUID leaf 1, ECX bit 29 (clang's __builtin_cpu_supports has no "f16c").
bool host_has_f16c() {
  static const bool has = [] {  // once: CPUID leaves a virtual machine
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return host_has_fma() && __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
  }();
  return has;
}

// Half precision as the generic interpreter computes it (Step::load, Step::store): each source converted to float
// exactly, flushed to a signed zero below 2^-14 unless cr0 preserves HF denormals, the operation in float (a mad
// fused), the result rounded to nearest even into HF, and a denormal result flushed to a signed zero unless preserved.
// The host's F16C conversions are exact and round to nearest even as float_to_half does; the generic interpreter's
// results are bit for bit the same (tests/test_eu_exec.cpp), NaNs included. Products and sums of halves are never
// float denormals, so the host's flush-to-zero mode does not matter.
__attribute__((target("avx2,fma,f16c"))) inline __m256 half_source(const std::uint8_t* grf, const FastOp& op,
                                                                   unsigned i, unsigned chunk, bool preserve) {
  __m128i h;
  if (i == 1 && op.src1_immediate) {
    h = _mm_set1_epi16(static_cast<short>(op.imm & 0xFFFFU));
  } else if ((op.scalar >> i & 1U) != 0) {
    std::uint16_t v;
    std::memcpy(&v, grf + op.src[i], sizeof v);
    h = _mm_set1_epi16(static_cast<short>(v));
  } else {
    h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(grf + op.src[i] + 16 * chunk));
  }
  __m256 f = _mm256_cvtph_ps(h);
  if (!preserve) {
    const __m256 sign = _mm256_set1_ps(-0.0F);
    const __m256 tiny = _mm256_cmp_ps(_mm256_andnot_ps(sign, f), _mm256_set1_ps(6.103515625e-05F), _CMP_LT_OQ);
    f = _mm256_blendv_ps(f, _mm256_and_ps(f, sign), tiny);
  }
  return f;
}

template <Op kOp, unsigned N>
__attribute__((target("avx2,fma,f16c"))) void run_half(ThreadState& thread, const FastOp& op) {
  std::uint8_t* grf = thread.grf.data();
  const bool preserve = (thread.cr0[0] & cr0::kFp16DenormPreserve) != 0;
  __m128i result[N / 8];
  for (unsigned c = 0; c < N / 8; ++c) {
    const __m256 a = half_source(grf, op, 0, c, preserve);
    const __m256 b = half_source(grf, op, 1, c, preserve);
    __m256 r;
    if constexpr (kOp == Op::kAdd) {
      r = first_nan_ps(_mm256_add_ps(a, b), a, b, b);
    } else if constexpr (kOp == Op::kMul) {
      r = first_nan_ps(_mm256_mul_ps(a, b), a, b, b);
    } else {
      const __m256 m = half_source(grf, op, 2, c, preserve);
      r = first_nan_ps(_mm256_fmadd_ps(b, m, a), a, b, m);  // src0 + src1 * src2, fused
    }
    __m128i h = _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    if (!preserve) {  // a zero exponent (denormal or zero) keeps only its sign
      const __m128i denormal = _mm_cmpeq_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7C00)), _mm_setzero_si128());
      h = _mm_blendv_epi8(h, _mm_and_si128(h, _mm_set1_epi16(static_cast<short>(0x8000))), denormal);
    }
    result[c] = h;
  }
  for (unsigned c = 0; c < N / 8; ++c) std::memcpy(grf + op.dst + 16 * c, &result[c], 16);
}

// Double precision: four lanes at a time, the host's arithmetic (its denormal mode is cr0's when the form runs).
__attribute__((target("avx2,fma"))) inline __m256d double_source(const std::uint8_t* grf, const FastOp& op, unsigned i,
                                                                 unsigned chunk) {
  const auto* p = reinterpret_cast<const double*>(grf + op.src[i]);
  return (op.scalar >> i & 1U) != 0 ? _mm256_broadcast_sd(p) : _mm256_loadu_pd(p + 4 * chunk);
}

template <Op kOp, unsigned N>
__attribute__((target("avx2,fma"))) void run_double(ThreadState& thread, const FastOp& op) {
  std::uint8_t* grf = thread.grf.data();
  __m256d result[N / 4];
  for (unsigned c = 0; c < N / 4; ++c) {
    const __m256d a = double_source(grf, op, 0, c);
    const __m256d b = double_source(grf, op, 1, c);
    if constexpr (kOp == Op::kAdd) {
      result[c] = first_nan_pd(_mm256_add_pd(a, b), a, b, b);
    } else if constexpr (kOp == Op::kMul) {
      result[c] = first_nan_pd(_mm256_mul_pd(a, b), a, b, b);
    } else {
      const __m256d m = double_source(grf, op, 2, c);
      result[c] = first_nan_pd(_mm256_fmadd_pd(b, m, a), a, b, m);  // src0 + src1 * src2, fused
    }
  }
  for (unsigned c = 0; c < N / 4; ++c) _mm256_storeu_pd(reinterpret_cast<double*>(grf + op.dst) + 4 * c, result[c]);
}

template <unsigned N>
FastOp::Fn half_fn(unsigned opcode) {
  if (!host_has_f16c()) return nullptr;
  switch (opcode) {
    case 64:
      return run_half<Op::kAdd, N>;
    case 65:
      return run_half<Op::kMul, N>;
    case 91:
      return run_half<Op::kMad, N>;
    default:
      return nullptr;
  }
}

template <unsigned N>
FastOp::Fn double_fn(unsigned opcode) {
  if (!host_has_fma()) return nullptr;
  switch (opcode) {
    case 64:
      return run_double<Op::kAdd, N>;
    case 65:
      return run_double<Op::kMul, N>;
    case 91:
      return run_double<Op::kMad, N>;
    default:
      return nullptr;
  }
}
#else
template <unsigned N>
FastOp::Fn half_fn(unsigned) {
  return nullptr;
}
template <unsigned N>
FastOp::Fn double_fn(unsigned) {
  return nullptr;
}
#endif

template <unsigned N>
FastOp::Fn float_fn(unsigned opcode) {
  switch (opcode) {
    case 64:
      return run<Op::kAdd, float, N>;
    case 65:
      return run<Op::kMul, float, N>;
    case 91:
#if defined(__x86_64__) && defined(__GNUC__)
      if (host_has_fma()) return run_mad_fma<N>;
#endif
      return run<Op::kMad, float, N>;
    default:
      return nullptr;
  }
}

template <unsigned N>
FastOp::Fn dword_fn(unsigned opcode) {
  switch (opcode) {
    case 1:
      return run<Op::kMov, std::uint32_t, N>;
    case 5:
      return run<Op::kAnd, std::uint32_t, N>;
    case 6:
      return run<Op::kOr, std::uint32_t, N>;
    case 7:
      return run<Op::kXor, std::uint32_t, N>;
    case 9:
      return run<Op::kShl, std::uint32_t, N>;
    case 64:
      return run<Op::kAdd, std::uint32_t, N>;
    case 65:
      return run<Op::kMul, std::uint32_t, N>;  // the low 32 bits of the product
    default:
      return nullptr;
  }
}

bool is_dword(DataType t) { return t == DataType::kD || t == DataType::kUd; }

// A direct GRF source read as `exec_size` consecutive elements (contiguous) or as one element (scalar); 0 if neither.
int source_shape(const Operand& o, unsigned exec_size, bool ternary) {
  if (o.file != RegFile::kGrf || o.indirect || o.abs || o.negate) return 0;
  if (ternary) return o.replicate ? 2 : 1;
  const Region& r = o.region;
  if (r.vxh) return 0;
  if (r.vstride == 0 && r.hstride == 0) return 2;
  if (r.hstride == 1 && (r.vstride == r.width || r.width >= exec_size)) return 1;
  return 0;
}

}  // namespace

void set_fast_paths_enabled(bool enabled) { g_enabled = enabled; }
bool fast_paths_enabled() { return g_enabled; }

FastOp plan_fast_op(const DecodedInstruction& d) {
  FastOp op;
  if (d.op == nullptr || d.align16 != (d.op->op_class == OpClass::kTernary)) return op;
  if (d.exec_size != 8 && d.exec_size != 16) return op;
  const bool is_cmp = d.op->number == 16;
  if (d.pred_ctrl != 0 || d.saturate || d.acc_wr_en || (d.cond_mod != 0 && !is_cmp)) return op;
  if (d.write_mask != 0xF) return op;
  if (is_cmp && (d.cond_mod == 0 || d.cond_mod > 6)) return op;
  op.dst_null = is_cmp && d.dst.file == RegFile::kArf && d.dst.reg == 0;
  if (!op.dst_null && (d.dst.file != RegFile::kGrf || d.dst.indirect || d.dst.region.hstride != 1)) return op;
  const bool ternary = d.op->op_class == OpClass::kTernary;
  // The operation's type: the destination's, or for cmp the sources' (its destination is a dword mask or null).
  const DataType type = is_cmp ? d.src[0].type : d.dst.type;
  const bool all_float = type == DataType::kF;
  const bool all_dword = is_dword(type);
  const bool all_half = type == DataType::kHf;
  const bool all_double = type == DataType::kDf;
  if (!all_float && !all_dword && !all_half && !all_double) return op;
  if ((all_half || all_double) && is_cmp) return op;  // arithmetic only (half_fn, double_fn: add, mul, mad)
  if (is_cmp && !op.dst_null && !is_dword(d.dst.type)) return op;
  if (is_cmp && all_dword && d.src[0].type != d.src[1].type && d.src[1].file != RegFile::kImm) return op;
  const unsigned n = d.exec_size;
  const unsigned size = all_half ? 2 : all_double ? 8 : 4;  // bytes per element
  const unsigned bytes = size * n;
  const unsigned dst = d.dst.reg * 32U + d.dst.subreg;
  if (!op.dst_null && dst + bytes > 4096) return op;
  if (dst % size != 0) return op;  // whole elements (the vector accesses assume it)
  for (unsigned i = 0; i < d.sources; ++i) {
    const Operand& s = d.src[i];
    if (all_dword ? !is_dword(s.type) : s.type != type) return op;
    if (i == 1 && s.file == RegFile::kImm && !ternary) {
      if (all_double) return op;  // a 64-bit immediate: not kept in a fast form
      // A signed and an unsigned dword compare differently: the immediate's signedness must match src0's.
      if (is_cmp && all_dword && s.type != d.src[0].type) return op;
      op.src1_immediate = true;
      op.imm = static_cast<std::uint32_t>(s.imm);
      continue;
    }
    const int shape = source_shape(s, n, ternary);
    if (shape == 0) return op;
    const unsigned start = s.reg * 32U + s.subreg;
    if (start + (shape == 2 ? size : bytes) > 4096 || start % size != 0) return op;
    op.src[i] = static_cast<std::uint16_t>(start);
    if (shape == 2) op.scalar |= static_cast<std::uint8_t>(1U << i);
    // Sources are read before the destination is written (the hardware's order too); keep to destinations that
    // coincide with or stay apart from each contiguous source, the cases plainly equal to the generic interpreter.
    if (!op.dst_null && shape == 1 && start != dst && start < dst + bytes && dst < start + bytes) return op;
  }
  if (d.op->op_class == OpClass::kAlu && d.sources > 0 && d.src[0].file == RegFile::kImm) return op;
  if (is_cmp) {
    const unsigned first_flag_bit = d.flag_reg * 32U + d.flag_subreg * 16U + d.channel_offset;
    if (first_flag_bit % 32 + n > 32) return op;
    op.flag_word = static_cast<std::uint8_t>(first_flag_bit / 32 % 2);
    op.flag_shift = static_cast<std::uint8_t>(first_flag_bit % 32);
    op.cond = d.cond_mod;
    if (all_float) {
      op.fn = n == 8 ? compare_fn<float, 8>(d.cond_mod) : compare_fn<float, 16>(d.cond_mod);
    } else if (d.src[0].type == DataType::kD) {
      op.fn = n == 8 ? compare_fn<std::int32_t, 8>(d.cond_mod) : compare_fn<std::int32_t, 16>(d.cond_mod);
    } else {
      op.fn = n == 8 ? compare_fn<std::uint32_t, 8>(d.cond_mod) : compare_fn<std::uint32_t, 16>(d.cond_mod);
    }
  } else if (all_half) {
    op.fn = n == 8 ? half_fn<8>(d.op->number) : half_fn<16>(d.op->number);
  } else if (all_double) {
    op.fn = n == 8 ? double_fn<8>(d.op->number) : double_fn<16>(d.op->number);
  } else {
    op.fn = all_float ? (n == 8 ? float_fn<8>(d.op->number) : float_fn<16>(d.op->number))
                      : (n == 8 ? dword_fn<8>(d.op->number) : dword_fn<16>(d.op->number));
  }
  if (op.fn == nullptr) return op;
  op.mode = all_float    ? fast_mode::kSingle
            : all_half   ? fast_mode::kHalf
            : all_double ? fast_mode::kDouble
                         : fast_mode::kAny;
  op.no_mask = d.no_mask;
  op.channels = static_cast<std::uint32_t>(((std::uint64_t{1} << n) - 1) << d.channel_offset);
  op.dst = static_cast<std::uint16_t>(dst);
  return op;
}

}  // namespace gpuvp::gen::eu
