// The Gen8/Gen9 EU opcode table: numbers from Mesa brw_eu.cpp (opcode_descs, gen < 12), mnemonics as Intel's IGA
// prints them (`iga64 -p=9 -Xlist-ops`).
#pragma once

#include <cstdint>
#include <string_view>

namespace gpuvp::gen::eu {

enum class Generation : std::uint8_t { kGen8 = 8, kGen9 = 9 };

// How the operand fields of an opcode are laid out and printed.
enum class OpClass : std::uint8_t {
  kAlu,      // Align1/Align16 basic form: dst, src0 and (if two sources) src1 or an immediate
  kMath,     // as kAlu, bits 27:24 hold the math function instead of a condition modifier
  kTernary,  // three-source form (Align16 only on Gen8/9)
  kBranch,   // JIP/UIP control flow
  kSend,     // send/sendc/sends/sendsc: SFID in 27:24, message descriptor
  kNop,
  kFlow,  // jmpi, brd, brc, call, calla, ret: a target in an immediate (offset) or a register
  kWait,  // wait on a notification register
};

struct OpcodeInfo {
  std::uint8_t number;
  std::string_view name;
  std::uint8_t sources;  // source operands in the basic form (math: see math_sources)
  OpClass op_class;
  bool gen9_only;
  unsigned attributes;
  bool has(unsigned attribute) const { return (attributes & attribute) != 0; }

  static constexpr unsigned kPredication = 1U << 0;
  static constexpr unsigned kFlagModifier = 1U << 1;  // condition modifier
  static constexpr unsigned kSaturation = 1U << 2;
  static constexpr unsigned kSourceModifiers = 1U << 3;
  static constexpr unsigned kLogic = 1U << 4;  // and/or/xor/not: a source negation is a logical not, printed "~"
};

// nullptr when the number is not an opcode of the generation.
const OpcodeInfo* find_opcode(unsigned number, Generation gen);

// Math function (bits 27:24 of a math instruction): IGA's suffix ("inv", "idiv", ...) or an empty view when reserved.
std::string_view math_function_name(unsigned fn);
// Sources a math function reads (1 or 2).
unsigned math_sources(unsigned fn);
// invm/rsqtm: Align16 macros whose operands name math macro extended accumulators (mme0-7, nomme).
bool is_math_macro(unsigned fn);

}  // namespace gpuvp::gen::eu
