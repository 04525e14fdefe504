#include "tlm/vc4/qpu/qpu_alu.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "hw/vc4/qpu_isa.h"

namespace gpuvp::vc4::qpu {
namespace {

float to_float(std::uint32_t bits) {
  // The QPU flushes denormal inputs to zero (vc4asm's measurements), keeping the sign.
  if ((bits & 0x7F800000U) == 0) bits &= 0x80000000U;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::uint32_t from_float(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7F800000U) == 0) bits &= 0x80000000U;  // and denormal results
  return bits;
}

bool positive(float f) { return f > 0.0f || (std::isnan(f) && !std::signbit(f)); }

std::int32_t float_to_int(float f) {
  // Truncation toward zero (Mesa's vc4 compiler implements ftrunc as itof(ftoi(x))); saturation and NaN -> 0 are the
  // model's choice (docs/vc4-qpu.md).
  if (std::isnan(f)) return 0;
  if (f >= 2147483648.0f) return std::numeric_limits<std::int32_t>::max();
  if (f < -2147483648.0f) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(f);
}

// Byte-wise operation on the four bytes of a and b.
template <typename F>
std::uint32_t per_byte(std::uint32_t a, std::uint32_t b, F f) {
  std::uint32_t r = 0;
  for (unsigned i = 0; i < 32; i += 8) {
    const unsigned x = (a >> i) & 0xFFU, y = (b >> i) & 0xFFU;
    r |= (static_cast<std::uint32_t>(f(x, y)) & 0xFFU) << i;
  }
  return r;
}

unsigned saturate_byte(int v) { return static_cast<unsigned>(std::clamp(v, 0, 255)); }

}  // namespace

bool add_op_defined(std::uint32_t op) { return op <= kItof || (op >= kAdd && op <= kClz) || op >= kAddV8adds; }

bool add_op_reads_float(std::uint32_t op) { return op >= kFadd && op <= kFtoi; }
bool add_op_writes_float(std::uint32_t op) { return (op >= kFadd && op <= kFmaxabs) || op == kItof; }
bool mul_op_reads_float(std::uint32_t op) { return op == kFmul; }
bool mul_op_writes_float(std::uint32_t op) { return op == kFmul; }

