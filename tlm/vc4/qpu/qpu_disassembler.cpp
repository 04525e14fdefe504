// The VideoCore IV QPU disassembler in Mesa's vc4_qpu_disasm.c syntax (see qpu_disassembler.h for the extensions).
#include "tlm/vc4/qpu/qpu_disassembler.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "hw/vc4/qpu_isa.h"

namespace gpuvp::vc4::qpu {
namespace {

// Mesa's mark for a field value its name tables leave empty.
constexpr const char* kUnknown = "???";

// Looks a name up in a table whose empty entries (nullptr) are encodings the hardware leaves undefined.
template <std::size_t N>
const char* name_or_unknown(const std::array<const char*, N>& names, std::uint32_t index) {
  return index < N && names[index] != nullptr ? names[index] : kUnknown;
}

constexpr std::array<const char*, 32> kAddOpNames = {
    "nop",   "fadd", "fsub", "fmin",  "fmax",  "fminabs", "fmaxabs", "ftoi",  "itof",   nullptr, nullptr,
    nullptr, "add",  "sub",  "shr",   "asr",   "ror",     "shl",     "min",   "max",    "and",   "or",
    "xor",   "not",  "clz",  nullptr, nullptr, nullptr,   nullptr,   nullptr, "v8adds", "v8subs"};

constexpr std::array<const char*, 8> kMulOpNames = {"nop",   "fmul",  "mul24",  "v8muld",
                                                    "v8min", "v8max", "v8adds", "v8subs"};

// Signal prefixes of the ALU form; sig 1 (none) prints nothing, 14 and 15 are other forms.
constexpr std::array<const char*, 16> kSignalNames = {"sig_brk",
                                                      "",
                                                      "sig_switch",
                                                      "sig_end",
                                                      "sig_wait_score",
                                                      "sig_unlock_score",
                                                      "sig_thread_switch",
                                                      "sig_coverage_load",
                                                      "sig_color_load",
                                                      "sig_color_load_end",
                                                      "load_tmu0",
                                                      "load_tmu1",
                                                      "sig_alpha_mask_load",
                                                      "sig_small_imm",
                                                      "sig_load_imm",
                                                      "sig_branch"};

constexpr std::array<const char*, 8> kCondSuffixes = {".never", "", ".zs", ".zc", ".ns", ".nc", ".cs", ".cc"};

// Branch conditions 12-14 are undefined.
constexpr std::array<const char*, 16> kBranchCondSuffixes = {
    ".all_zs", ".all_zc", ".any_zs", ".any_zc", ".all_ns", ".all_nc", ".any_ns", ".any_nc",
    ".all_cs", ".all_cc", ".any_cs", ".any_cc", nullptr,   nullptr,   nullptr,   ""};

// pm = 0: the regfile-A write's pack; all 16 codes are defined.
constexpr std::array<const char*, 16> kPackASuffixes = {
    "",     ".16a",     ".16b",     ".8888",     ".8a",     ".8b",     ".8c",     ".8d",
    ".sat", ".16a.sat", ".16b.sat", ".8888.sat", ".8a.sat", ".8b.sat", ".8c.sat", ".8d.sat"};

// pm = 1: the mul output's colour pack; 1, 2 and 8-15 are undefined.
constexpr std::array<const char*, 8> kPackMulSuffixes = {"", nullptr, nullptr, ".8888", ".8a", ".8b", ".8c", ".8d"};

// Unpack of regfile A (pm = 0) or r4 (pm = 1) reads.
constexpr std::array<const char*, 8> kUnpackSuffixes = {"", ".16a", ".16b", ".8d_rep", ".8a", ".8b", ".8c", ".8d"};

// Special reads 32-51 (index = address - 32) per file; unnamed addresses are undefined.
constexpr std::array<const char*, 20> kSpecialReadA = {
    "uni",      nullptr, nullptr, "vary",  nullptr, nullptr, "elem",     "nop",         nullptr,       "x_pix",
    "ms_flags", nullptr, nullptr, nullptr, nullptr, nullptr, "vpm_read", "vpm_ld_busy", "vpm_ld_wait", "mutex_acq"};
constexpr std::array<const char*, 20> kSpecialReadB = {
    "uni",      nullptr, nullptr, "vary",  nullptr, nullptr, "qpu",      "nop",         nullptr,       "y_pix",
    "rev_flag", nullptr, nullptr, nullptr, nullptr, nullptr, "vpm_read", "vpm_st_busy", "vpm_st_wait", "mutex_acq"};

// Special writes 32-63 (index = address - 32) as regfile B names them; special_write_name() has A's differences.
constexpr std::array<const char*, 32> kSpecialWriteB = {"r0",
                                                        "r1",
                                                        "r2",
                                                        "r3",
                                                        "tmu_noswap",
                                                        "r5rep",
                                                        "host_int",
                                                        "nop",
                                                        "uniforms_addr",
                                                        "quad_y",
                                                        "rev_flag",
                                                        "tlb_stencil_setup",
                                                        "tlb_z",
                                                        "tlb_color_ms",
                                                        "tlb_color_all",
                                                        "tlb_alpha_mask",
                                                        "vpm",
                                                        "vw_setup",
                                                        "vw_addr",
                                                        "mutex_release",
                                                        "sfu_recip",
                                                        "sfu_recipsqrt",
                                                        "sfu_exp",
                                                        "sfu_log",
                                                        "tmu0_s",
                                                        "tmu0_t",
                                                        "tmu0_r",
                                                        "tmu0_b",
                                                        "tmu1_s",
                                                        "tmu1_t",
                                                        "tmu1_r",
                                                        "tmu1_b"};

const char* special_write_name(std::uint32_t waddr, bool file_a) {
  if (file_a) {
    switch (waddr) {
      case kWriteR5:
        return "r5quad";
      case kWriteQuadXY:
        return "quad_x";
      case kWriteMsOrRev:
        return "ms_flags";
      case kWriteVpmSetup:
        return "vr_setup";
      case kWriteVpmAddr:
        return "vr_addr";
      default:
        break;
    }
  }
  return kSpecialWriteB[waddr - kWriteAcc0];
}

std::string printf_string(const char* format, double value) {
  // %f of the largest float has 39 integer digits; 64 characters hold every float.
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

float float_from_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The file a destination is written in: the add ALU writes A and the mul ALU B, unless ws swaps them.
bool writes_file_a(std::uint64_t inst, bool is_mul) { return is_mul == (ws(inst) != 0); }

// A destination register; `with_pack` is false for branches, whose bits 55:52 are the condition.
std::string destination(std::uint64_t inst, bool is_mul, bool with_pack = true) {
  const bool file_a = writes_file_a(inst, is_mul);
  const std::uint32_t waddr = is_mul ? waddr_mul(inst) : waddr_add(inst);
  std::string text = waddr < kWriteAcc0 ? std::string(file_a ? "ra" : "rb") + std::to_string(waddr)
                                        : std::string(special_write_name(waddr, file_a));
  if (!with_pack) return text;
  // pm selects which write the pack field applies to: the regfile-A write (pm = 0) or the mul output (pm = 1).
  if (is_mul && pm(inst) != 0) {
    text += name_or_unknown(kPackMulSuffixes, pack(inst));
  } else if (file_a && pm(inst) == 0) {
    text += kPackASuffixes[pack(inst)];
  }
  return text;
}

std::string small_immediate_value(std::uint32_t small_imm) {
  if (small_imm <= 15) return std::to_string(small_imm);
  if (small_imm <= 31) return std::to_string(static_cast<int>(small_imm) - 32);
  if (small_imm <= 39) return printf_string("%.1f", static_cast<double>(1U << (small_imm - 32)));
  if (small_imm <= 47) return printf_string("%f", 1.0 / static_cast<double>(1U << (48 - small_imm)));
  // 48-63 are the mul rotations, not values.
  return "<bad imm " + std::to_string(small_imm) + ">";
}

// One ALU source selected by `mux`.
std::string source(std::uint64_t inst, std::uint32_t mux, bool is_mul) {
  const bool has_small_imm = sig(inst) == kSigSmallImmediate;
  const std::uint32_t small_imm = raddr_b(inst);
  std::string text;
  if (mux <= kR5) {
    text = "r" + std::to_string(mux);
    // Rotation applies to the mul inputs only.
    if (has_small_imm && is_mul && small_imm == kSmallImmRotateByR5) {
      text += "+r5";
    } else if (has_small_imm && is_mul && small_imm > kSmallImmRotateByR5) {
      text += "+" + std::to_string(small_imm - kSmallImmRotateByR5);
    }
  } else if (mux == kMuxB && has_small_imm) {
    text = small_immediate_value(small_imm);
  } else {
    const bool file_a = mux == kMuxA;
    const std::uint32_t raddr = file_a ? raddr_a(inst) : raddr_b(inst);
    if (raddr < kReadUniform) {
      text = std::string(file_a ? "ra" : "rb") + std::to_string(raddr);
    } else {
      text = name_or_unknown(file_a ? kSpecialReadA : kSpecialReadB, raddr - kReadUniform);
    }
  }
  // pm selects which reads the unpack field applies to: regfile A (pm = 0) or r4 (pm = 1).
  if ((mux == kMuxA && pm(inst) == 0) || (mux == kR4 && pm(inst) != 0)) text += kUnpackSuffixes[unpack(inst)];
  return text;
}

std::string add_operation(std::uint64_t inst) {
  const std::uint32_t op = op_add(inst);
  // "or x, x" is the mov idiom of the add ALU.
  const bool is_mov = op == kOr && add_a(inst) == add_b(inst);
  std::string text = is_mov ? "mov" : name_or_unknown(kAddOpNames, op);
  if (op != kAddNop) {
    if (sf(inst) != 0) text += ".sf";
    text += kCondSuffixes[cond_add(inst)];
  }
  text += " " + destination(inst, false) + ", " + source(inst, add_a(inst), false);
  if (!is_mov) text += ", " + source(inst, add_b(inst), false);
  return text;
}

std::string mul_operation(std::uint64_t inst) {
  const std::uint32_t op = op_mul(inst);
  // "v8min x, x" is the mov idiom of the mul ALU.
  const bool is_mov = op == kV8min && mul_a(inst) == mul_b(inst);
  std::string text = is_mov ? "mov" : kMulOpNames[op];
  // The flags come from the add result unless the add ALU does nothing.
  if (sf(inst) != 0 && op_add(inst) == kAddNop) text += ".sf";
  if (op != kMulNop) text += kCondSuffixes[cond_mul(inst)];
  text += " " + destination(inst, true) + ", " + source(inst, mul_a(inst), true);
  if (!is_mov) text += ", " + source(inst, mul_b(inst), true);
  return text;
}

std::string alu_instruction(std::uint64_t inst) {
  std::string text;
  if (sig(inst) != kSigNone) text = std::string(kSignalNames[sig(inst)]) + " ";
  return text + add_operation(inst) + " ; " + mul_operation(inst);
}

// The two destinations of a load immediate, each with its condition unless it is nop.
std::string load_destinations(std::uint64_t inst) {
  std::string text = destination(inst, false);
  if (waddr_add(inst) != kWriteNop) text += kCondSuffixes[cond_add(inst)];
  text += ", " + destination(inst, true);
  if (waddr_mul(inst) != kWriteNop) text += kCondSuffixes[cond_mul(inst)];
  return text;
}

std::string hex32(std::uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "0x%08x", value);
  return buffer;
}

std::string load_immediate_32(std::uint64_t inst, const std::string& mnemonic) {
  const std::uint32_t imm = immediate(inst);
  return mnemonic + (sf(inst) != 0 ? ".sf " : " ") + load_destinations(inst) + ", " + hex32(imm) + " (" +
         printf_string("%f", static_cast<double>(float_from_bits(imm))) + ")";
}

// Element i loads the 2-bit value {imm[16 + i], imm[i]}, sign-extended in the signed mode.
std::string load_immediate_per_element(std::uint64_t inst, bool is_signed) {
  const std::uint32_t imm = immediate(inst);
  std::string text = is_signed ? "load_imm.per_elem_signed" : "load_imm.per_elem_unsigned";
  text += (sf(inst) != 0 ? ".sf " : " ") + load_destinations(inst) + ", " + hex32(imm) + " [";
  for (unsigned element = 0; element < kElements; ++element) {
    const int value = static_cast<int>((((imm >> (16 + element)) & 1U) << 1) | ((imm >> element) & 1U));
    if (element != 0) text += ",";
    text += std::to_string(is_signed && value >= 2 ? value - 4 : value);
  }
  return text + "]";
}

std::string semaphore(std::uint64_t inst) {
  std::string text = semaphore_acquire(inst) != 0 ? "sacq " : "srel ";
  text += std::to_string(semaphore_number(inst));
  // A semaphore instruction otherwise behaves like a 32-bit load immediate; show that only when it has an effect.
  if (waddr_add(inst) != kWriteNop || waddr_mul(inst) != kWriteNop || sf(inst) != 0) {
    text += " ; " + load_immediate_32(inst, "load_imm");
  }
  return text;
}

std::string load_immediate(std::uint64_t inst) {
  switch (load_mode(inst)) {
    case kLoad32:
      return load_immediate_32(inst, "load_imm");
    case kLoadPerElementSigned:
      return load_immediate_per_element(inst, true);
    case kLoadPerElementUnsigned:
      return load_immediate_per_element(inst, false);
    case kLoadSemaphore:
      return semaphore(inst);
    default:
      return load_immediate_32(inst, "load_imm<bad mode " + std::to_string(load_mode(inst)) + ">");
  }
}

std::string branch(std::uint64_t inst) {
  std::string text = "branch";
  if (branch_rel(inst) != 0) text += ".rel";
  text += name_or_unknown(kBranchCondSuffixes, branch_cond(inst));
  // Mesa prints the offset as a signed 32-bit number.
  const auto offset = static_cast<std::int32_t>(immediate(inst));
  text += " ";
  if (branch_reg(inst) != 0) {
    text += "ra" + std::to_string(branch_raddr_a(inst));
    // In 64 bits so that the magnitude of INT32_MIN fits.
    const std::int64_t wide = offset;
    text += (wide < 0 ? " - " : " + ") + std::to_string(wide < 0 ? -wide : wide);
  } else {
    text += std::to_string(offset);
  }
  if (waddr_add(inst) != kWriteNop || waddr_mul(inst) != kWriteNop) {
    text += ", link " + destination(inst, false, false) + ", " + destination(inst, true, false);
  }
  return text;
}

}  // namespace

std::string disassemble(std::uint64_t instruction) {
  switch (sig(instruction)) {
    case kSigBranch:
      return branch(instruction);
    case kSigLoadImmediate:
      return load_immediate(instruction);
    default:
      return alu_instruction(instruction);
  }
}

}  // namespace gpuvp::vc4::qpu
