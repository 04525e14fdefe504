// Decoder of native (128-bit) and compacted (64-bit, expanded by compaction.h) Gen8/Gen9 EU instructions into fields
// the disassembler and (later) the executor use. Field positions: Mesa brw_inst.h; encodings of types, regions and ARF
// numbers: Mesa brw_eu_defines.h / brw_reg_type.c. Any bytes give a DecodedInstruction or a DecodeError, never
// undefined behaviour.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "tlm/gen/eu/opcodes.h"

namespace gpuvp::gen::eu {

enum class RegFile : std::uint8_t { kArf, kGrf, kImm };

// Register and immediate types (the union of both encodings; the decoder maps the per-file numbers to these).
enum class DataType : std::uint8_t { kUd, kD, kUw, kW, kUb, kB, kDf, kF, kUq, kQ, kHf, kUv, kVf, kV };

// Bytes of one element; the packed vector immediates report 4. Inline: the executor asks per channel.
inline unsigned type_size(DataType type) {
  switch (type) {
    case DataType::kUb:
    case DataType::kB:
      return 1;
    case DataType::kUw:
    case DataType::kW:
    case DataType::kHf:
      return 2;
    case DataType::kDf:
    case DataType::kUq:
    case DataType::kQ:
      return 8;
    default:
      return 4;
  }
}

struct Region {
  std::uint8_t vstride = 0;  // elements
  std::uint8_t width = 1;
  std::uint8_t hstride = 0;
  bool vxh = false;  // vstride encoding 0xF: per-channel indirect rows (Align1 indirect only)
};

struct Operand {
  RegFile file = RegFile::kGrf;
  DataType type = DataType::kUd;
  bool indirect = false;
  std::uint8_t reg = 0;          // direct: register number (ARF: the full brw number, e.g. 0x21 = acc1)
  std::uint8_t subreg = 0;       // direct: byte offset in the register
  std::uint8_t addr_subreg = 0;  // indirect: a0 subregister
  std::int16_t addr_imm = 0;     // indirect: signed byte offset
  Region region;                 // sources; for dst only hstride is meaningful
  bool abs = false;
  bool negate = false;
  std::uint64_t imm = 0;  // immediates: raw bits (64-bit types use bits 127:64)
  // Align16 three-source: replicate one channel (scalar) instead of a <4;1> swizzle.
  bool replicate = false;
  // Align16 sources: the channel select, 2 bits per channel from x (bits 1:0) to w; 0xE4 is xyzw. IGA's Align1 text
  // does not show it (see docs/gen-eu-isa.md).
  std::uint8_t swizzle = 0xE4;
  // Math macros (madm, math.invm/rsqtm): the extended accumulator the operand names, 0-7 = mme0-mme7, 8 = nomme;
  // -1 for every other instruction.
  std::int8_t mme = -1;
};

struct DecodedInstruction {
  const OpcodeInfo* op = nullptr;
  Generation gen = Generation::kGen9;
  bool align16 = false;
  std::uint8_t exec_size = 1;       // channels: 1, 2, 4, 8, 16, 32
  std::uint8_t write_mask = 0xF;    // Align16 three-source destination channels (x = bit 0); 0xF otherwise
  std::uint8_t channel_offset = 0;  // from quarter and nibble control: M0, M4, ... M28
  bool no_mask = false;             // WE_all, IGA "(W)"
  std::uint8_t pred_ctrl = 0;       // 0 none, 1 normal, 2.. any/all forms
  bool pred_inv = false;
  std::uint8_t cond_mod = 0;  // condition modifier (0 none)
  std::uint8_t math_fn = 0;
  std::uint8_t flag_reg = 0;
  std::uint8_t flag_subreg = 0;
  bool saturate = false;
  bool acc_wr_en = false;
  bool branch_ctrl = false;     // bit 28 of if, else and goto (IGA's ".b" suffix); AccWrEn elsewhere
  bool no_src_dep_set = false;  // bit 28 of a send (AccWrEn elsewhere)
  bool no_dd_clr = false;
  bool no_dd_chk = false;
  bool breakpoint = false;
  std::uint8_t thread_ctrl = 0;  // 0 normal, 1 atomic, 2 switch
  unsigned sources = 0;
  Operand dst;
  std::array<Operand, 3> src{};
  // Branches: signed byte offsets from this instruction (jmpi: from the next one; calla: an absolute address).
  // jmpi, brd, brc, call and ret may take the target from a register instead: then sources is 1 and src[0] holds it.
  std::int32_t jip = 0;
  std::int32_t uip = 0;
  std::uint8_t sfid = 0;  // send
  std::uint32_t ex_desc = 0;
  std::uint32_t desc = 0;
  bool desc_in_register = false;    // the descriptor is in a0.0
  std::int8_t ex_desc_subreg = -1;  // sends: the extended descriptor is in a0.<n> (ex_desc then unused)
  bool eot = false;
  bool compacted = false;  // decoded from the 8-byte compacted form (IGA's "Compacted" option)
};

struct DecodeError {
  std::string reason;
  // True when the encoding may be valid but this decoder does not model it yet (as opposed to a reserved or
  // invalid encoding).
  bool unsupported = false;
};

using DecodeResult = std::variant<DecodedInstruction, DecodeError>;

// Decodes the instruction at `bytes`: 16 bytes, or 8 when compacted (bit 29); the caller guarantees 16 readable bytes
// (see decode_at for a stream).
DecodeResult decode(const std::uint8_t* bytes, Generation gen);

struct DecodedAt {
  DecodeResult result;
  // Bytes the instruction occupies (8 compacted, 16 native); when fewer bytes are available than it needs, the result
  // is a DecodeError and length is the bytes available, so that a walk over a kernel ends.
  unsigned length = 0;
};

// Decodes the instruction at `bytes` of a kernel with `available` readable bytes from there on: the way to walk a
// stream that mixes compacted and native instructions.
DecodedAt decode_at(const std::uint8_t* bytes, std::size_t available, Generation gen);

}  // namespace gpuvp::gen::eu
