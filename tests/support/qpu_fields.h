// QPU instructions built field by field from the encoding's bit positions (../shared/docs/reference-vc4-qpu.md
// section 1.2), independently of hw/vc4/qpu_isa.h's encoders: the oracle of the disassembler's and the assembler's
// tests. Every field defaults to 0 except the signal (1: none), the write addresses (39: nop) and the read addresses
// (kRaddr: 0 for the disassembler's tests, 39 for the assembler's, which writes nop for an unused read).
#pragma once

#include <cstdint>

namespace gpuvp::test {

constexpr std::uint64_t at(std::uint64_t value, unsigned lo) { return value << lo; }

template <std::uint32_t kRaddr>
struct AluFields {
  std::uint32_t sig = 1, unpack = 0, pm = 0, pack = 0, cond_add = 0, cond_mul = 0, sf = 0, ws = 0, waddr_add = 39,
                waddr_mul = 39, op_mul = 0, op_add = 0, raddr_a = kRaddr, raddr_b = kRaddr, add_a = 0, add_b = 0,
                mul_a = 0, mul_b = 0;

  std::uint64_t encode() const {
    return at(sig, 60) | at(unpack, 57) | at(pm, 56) | at(pack, 52) | at(cond_add, 49) | at(cond_mul, 46) | at(sf, 45) |
           at(ws, 44) | at(waddr_add, 38) | at(waddr_mul, 32) | at(op_mul, 29) | at(op_add, 24) | at(raddr_a, 18) |
           at(raddr_b, 12) | at(add_a, 9) | at(add_b, 6) | at(mul_a, 3) | at(mul_b, 0);
  }
};

struct LoadImmFields {
  std::uint32_t mode = 0, pm = 0, pack = 0, cond_add = 0, cond_mul = 0, sf = 0, ws = 0, waddr_add = 39, waddr_mul = 39,
                imm = 0;

  std::uint64_t encode() const {
    return at(14, 60) | at(mode, 57) | at(pm, 56) | at(pack, 52) | at(cond_add, 49) | at(cond_mul, 46) | at(sf, 45) |
           at(ws, 44) | at(waddr_add, 38) | at(waddr_mul, 32) | imm;
  }
};

struct BranchFields {
  std::uint32_t cond = 15, rel = 0, reg = 0, raddr_a = 0, ws = 0, waddr_add = 39, waddr_mul = 39, imm = 0;

  std::uint64_t encode() const {
    return at(15, 60) | at(cond, 52) | at(rel, 51) | at(reg, 50) | at(raddr_a, 45) | at(ws, 44) | at(waddr_add, 38) |
           at(waddr_mul, 32) | imm;
  }
};

}  // namespace gpuvp::test
