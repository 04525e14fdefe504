// The MI_MATH ALU: executes ALU instruction dwords over an engine's sixteen 64-bit CS_GPR registers
// (docs/gen-command-streamer.md; i915 gt/intel_gpu_commands.h MI_MATH_*; Mesa genxml MI_MATH_ALU_INSTRUCTION).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "hw/gen/mi_commands.h"

namespace gpuvp::gen {

// The instruction encoding (opcodes, operands, encode()): mi::Alu in hw/gen/mi_commands.h.
class MiMathAlu : public mi::Alu {
 public:
  using Gprs = std::array<std::uint64_t, 16>;

  // Executes one ALU instruction. Returns an empty string on success, else the reason it is invalid (unknown
  // opcode or operand); the caller turns that into a command-streamer error.
  std::string execute(std::uint32_t instruction, Gprs& gprs);

  // Resets SRCA, SRCB, ACCU, ZF, CF (each MI_MATH command starts from a clean ALU).
  void reset();

  std::uint64_t srca() const { return srca_; }
  std::uint64_t srcb() const { return srcb_; }
  std::uint64_t accu() const { return accu_; }
  bool zf() const { return zf_; }
  bool cf() const { return cf_; }

 private:
  std::uint64_t srca_ = 0, srcb_ = 0, accu_ = 0;
  bool zf_ = false, cf_ = false;
};

}  // namespace gpuvp::gen
