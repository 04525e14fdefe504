// Hexadecimal numbers in messages, one format everywhere: "0x" and lower-case digits. SystemC-free, so that
// functional cores (MI_MATH, MI_ATOMIC, later ISA decoders) use it too.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace gpuvp::core {

// At least min_digits digits, zero-padded: format_hex(0x1f) is "0x1f", format_hex(0x1f, 8) is "0x0000001f".
inline std::string format_hex(std::uint64_t value, int min_digits = 1) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", min_digits, static_cast<unsigned long long>(value));
  return buf;
}

}  // namespace gpuvp::core
