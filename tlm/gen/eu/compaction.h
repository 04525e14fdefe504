// Compacted (64-bit) Gen8/Gen9 EU instructions: bit 29 (CmptCtrl) set, most fields replaced by indices into fixed
// tables. expand_compacted() rebuilds the native 128-bit word the hardware executes, which decode() then handles as
// any native instruction. Table values and field positions: Mesa src/intel/compiler/brw_eu_compact.c (gfx8_* tables,
// shared by Gen8 and Gen9) and brw_inst.h (brw_compact_inst fields).
#pragma once

#include <array>
#include <cstdint>
#include <variant>

#include "tlm/gen/eu/decoder.h"

namespace gpuvp::gen::eu {

constexpr unsigned kCompactedBytes = 8;
constexpr unsigned kNativeBytes = 16;

using NativeWord = std::array<std::uint8_t, kNativeBytes>;

// Bit 29 of the first dword: the instruction is 8 bytes long (the caller guarantees 4 readable bytes).
inline bool is_compacted(const std::uint8_t* bytes) { return (bytes[3] & 0x20) != 0; }

// The native form of the compacted instruction in the 8 bytes at `bytes`, or a DecodeError naming why it has none
// (an opcode without a compacted form, reserved bits of the three-source form).
std::variant<NativeWord, DecodeError> expand_compacted(const std::uint8_t* bytes, Generation gen);

}  // namespace gpuvp::gen::eu
