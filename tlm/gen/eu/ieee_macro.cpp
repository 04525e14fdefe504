#include "tlm/gen/eu/ieee_macro.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace gpuvp::gen::eu {
namespace {

// Exponent window (ilogb) of the values that go through the refinement without the hardware's extra exponent bits:
// residuals such as a - b * q or 1 - b * y are about 2^-53 of the values they refine and are needed to 53 bits, so
// those values (a, 1 / b, a / b) stay above 2^-900, 2^122 above the smallest normal number (2^-1022); a quotient stays
// 2^3 below overflow. Outside it the macro exits early (with exactly the result; only the flag differs from the
// hardware).
constexpr int kLowestExponent = -900;
constexpr int kHighestQuotientExponent = 1020;

// A positive finite double as integer * 2^exponent (the integer has at most 53 bits).
struct Exact {
  std::uint64_t mantissa;
  int exponent;
};

Exact exact(double value) {
  int e = 0;
  const double f = std::frexp(value, &e);  // value = f * 2^e, f in [0.5, 1)
  return {static_cast<std::uint64_t>(std::ldexp(f, 53)), e - 53};
}

// The midpoint of two adjacent positive doubles, exactly (at most 55 bits).
Exact midpoint(double x, double y) {
  const Exact a = exact(x);
  const Exact b = exact(y);
  const int low = std::min(a.exponent, b.exponent);
  return {(a.mantissa << (a.exponent - low)) + (b.mantissa << (b.exponent - low)), low - 1};
}

// Sign of a * m^power - 1 (power 1 or 2), exactly: a 192-bit product compared with a power of two.
int compare_with_one(const Exact& a, const Exact& m, int power) {
  using U128 = unsigned __int128;
  std::array<std::uint64_t, 3> p{};
  if (power == 1) {
    const U128 product = U128{a.mantissa} * m.mantissa;
    p = {static_cast<std::uint64_t>(product), static_cast<std::uint64_t>(product >> 64), 0};
  } else {
    const U128 square = U128{m.mantissa} * m.mantissa;  // <= 110 bits
    const U128 low = U128{a.mantissa} * static_cast<std::uint64_t>(square);
    const U128 high = U128{a.mantissa} * static_cast<std::uint64_t>(square >> 64) + (low >> 64);
    p = {static_cast<std::uint64_t>(low), static_cast<std::uint64_t>(high), static_cast<std::uint64_t>(high >> 64)};
  }
  const int threshold = -(a.exponent + power * m.exponent);  // a * m^power = p * 2^-threshold
  if (threshold < 0) return 1;
  if (threshold >= 192) return -1;
  int top = -1;
  for (int limb = 2; limb >= 0 && top < 0; --limb) {
    if (p[limb] != 0) top = limb * 64 + 63 - __builtin_clzll(p[limb]);
  }
  if (top != threshold) return top > threshold ? 1 : -1;
  bool lower_bits = (p[threshold / 64] & ((std::uint64_t{1} << (threshold % 64)) - 1)) != 0;
  for (int limb = 0; limb < threshold / 64; ++limb) lower_bits = lower_bits || p[limb] != 0;
  return lower_bits ? 1 : 0;
}

// The double nearest to the root y of a * y^power = 1, from an estimate within a few ulps. No root lies on a midpoint
// (it would make a a dyadic power of an odd 55-bit number), so there are no ties.
double correctly_rounded_root(double a, double estimate, int power) {
  const Exact ea = exact(a);
  double y = estimate;
  for (int step = 0; step < 8; ++step) {
    const double up = std::nextafter(y, INFINITY);
    const double down = std::nextafter(y, 0.0);
    if (compare_with_one(ea, midpoint(y, up), power) < 0) {
      y = up;
    } else if (compare_with_one(ea, midpoint(down, y), power) > 0) {
      y = down;
    } else {
      break;
    }
  }
  return y;
}

bool special(double x) { return !std::isnormal(x); }  // NaN, infinities, zeros, denormals

}  // namespace

double correctly_rounded_reciprocal(double b) { return correctly_rounded_root(b, 1.0 / b, 1); }

double correctly_rounded_reciprocal_sqrt(double a) { return correctly_rounded_root(a, 1.0 / std::sqrt(a), 2); }

MacroStart divide_macro_start(double a, double b) {
  if (special(a) || special(b)) return {true, a / b};
  const int ea = std::ilogb(a);
  const int eb = std::ilogb(b);
  if (ea < kLowestExponent || -eb < kLowestExponent || ea - eb < kLowestExponent ||
      ea - eb > kHighestQuotientExponent) {
    return {true, a / b};
  }
  const double y = correctly_rounded_reciprocal(std::fabs(b));
  return {false, std::signbit(b) ? -y : y};
}

MacroStart sqrt_macro_start(double a) {
  if (special(a) || a < 0 || std::ilogb(a) < kLowestExponent) return {true, std::sqrt(a)};
  return {false, correctly_rounded_reciprocal_sqrt(a)};
}

}  // namespace gpuvp::gen::eu
