#include "tlm/gen/eu/compaction.h"

#include <string>

namespace gpuvp::gen::eu {
namespace {

// Mesa brw_eu_compact.c gfx8_control_index_table (Gen8 and Gen9): 19 bits placed at native 33:31, 23:12, 10:9, 34
// and 8.
constexpr std::array<std::uint32_t, 32> kControlIndex{
    0b0000000000000000010, 0b0000100000000000000, 0b0000100000000000001, 0b0000100000000000010, 0b0000100000000000011,
    0b0000100000000000100, 0b0000100000000000101, 0b0000100000000000111, 0b0000100000000001000, 0b0000100000000001001,
    0b0000100000000001101, 0b0000110000000000000, 0b0000110000000000001, 0b0000110000000000010, 0b0000110000000000011,
    0b0000110000000000100, 0b0000110000000000101, 0b0000110000000000111, 0b0000110000000001001, 0b0000110000000001101,
    0b0000110000000010000, 0b0000110000100000000, 0b0001000000000000000, 0b0001000000000000010, 0b0001000000000000100,
    0b0001000000100000000, 0b0010110000000000000, 0b0010110000000010000, 0b0011000000000000000, 0b0011000000100000000,
    0b0101000000000000000, 0b0101000000100000000,
};

// gfx8_datatype_table: 21 bits placed at native 63:61 (dst indirect and stride), 94:89 (src1 type and file) and 46:35
// (src0 type and file, dst type and file).
constexpr std::array<std::uint32_t, 32> kDataTypeIndex{
    0b001000000000000000001, 0b001000000000001000000, 0b001000000000001000001, 0b001000000000011000001,
    0b001000000000101011101, 0b001000000010111011101, 0b001000000011101000001, 0b001000000011101000101,
    0b001000000011101011101, 0b001000001000001000001, 0b001000011000001000000, 0b001000011000001000001,
    0b001000101000101000101, 0b001000111000101000100, 0b001000111000101000101, 0b001011100011101011101,
    0b001011101011100011101, 0b001011101011101011100, 0b001011101011101011101, 0b001011111011101011100,
    0b000000000010000001100, 0b001000000000001011101, 0b001000000000101000101, 0b001000001000001000000,
    0b001000101000101000100, 0b001000111000100000100, 0b001001001001000001001, 0b001010111011101011101,
    0b001011111011101011101, 0b001001111001101001100, 0b001001001001001001000, 0b001001011001001001000,
};

// gfx8_subreg_table: 15 bits placed at native 100:96 (src1), 68:64 (src0) and 52:48 (dst subregister).
constexpr std::array<std::uint16_t, 32> kSubRegIndex{
    0b000000000000000, 0b000000000000001, 0b000000000001000, 0b000000000001111, 0b000000000010000, 0b000000010000000,
    0b000000100000000, 0b000000110000000, 0b000001000000000, 0b000001000010000, 0b000001010000000, 0b001000000000000,
    0b001000000000001, 0b001000010000001, 0b001000010000010, 0b001000010000011, 0b001000010000100, 0b001000010000111,
    0b001000010001000, 0b001000010001110, 0b001000010001111, 0b001000110000000, 0b001000111101000, 0b010000000000000,
    0b010000110000000, 0b011000000000000, 0b011110010000111, 0b100000000000000, 0b101000000000000, 0b110000000000000,
    0b111000000000000, 0b111000000011100,
};

// gfx8_src_index_table: 12 bits of region, indirect flag and modifiers, placed at native 88:77 (src0) or 120:109
// (src1).
constexpr std::array<std::uint16_t, 32> kSrcIndex{
    0b000000000000, 0b000000000010, 0b000000010000, 0b000000010010, 0b000000011000, 0b000000100000, 0b000000101000,
    0b000001001000, 0b000001010000, 0b000001110000, 0b000001111000, 0b001100000000, 0b001100000010, 0b001100001000,
    0b001100010000, 0b001100010010, 0b001100100000, 0b001100101000, 0b001100111000, 0b001101000000, 0b001101000010,
    0b001101001000, 0b001101010000, 0b001101100000, 0b001101101000, 0b001101110000, 0b001101110001, 0b001101111000,
    0b010001101000, 0b010001101001, 0b010001101010, 0b010110001000,
};

// gfx8_3src_control_index_table (the Cherryview layout; Broadwell/Skylake use its low 24 bits): native 36:35, 34:32
// and 28:8.
constexpr std::array<std::uint32_t, 4> kTernaryControlIndex{
    0b00100000000110000000000001,
    0b00000000000110000000000001,
    0b00000000001000000000000001,
    0b00000000001000000000100001,
};

// gfx8_3src_source_index_table: native 55:37 (dst subregister, write mask, types, modifiers) and the three swizzles
// at 72:65, 93:86, 114:107 (the Cherryview-only high bits are zero in every entry).
constexpr std::array<std::uint64_t, 4> kTernarySourceIndex{
    0b0000001110010011100100111001000001111000000000000,
    0b0000001110010011100100111001000001111000000000010,
    0b0000001110010011100100111001000001111000000001000,
    0b0000001110010011100100111001000001111000000100000,
};

// Reads fields of the compacted word (bits 63:0) and writes fields of the native word (bits 127:0).
class Expander {
 public:
  explicit Expander(const std::uint8_t* bytes) {
    for (unsigned i = 0; i < kCompactedBytes; ++i) compact_ |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  }
  std::uint64_t get(unsigned hi, unsigned lo) const {
    const unsigned width = hi - lo + 1;
    return (compact_ >> lo) & (width == 64 ? ~0ULL : (1ULL << width) - 1);
  }
  // Native bits hi..lo (a field may straddle bit 64) = the low bits of `value`.
  void set(unsigned hi, unsigned lo, std::uint64_t value) {
    for (unsigned bit = lo; bit <= hi; ++bit, value >>= 1) {
      const std::uint64_t mask = 1ULL << (bit % 64);
      native_[bit / 64] = (value & 1) != 0 ? native_[bit / 64] | mask : native_[bit / 64] & ~mask;
    }
  }
  void copy(unsigned compact_hi, unsigned compact_lo, unsigned native_lo) {
    set(native_lo + compact_hi - compact_lo, native_lo, get(compact_hi, compact_lo));
  }
  NativeWord word() const {
    NativeWord w{};
    for (unsigned i = 0; i < kNativeBytes; ++i) w[i] = static_cast<std::uint8_t>(native_[i / 8] >> (8 * (i % 8)));
    return w;
  }

