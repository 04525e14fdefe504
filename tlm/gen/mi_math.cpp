#include "tlm/gen/mi_math.h"

#include "tlm/core/format_hex.h"

// Facts this ALU relies on, each with its source:
//
// [F1] Encoding: instruction = opcode << 20 | operand1 << 10 | operand2 (opcode 31:20, operand1 19:10, operand2
//      9:0). Opcodes NOOP 0x000, LOAD 0x080, LOADINV 0x480, LOAD0 0x081, LOAD1 0x481, ADD 0x100, SUB 0x101,
//      AND 0x102, OR 0x103, XOR 0x104, STORE 0x180, STOREINV 0x580; operands R0..R15 = 0x00..0x0F, SRCA 0x20,
//      SRCB 0x21, ACCU 0x31, ZF 0x32, CF 0x33.
//      LNX drivers/gpu/drm/i915/gt/intel_gpu_commands.h (MI_MATH_INSTR, MI_MATH_LOAD..MI_MATH_STOREINV, MI_MATH_REG,
//      MI_MATH_REG_SRCA/SRCB/ACCU/ZF/CF); the Mesa genxml-generated packs GEN8_/GFX75_/GEN10_MI_MATH_ALU_INSTRUCTION
//      list exactly these opcodes and operands for gen8..gen10 (generated from src/intel/genxml/gen*.xml).
// [F2] LOAD/LOADINV op1 is the destination (SRCA or SRCB), op2 the source register; LOAD0/LOAD1 take only op1.
//      LNX intel_gpu_commands.h MI_MATH_LOAD(op1, op2), MI_MATH_LOAD0(op1); usage MI_MATH_LOAD(MI_MATH_REG_SRCA,
//      MI_MATH_REG(n)) in LNX drivers/gpu/drm/i915/i915_perf.c alloc_noa_wait and gt/selftest_*.c.
// [F3] LOADINV loads the bitwise inverse: Mesa src/intel/common/mi_builder.h mi_resolve_invert() materialises an
//      inverted value as LOADINV + ADD 0 + STORE ACCU, and src/intel/common/tests/mi_builder_test.cpp (inot, run on
//      hardware) expects ~value.
// [F4] LOAD1 loads all ones (0xFFFF_FFFF_FFFF_FFFF), not 1: mi_builder.h _mi_math_load_src() emits LOAD1 for an
//      immediate UINT64_MAX and LOAD0 for 0; mi_builder_test.cpp add_imm expects value + mi_imm(-1) == value - 1.
// [F5] ADD: ACCU = SRCA + SRCB, CF = carry out of bit 63. LNX i915_perf.c alloc_noa_wait adds the elapsed delta to
//      ~delay and takes "Carry Flag contains 1" as elapsed > delay (STOREINV CF into the predicate).
// [F6] SUB: ACCU = SRCA - SRCB, CF = borrow (SRCA < SRCB unsigned). LNX i915_perf.c alloc_noa_wait ("carry flag
//      (set to 1 if ts1 < ts0)") and Mesa mi_builder.h mi_ult() = SUB + STORE CF, mi_uge() = SUB + STOREINV CF,
//      checked on hardware by mi_builder_test.cpp ult_uge_ieq_ine.
// [F7] ZF = (ACCU == 0) after ADD/SUB/AND/OR/XOR: mi_builder.h mi_ieq() = SUB + STORE ZF, mi_ine() = SUB + STOREINV
//      ZF, mi_z()/mi_nz() = ADD x, 0 + STORE/STOREINV ZF; hardware-checked by mi_builder_test.cpp ult_uge_ieq_ine and
//      z_nz.
// [F8] STORE of ZF/CF writes all ones (~0) for true and 0 for false to the 64-bit GPR; STOREINV writes the inverse
//      (so ~0 -> 0). mi_builder.h folds immediates as "? ~0ull : 0" for mi_ult/mi_uge/mi_ieq/mi_ine/mi_z/mi_nz and
//      mi_builder_test.cpp compares the GPU's 64-bit results against exactly those folds.
// [F9] AND/OR/XOR: ACCU = SRCA op SRCB, ZF as [F7]. CF is CLEARED. Not confirmed from a hardware-checked source:
//      the only source found is a Mesa developer MI simulator (gen_mi_runner.c, INST(MI_MATH): "ctx->alu.cf = 0" for
//      AND/OR/XOR). Most plausible choice; no known driver reads CF after a logic op.
// [F10] Operand validity beyond the documented uses is not confirmed (no PRM text in the sources). This model:
//      - LOAD/LOADINV: op1 must be SRCA/SRCB; op2 may be R0..R15, ACCU, ZF or CF (drivers only use R0..R15; the
//        ALU-internal registers are accepted as plausible, ZF/CF reading as ~0/0 per [F8]).
//      - LOAD0/LOAD1: op1 must be SRCA/SRCB; op2 is don't-care.
//      - STORE/STOREINV: op1 must be R0..R15; op2 may be ACCU, ZF, CF, SRCA or SRCB (drivers only use ACCU/ZF/CF).
//      - NOOP/ADD/SUB/AND/OR/XOR: both operand fields are don't-care (i915 encodes them as 0).
//      Any other opcode value, or an operand outside these sets, is invalid: execute() returns the reason and changes
//      no state (neither the ALU nor the GPRs).

