// Bit-field access on one native (uncompacted) 128-bit Gen8/Gen9 EU instruction. Bit numbers are those of Mesa's
// brw_inst.h (bit 0 is the least significant bit of the first little-endian dword).
#pragma once

#include <array>
#include <cstdint>

namespace gpuvp::gen::eu {

class InstructionBits {
 public:
  explicit InstructionBits(const std::uint8_t* bytes) {
    for (int i = 0; i < 16; ++i) {
      qw_[i / 8] |= static_cast<std::uint64_t>(bytes[i]) << (8 * (i % 8));
    }
  }
  // Bits hi..lo (inclusive, hi - lo < 64); a field may straddle bit 64.
  std::uint64_t field(unsigned hi, unsigned lo) const {
    const unsigned width = hi - lo + 1;
    std::uint64_t value = 0;
    for (unsigned i = 0; i < width; ++i) {
      const unsigned bit = lo + i;
      value |= ((qw_[bit / 64] >> (bit % 64)) & 1U) << i;
    }
    return value;
  }
  bool bit(unsigned n) const { return field(n, n) != 0; }
  std::uint32_t dword(unsigned n) const { return static_cast<std::uint32_t>(qw_[n / 2] >> (32 * (n % 2))); }
  std::uint64_t qword(unsigned n) const { return qw_[n]; }

 private:
  std::array<std::uint64_t, 2> qw_{};
};

}  // namespace gpuvp::gen::eu