namespace {

// One element's add op; inlined into a loop per op so that the op is chosen once per instruction.
[[gnu::always_inline]] inline AluResult add_one(std::uint32_t op, std::uint32_t a, std::uint32_t b) {
  AluResult r;
  const auto sa = static_cast<std::int32_t>(a), sb = static_cast<std::int32_t>(b);
  const unsigned count = b & 31U;
  switch (op) {
    case kFadd:
    case kFsub: {
      const float f = op == kFadd ? to_float(a) + to_float(b) : to_float(a) - to_float(b);
      r.value = from_float(f);
      r.carry = positive(to_float(r.value));
      break;
    }
    case kFmin:
    case kFmax: {
      const float x = to_float(a), y = to_float(b);
      r.carry = x > y;
      r.value = from_float(op == kFmin ? (r.carry ? y : x) : (r.carry ? x : y));
      break;
    }
    case kFminabs:
    case kFmaxabs: {
      const float x = std::fabs(to_float(a)), y = std::fabs(to_float(b));
      r.carry = x > y;
      r.value = from_float(op == kFminabs ? (r.carry ? y : x) : (r.carry ? x : y));
      break;
    }
    case kFtoi:
      r.value = static_cast<std::uint32_t>(float_to_int(to_float(a)));
      break;
    case kItof:
      r.value = from_float(static_cast<float>(sa));
      break;
    case kAdd: {
      const std::uint64_t sum = std::uint64_t{a} + b;
      r.value = static_cast<std::uint32_t>(sum);
      r.carry = (sum >> 32) != 0;
      const std::int64_t wide = std::int64_t{sa} + sb;
      r.overflow = wide != static_cast<std::int32_t>(r.value);
      break;
    }
    case kSub: {
      r.value = a - b;
      r.carry = a < b;
      const std::int64_t wide = std::int64_t{sa} - sb;
      r.overflow = wide != static_cast<std::int32_t>(r.value);
      break;
    }
    case kShr:
      r.value = a >> count;
      r.carry = count > 0 && ((a >> (count - 1)) & 1U) != 0;
      break;
    case kAsr:
      r.value = static_cast<std::uint32_t>(sa >> count);
      r.carry = count > 0 && ((a >> (count - 1)) & 1U) != 0;
      break;
    case kRor:
      r.value = count == 0 ? a : (a >> count) | (a << (32 - count));
      break;
    case kShl:
      r.value = a << count;
      r.carry = count > 0 && ((a >> (32 - count)) & 1U) != 0;
      break;
    case kMin:
    case kMax:
      r.carry = sa > sb;
      r.value = (op == kMin) == r.carry ? b : a;
      break;
    case kAnd:
      r.value = a & b;
      break;
    case kOr:
      r.value = a | b;
      break;
    case kXor:
      r.value = a ^ b;
      break;
    case kNot:
      r.value = ~a;
      break;
    case kClz: {
      unsigned n = 0;
      while (n < 32 && ((a << n) & 0x80000000U) == 0) ++n;
      r.value = n;
      break;
    }
    case kAddV8adds:
      r.value = per_byte(a, b, [](unsigned x, unsigned y) { return saturate_byte(static_cast<int>(x + y)); });
      break;
    case kAddV8subs:
      r.value = per_byte(
          a, b, [](unsigned x, unsigned y) { return saturate_byte(static_cast<int>(x) - static_cast<int>(y)); });
      break;
    default:  // nop; undefined codes are refused before execution
      break;
  }
  return r;
}

[[gnu::always_inline]] inline AluResult mul_one(std::uint32_t op, std::uint32_t a, std::uint32_t b) {
  AluResult r;
  switch (op) {
    case kFmul:
      r.value = from_float(to_float(a) * to_float(b));
      break;
    case kMul24: {
      const std::uint64_t product = std::uint64_t{a & 0xFFFFFFU} * (b & 0xFFFFFFU);
      r.value = static_cast<std::uint32_t>(product);
      r.carry = product > 0xFFFFFFU;
      break;
    }
    case kV8muld:
      r.value = per_byte(a, b, [](unsigned x, unsigned y) { return (x * y + 127) / 255; });
      break;
    case kV8min:
      r.value = per_byte(a, b, [](unsigned x, unsigned y) { return std::min(x, y); });
      break;
    case kV8max:
      r.value = per_byte(a, b, [](unsigned x, unsigned y) { return std::max(x, y); });
      break;
    case kMulV8adds:
      r.value = per_byte(a, b, [](unsigned x, unsigned y) { return saturate_byte(static_cast<int>(x + y)); });
      break;
    case kMulV8subs:
      r.value = per_byte(
          a, b, [](unsigned x, unsigned y) { return saturate_byte(static_cast<int>(x) - static_cast<int>(y)); });
      break;
    default:
      break;
  }
  return r;
}

template <std::uint32_t kOp, bool kMul>
void lanes(const Vector& a, const Vector& b, LaneResults& out) {
  for (unsigned i = 0; i < 16; ++i) {
    const AluResult r = kMul ? mul_one(kOp, a[i], b[i]) : add_one(kOp, a[i], b[i]);
    out.value[i] = r.value;
    out.carry[i] = r.carry;
    out.overflow[i] = r.overflow;
  }
}

}  // namespace

AluResult add_alu(std::uint32_t op, std::uint32_t a, std::uint32_t b) { return add_one(op, a, b); }
AluResult mul_alu(std::uint32_t op, std::uint32_t a, std::uint32_t b) { return mul_one(op, a, b); }