 private:
  std::uint64_t compact_ = 0;
  std::array<std::uint64_t, 2> native_{};
};

// Three-source form (brw_inst.h 3src compact fields, 7-bit register numbers).
void expand_ternary(Expander& e) {
  e.copy(6, 0, 0);  // opcode
  const std::uint32_t control = kTernaryControlIndex[e.get(9, 8)];
  e.set(34, 32, control >> 21);
  e.set(28, 8, control);
  e.set(36, 35, control >> 24);
  const std::uint64_t source = kTernarySourceIndex[e.get(11, 10)];
  e.set(55, 37, source);
  e.set(72, 65, source >> 19);
  e.set(93, 86, source >> 27);
  e.set(114, 107, source >> 35);
  e.copy(18, 12, 56);  // dst register
  e.copy(28, 28, 64);  // src0 replicate
  e.copy(30, 30, 30);  // debug (Breakpoint)
  e.copy(31, 31, 31);  // saturate
  e.copy(32, 32, 85);  // src1 replicate
  e.copy(33, 33, 106);
  e.copy(36, 34, 73);  // src0 subregister (dwords)
  e.copy(39, 37, 94);
  e.copy(42, 40, 115);
  e.copy(49, 43, 76);  // src0 register
  e.copy(56, 50, 97);
  e.copy(63, 57, 118);
}

// One- and two-source form.
void expand_basic(Expander& e) {
  e.copy(6, 0, 0);   // opcode
  e.copy(7, 7, 30);  // debug (Breakpoint)
  const std::uint32_t control = kControlIndex[e.get(12, 8)];
  e.set(33, 31, control >> 16);
  e.set(23, 12, control >> 4);
  e.set(10, 9, control >> 2);
  e.set(34, 34, control >> 1);
  e.set(8, 8, control);
  const std::uint32_t types = kDataTypeIndex[e.get(17, 13)];
  e.set(63, 61, types >> 18);
  e.set(94, 89, types >> 12);
  e.set(46, 35, types);
  const std::uint16_t subregs = kSubRegIndex[e.get(22, 18)];
  e.set(100, 96, subregs >> 10);
  e.set(68, 64, subregs >> 5);
  e.set(52, 48, subregs);
  e.set(88, 77, kSrcIndex[e.get(34, 30)]);
  e.copy(23, 23, 28);  // AccWrEn
  e.copy(27, 24, 24);  // condition modifier
  e.copy(47, 40, 53);  // dst register
  e.copy(55, 48, 69);  // src0 register
  constexpr unsigned kImmFile = 3;
  const bool immediate = ((types >> 6) & 3) == kImmFile || ((types >> 12) & 3) == kImmFile;
  if (immediate) {
    // 13 bits (src1 index and src1 register) sign-extended into DW3 (brw_eu_compact.c uncompact_immediate).
    const auto imm = static_cast<std::uint32_t>(e.get(39, 35) << 8 | e.get(63, 56));
    e.set(127, 96, (imm & 0x1000) != 0 ? imm | 0xFFFFE000U : imm);
  } else {
    e.set(120, 109, kSrcIndex[e.get(39, 35)]);
    e.copy(63, 56, 101);  // src1 register
  }
}

// IGA's Gen8/Gen9 models give no compacted form to the control-flow opcodes, nop, and (Gen9 only) the sends: iga64
// rejects such words ("no compacted form"). Mesa compacts some control flow (endif, else with small offsets), so the
// hardware may take them; which it does is not established, and the decoder reports them as not modelled.
bool has_compacted_form(const OpcodeInfo& op, Generation gen) {
  switch (op.op_class) {
    case OpClass::kBranch:
    case OpClass::kNop:
      return false;
    case OpClass::kSend:
      return gen == Generation::kGen8 && op.sources == 1;
    default:
      return op.name != "brd" && op.name != "brc" && op.name != "call" && op.name != "calla";
  }
}

}  // namespace

std::variant<NativeWord, DecodeError> expand_compacted(const std::uint8_t* bytes, Generation gen) {
  Expander e(bytes);
  const auto number = static_cast<unsigned>(e.get(6, 0));
  const OpcodeInfo* op = find_opcode(number, gen);
  if (op == nullptr) return DecodeError{"unknown opcode " + std::to_string(number), false};
  if (!has_compacted_form(*op, gen)) return DecodeError{"unsupported: compacted " + std::string(op->name), true};
  if (op->sources == 3) {
    expand_ternary(e);
  } else {
    expand_basic(e);
  }
  return e.word();
}

}  // namespace gpuvp::gen::eu