namespace gpuvp::gen {

namespace {

constexpr std::uint64_t kAllOnes = ~std::uint64_t{0};
constexpr std::uint32_t kNumGprs = 16;

bool is_src_reg(std::uint32_t op) { return op == MiMathAlu::kSrcA || op == MiMathAlu::kSrcB; }

std::string describe(std::uint32_t instruction) { return " in ALU instruction " + core::format_hex(instruction); }

}  // namespace

void MiMathAlu::reset() {
  srca_ = 0;
  srcb_ = 0;
  accu_ = 0;
  zf_ = false;
  cf_ = false;
}

std::string MiMathAlu::execute(std::uint32_t instruction, Gprs& gprs) {
  const std::uint32_t opcode = instruction >> 20;
  const std::uint32_t op1 = (instruction >> 10) & 0x3FF;
  const std::uint32_t op2 = instruction & 0x3FF;

  switch (opcode) {
    case kNoop:
      return {};

    case kLoad:
    case kLoadInv: {
      if (!is_src_reg(op1))
        return "LOAD destination operand " + core::format_hex(op1) + " is not SRCA/SRCB" + describe(instruction);
      std::uint64_t value;
      if (op2 < kNumGprs) {
        value = gprs[op2];
      } else if (op2 == kAccu) {
        value = accu_;
      } else if (op2 == kZf) {
        value = zf_ ? kAllOnes : 0;
      } else if (op2 == kCf) {
        value = cf_ ? kAllOnes : 0;
      } else {
        return "LOAD source operand " + core::format_hex(op2) + " is not R0..R15/ACCU/ZF/CF" + describe(instruction);
      }
      if (opcode == kLoadInv) value = ~value;
      (op1 == kSrcA ? srca_ : srcb_) = value;
      return {};
    }

    case kLoad0:
    case kLoad1:
      if (!is_src_reg(op1)) {
        return "LOAD0/LOAD1 destination operand " + core::format_hex(op1) + " is not SRCA/SRCB" + describe(instruction);
      }
      (op1 == kSrcA ? srca_ : srcb_) = opcode == kLoad1 ? kAllOnes : 0;  // [F4]
      return {};

    case kAdd:
      accu_ = srca_ + srcb_;
      cf_ = accu_ < srca_;  // unsigned carry out of bit 63 [F5]
      zf_ = accu_ == 0;
      return {};

    case kSub:
      accu_ = srca_ - srcb_;
      cf_ = srca_ < srcb_;  // borrow [F6]
      zf_ = accu_ == 0;
      return {};

    case kAnd:
    case kOr:
    case kXor:
      accu_ = opcode == kAnd ? (srca_ & srcb_) : opcode == kOr ? (srca_ | srcb_) : (srca_ ^ srcb_);
      cf_ = false;  // [F9], unconfirmed
      zf_ = accu_ == 0;
      return {};

    case kStore:
    case kStoreInv: {
      if (op1 >= kNumGprs)
        return "STORE destination operand " + core::format_hex(op1) + " is not R0..R15" + describe(instruction);
      std::uint64_t value;
      switch (op2) {
        case kAccu:
          value = accu_;
          break;
        case kZf:
          value = zf_ ? kAllOnes : 0;
          break;  // [F8]
        case kCf:
          value = cf_ ? kAllOnes : 0;
          break;  // [F8]
        case kSrcA:
          value = srca_;
          break;
        case kSrcB:
          value = srcb_;
          break;
        default:
          return "STORE source operand " + core::format_hex(op2) + " is not ACCU/ZF/CF/SRCA/SRCB" +
                 describe(instruction);
      }
      gprs[op1] = opcode == kStoreInv ? ~value : value;
      return {};
    }

    default:
      return "unknown ALU opcode " + core::format_hex(opcode) + describe(instruction);
  }
}

}  // namespace gpuvp::gen
