// Number conversions of the EU as the Gen8/Gen9 hardware performs them: half <-> single with the rounding modes of
// cr0, float -> integer with round-toward-zero and clamping (NaN -> 0), and flushing of denormals. Host floating point
// is IEEE binary32/binary64 (static_assert below), so float and double are the hardware's F and DF.
#pragma once

#include <cstdint>
#include <limits>

namespace gpuvp::gen::eu {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559,
              "the EU model needs IEEE-754 host floating point");

// cr0 rounding modes (Mesa brw_rnd_mode): 0 to nearest even, 1 toward +inf, 2 toward -inf, 3 toward zero.
enum class Rounding : std::uint8_t { kNearestEven = 0, kUp = 1, kDown = 2, kTowardZero = 3 };

float half_to_float(std::uint16_t half);
std::uint16_t float_to_half(float value, Rounding rounding);

// Round-toward-zero conversion clamped to the integer range of `bits` (signed or not); NaN gives 0.
std::int64_t float_to_int(double value, unsigned bits, bool is_signed);

// Denormals become zeros of the same sign (the hardware's flush mode when cr0 does not preserve them).
float flush_denormal(float value);
double flush_denormal(double value);

// Runs host float arithmetic in a rounding mode, and with denormal inputs and results flushed when asked and the host
// can (x86 MXCSR DAZ/FTZ; elsewhere <cfenv> rounding only and flushes() stays false), while the object lives; the
// host's modes come back after.
class HostFloatMode {
 public:
  HostFloatMode(Rounding rounding, bool flush_denormals) { set(rounding, flush_denormals); }
  ~HostFloatMode();
  HostFloatMode(const HostFloatMode&) = delete;
  HostFloatMode& operator=(const HostFloatMode&) = delete;
  void set(Rounding rounding, bool flush_denormals);
  bool flushes() const { return flushes_; }  // host arithmetic flushes float and double denormals itself
  Rounding rounding() const { return rounding_; }

 private:
  unsigned saved_ = 0;
  bool saved_valid_ = false;
  bool flushes_ = false;
  Rounding rounding_ = Rounding::kNearestEven;
};

}  // namespace gpuvp::gen::eu
