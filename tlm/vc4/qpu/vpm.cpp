#include "tlm/vc4/qpu/vpm.h"

#include <cstdio>
#include <vector>

namespace gpuvp::vc4::qpu {
namespace {

std::string hex(std::uint32_t v) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "0x%08x", v);
  return buffer;
}

// The word at linear position `index` of the VPM (row-major, wrapping at its end).
std::uint32_t& linear(Vpm& vpm, std::uint32_t index) { return vpm.words[index % vpm.words.size()]; }

// Element `i` of a vertical access at (row, column): columns past 15 continue 16 rows down (the stated layout of a
// vertical transfer wider than the VPM).
std::uint32_t& vertical(Vpm& vpm, unsigned row, unsigned column, unsigned i) {
  return vpm.at(row + i + Vpm::kColumns * (column / Vpm::kColumns), column % Vpm::kColumns);
}

// The fields of a generic block setup (guide tables 32/33): 32-bit accesses only.
bool decode_generic(std::uint32_t value, bool with_count, unsigned& stride, bool& horizontal, std::uint32_t& address,
                    unsigned& count, std::string& error) {
  const unsigned size = (value >> 8) & 3U;
  if (size != 2) {
    error = "VPM generic " +
            std::string(size == 0   ? "8"
                        : size == 1 ? "16"
                                    : "(reserved size 3)") +
            "-bit access (setup " + hex(value) + ") is not modelled: only 32-bit accesses are";
    return false;
  }
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
    if (!decode_generic(value, true, read_.stride, read_.horizontal, read_.address, count, error)) return false;
    read_.remaining = count;
    read_set_up_ = true;
    return true;
  }
  if ((value >> 28) == 0x9U) {  // extended memory pitch
    load_extended_pitch_ = value & 0x1FFFU;
    return true;
  }
  if (((value >> 28) & 7U) != 0) {
    error = "VCD DMA load setup " + hex(value) + " with MODEW " + std::to_string((value >> 28) & 7U) +
            " (8- or 16-bit) is not modelled: only 32-bit loads are";
    return false;
  }
  load_setup_ = value;
  load_set_up_ = true;
  return true;
}

bool VpmPort::write_setup(std::uint32_t value, std::string& error) {
  switch (value >> 30) {
    case 0: {
      unsigned count = 0;
      if (!decode_generic(value, false, write_.stride, write_.horizontal, write_.address, count, error)) return false;
      write_set_up_ = true;
      return true;
    }
    case 2:
      if ((value & 7U) != 0) {
        error = "VDW DMA store setup " + hex(value) + " with MODEW " + std::to_string(value & 7U) +
                " (8- or 16-bit) is not modelled: only 32-bit stores are";
        return false;
      }
      store_setup_ = value;
      store_set_up_ = true;
      return true;
    case 3:
      // Bytes from the end of one row to the start of the next: 16 bits (vc4asm's correction of the guide's 13);
      // block mode (bit 16) changes nothing the model times.
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
  for (unsigned i = 0; i < 16; ++i) {
    value[i] = read_.horizontal ? vpm.at(read_.address & 0x3FU, i)
                                : vertical(vpm, ((read_.address >> 4) & 3U) * 16, read_.address & 15U, i);
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
  for (unsigned i = 0; i < 16; ++i) {
    if (write_.horizontal) {
      vpm.at(write_.address & 0x3FU, i) = value[i];
    } else {
      vertical(vpm, ((write_.address >> 4) & 3U) * 16, write_.address & 15U, i) = value[i];
    }
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
  const unsigned mpitch = (s >> 24) & 0xFU;
  const std::uint32_t pitch = mpitch != 0 ? 8U << mpitch : load_extended_pitch_;
  const unsigned row_length = ((s >> 20) & 0xFU) != 0 ? (s >> 20) & 0xFU : 16;
  const unsigned rows = ((s >> 16) & 0xFU) != 0 ? (s >> 16) & 0xFU : 16;
  const unsigned vpm_pitch = ((s >> 12) & 0xFU) != 0 ? (s >> 12) & 0xFU : 16;
  const bool vert = ((s >> 11) & 1U) != 0;
  const unsigned y = (s >> 4) & 0x7FU, x = s & 15U;
  std::vector<std::uint32_t> row(row_length);
  for (unsigned r = 0; r < rows; ++r) {
    const std::uint32_t from = address + r * pitch;
    if (!memory.read_memory(from, row.data(), row_length * 4)) {
      error = "VCD DMA load row " + std::to_string(r) + " from " + hex(from) + ": no memory there";
      return false;
    }
    for (unsigned i = 0; i < row_length; ++i) {
      if (vert) {
        vertical(vpm, y, x + r * vpm_pitch, i) = row[i];
      } else {
        linear(vpm, (y + r * vpm_pitch) * Vpm::kColumns + x + i) = row[i];
      }
    }
  }
  last_transfer_words_ = rows * row_length;
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
  std::vector<std::uint32_t> unit(depth);
  std::uint32_t to = address;
  for (unsigned u = 0; u < units; ++u) {
    // Horizontal: unit u is row y + u, `depth` words from column x; vertical: column x + u, `depth` rows from y.
    for (unsigned d = 0; d < depth; ++d) {
      unit[d] = horizontal ? linear(vpm, (y + u) * Vpm::kColumns + x + d) : vertical(vpm, y, x + u, d);
    }
    if (!memory.write_memory(to, unit.data(), depth * 4)) {
      error = "VDW DMA store unit " + std::to_string(u) + " to " + hex(to) + ": no memory there";
      return false;
    }
    to += depth * 4 + store_stride_;
  }
  last_transfer_words_ = units * depth;
  return true;
}

}  // namespace gpuvp::vc4::qpu