void add_alu(std::uint32_t op, const Vector& a, const Vector& b, LaneResults& out) {
  switch (op) {
#define GPUVP_QPU_ADD_OP(code)     \
  case code:                       \
    lanes<code, false>(a, b, out); \
    break;
    GPUVP_QPU_ADD_OP(kFadd)
    GPUVP_QPU_ADD_OP(kFsub)
    GPUVP_QPU_ADD_OP(kFmin)
    GPUVP_QPU_ADD_OP(kFmax)
    GPUVP_QPU_ADD_OP(kFminabs)
    GPUVP_QPU_ADD_OP(kFmaxabs)
    GPUVP_QPU_ADD_OP(kFtoi)
    GPUVP_QPU_ADD_OP(kItof)
    GPUVP_QPU_ADD_OP(kAdd)
    GPUVP_QPU_ADD_OP(kSub)
    GPUVP_QPU_ADD_OP(kShr)
    GPUVP_QPU_ADD_OP(kAsr)
    GPUVP_QPU_ADD_OP(kRor)
    GPUVP_QPU_ADD_OP(kShl)
    GPUVP_QPU_ADD_OP(kMin)
    GPUVP_QPU_ADD_OP(kMax)
    GPUVP_QPU_ADD_OP(kAnd)
    GPUVP_QPU_ADD_OP(kOr)
    GPUVP_QPU_ADD_OP(kXor)
    GPUVP_QPU_ADD_OP(kNot)
    GPUVP_QPU_ADD_OP(kClz)
    GPUVP_QPU_ADD_OP(kAddV8adds)
    GPUVP_QPU_ADD_OP(kAddV8subs)
#undef GPUVP_QPU_ADD_OP
    default:  // nop
      out = LaneResults{};
      break;
  }
}

void mul_alu(std::uint32_t op, const Vector& a, const Vector& b, LaneResults& out) {
  switch (op) {
    case kFmul:
      lanes<kFmul, true>(a, b, out);
      break;
    case kMul24:
      lanes<kMul24, true>(a, b, out);
      break;
    case kV8muld:
      lanes<kV8muld, true>(a, b, out);
      break;
    case kV8min:
      lanes<kV8min, true>(a, b, out);
      break;
    case kV8max:
      lanes<kV8max, true>(a, b, out);
      break;
    case kMulV8adds:
      lanes<kMulV8adds, true>(a, b, out);
      break;
    case kMulV8subs:
      lanes<kMulV8subs, true>(a, b, out);
      break;
    default:  // nop
      out = LaneResults{};
      break;
  }
}

std::uint16_t float_to_half(std::uint32_t bits) {
  const std::uint32_t sign = (bits >> 16) & 0x8000U;
  const int exponent = static_cast<int>((bits >> 23) & 0xFFU);
  std::uint32_t mantissa = bits & 0x7FFFFFU;
  if (exponent == 0xFF) return static_cast<std::uint16_t>(sign | 0x7C00U | (mantissa != 0 ? 0x200U : 0));
  int e = exponent - 127 + 15;
  if (e >= 0x1F) return static_cast<std::uint16_t>(sign | 0x7C00U);  // overflow: infinity
  if (e <= 0) {
    // A half denormal (or zero): shift the mantissa with its implicit one, rounding to nearest even.
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mantissa |= 0x800000U;
    const unsigned shift = static_cast<unsigned>(14 - e);
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1U << shift) - 1), halfway = 1U << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1U) != 0)) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1FFFU;
  if (rest > 0x1000U || (rest == 0x1000U && (half & 1U) != 0)) ++half;  // may carry into the exponent: still right
  return static_cast<std::uint16_t>(sign | half);
}

std::uint32_t half_to_float(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000U) << 16;
  const unsigned exponent = (half >> 10) & 0x1FU;
  std::uint32_t mantissa = half & 0x3FFU;
  if (exponent == 0x1F) return sign | 0x7F800000U | (mantissa << 13);
  if (exponent == 0) {
    if (mantissa == 0) return sign;
    int e = -1;
    do {
      mantissa <<= 1;
      ++e;
    } while ((mantissa & 0x400U) == 0);
    return sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mantissa & 0x3FFU) << 13);
  }
  return sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
}

