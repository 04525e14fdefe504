#include "tlm/gen/eu/decoder.h"

#include <algorithm>
#include <optional>

#include "tlm/gen/eu/compaction.h"
#include "tlm/gen/eu/isa_fields.h"

namespace gpuvp::gen::eu {
namespace {

// Mesa brw_eu_defines.h / brw_reg_type.c (gen8/9 hardware encodings).
constexpr std::array kRegTypes{DataType::kUd, DataType::kD, DataType::kUw, DataType::kW, DataType::kUb, DataType::kB,
                               DataType::kDf, DataType::kF, DataType::kUq, DataType::kQ, DataType::kHf};
constexpr std::array kImmTypes{DataType::kUd, DataType::kD, DataType::kUw, DataType::kW, DataType::kUv, DataType::kVf,
                               DataType::kV,  DataType::kF, DataType::kUq, DataType::kQ, DataType::kDf, DataType::kHf};
// Three-source Align16 types (brw_eu_defines.h BRW_3SRC_TYPE_*; HF is gen8+).
constexpr std::array kTernaryTypes{DataType::kF, DataType::kD, DataType::kUd, DataType::kDf, DataType::kHf};

constexpr std::array<std::uint8_t, 8> kWidths{1, 2, 4, 8, 16, 0, 0, 0};
constexpr std::array<std::uint8_t, 4> kHstrides{0, 1, 2, 4};
constexpr unsigned kVxH = 0xF;
// ARF numbers (Mesa brw_eu_defines.h BRW_ARF_*).
constexpr unsigned kArfNull = 0x00, kArfAddress = 0x10, kArfMme0 = 0x22, kArfNotification = 0x90, kArfIp = 0xA0;

struct Fail {
  DecodeError error;
};

[[noreturn]] void invalid(std::string reason) { throw Fail{DecodeError{std::move(reason), false}}; }
[[noreturn]] void unsupported(std::string reason) {
  throw Fail{DecodeError{"unsupported: " + std::move(reason), true}};
}

bool is_64bit(DataType t) { return t == DataType::kDf || t == DataType::kQ || t == DataType::kUq; }

RegFile reg_file(unsigned encoding, const char* what) {
  switch (encoding) {
    case 0:
      return RegFile::kArf;
    case 1:
      return RegFile::kGrf;
    case 3:
      return RegFile::kImm;
    default:
      invalid(std::string("reserved register file in ") + what);
  }
}

DataType data_type(RegFile file, unsigned encoding, const char* what) {
  if (file == RegFile::kImm) {
    if (encoding < kImmTypes.size()) return kImmTypes[encoding];
  } else if (encoding < kRegTypes.size()) {
    return kRegTypes[encoding];
  }
  invalid(std::string("reserved type encoding in ") + what);
}

Region source_region(unsigned vstride, unsigned width, unsigned hstride, const char* what) {
  Region r;
  if (kWidths[width] == 0) invalid(std::string("reserved width in ") + what);
  r.width = kWidths[width];
  r.hstride = kHstrides[hstride];
  if (vstride == kVxH) {
    r.vxh = true;
  } else if (vstride <= 6) {
    r.vstride = vstride == 0 ? 0 : static_cast<std::uint8_t>(1U << (vstride - 1));
  } else {
    invalid(std::string("reserved vertical stride in ") + what);
  }
  return r;
}

// Align1 direct or indirect register operand at the brw_inst.h positions of src0 (base 64) or src1 (base 96).
struct SrcLayout {
  unsigned base;      // first bit of the operand's register fields
  unsigned sign_bit;  // indirect immediate bit 9
  unsigned file_hi;   // register file field
  unsigned type_hi;   // type field (4 bits)
};
constexpr SrcLayout kSrc0{64, 95, 42, 46};
constexpr SrcLayout kSrc1{96, 121, 90, 94};

Operand align1_source(const InstructionBits& b, const SrcLayout& l, const char* what) {
  Operand o;
  const unsigned base = l.base;
  o.indirect = b.bit(base + 15);
  const auto file = static_cast<unsigned>(b.field(l.file_hi, l.file_hi - 1));
  o.file = reg_file(file, what);
  // An indirect src0 reads the GRF whatever its file field says (IGA prints r[a0.n,imm] for the ARF file too);
  // GED rejects the ARF file on an indirect src1.
  if (o.indirect && o.file == RegFile::kArf) {
    if (base != kSrc0.base) invalid(std::string("indirect ") + what + " in the ARF");
    o.file = RegFile::kGrf;
  }
  o.type = data_type(o.file, static_cast<unsigned>(b.field(l.type_hi, l.type_hi - 3)), what);
  if (o.file == RegFile::kImm) {
    o.indirect = false;  // the bit belongs to the immediate
    o.imm = is_64bit(o.type) ? b.qword(1) : b.dword(3);
    return o;
  }
  o.abs = b.bit(base + 13);
  o.negate = b.bit(base + 14);
  if (o.indirect) {
    const auto imm = static_cast<std::uint16_t>(b.field(base + 8, base) | (b.field(l.sign_bit, l.sign_bit) << 9));
    o.addr_imm = static_cast<std::int16_t>(imm & 0x200 ? imm - 0x400 : imm);
    o.addr_subreg = static_cast<std::uint8_t>(b.field(base + 12, base + 9));
  } else {
    o.subreg = static_cast<std::uint8_t>(b.field(base + 4, base));
    o.reg = static_cast<std::uint8_t>(b.field(base + 12, base + 5));
  }
  o.region = source_region(static_cast<unsigned>(b.field(base + 24, base + 21)),
                           static_cast<unsigned>(b.field(base + 20, base + 18)),
                           static_cast<unsigned>(b.field(base + 17, base + 16)), what);
  return o;
}

Operand align1_destination(const InstructionBits& b) {
  Operand o;
  o.indirect = b.bit(63);
  o.file = o.indirect ? RegFile::kGrf : reg_file(static_cast<unsigned>(b.field(36, 35)), "dst");
  if (o.file == RegFile::kImm) invalid("immediate destination");
  o.type = data_type(RegFile::kGrf, static_cast<unsigned>(b.field(40, 37)), "dst");
  if (o.indirect) {
    const auto imm = static_cast<std::uint16_t>(b.field(56, 48) | (b.field(47, 47) << 9));
    o.addr_imm = static_cast<std::int16_t>(imm & 0x200 ? imm - 0x400 : imm);
    o.addr_subreg = static_cast<std::uint8_t>(b.field(60, 57));
  } else {
    o.subreg = static_cast<std::uint8_t>(b.field(52, 48));
    o.reg = static_cast<std::uint8_t>(b.field(60, 53));
  }
  o.region.hstride = kHstrides[b.field(62, 61)];
  return o;
}

// Align16 one- and two-source operands (Mesa brw_inst.h da16 fields). IGA shows them converted to Align1 only when the
// destination writes all four channels (.xyzw, printed <1>) and each source's swizzle keeps at least one channel in
// place (IGA's "packed" swizzles such as wzyx have no Align1 form; printed <1;1,0>); the others are decoded for the
// executor (the write mask in DecodedInstruction::write_mask) and the disassembler reports them unsupported. A source
// must have a vertical stride of 4. Subregisters count 16-byte halves. Indirect Align16 operands are not modelled.
Operand align16_destination(const InstructionBits& b) {
  if (b.bit(63)) unsupported("indirect Align16 destination");
  Operand o;
  o.file = reg_file(static_cast<unsigned>(b.field(36, 35)), "dst");
  if (o.file == RegFile::kImm) invalid("immediate destination");
  o.type = data_type(RegFile::kGrf, static_cast<unsigned>(b.field(40, 37)), "dst");
  o.reg = static_cast<std::uint8_t>(b.field(60, 53));
  o.subreg = static_cast<std::uint8_t>(b.field(52, 52) * 16);
  // acc2-acc9 (mme) take their number from the write mask in a context save; not modelled.
  if (o.file == RegFile::kArf && o.reg == kArfMme0) unsupported("Align16 math macro register destination");
  o.region.hstride = 1;
  return o;
}

Operand align16_source(const InstructionBits& b, const SrcLayout& l, const char* what) {
  Operand o;
  const unsigned base = l.base;
  o.file = reg_file(static_cast<unsigned>(b.field(l.file_hi, l.file_hi - 1)), what);
  o.type = data_type(o.file, static_cast<unsigned>(b.field(l.type_hi, l.type_hi - 3)), what);
  if (o.file == RegFile::kImm) {
    o.imm = is_64bit(o.type) ? b.qword(1) : b.dword(3);
    return o;
  }
  if (b.bit(base + 15)) unsupported(std::string("indirect Align16 ") + what);
  o.abs = b.bit(base + 13);
  o.negate = b.bit(base + 14);
  o.reg = static_cast<std::uint8_t>(b.field(base + 12, base + 5));
  o.subreg = static_cast<std::uint8_t>(b.field(base + 4, base + 4) * 16);
  if (o.file == RegFile::kArf && o.reg == kArfMme0) unsupported(std::string("Align16 math macro register ") + what);
  if (b.field(base + 24, base + 21) != 3) unsupported(std::string("Align16 ") + what + " vertical stride other than 4");
  o.swizzle = static_cast<std::uint8_t>(b.field(base + 3, base) | b.field(base + 19, base + 16) << 4);
  o.region = Region{1, 1, 0, false};
  return o;
}

void decode_header(const InstructionBits& b, DecodedInstruction& d) {
  d.align16 = b.bit(8);
  d.no_dd_clr = b.bit(9);
  d.no_dd_chk = b.bit(10);
  const auto qtr = static_cast<unsigned>(b.field(13, 12));
  const auto nib = static_cast<unsigned>(b.field(11, 11));
  d.thread_ctrl = static_cast<std::uint8_t>(b.field(15, 14));
  if (d.thread_ctrl == 3) invalid("reserved thread control");
  d.pred_ctrl = static_cast<std::uint8_t>(b.field(19, 16));
  d.pred_inv = b.bit(20);
  const auto es = static_cast<unsigned>(b.field(23, 21));
  if (es > 5) invalid("reserved execution size");
  d.exec_size = static_cast<std::uint8_t>(1U << es);
  d.channel_offset = static_cast<std::uint8_t>(qtr * 8 + nib * 4);
  d.acc_wr_en = b.bit(28);
  d.breakpoint = b.bit(30);
  d.saturate = b.bit(31);
  d.flag_subreg = static_cast<std::uint8_t>(b.field(32, 32));
  d.flag_reg = static_cast<std::uint8_t>(b.field(33, 33));
  d.no_mask = b.bit(34);
  const auto fn = static_cast<std::uint8_t>(b.field(27, 24));
  if (d.op->op_class == OpClass::kMath) {
    d.math_fn = fn;
  } else if (d.op->op_class == OpClass::kSend) {
    d.sfid = fn;
  } else if (d.op->has(OpcodeInfo::kFlagModifier)) {
    d.cond_mod = fn;
    if (fn == 7 || fn > 9) invalid("reserved condition modifier " + std::to_string(fn));
  }
  // Fields an opcode does not accept are ignored, as IGA's decoder does (its Gen9 model).
  if (!d.op->has(OpcodeInfo::kPredication)) {
    d.pred_ctrl = 0;
    d.pred_inv = false;
  }
  // Align16 predicate controls: 1 normal, 2-5 one channel (.x .y .z .w), 6 any4h, 7 all4h (brw_eu_defines.h
  // BRW_PREDICATE_ALIGN16_*); 8-15 are reserved.
  if (d.align16 && d.pred_ctrl > 7) invalid("reserved Align16 predicate control");
  if (!d.op->has(OpcodeInfo::kSaturation)) d.saturate = false;
}

void drop_source_modifiers(DecodedInstruction& d) {
  if (d.op->has(OpcodeInfo::kSourceModifiers)) return;
  for (Operand& o : d.src) o.abs = o.negate = false;
}

// Opcode numbers with forms of their own (Mesa brw_eu.cpp opcode_descs).
constexpr unsigned kJmpi = 32, kBrd = 33, kBrc = 35, kCalla = 43, kCall = 44, kRet = 45, kMadm = 93;

// A math macro's extended accumulator field (0-7 mme0-mme7, 8 nomme); `odd` when the operand's other fields are not
// what IGA's assembler writes for one.
std::int8_t macro_register(unsigned value, bool odd) {
  if (value > 8 || odd) unsupported("math macro operand outside IGA's form");
  return static_cast<std::int8_t>(value);
}

void decode_ternary(const InstructionBits& b, DecodedInstruction& d) {
  // Gen8/9 three-source instructions are Align16 (brw_inst.h 3src_a16_* fields).
  if (!d.align16) invalid("three-source instruction in Align1 mode");
  // IGA converts Align16 three-source instructions to Align1 syntax, which has no SIMD1 form of them; it rejects one.
  if (d.exec_size == 1 && d.op->number != kMadm) unsupported("SIMD1 Align16 three-source instruction");
  const auto src_type = static_cast<unsigned>(b.field(45, 43));
  const auto dst_type = static_cast<unsigned>(b.field(48, 46));
  if (src_type >= kTernaryTypes.size() || dst_type >= kTernaryTypes.size()) invalid("reserved three-source type");
  // Gen9 mixed precision: bits 36 and 35 make src1 and src2 HF; with F or HF sources, a clear bit means the other of
  // the two (IGA prints "mad r10:hf r11:hf r12:f r13:f" for HF sources with both clear); other types ignore them.
  const bool float_sources = kTernaryTypes[src_type] == DataType::kF || kTernaryTypes[src_type] == DataType::kHf;
  const auto mixed_type = [&](bool hf) {
    if (!float_sources) return kTernaryTypes[src_type];
    return hf ? DataType::kHf : DataType::kF;
  };
  const std::array<DataType, 3> source_types{kTernaryTypes[src_type], mixed_type(b.bit(36)), mixed_type(b.bit(35))};
  d.dst.file = RegFile::kGrf;
  d.dst.type = kTernaryTypes[dst_type];
  d.dst.reg = static_cast<std::uint8_t>(b.field(63, 56));
  d.dst.subreg = static_cast<std::uint8_t>(b.field(55, 53) * 4);
  d.dst.region.hstride = 1;
  // madm names math macro extended accumulators where other instructions have the write mask and the swizzles.
  const bool macro = d.op->number == kMadm;
  if (macro) {
    d.dst.mme = macro_register(static_cast<unsigned>(b.field(52, 49)), d.dst.subreg != 0);
  } else if (const auto mask = static_cast<unsigned>(b.field(52, 49)); mask != 0xF) {
    // IGA shows a SIMD4 instruction writing one channel as the SIMD1 instruction on that channel's element; other
    // masks have no Align1 equivalent and IGA rejects them.
    const bool one_channel = mask == 1 || mask == 2 || mask == 4 || mask == 8;
    if (d.exec_size != 4 || !one_channel) unsupported("three-source destination write mask IGA cannot print");
    d.write_mask = static_cast<std::uint8_t>(mask);
  }

  // src0 at bit 64, src1 at 85, src2 at 106: replicate, 8-bit swizzle, 3-bit subregister (dwords), 8-bit register.
  constexpr std::array<unsigned, 3> kBase{64, 85, 106};
  for (unsigned i = 0; i < 3; ++i) {
    Operand& o = d.src[i];
    const unsigned base = kBase[i];
    o.file = RegFile::kGrf;
    o.type = source_types[i];
    o.replicate = b.bit(base);
    o.subreg = static_cast<std::uint8_t>(b.field(base + 11, base + 9) * 4);
    const auto swizzle = static_cast<unsigned>(b.field(base + 8, base + 1));
    o.swizzle = static_cast<std::uint8_t>(swizzle);
    // A DF source swizzled xyxy reads one 64-bit element in every channel: IGA's scalar <0;0> (how it encodes one).
    if (swizzle == 0x44 && o.type == DataType::kDf) o.replicate = true;
    if (macro) {
      o.mme = macro_register(swizzle, swizzle > 0xF || o.subreg != 0 || o.replicate);
    } else if (swizzle != 0xE4 && !o.replicate) {
      // A replicated scalar ignores the swizzle (IGA prints <0;0>); any other swizzle than xyzw has no Align1 region
      // and IGA rejects it ("unconvertible ternary align16 operand").
      unsupported("three-source swizzle other than .xyzw");
    }
    o.reg = static_cast<std::uint8_t>(b.field(base + 19, base + 12));
    o.abs = b.bit(37 + 2 * i);
    o.negate = b.bit(38 + 2 * i);
  }
  if (b.bit(84) || b.bit(105) || b.bit(126) || b.bit(127)) unsupported("three-source reserved bits set");
}

// send/sendc (Gen8/9 non-split form): dst and src0 registers, SFID in 27:24, the descriptor as an immediate in DW3
// with EOT in bit 127 (brw_inst.h eot) or in a0.0 (src1 the ARF a0).
void decode_unary_send(const InstructionBits& b, DecodedInstruction& d) {
  d.sources = 1;
  d.dst = align1_destination(b);
  if (d.dst.indirect) unsupported("send with an indirect destination");
  d.src[0].file = reg_file(static_cast<unsigned>(b.field(42, 41)), "src0");
  if (d.src[0].file == RegFile::kImm) invalid("immediate send payload");
  if (b.bit(79)) unsupported("send with an indirect payload");
  d.src[0].type = data_type(d.src[0].file, static_cast<unsigned>(b.field(46, 43)), "src0");
  d.src[0].reg = static_cast<std::uint8_t>(b.field(76, 69));
  if (b.field(90, 89) != 3) {
    // The descriptor in a register: IGA's form is the ARF a0.0 as src1.
    // ARF a0, subregister 0, direct: IGA reads no more of src1 (not its type or region).
    if (b.field(90, 89) != 0 || b.field(108, 96) != kArfAddress << 5 || b.bit(111)) {
      unsupported("send descriptor in a register other than a0.0");
    }
    d.desc_in_register = true;
  }
  // IGA's Gen8 model reads a 29-bit descriptor (bits 30:29 reserved), Gen9's 31 bits.
  d.desc = b.dword(3) & (d.gen == Generation::kGen9 ? 0x7FFFFFFFU : 0x1FFFFFFFU);
  d.ex_desc = d.sfid;
  if (d.gen == Generation::kGen9) {
    // Gen9 keeps extended message descriptor bits 31:16 in fields that are src0's region and src1's type on Gen8.
    d.ex_desc |= static_cast<std::uint32_t>(b.field(94, 91) << 28 | b.field(88, 85) << 24 | b.field(83, 80) << 20 |
                                            b.field(67, 64) << 16);
  }
}

// sends/sendsc (Gen9 split send, Mesa brw_inst.h send_* fields): dst register 60:53 in the file of bit 35, payloads
// src0 (76:69) and src1 (51:44, file bit 36); extended descriptor bits 31:16 in 95:80 and 9:6 (src1 length) in 67:64,
// or in a0.<82:80> when bit 61 is set; the descriptor in DW3 or, when bit 77 is set, in a0.0.
void decode_split_send(const InstructionBits& b, DecodedInstruction& d) {
  d.sources = 2;
  if (b.bit(63)) unsupported("sends with an indirect destination");
  if (b.bit(79)) unsupported("sends with an indirect payload");
  d.dst.file = b.bit(35) ? RegFile::kGrf : RegFile::kArf;
  d.dst.reg = static_cast<std::uint8_t>(b.field(60, 53));
  if (d.dst.file == RegFile::kArf && d.dst.reg != kArfNull) unsupported("sends destination in an ARF other than null");
  const auto type = static_cast<unsigned>(b.field(40, 37));
  if (type >= kRegTypes.size()) unsupported("sends destination type outside IGA's names");
  d.dst.type = kRegTypes[type];
  d.src[0].reg = static_cast<std::uint8_t>(b.field(76, 69));
  if (!b.bit(36)) unsupported("sends src1 in an ARF");
  d.src[1].reg = static_cast<std::uint8_t>(b.field(51, 44));
  d.desc_in_register = b.bit(77);
  d.desc = d.desc_in_register ? 0 : b.dword(3) & 0x7FFFFFFFU;
  if (b.bit(61)) {
    d.ex_desc_subreg = static_cast<std::int8_t>(b.field(82, 80));
  } else {
    d.ex_desc = static_cast<std::uint32_t>(b.field(95, 80) << 16 | b.field(67, 64) << 6) | d.sfid;
  }
}

void decode_send(const InstructionBits& b, DecodedInstruction& d) {
  if (d.align16) unsupported("Align16 send");
  if (d.op->sources == 1) {
    decode_unary_send(b, d);
  } else {
    decode_split_send(b, d);
  }
  d.eot = b.bit(127);
  d.no_dd_clr = d.no_dd_chk = false;                             // IGA prints neither on a send
  d.no_src_dep_set = d.acc_wr_en && d.gen == Generation::kGen9;  // IGA prints nothing for bit 28 on Gen8
  d.acc_wr_en = false;
}

// math.invm / math.rsqtm (Align16): dst register 60:53 with the macro accumulator in the write mask 51:48, sources
// (from bits 64 and 96) with it in swizzle bits 3:0 (Mesa brw_inst.h da16 fields; IGA prints "r4.mme0").
void decode_math_macro(const InstructionBits& b, DecodedInstruction& d) {
  if (!d.align16) unsupported("Align1 math macro");
  d.sources = math_sources(d.math_fn);
  if (reg_file(static_cast<unsigned>(b.field(36, 35)), "dst") != RegFile::kGrf || b.bit(63)) {
    unsupported("math macro destination outside IGA's form");
  }
  d.dst.type = data_type(RegFile::kGrf, static_cast<unsigned>(b.field(40, 37)), "dst");
  d.dst.reg = static_cast<std::uint8_t>(b.field(60, 53));
  d.dst.mme = macro_register(static_cast<unsigned>(b.field(51, 48)), b.bit(52));
  constexpr std::array<SrcLayout, 2> kLayouts{kSrc0, kSrc1};
  for (unsigned i = 0; i < d.sources; ++i) {
    const SrcLayout& l = kLayouts[i];
    Operand& o = d.src[i];
    o.file = reg_file(static_cast<unsigned>(b.field(l.file_hi, l.file_hi - 1)), "src");
    if (o.file != RegFile::kGrf || b.bit(l.base + 15)) unsupported("math macro source outside IGA's form");
    o.type = data_type(o.file, static_cast<unsigned>(b.field(l.type_hi, l.type_hi - 3)), "src");
    // IGA reads a macro source only with the vertical stride its assembler writes (encoding 2 for 64-bit types, else
    // 3); other strides send it down the Align16-to-Align1 conversion, which rejects the operand.
    if (b.field(l.base + 24, l.base + 21) != (type_size(o.type) == 8 ? 2U : 3U)) {
      unsupported("math macro source outside IGA's form");
    }
    o.reg = static_cast<std::uint8_t>(b.field(l.base + 12, l.base + 5));
    o.abs = b.bit(l.base + 13);
    o.negate = b.bit(l.base + 14);
    o.mme = macro_register(static_cast<unsigned>(b.field(l.base + 3, l.base)), b.bit(l.base + 4));
  }
}

bool plain_direct(const Operand& o) { return !o.indirect && !o.abs && !o.negate; }
bool arf_is(const Operand& o, unsigned reg) {
  return o.file == RegFile::kArf && plain_direct(o) && o.reg == reg && o.subreg == 0;
}
bool region_is(const Region& r, unsigned v, unsigned w, unsigned h) {
  return !r.vxh && r.vstride == v && r.width == w && r.hstride == h;
}
// A D register holding a branch target or return address: IGA prints it as "r2.0" whatever the region it reads.
bool target_register(const Operand& o) {
  return o.file == RegFile::kGrf && o.type == DataType::kD && plain_direct(o) &&
         (region_is(o.region, 0, 1, 0) || region_is(o.region, 2, 2, 1));
}

// jmpi, brd, brc, call, calla, ret and wait in the form IGA's assembler writes them (IGA's "binary normal form":
// implicit ip, null and n0 operands); their fields are the Align1 ones. Other encodings are reported as unsupported
// rather than guessed, since IGA prints them with the raw fields ("Type::INVALID" and the like).
void decode_flow_form(const InstructionBits& b, DecodedInstruction& d) {
  const unsigned n = d.op->number;
  if (d.align16) unsupported("Align16 " + std::string(d.op->name));
  const bool scalar = d.exec_size == 1 && d.channel_offset == 0;
  const Operand dst = align1_destination(b);
  const Operand src0 = align1_source(b, kSrc0, "src0");
  const bool dst_ip = arf_is(dst, kArfIp) && dst.region.hstride == 1;
  bool ok = false;
  if (n == kJmpi) {
    ok = scalar && dst_ip && dst.type == DataType::kUd && arf_is(src0, kArfIp) && src0.type == DataType::kUd &&
         region_is(src0.region, 0, 1, 0);
    if (ok) {
      const Operand src1 = align1_source(b, kSrc1, "src1");
      if (src1.file == RegFile::kImm && src1.type == DataType::kD) {
        d.jip = static_cast<std::int32_t>(src1.imm) + 16;  // relative to the next instruction
      } else if (target_register(src1) && region_is(src1.region, 0, 1, 0)) {
        d.sources = 1;
        d.src[0] = src1;
      } else {
        ok = false;
      }
    }
  } else if (n == kBrd || n == kBrc) {
    ok = scalar && dst_ip && dst.type == DataType::kD;
    if (ok && src0.file == RegFile::kImm && src0.type == DataType::kD) {
      d.jip = static_cast<std::int32_t>(b.dword(3));
      if (n == kBrc) d.uip = static_cast<std::int32_t>(b.dword(2));
    } else if (ok && target_register(src0)) {
      d.sources = 1;
      d.src[0] = src0;
    } else {
      ok = false;
    }
  } else if (n == kCall || n == kCalla) {
    ok = dst.file == RegFile::kGrf && !dst.indirect && dst.type == DataType::kD && dst.region.hstride == 1 &&
         arf_is(src0, kArfNull) && src0.type == DataType::kUd && region_is(src0.region, 2, 2, 1);
    if (ok) {
      d.dst = dst;
      const Operand src1 = align1_source(b, kSrc1, "src1");
      if (src1.file == RegFile::kImm && src1.type == DataType::kD) {
        d.jip = static_cast<std::int32_t>(src1.imm);
      } else if (n == kCall && target_register(src1) && region_is(src1.region, 0, 1, 0)) {
        d.sources = 1;
        d.src[0] = src1;
      } else {
        ok = false;
      }
    }
  } else if (n == kRet) {
    ok = arf_is(dst, kArfNull) && dst.type == DataType::kUd && dst.region.hstride == 1 && target_register(src0);
    d.sources = 1;
    d.src[0] = src0;
  } else {  // wait: the notification register n0 as destination and source
    ok = scalar && dst.file == RegFile::kArf && !dst.indirect && dst.reg == kArfNotification &&
         dst.type == DataType::kUd && dst.region.hstride == 1 && src0.file == RegFile::kArf && plain_direct(src0) &&
         src0.reg == kArfNotification && src0.subreg == dst.subreg && src0.type == DataType::kUd &&
         region_is(src0.region, 0, 1, 0);
    d.sources = 1;
    d.src[0] = src0;
  }
  if (!ok) unsupported(std::string(d.op->name) + " operands outside IGA's normal form");
}

void decode_flow(const InstructionBits& b, DecodedInstruction& d) {
  if (d.op->op_class == OpClass::kFlow) d.acc_wr_en = false;  // IGA ignores bit 28 on jmpi ... ret (not on wait)
  try {
    decode_flow_form(b, d);
  } catch (const Fail& f) {
    // A reserved field in an implicit operand: IGA still prints these (with the raw values); not modelled.
    if (f.error.unsupported) throw;
    unsupported(std::string(d.op->name) + " operands outside IGA's normal form (" + f.error.reason + ")");
  }
}

DecodedInstruction decode_or_throw(const std::uint8_t* bytes, Generation gen) {
  const InstructionBits b(bytes);
  DecodedInstruction d;
  d.gen = gen;
  const auto number = static_cast<unsigned>(b.field(6, 0));
  d.op = find_opcode(number, gen);
  if (d.op == nullptr) invalid("unknown opcode " + std::to_string(number));
  if (b.bit(7)) invalid("reserved opcode bit 7");
  if (d.op->op_class == OpClass::kNop) {
    d.breakpoint = b.bit(30);  // the only field IGA reads in a nop
    return d;
  }
  decode_header(b, d);
  switch (d.op->op_class) {
    case OpClass::kTernary:
      d.sources = 3;
      decode_ternary(b, d);
      drop_source_modifiers(d);
      return d;
    case OpClass::kAlu:
    case OpClass::kMath:
      break;
    case OpClass::kBranch: {
      d.jip = static_cast<std::int32_t>(b.dword(3));
      d.uip = static_cast<std::int32_t>(b.dword(2));
      // Bit 28 is BranchCtrl on if/else/goto (brw_inst.h branch_control; IGA's ".b"), ignored on the others.
      const std::string_view name = d.op->name;
      d.branch_ctrl = d.acc_wr_en && (name == "if" || name == "else" || name == "goto");
      d.acc_wr_en = false;
      return d;
    }
    case OpClass::kNop:
    case OpClass::kSend:
      decode_send(b, d);
      return d;
    case OpClass::kFlow:
    case OpClass::kWait:
      decode_flow(b, d);
      return d;
  }
  if (d.op->op_class == OpClass::kMath && is_math_macro(d.math_fn)) {
    decode_math_macro(b, d);
    drop_source_modifiers(d);
    return d;
  }
  d.sources = d.op->op_class == OpClass::kMath ? math_sources(d.math_fn) : d.op->sources;
  if (d.op->op_class == OpClass::kMath && math_function_name(d.math_fn).empty()) invalid("reserved math function");
  d.dst = d.align16 ? align16_destination(b) : align1_destination(b);
  if (d.align16) d.write_mask = static_cast<std::uint8_t>(b.field(51, 48));
  d.src[0] = d.align16 ? align16_source(b, kSrc0, "src0") : align1_source(b, kSrc0, "src0");
  if (d.sources == 2) {
    if (d.src[0].file == RegFile::kImm) unsupported("immediate src0 of a two-source instruction");
    d.src[1] = d.align16 ? align16_source(b, kSrc1, "src1") : align1_source(b, kSrc1, "src1");
    // iga64 rejects an ARF src1 in every form tried (even acc0 and null, which its assembler will not encode
    // either); which, if any, the hardware takes is not established.
    if (d.src[1].file == RegFile::kArf) unsupported("ARF src1");
    if (d.src[1].file == RegFile::kImm && is_64bit(d.src[1].type)) invalid("64-bit immediate in src1");
  }
  // IGA (GED) rejects indirect addressing on a math destination and src0 (src1 may be indirect).
  if (d.op->op_class == OpClass::kMath && d.dst.indirect) invalid("indirect math destination");
  // IGA's Gen8/9 models take math operands in GRFs only (an ARF register file is an invalid field value).
  if (d.op->op_class == OpClass::kMath && d.dst.file == RegFile::kArf) invalid("ARF math destination");
  if (d.op->op_class == OpClass::kMath && d.src[0].file == RegFile::kArf) invalid("ARF math src0");
  if (d.op->op_class == OpClass::kMath && d.src[0].indirect) invalid("indirect math src0");
  drop_source_modifiers(d);
  return d;
}

}  // namespace

DecodeResult decode(const std::uint8_t* bytes, Generation gen) {
  try {
    if (!is_compacted(bytes)) return decode_or_throw(bytes, gen);
    auto native = expand_compacted(bytes, gen);
    if (auto* e = std::get_if<DecodeError>(&native)) return std::move(*e);
    DecodedInstruction d = decode_or_throw(std::get<NativeWord>(native).data(), gen);
    d.compacted = true;
    return d;
  } catch (const Fail& f) {
    return f.error;
  }
}

DecodedAt decode_at(const std::uint8_t* bytes, std::size_t available, Generation gen) {
  const unsigned length = available >= 4 && is_compacted(bytes) ? kCompactedBytes : kNativeBytes;
  if (available < length) {
    return DecodedAt{
        DecodeError{"truncated instruction: " + std::to_string(available) + " of " + std::to_string(length) + " bytes",
                    false},
        static_cast<unsigned>(available)};
  }
  if (length == kNativeBytes) return DecodedAt{decode(bytes, gen), length};
  NativeWord padded{};  // decode() reads 16 bytes; a compacted instruction at the end of a kernel has only 8
  std::copy_n(bytes, kCompactedBytes, padded.begin());
  return DecodedAt{decode(padded.data(), gen), length};
}

}  // namespace gpuvp::gen::eu
