#include "tlm/gen/eu/disassembler.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace gpuvp::gen::eu {
namespace {

constexpr std::array<std::string_view, 14> kTypeNames{"ud", "d",  "uw", "w",  "ub", "b",  "df",
                                                      "f",  "uq", "q",  "hf", "uv", "vf", "v"};
// Align1 predicate controls (brw_eu_defines.h BRW_PREDICATE_ALIGN1_*), IGA's suffixes.
constexpr std::array<std::string_view, 14> kPredSuffix{"",        "",        ".anyv",   ".allv",  ".any2h",
                                                       ".all2h",  ".any4h",  ".all4h",  ".any8h", ".all8h",
                                                       ".any16h", ".all16h", ".any32h", ".all32h"};
// Condition modifiers 1-9 (7 is reserved; IGA prints none for reserved values).
constexpr std::array<std::string_view, 16> kCondNames{"",   "eq", "ne", "gt", "ge", "lt", "le", "",
                                                      "ov", "un", "",   "",   "",   "",   "",   ""};

struct Unsupported {
  std::string reason;
};

std::string_view type_name(DataType t) { return kTypeNames[static_cast<unsigned>(t)]; }

std::string hex(std::uint64_t v) {
  std::array<char, 24> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%llX", static_cast<unsigned long long>(v));
  return buf.data();
}

std::string hex8(std::uint32_t v) {
  std::array<char, 16> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%08X", v);
  return buf.data();
}

// IGA prints a float in the shortest of "%g" and "%.6e" that reads back to the same value, else in hex.
template <typename T>
std::string format_real(T value, std::uint64_t bits) {
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%g", static_cast<double>(value));
  std::string text = buf.data();
  auto reads_back = [&](const std::string& s) {
    if constexpr (std::is_same_v<T, float>) {
      return std::strtof(s.c_str(), nullptr) == value;
    } else {
      return std::strtod(s.c_str(), nullptr) == value;
    }
  };
  if (!reads_back(text)) {
    std::snprintf(buf.data(), buf.size(), "%.6e", static_cast<double>(value));
    text = buf.data();
    if (!reads_back(text)) return hex(bits);
    return text;
  }
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// Infinity and NaN as IGA prints them: "inf", "-inf", "qnan(0x<payload>)", "snan(0x<payload>)".
std::string format_special(bool negative, bool is_inf, bool quiet, std::uint64_t payload) {
  std::string s = negative ? "-" : "";
  if (is_inf) return s + "inf";
  return s + (quiet ? "qnan(" : "snan(") + hex(payload) + ")";
}

std::string format_float(std::uint32_t bits) {
  const std::uint32_t exponent = (bits >> 23) & 0xFF;
  const std::uint32_t mantissa = bits & 0x7FFFFF;
  if (exponent == 0xFF) return format_special(bits >> 31, mantissa == 0, mantissa >> 22, mantissa & 0x3FFFFF);
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return format_real(f, bits);
}

std::string format_double(std::uint64_t bits) {
  const std::uint64_t exponent = (bits >> 52) & 0x7FF;
  const std::uint64_t mantissa = bits & ((1ULL << 52) - 1);
  if (exponent == 0x7FF) {
    return format_special(bits >> 63, mantissa == 0, (mantissa >> 51) != 0, mantissa & ((1ULL << 51) - 1));
  }
  double d = 0;
  std::memcpy(&d, &bits, sizeof d);
  return format_real(d, bits);
}

std::string format_half(std::uint16_t bits) {
  const unsigned exponent = (bits >> 10) & 0x1F;
  const unsigned mantissa = bits & 0x3FF;
  if (exponent == 0x1F) return format_special(bits >> 15, mantissa == 0, mantissa >> 9, mantissa & 0x1FF);
  // Every half is exactly a float: IGA formats the float and falls back to the half's own bits.
  const float magnitude = exponent == 0
                              ? std::ldexp(static_cast<float>(mantissa), -24)
                              : std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  return format_real((bits >> 15) != 0 ? -magnitude : magnitude, bits);
}

std::string region_text(const Region& r) {
  if (r.vxh) return "<" + std::to_string(r.width) + "," + std::to_string(r.hstride) + ">";
  return "<" + std::to_string(r.vstride) + ";" + std::to_string(r.width) + "," + std::to_string(r.hstride) + ">";
}

// IGA's names of the ARF registers (Mesa brw_eu_defines.h BRW_ARF_* numbers); ce and ip take no subregister.
struct ArfName {
  std::uint8_t number;
  std::string_view name;
  bool subregister;
};
constexpr std::array<ArfName, 25> kArfNames{{
    {0x00, "null", true}, {0x10, "a0", true},   {0x20, "acc0", true}, {0x21, "acc1", true}, {0x22, "mme0", true},
    {0x23, "mme1", true}, {0x24, "mme2", true}, {0x25, "mme3", true}, {0x26, "mme4", true}, {0x27, "mme5", true},
    {0x28, "mme6", true}, {0x29, "mme7", true}, {0x30, "f0", true},   {0x31, "f1", true},   {0x40, "ce", false},
    {0x50, "msg0", true}, {0x60, "sp", true},   {0x70, "sr0", true},  {0x80, "cr0", true},  {0x90, "n0", true},
    {0xA0, "ip", false},  {0xB0, "tdr0", true}, {0xC0, "tm0", true},  {0xD0, "fc0", true},  {0xF0, "dbg0", true},
}};

// The register name and subregister of a direct operand ("r12.3", "acc0.0", "f1.1", "null").
std::string register_text(const Operand& o) {
  // IGA prints the byte offset in elements of the type, rounded down, and any register number (the 8-bit field
  // reaches r255 where Gen9 has 128 GRFs),
  // except on msg0 and fc0, whose subregister IGA prints as encoded (IGA's IsRegisterScaled).
  constexpr std::uint8_t kMsg0 = 0x50, kFc0 = 0xD0;
  const bool scaled = o.file == RegFile::kGrf || (o.reg != kMsg0 && o.reg != kFc0);
  const unsigned element = scaled ? o.subreg / type_size(o.type) : o.subreg;
  const std::string sub = "." + std::to_string(element);
  if (o.file == RegFile::kGrf) return "r" + std::to_string(o.reg) + sub;
  for (const ArfName& arf : kArfNames) {
    if (arf.number != o.reg) continue;
    if (!arf.subregister && o.subreg != 0) break;
    if (!arf.subregister || (o.reg == 0 && element == 0)) return std::string(arf.name);  // IGA omits ".0" on null
    return std::string(arf.name) + sub;
  }
  throw Unsupported{"architecture register " + hex(o.reg)};
}

std::string indirect_text(const Operand& o) {
  std::string s = "r[a0." + std::to_string(o.addr_subreg);
  if (o.addr_imm != 0) s += "," + std::to_string(o.addr_imm);
  return s + "]";
}

// A math macro operand: "r4.mme3" or "r4.nomme", no region.
std::string macro_text(const Operand& o) {
  return "r" + std::to_string(o.reg) + (o.mme == 8 ? ".nomme" : ".mme" + std::to_string(o.mme)) + ":" +
         std::string(type_name(o.type));
}

std::string destination_text(const DecodedInstruction& in) {
  const Operand& o = in.dst;
  std::string s = in.saturate ? "(sat)" : "";
  if (o.mme >= 0) return s + macro_text(o);
  // An Align16 destination in mme0-mme7 (ARF 0x22-0x29) outside the math macros: iga64 names another mme register
  // than the register number says (mme7 for 0x26 and 0x27 with write mask xyzw), a rule not derived here.
  if (in.align16 && o.file == RegFile::kArf && !o.indirect && o.reg >= 0x22 && o.reg <= 0x29) {
    throw Unsupported{"Align16 mme destination outside math macros"};
  }
  s += o.indirect ? indirect_text(o) : register_text(o);
  return s + "<" + std::to_string(o.region.hstride) + ">:" + std::string(type_name(o.type));
}

std::string source_text(const DecodedInstruction& in, const Operand& o, bool ternary, unsigned index) {
  if (o.file == RegFile::kImm) return format_immediate(o.imm, o.type) + ":" + std::string(type_name(o.type));
  std::string s;
  // IGA writes a logic operation's negation "~", except together with (abs).
  if (o.negate) s += in.op->has(OpcodeInfo::kLogic) && !o.abs ? "~" : "-";
  if (o.abs) s += "(abs)";
  if (o.mme >= 0) return s + macro_text(o);
  s += o.indirect ? indirect_text(o) : register_text(o);
  if (ternary) {
    // IGA prints Align16 <4;1> swizzles xyzw as <2;1> on src0/src1 and <1> on src2; a replicated channel as <0;0>/<0>.
    if (index < 2) {
      s += o.replicate ? "<0;0>" : "<2;1>";
    } else {
      s += o.replicate ? "<0>" : "<1>";
    }
  } else {
    s += region_text(o.region);
  }
  return s + ":" + std::string(type_name(o.type));
}

std::string label(std::uint32_t pc, std::int32_t offset) {
  return "L" + std::to_string(static_cast<std::int64_t>(pc) + offset);
}

std::string options_text(const DecodedInstruction& in) {
  std::string s;
  auto add = [&](bool on, const char* name) {
    if (!on) return;
    s += s.empty() ? "{" : ",";
    s += name;
  };
  add(in.acc_wr_en, "AccWrEn");
  add(in.thread_ctrl == 1, "Atomic");
  add(in.breakpoint, "Breakpoint");
  add(in.compacted, "Compacted");
  add(in.eot, "EOT");
  add(in.no_dd_chk, "NoDDChk");
  add(in.no_dd_clr, "NoDDClr");
  add(in.no_src_dep_set, "NoSrcDepSet");
  add(in.thread_ctrl == 2, "Switch");
  return s.empty() ? s : s + "}";
}

// A send's register operand: IGA prints no region, and the type only when it is not UD (a sends destination: always).
std::string send_operand_text(const Operand& o, bool typed) {
  std::string s = o.file == RegFile::kGrf ? "r" + std::to_string(o.reg) : register_text(o);
  if (s.find('.') != std::string::npos) throw Unsupported{"send operand in an architecture register"};
  return o.type == DataType::kUd && !typed ? s : s + ":" + std::string(type_name(o.type));
}

// IGA's names of the shared functions in a send's comment (Gen8 names SFIDs 4 and 9 "sampler" and "hdc.ccdp").
constexpr std::array<std::string_view, 16> kSfidNames{"null",    "?",       "sampler", "gateway",  "hdc.dc2", "hdc.rc",
                                                      "hdc.urb", "spawner", "vme",     "hdc.dcro", "hdc.dc0", "pi",
                                                      "hdc.dc1", "cre",     "?",       "?"};

// The start of the comment IGA appends to every send: payload lengths "wr:<mlen>[h]+<src1 len>, rd:<rlen>" (from the
// descriptor bits 28:25, 19, 24:20 and the extended descriptor bits 9:6) and the shared function. IGA goes on with a
// description of the message for the functions it knows; that part is not reproduced (see docs/gen-eu-isa.md).
std::string send_comment(const DecodedInstruction& in) {
  const bool split = in.op->sources == 2;
  const bool ex_in_register = in.ex_desc_subreg >= 0;
  const std::string ex_reg = "a0." + std::to_string(in.ex_desc_subreg);
  // IGA reads SFIDs 1, 14 and 15 with a layout that has no header bit.
  const bool reserved_sfid = !ex_in_register && (in.sfid == 1 || in.sfid >= 14);
  std::string wr = "a0.0[28:25]";
  std::string rd = "a0.0[24:20]";
  if (!in.desc_in_register) {
    wr = std::to_string((in.desc >> 25) & 0xF) + (((in.desc >> 19) & 1) != 0 && !reserved_sfid ? "h" : "");
    rd = std::to_string((in.desc >> 20) & 0x1F);
  }
  std::string ex = "0";
  if (ex_in_register) {
    ex = ex_reg + "[10:6]";
  } else if (split) {
    ex = std::to_string((in.ex_desc >> 6) & 0xF);
  }
  std::string function(kSfidNames[in.sfid]);
  if (in.gen == Generation::kGen8 && in.sfid == 4) function = "sampler";
  if (in.gen == Generation::kGen8 && in.sfid == 9) function = "hdc.ccdp";
  if (ex_in_register) function = "sfid " + ex_reg + "[3:0]";
  return "// wr:" + wr + "+" + ex + ", rd:" + rd + "; " + function;
}

std::string send_text(const DecodedInstruction& in) {
  const bool split = in.op->sources == 2;
  std::string s = send_operand_text(in.dst, split) + " " + send_operand_text(in.src[0], false);
  if (split) s += " r" + std::to_string(in.src[1].reg);
  // IGA shows the EOT bit in the extended descriptor (bit 5) beside the SFID and strips it from the descriptor.
  s += " " +
       (in.ex_desc_subreg >= 0 ? "a0." + std::to_string(in.ex_desc_subreg) : hex(in.ex_desc | (in.eot ? 0x20 : 0)));
  return s + " " + (in.desc_in_register ? "a0.0" : hex8(in.desc));
}

// jmpi, brd, brc, call, calla, ret: call/calla print the return-address register, then the target as a label (calla:
// an absolute address) or a register without region or type.
std::string flow_operands_text(const DecodedInstruction& in, std::uint32_t pc) {
  const std::string_view name = in.op->name;
  std::string s;
  if (name == "call" || name == "calla") s = register_text(in.dst) + " ";
  if (in.sources == 1) return s + register_text(in.src[0]);
  s += label(name == "calla" ? 0 : pc, in.jip);
  return name == "brc" ? s + " " + label(pc, in.uip) : s;
}

std::string text_of(const DecodedInstruction& in, std::uint32_t pc) {
  // IGA prints a nop with no predication or options other than a breakpoint.
  if (in.op->op_class == OpClass::kNop) return in.breakpoint ? "nop {Breakpoint}" : "nop";
  std::string s;
  const std::string flag = "f" + std::to_string(in.flag_reg) + "." + std::to_string(in.flag_subreg);
  // IGA shows Align16 predication in Align1 terms: normal, any4h, all4h; a single-channel (.x/.y/.z/.w) predicate
  // has no Align1 form and IGA prints none.
  std::string_view pred_suffix;
  bool predicated = in.pred_ctrl != 0;
  if (in.align16) {
    predicated = in.pred_ctrl == 1 || in.pred_ctrl >= 6;
    pred_suffix = in.pred_ctrl == 6 ? ".any4h" : in.pred_ctrl == 7 ? ".all4h" : "";
  } else if (predicated) {
    if (in.pred_ctrl >= kPredSuffix.size()) throw Unsupported{"predicate control " + std::to_string(in.pred_ctrl)};
    pred_suffix = kPredSuffix[in.pred_ctrl];
  }
  if (predicated) {
    s = std::string("(") + (in.no_mask ? "W&" : "") + (in.pred_inv ? "~" : "") + flag + std::string(pred_suffix) + ") ";
  } else if (in.no_mask) {
    s = "(W) ";
  }
  s += in.op->name;
  if (in.branch_ctrl) s += ".b";
  if (in.op->op_class == OpClass::kMath) s += "." + std::string(math_function_name(in.math_fn));
  // IGA leaves out the (always scalar) execution size of jmpi and wait.
  const std::string_view name = in.op->name;
  if (name != "jmpi" && name != "wait") {
    s += " (" + std::to_string(in.exec_size) + "|M" + std::to_string(in.channel_offset) + ")";
  }
  s += " ";
  if (in.op->op_class == OpClass::kFlow) {
    s += flow_operands_text(in, pc);
  } else if (in.op->op_class == OpClass::kWait) {
    s += "n0." + std::to_string(in.src[0].subreg / 4) + "<0;1,0>:ud";
  } else if (in.op->op_class == OpClass::kSend) {
    s += send_text(in);
  } else if (in.op->op_class == OpClass::kBranch) {
    s += label(pc, in.jip);
    if (name != "endif" && name != "while" && name != "join") s += " " + label(pc, in.uip);
  } else {
    // The math macros always print the "early out" condition with their flag register.
    if (in.op->op_class == OpClass::kMath && is_math_macro(in.math_fn)) s += "(eo)" + flag + " ";
    if (!kCondNames[in.cond_mod].empty()) s += "(" + std::string(kCondNames[in.cond_mod]) + ")" + flag + " ";
    s += destination_text(in);
    for (unsigned i = 0; i < in.sources; ++i) {
      s += " " + source_text(in, in.src[i], in.op->op_class == OpClass::kTernary, i);
    }
  }
  const std::string options = options_text(in);
  if (!options.empty()) s += " " + options;
  return in.op->op_class == OpClass::kSend ? s + " " + send_comment(in) : s;
}

}  // namespace

std::string format_immediate(std::uint64_t bits, DataType type) {
  switch (type) {
    case DataType::kD:
      return std::to_string(static_cast<std::int32_t>(bits));
    case DataType::kW:
      return std::to_string(static_cast<std::int16_t>(bits));
    case DataType::kQ:
      return std::to_string(static_cast<std::int64_t>(bits));
    case DataType::kUw:
      return hex(bits & 0xFFFF);
    case DataType::kUq:
      return hex(bits);
    case DataType::kF:
      return format_float(static_cast<std::uint32_t>(bits));
    case DataType::kDf:
      return format_double(bits);
    case DataType::kHf:
      return format_half(static_cast<std::uint16_t>(bits));
    default:  // UD and the packed vectors V, UV, VF
      return hex(bits & 0xFFFFFFFF);
  }
}

// An Align16 one- or two-source instruction IGA has no Align1 form for: a write mask other than .xyzw, or a source
// swizzle that moves every channel ("packed", such as wzyx).
bool align16_without_align1_form(const DecodedInstruction& in) {
  if (!in.align16 || in.op->op_class == OpClass::kTernary) return false;
  if (in.op->op_class == OpClass::kMath && is_math_macro(in.math_fn)) return false;
  if (in.write_mask != 0xF) return true;
  for (unsigned i = 0; i < in.sources; ++i) {
    const Operand& o = in.src[i];
    const unsigned w = o.swizzle;
    if (o.file != RegFile::kImm && (w & 3U) != 0 && (w >> 2 & 3U) != 1 && (w >> 4 & 3U) != 2 && (w >> 6 & 3U) != 3) {
      return true;
    }
  }
  return false;
}

Disassembly disassemble(const DecodedInstruction& inst, std::uint32_t pc) {
  try {
    if (align16_without_align1_form(inst)) throw Unsupported{"Align16 operand IGA has no Align1 form for"};
    if (inst.write_mask != 0xF) {
      // IGA's Align1 view of a SIMD4 Align16 instruction writing one channel: SIMD1 on that channel's element.
      DecodedInstruction view = inst;
      const unsigned channel = inst.write_mask == 8 ? 3 : inst.write_mask / 2;
      view.exec_size = 1;
      view.dst.subreg = static_cast<std::uint8_t>(inst.dst.subreg + type_size(inst.dst.type) * channel);
      return Disassembly{text_of(view, pc), "", false};
    }
    return Disassembly{text_of(inst, pc), "", false};
  } catch (const Unsupported& u) {
    return Disassembly{"", "unsupported: " + u.reason, true};
  }
}

Disassembly disassemble(const std::uint8_t* bytes, Generation gen, std::uint32_t pc) {
  return disassemble(decode(bytes, gen), pc);
}

Disassembly disassemble(const DecodeResult& result, std::uint32_t pc) {
  if (const auto* e = std::get_if<DecodeError>(&result)) return Disassembly{"", e->reason, e->unsupported};
  return disassemble(std::get<DecodedInstruction>(result), pc);
}

}  // namespace gpuvp::gen::eu