std::uint32_t unpack_value(std::uint32_t code, std::uint32_t value, bool to_float_input) {
  switch (code) {
    case kUnpack16a:
    case kUnpack16b: {
      const auto half = static_cast<std::uint16_t>(code == kUnpack16a ? value : value >> 16);
      if (to_float_input) return half_to_float(half);
      return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(half)));
    }
    case kUnpack8dRep: {
      const std::uint32_t byte = value >> 24;
      return byte * 0x01010101U;
    }
    case kUnpack8a:
    case kUnpack8a + 1:
    case kUnpack8a + 2:
    case kUnpack8a + 3: {
      const std::uint32_t byte = (value >> (8 * (code - kUnpack8a))) & 0xFFU;
      return to_float_input ? from_float(static_cast<float>(byte) / 255.0f) : byte;
    }
    default:
      return value;
  }
}

std::uint32_t pack_regfile_a(std::uint32_t code, std::uint32_t value, std::uint32_t old, bool is_float,
                             bool overflowed) {
  const auto sv = static_cast<std::int32_t>(value);
  const auto half_of = [&](bool saturate) -> std::uint32_t {
    if (is_float) return float_to_half(value);
    return saturate ? static_cast<std::uint32_t>(std::clamp(sv, -32768, 32767)) & 0xFFFFU : value & 0xFFFFU;
  };
  const auto byte_of = [&](bool saturate) -> std::uint32_t {
    return saturate ? static_cast<std::uint32_t>(std::clamp(sv, 0, 255)) : value & 0xFFU;
  };
  switch (code) {
    case kPack16a:
    case kPack16aSat:
      return (old & 0xFFFF0000U) | half_of(code == kPack16aSat);
    case kPack16b:
    case kPack16bSat:
      return (old & 0x0000FFFFU) | (half_of(code == kPack16bSat) << 16);
    case kPack8888:
    case kPack8888Sat:
      return byte_of(code == kPack8888Sat) * 0x01010101U;
    case kPack32Sat:
      if (!overflowed) return value;
      // The true result had the other sign from the wrapped one.
      return sv < 0 ? 0x7FFFFFFFU : 0x80000000U;
    case kPack8a:
    case kPack8a + 1:
    case kPack8a + 2:
    case kPack8a + 3: {
      const unsigned shift = 8 * (code - kPack8a);
      return (old & ~(0xFFU << shift)) | (byte_of(false) << shift);
    }
    case kPack8aSat:
    case kPack8aSat + 1:
    case kPack8aSat + 2:
    case kPack8aSat + 3: {
      const unsigned shift = 8 * (code - kPack8aSat);
      return (old & ~(0xFFU << shift)) | (byte_of(true) << shift);
    }
    default:
      return value;
  }
}

std::uint32_t pack_mul_colour(std::uint32_t code, std::uint32_t value, std::uint32_t old) {
  // [0, 1] to 0..255, rounded to nearest (the hardware's rounding is not published: docs/vc4-qpu.md).
  const float f = to_float(value);
  const float clamped = std::isnan(f) ? 0.0f : std::clamp(f, 0.0f, 1.0f);
  const auto byte = static_cast<std::uint32_t>(std::lround(clamped * 255.0f));
  if (code == kPack8888) return byte * 0x01010101U;
  if (code >= kPack8a && code <= kPack8a + 3) {
    const unsigned shift = 8 * (code - kPack8a);
    return (old & ~(0xFFU << shift)) | (byte << shift);
  }
  return value;  // 0: none; other codes are refused before execution
}

std::uint32_t sfu(std::uint32_t write_address, std::uint32_t value) {
  const double x = to_float(value);
  double r = 0;
  switch (write_address) {
    case kWriteSfuRecip:
      r = 1.0 / x;  // 1/0 = inf (py-videocore's appendix)
      break;
    case kWriteSfuRecipSqrt:
      r = 1.0 / std::sqrt(std::fabs(x));
      break;
    case kWriteSfuExp:
      r = std::exp2(x);
      break;
    default:  // log
      r = std::log2(std::fabs(x));
      break;
  }
  return from_float(static_cast<float>(r));
}

}  // namespace gpuvp::vc4::qpu
