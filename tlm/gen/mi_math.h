// The MI_MATH ALU: executes ALU instruction dwords over an engine's sixteen 64-bit CS_GPR registers
// (docs/gen-command-streamer.md; i915 gt/intel_gpu_commands.h MI_MATH_*; Mesa genxml MI_MATH_ALU_INSTRUCTION).
// An instruction is opcode << 20 | operand1 << 10 | operand2.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace gpuvp::gen {

class MiMathAlu {
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

  // Encoding helpers (for testbenches and the host driver model).
  static constexpr std::uint32_t encode(std::uint32_t opcode, std::uint32_t op1, std::uint32_t op2) {
    return opcode << 20 | op1 << 10 | op2;
  }

  // Opcodes (bits 31:20).
  static constexpr std::uint32_t kNoop = 0x000;
  static constexpr std::uint32_t kLoad = 0x080;
  static constexpr std::uint32_t kLoadInv = 0x480;
  static constexpr std::uint32_t kLoad0 = 0x081;
  static constexpr std::uint32_t kLoad1 = 0x481;
  static constexpr std::uint32_t kAdd = 0x100;
  static constexpr std::uint32_t kSub = 0x101;
  static constexpr std::uint32_t kAnd = 0x102;
  static constexpr std::uint32_t kOr = 0x103;
  static constexpr std::uint32_t kXor = 0x104;
  static constexpr std::uint32_t kStore = 0x180;
  static constexpr std::uint32_t kStoreInv = 0x580;
  // Operands: R0..R15 are 0x00..0x0F.
  static constexpr std::uint32_t kSrcA = 0x20;
  static constexpr std::uint32_t kSrcB = 0x21;
  static constexpr std::uint32_t kAccu = 0x31;
  static constexpr std::uint32_t kZf = 0x32;
  static constexpr std::uint32_t kCf = 0x33;

 private:
  std::uint64_t srca_ = 0, srcb_ = 0, accu_ = 0;
  bool zf_ = false, cf_ = false;
};

}  // namespace gpuvp::gen
