// A QPU register's value: 16 elements of 32 bits (the QPU's 16-way SIMD, four lanes over four cycles).
#pragma once

#include <array>
#include <cstdint>

namespace gpuvp::vc4::qpu {

using Vector = std::array<std::uint32_t, 16>;

}  // namespace gpuvp::vc4::qpu
