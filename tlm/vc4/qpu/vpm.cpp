#include "tlm/vc4/qpu/vpm.h"

#include <cstdio>
#include <vector>

#include "tlm/core/format_hex.h"

namespace gpuvp::vc4::qpu {
namespace {

std::string hex(std::uint32_t v) { return core::format_hex(v, 8); }

// The word at linear position `index` of the VPM (row-major, wrapping at its end).
std::uint32_t& linear(Vpm& vpm, std::uint32_t index) { return vpm.words[index % vpm.words.size()]; }

// Element `i` of a vertical access at (row, column): columns past 15 continue 16 rows down (the stated layout of a
// vertical transfer wider than the VPM).
std::uint32_t& vertical(Vpm& vpm, unsigned row, unsigned column, unsigned i) {
  return vpm.at(row + i + Vpm::kColumns * (column / Vpm::kColumns), column % Vpm::kColumns);
}

// Byte `index` of the VPM as one row-major array of little-endian words, the order a DMA moves them in (VC4C's
// emulator copies the bytes of its VPM words so; py-videocore's DMA tests compare 32-bit words as they are).
void set_byte(Vpm& vpm, std::uint32_t index, std::uint8_t value) {
  std::uint32_t& word = linear(vpm, index / 4);
  const unsigned shift = 8 * (index % 4);
  word = (word & ~(0xFFU << shift)) | (std::uint32_t{value} << shift);
}

// The bits of an element of `bytes` bytes (1, 2 or 4) within its word.
std::uint32_t element_mask(unsigned bytes) { return bytes == 4 ? 0xFFFFFFFFU : (1U << (8 * bytes)) - 1; }

// Bytes per element of a DMA MODEW (guide tables 34/36 via VC4C's VPM.h): 0 = 32-bit, 2-3 = 16-bit, 4-7 = 8-bit.
unsigned dma_width(unsigned modew) { return modew == 0 ? 4 : modew < 4 ? 2 : 1; }
std::string dma_width_name(unsigned modew) { return modew < 4 ? "a 16-bit" : "an 8-bit"; }

// Where element `i` (0-15) of a generic access is: its word, with `byte` set to the byte its value starts at.
// SIZE 0, 1, 2 = 8-, 16-, 32-bit elements. The guide's tables 32/33 (quoted in VC4C's VPM.h and Emulator.cpp) give
// ADDR as horizontal 8-bit {Y[5:0], B[1:0]}, 16-bit {Y[5:0], H[0]}, 32-bit Y[5:0]; vertical 8-bit
// {Y[5:4], X[3:0], B[1:0]}, 16-bit {Y[5:4], X[3:0], H[0]}, 32-bit {Y[5:4], X[3:0]} (vc4asm's h8p/h16p/v8p/v16p and
// py-videocore's setup_vpm_read/write encode the same): B or H selects the byte or half-word sub-vector, the bits
// above it are the 32-bit vector address (a row Y, or column X of the 16 rows from 16 * Y[5:4]).
// - Packed (LANED 0) takes a sub-vector from successive words along the vector (VC4C's VPM.h: consecutive
//   elements at consecutive addresses): four 8-bit or two 16-bit elements a word, element i at word
//   `16 / per_word * select + i / per_word`, its byte or half-word `i % per_word` (the lowest first). Horizontal
//   8-bit sub-vector B is thus words 4B..4B+3 of row Y and 16-bit H words 8H..8H+7: the Raspberry Pi's HEVC QPU
//   code relies on both on hardware (jc-kynesim/rpi-ffmpeg libavcodec/rpi_shader.qasm and rpi_hevc_shader.qasm: h8p
//   at B = QPU & 3, a row per vector, stored by a VDW from X = 4B and the second half of each vector from
//   X = 4B + 2; h16p at H stored from "X = H * 8"), as VC4C's emulator does. A vertical packed vector runs down its
//   column the same way (B or H picks 4 or 8 of the 16 rows: the guide's vertical vectors run down a column; no program
//   or emulator of the sources uses it).
// - Laned (LANED 1; ignored for 32-bit) keeps every element in a word of its own (VC4C's VPM.h: each entry a word
//   on from the last): element i in word i of the row, or row i of the column, in byte or half-word lane B or H.
std::uint32_t& generic_lane(Vpm& vpm, unsigned size, bool laned, bool horizontal, std::uint32_t address, unsigned i,
                            unsigned& byte) {
  const unsigned bytes = 1U << size;
  const unsigned per_word = 4 / bytes;
  const unsigned select_bits = 2 - size;
  const unsigned select = address & ((1U << select_bits) - 1);
  const std::uint32_t vector = address >> select_bits;
  unsigned along = i;  // the word along the vector
  byte = select * bytes;
  if (!laned && per_word > 1) {
    along = 16 / per_word * select + i / per_word;
    byte = i % per_word * bytes;
  }
  if (horizontal) return vpm.at(vector & 0x3FU, along);
  return vpm.at(16 * ((vector >> 4) & 3U) + along, vector & 15U);
}

// The fields of a generic block setup (guide tables 32/33).
bool decode_generic(std::uint32_t value, bool with_count, unsigned& size, bool& laned, unsigned& stride,
                    bool& horizontal, std::uint32_t& address, unsigned& count, std::string& error) {
  size = (value >> 8) & 3U;
  if (size == 3) {
    error =
        "VPM generic setup " + hex(value) + " with SIZE 3: the size is reserved (0 = 8-bit, 1 = 16-bit, 2 = 32-bit)";
    return false;
  }
  laned = ((value >> 10) & 1U) != 0;
  stride = (value >> 12) & 0x3FU;
  if (stride == 0) stride = 64;
  horizontal = ((value >> 11) & 1U) != 0;
  address = value & 0xFFU;
  count = with_count ? ((value >> 20) & 0xFU) : 0;
  if (with_count && count == 0) count = 16;
  return true;
}

}  // namespace

bool VpmPort::read_setup(std::uint32_t value, std::string& error) {
  if ((value & 0x80000000U) == 0) {
    if ((value >> 30) != 0) {
      error = "vr_setup " + hex(value) + ": bits 31:30 = 01 is no setup";
      return false;
    }
    unsigned count = 0;
    if (!decode_generic(value, true, read_.size, read_.laned, read_.stride, read_.horizontal, read_.address, count,
                        error)) {
      return false;
    }
    read_.remaining = count;
    read_set_up_ = true;
    return true;
  }
  if ((value >> 28) == 0x9U) {  // extended memory pitch
    load_extended_pitch_ = value & 0x1FFFU;
    return true;
  }
  const unsigned modew = (value >> 28) & 7U;
  if (modew != 0) {
    const std::string what = "VCD DMA load setup " + hex(value) + ": " + dma_width_name(modew) + " load (MODEW " +
                             std::to_string(modew) + ")";
    // The guide (table 36 via VC4C's VPM.h) adds VPITCH to {Y[1:0], B[1:0]} (8-bit) or {Y[2:0], H[0]} (16-bit)
    // "for both horizontal and vertical modes": in a horizontal load the byte or half-word select picks a
    // 16-element vector of the row; where a vertical 8- or 16-bit row goes, and how X combines with the select, it
    // does not say.
    if (((value >> 11) & 1U) != 0) {
      error = what +
              " into VPM columns (VERT) is not modelled: the guide adds VPITCH to the Y address and the byte "
              "or half-word select in vertical mode too and does not say where each row lands; only horizontal "
              "8- and 16-bit loads are modelled";
      return false;
    }
    if ((value & 15U) != 0) {
      error = what + " starting at X = " + std::to_string(value & 15U) +
              " is not modelled: the byte or half-word select picks a 16-element vector of the VPM row and the guide "
              "does not say how X combines with it; only X = 0 is modelled";
      return false;
    }
  }
  load_setup_ = value;
  load_set_up_ = true;
  return true;
}

bool VpmPort::write_setup(std::uint32_t value, std::string& error) {
  switch (value >> 30) {
    case 0: {
      unsigned count = 0;
      if (!decode_generic(value, false, write_.size, write_.laned, write_.stride, write_.horizontal, write_.address,
                          count, error)) {
        return false;
      }
      write_set_up_ = true;
      return true;
    }
    case 2:
      // Guide table 34 via VC4C's VPM.h: MODEW 1 is "Unused", LANED (bit 15) is "Write as 0".
      if ((value & 7U) == 1) {
        error = "VDW DMA store setup " + hex(value) + " with MODEW 1: the guide leaves it unused (no width)";
        return false;
      }
      if (((value >> 15) & 1U) != 0) {
        error = "VDW DMA store setup " + hex(value) + " with LANED (bit 15) set: the guide says write it as 0";
        return false;
      }
      store_setup_ = value;
      store_set_up_ = true;
      return true;
    case 3:
      // Bytes from the end of one row to the start of the next: 16 bits (vc4asm's correction of the guide's 13).
      // BLOCKMODE (bit 16) 1 packs the rows consecutively in the VPM instead of a row or column each (guide
      // table 35 via VC4C's VPM.h).
      if (((value >> 16) & 1U) != 0) {
        error = "VDW DMA stride setup " + hex(value) +
                " with BLOCKMODE 1 (rows packed consecutively in the VPM) is not modelled: only BLOCKMODE 0 (a VPM "
                "row or column per unit) is";
        return false;
      }
      store_stride_ = value & 0xFFFFU;
      return true;
    default:
      error = "vw_setup " + hex(value) + ": bits 31:30 = 01 is no setup";
      return false;
  }
}

bool VpmPort::read(Vpm& vpm, Vector& value, std::string& error) {
  if (!read_set_up_ || read_.remaining == 0) {
    error =
        "VPM read with nothing left to read (no read setup, or its count is used up): the QPU would wait "
        "forever";
    return false;
  }
  // An 8- or 16-bit element reads zero-extended (VC4C's emulator; no source says otherwise).
  const std::uint32_t mask = element_mask(1U << read_.size);
  for (unsigned i = 0; i < 16; ++i) {
    unsigned byte = 0;
    const std::uint32_t word = generic_lane(vpm, read_.size, read_.laned, read_.horizontal, read_.address, i, byte);
    value[i] = (word >> (8 * byte)) & mask;
  }
  read_.address = (read_.address + read_.stride) & 0xFFU;
  --read_.remaining;
  return true;
}

bool VpmPort::write(Vpm& vpm, const Vector& value, std::string& error) {
  if (!write_set_up_) {
    error = "VPM write without a write setup (vw_setup)";
    return false;
  }
  // An 8- or 16-bit write replaces the element's byte or half-word with the low bits of the value and leaves the
  // rest of the word (VC4C's emulator; rpi-ffmpeg's rpi_shader.qasm writes h16p vectors from a register whose
  // upper half-words hold other data).
  const std::uint32_t mask = element_mask(1U << write_.size);
  for (unsigned i = 0; i < 16; ++i) {
    unsigned byte = 0;
    std::uint32_t& word = generic_lane(vpm, write_.size, write_.laned, write_.horizontal, write_.address, i, byte);
    word = (word & ~(mask << (8 * byte))) | ((value[i] & mask) << (8 * byte));
  }
  write_.address = (write_.address + write_.stride) & 0xFFU;
  return true;
}

bool VpmPort::load(Vpm& vpm, DmaMemory& memory, std::uint32_t address, std::string& error) {
  if (!load_set_up_) {
    error = "VCD DMA load from " + hex(address) + " without a load setup (vr_setup with bit 31)";
    return false;
  }
  const std::uint32_t s = load_setup_;
  const unsigned modew = (s >> 28) & 7U;
  const unsigned width = dma_width(modew);
  const unsigned select = modew < 4 ? modew & 1U : modew & 3U;  // MODEW 0 selects nothing
  const unsigned mpitch = (s >> 24) & 0xFU;
  const std::uint32_t pitch = mpitch != 0 ? 8U << mpitch : load_extended_pitch_;
  const unsigned row_length = ((s >> 20) & 0xFU) != 0 ? (s >> 20) & 0xFU : 16;
  const unsigned rows = ((s >> 16) & 0xFU) != 0 ? (s >> 16) & 0xFU : 16;
  const unsigned vpm_pitch = ((s >> 12) & 0xFU) != 0 ? (s >> 12) & 0xFU : 16;
  const bool vert = ((s >> 11) & 1U) != 0;  // 32-bit only: read_setup refuses the others
  const unsigned y = (s >> 4) & 0x7FU, x = s & 15U;
  std::vector<std::uint8_t> row(row_length * width);
  for (unsigned r = 0; r < rows; ++r) {
    const std::uint32_t from = address + r * pitch;
    if (!memory.read_memory(from, row.data(), row_length * width)) {
      error = "VCD DMA load row " + std::to_string(r) + " from " + hex(from) + ": no memory there";
      return false;
    }
    if (vert) {
      for (unsigned i = 0; i < row_length; ++i) {
        std::uint32_t word = 0;
        for (unsigned k = 0; k < 4; ++k) word |= std::uint32_t{row[4 * i + k]} << (8 * k);
        vertical(vpm, y, x + r * vpm_pitch, i) = word;
      }
      continue;
    }
    // Row r goes to the 16-element vector VPITCH vectors after row r - 1's (guide table 36 via VC4C's VPM.h: VPITCH
    // is added to Y[3:0], {Y[2:0], H[0]} or {Y[1:0], B[1:0]}): a 32-bit vector is a VPM row, a 16-bit one half a row
    // (H), an 8-bit one a quarter (B); the first is the one {Y, H} or {Y, B} selects. VC4C's code generator sets up
    // its 8- and 16-bit loads for this layout (VPITCH 4 or 2: a row each; 1: consecutive vectors in a row).
    const unsigned per_row = 4 / width;
    const std::uint32_t vector = y * per_row + select + r * vpm_pitch;
    const std::uint32_t start = vector / per_row * 64 + vector % per_row * 16 * width + 4 * x;
    for (std::uint32_t k = 0; k < row.size(); ++k) set_byte(vpm, start + k, row[k]);
  }
  last_transfer_words_ = (rows * row_length * width + 3) / 4;
  return true;
}

bool VpmPort::store(Vpm& vpm, DmaMemory& memory, std::uint32_t address, std::string& error) {
  if (!store_set_up_) {
    error = "VDW DMA store to " + hex(address) + " without a store setup (vw_setup with bits 31:30 = 10)";
    return false;
  }
  const std::uint32_t s = store_setup_;
  const unsigned units = ((s >> 23) & 0x7FU) != 0 ? (s >> 23) & 0x7FU : 128;
  const unsigned depth = ((s >> 16) & 0x7FU) != 0 ? (s >> 16) & 0x7FU : 128;
  const bool horizontal = ((s >> 14) & 1U) != 0;
  const unsigned base = (s >> 3) & 0x7FFU;
  const unsigned y = base >> 4, x = base & 15U;
  // DEPTH elements of the MODEW's width (8- or 16-bit: packed) from the byte or half-word offset MODEW gives in the
  // first word, (Y, X) (guide table 34 via VC4C's VPM.h: "X,Y address of first 32-bit word", "start Byte/Half-word
  // offset"). Horizontal: unit u runs along row y + u from column x, into the next row past the end of one;
  // vertical: down column x + u from row y, four 8-bit or two 16-bit elements a word (the DMA's sub-word modes are
  // "packed only"). The Raspberry Pi's HEVC code stores its 8- and 16-bit rows horizontally this way.
  const unsigned modew = s & 7U;
  const unsigned width = dma_width(modew);
  const unsigned offset = modew == 0 ? 0 : modew < 4 ? 2 * (modew & 1U) : modew & 3U;
  std::vector<std::uint8_t> unit(depth * width);
  std::uint32_t to = address;
  for (unsigned u = 0; u < units; ++u) {
    for (unsigned k = 0; k < unit.size(); ++k) {
      const unsigned b = offset + k;
      const std::uint32_t word =
          horizontal ? linear(vpm, (y + u) * Vpm::kColumns + x + b / 4) : vertical(vpm, y, x + u, b / 4);
      unit[k] = static_cast<std::uint8_t>(word >> (8 * (b % 4)));
    }
    if (!memory.write_memory(to, unit.data(), depth * width)) {
      error = "VDW DMA store unit " + std::to_string(u) + " to " + hex(to) + ": no memory there";
      return false;
    }
    to += depth * width + store_stride_;
  }
  last_transfer_words_ = (units * depth * width + 3) / 4;
  return true;
}

}  // namespace gpuvp::vc4::qpu
