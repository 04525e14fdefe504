#include "tlm/gen/eu/float_convert.h"

#include <array>
#include <cfenv>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace gpuvp::gen::eu {
namespace {

constexpr double kHalfMinNormal = 6.103515625e-05;  // 2^-14
constexpr double kHalfMax = 65504.0;

// Rounds a non-negative magnitude to an integer in the given mode, `negative` being the sign of the value it is the
// magnitude of (rounding up a negative value rounds its magnitude down).
double round_magnitude(double q, Rounding rounding, bool negative) {
  const double down = std::floor(q);
  const double frac = q - down;
  switch (rounding) {
    case Rounding::kNearestEven:
      if (frac > 0.5) return down + 1;
      if (frac < 0.5) return down;
      return std::fmod(down, 2.0) == 0.0 ? down : down + 1;
    case Rounding::kTowardZero:
      return down;
    case Rounding::kUp:
      return !negative && frac > 0 ? down + 1 : down;
    case Rounding::kDown:
      return negative && frac > 0 ? down + 1 : down;
  }
  return down;
}

}  // namespace

float half_to_float(std::uint16_t half) {
  const bool negative = (half & 0x8000U) != 0;
  const unsigned exponent = (half >> 10) & 0x1FU;
  const unsigned mantissa = half & 0x3FFU;
  float magnitude;
  if (exponent == 0x1F) {
    if (mantissa == 0) {
      magnitude = std::numeric_limits<float>::infinity();
    } else {
      // Keep the NaN payload in the top mantissa bits, as the wider format does.
      const std::uint32_t bits = 0x7F800000U | (mantissa << 13);
      std::memcpy(&magnitude, &bits, sizeof bits);
    }
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400U), static_cast<int>(exponent) - 25);
  }
  return negative ? -magnitude : magnitude;
}

std::uint16_t float_to_half(float value, Rounding rounding) {
  const bool negative = std::signbit(value);
  const auto sign = static_cast<std::uint16_t>(negative ? 0x8000U : 0U);
  if (std::isnan(value)) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return static_cast<std::uint16_t>(sign | 0x7E00U | ((bits >> 13) & 0x3FFU));
  }
  const double magnitude = std::fabs(static_cast<double>(value));
  if (std::isinf(value)) return static_cast<std::uint16_t>(sign | 0x7C00U);
  // The quantum of the half format at this magnitude; magnitude / quantum is exact in double.
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [0.5, 1)
  const int quantum_exponent = magnitude < kHalfMinNormal ? -24 : exponent - 11;
  const double q = round_magnitude(std::ldexp(magnitude, -quantum_exponent), rounding, negative);
  const double rounded = std::ldexp(q, quantum_exponent);
  if (rounded > kHalfMax) {
    const bool to_infinity = rounding == Rounding::kNearestEven || (rounding == Rounding::kUp && !negative) ||
                             (rounding == Rounding::kDown && negative);
    return static_cast<std::uint16_t>(sign | (to_infinity ? 0x7C00U : 0x7BFFU));
  }
  if (rounded < kHalfMinNormal) return static_cast<std::uint16_t>(sign | static_cast<unsigned>(q));  // denormal or 0
  std::frexp(rounded, &exponent);
  const auto mantissa = static_cast<unsigned>(std::ldexp(rounded, 11 - exponent)) & 0x3FFU;
  return static_cast<std::uint16_t>(sign | static_cast<unsigned>(exponent + 14) << 10 | mantissa);
}

std::int64_t float_to_int(double value, unsigned bits, bool is_signed) {
  if (std::isnan(value)) return 0;
  const double max = is_signed ? std::ldexp(1.0, static_cast<int>(bits) - 1) : std::ldexp(1.0, static_cast<int>(bits));
  const double min = is_signed ? -max : 0.0;
  const double truncated = std::trunc(value);
  if (truncated <= min) {
    return is_signed ? (bits == 64 ? std::numeric_limits<std::int64_t>::min() : static_cast<std::int64_t>(min)) : 0;
  }
  if (truncated >= max) {
    if (bits == 64) {
      return is_signed ? std::numeric_limits<std::int64_t>::max()
                       : static_cast<std::int64_t>(std::numeric_limits<std::uint64_t>::max());
    }
    return static_cast<std::int64_t>(max) - 1;
  }
  if (!is_signed && bits == 64) return static_cast<std::int64_t>(static_cast<std::uint64_t>(truncated));
  return static_cast<std::int64_t>(truncated);
}

float flush_denormal(float value) {
  return std::fpclassify(value) == FP_SUBNORMAL ? std::copysign(0.0F, value) : value;
}

double flush_denormal(double value) {
  return std::fpclassify(value) == FP_SUBNORMAL ? std::copysign(0.0, value) : value;
}

#if defined(__SSE2__)
void HostFloatMode::set(Rounding rounding, bool flush_denormals) {
  const unsigned current = _mm_getcsr();
  if (!saved_valid_) {
    saved_ = current;
    saved_valid_ = true;
  }
  // MXCSR: rounding control in bits 14:13 (0 nearest, 1 down, 2 up, 3 toward zero), FTZ bit 15, DAZ bit 6.
  constexpr std::array<unsigned, 4> kRoundingControl{0U, 2U, 1U, 3U};  // indexed by the cr0 mode
  unsigned csr = current & ~((3U << 13) | (1U << 15) | (1U << 6));
  csr |= kRoundingControl[static_cast<unsigned>(rounding)] << 13;
  if (flush_denormals) csr |= (1U << 15) | (1U << 6);
  _mm_setcsr(csr);
  flushes_ = flush_denormals;
  rounding_ = rounding;
}

HostFloatMode::~HostFloatMode() {
  if (saved_valid_) _mm_setcsr(saved_);
}
#else
void HostFloatMode::set(Rounding rounding, bool /*flush_denormals: done by the caller on these hosts*/) {
  if (!saved_valid_) {
    saved_ = static_cast<unsigned>(std::fegetround());
    saved_valid_ = true;
  }
  constexpr std::array<int, 4> kModes{FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
  std::fesetround(kModes[static_cast<unsigned>(rounding)]);
  flushes_ = false;
  rounding_ = rounding;
}

HostFloatMode::~HostFloatMode() {
  if (saved_valid_) std::fesetround(static_cast<int>(saved_));
}
#endif

}  // namespace gpuvp::gen::eu
