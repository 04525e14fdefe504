// The QPU's add and mul ALUs on one element, with the carry each op gives, the unpack applied to inputs and the pack
// applied to results, and the SFU's functions. SystemC-free. Semantics: Linux vc4_qpu_defines.h (op codes), the
// vc4asm author's measurements on hardware (maazl/vc4asm doc/instructions.html: carry per op, denormals flushed,
// non-IEEE NaN handling), Mesa's vc4 compiler (ftoi truncates); docs/vc4-qpu.md states each choice where no source
// gives the hardware's behaviour (../shared/docs/reference-vc4-qpu.md sections 1.3-1.6, 2.6).
#pragma once

#include <array>
#include <cstdint>

#include "tlm/vc4/qpu/qpu_vector.h"

namespace gpuvp::vc4::qpu {

struct AluResult {
  std::uint32_t value = 0;
  bool carry = false;
  bool overflow = false;  // an integer add or sub left the signed 32-bit range (for the 32-bit saturating pack)
};

// Whether an op reads (and an unpack converts) floats, and whether its result is a float (for packs).
bool add_op_reads_float(std::uint32_t op);
bool add_op_writes_float(std::uint32_t op);
bool mul_op_reads_float(std::uint32_t op);
bool mul_op_writes_float(std::uint32_t op);
// Whether the op code is defined (add ops 9-11 and 25-29 are not).
bool add_op_defined(std::uint32_t op);

AluResult add_alu(std::uint32_t op, std::uint32_t a, std::uint32_t b);
AluResult mul_alu(std::uint32_t op, std::uint32_t a, std::uint32_t b);

// The same over the 16 elements at once (the op chosen once, not per element: the interpreter's hot path).
struct LaneResults {
  Vector value{};
  std::array<bool, 16> carry{};
  std::array<bool, 16> overflow{};
};
void add_alu(std::uint32_t op, const Vector& a, const Vector& b, LaneResults& out);
void mul_alu(std::uint32_t op, const Vector& a, const Vector& b, LaneResults& out);

// An unpack (qpu_isa.h Unpack) of a value read for an op taking floats (half to float, byte to [0, 1]) or integers
// (half sign-extended, byte zero-extended).
std::uint32_t unpack_value(std::uint32_t code, std::uint32_t value, bool to_float);
// A regfile-A pack (pm = 0, qpu_isa.h PackA) of `value` into `old` (a pack to part of the register keeps the rest).
// `is_float`: the result is a float (16a/16b convert to half); `overflowed`: AluResult::overflow.
std::uint32_t pack_regfile_a(std::uint32_t code, std::uint32_t value, std::uint32_t old, bool is_float,
                             bool overflowed);
// The mul ALU's colour pack (pm = 1: 3 8888, 4-7 8a-8d): a float in [0, 1] to a byte.
std::uint32_t pack_mul_colour(std::uint32_t code, std::uint32_t value, std::uint32_t old);

// The SFU (write addresses 52-55: recip, recipsqrt, exp2, log2) on one element's float bits.
std::uint32_t sfu(std::uint32_t write_address, std::uint32_t value);

// Half <-> float bits (round to nearest even; for 16a/16b packs and unpacks).
std::uint16_t float_to_half(std::uint32_t bits);
std::uint32_t half_to_float(std::uint16_t half);

}  // namespace gpuvp::vc4::qpu
