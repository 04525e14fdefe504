// The VPM (vertex pipe memory) the QPUs share and one QPU's port to it: generic block reads and writes set up through
// vr_setup / vw_setup, the VCD's DMA loads (memory to VPM, VDR) and the VDW's DMA stores (VPM to memory), with their
// setups' fields as the guide's tables 32-37 give them (transcribed in VC4C's VPM.h, py-videocore and vc4asm's
// vc4.qinc; ../shared/docs/reference-vc4-qpu.md section 2). SystemC-free. The DMA is functional here: a transfer
// completes when its address is written (its time is the scheduler's: issue 20's timing).
//
// Modelled:
// - generic accesses of 32, 16 and 8 bits, horizontal and vertical, packed and laned (vpm.cpp's generic_lane says
//   which byte or half-word of which word each element is, and why); a read returns the element zero-extended, a
//   write replaces only the element's byte or half-word with the low bits of the value;
// - DMA loads: 32-bit horizontal and vertical, with the basic and extended memory pitches; 8- and 16-bit
//   (MODEW 4-7 / 2-3) horizontal at X = 0, each memory row into the 16-element vector VPITCH vectors after the last
//   one (the byte or half-word select picks the first);
// - DMA stores: 32-, 16- and 8-bit, horizontal and vertical, from the byte or half-word offset MODEW gives in the
//   first word, with the store stride.
// Not modelled (a clear error naming the setup): vertical 8- and 16-bit DMA loads and 8- or 16-bit loads at X != 0
// (the guide's VPITCH arithmetic leaves where their rows land unpublished), the VDW's MODEW 1 ("unused") and its
// LANED bit ("write as 0"), the store stride's BLOCKMODE 1 (rows packed consecutively in the VPM), the reserved
// generic SIZE 3.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "tlm/vc4/qpu/qpu_vector.h"

namespace gpuvp::vc4::qpu {

// The VPM's storage: rows of 16 32-bit words; DMA addresses reach 128 rows (Y[6:0]).
struct Vpm {
  static constexpr unsigned kRows = 128;
  static constexpr unsigned kColumns = 16;
  std::array<std::uint32_t, kRows * kColumns> words{};
  std::uint32_t& at(unsigned row, unsigned column) { return words[(row % kRows) * kColumns + column % kColumns]; }
};

// Memory as the V3D's DMA and TMUs see it (bus addresses; false: nothing there).
class DmaMemory {
 public:
  virtual ~DmaMemory() = default;
  virtual bool read_memory(std::uint32_t address, void* data, std::uint32_t bytes) = 0;
  virtual bool write_memory(std::uint32_t address, const void* data, std::uint32_t bytes) = 0;
};

class VpmPort {
 public:
  // vr_setup: a generic read setup (bits 31:30 = 00) or a DMA load setup (bit 31 = 1). False: `error` says why.
  bool read_setup(std::uint32_t value, std::string& error);
  // vw_setup: a generic write setup (00), a DMA store setup (10) or its stride (11).
  bool write_setup(std::uint32_t value, std::string& error);
  // A VPM read (raddr 48): the next vector of the read setup.
  bool read(Vpm& vpm, Vector& value, std::string& error);
  // A VPM write (waddr 48): the vector at the write setup's address, which then moves by its stride.
  bool write(Vpm& vpm, const Vector& value, std::string& error);
  // vr_addr / vw_addr: a DMA load from / store to `address` with the current setup.
  bool load(Vpm& vpm, DmaMemory& memory, std::uint32_t address, std::string& error);
  bool store(Vpm& vpm, DmaMemory& memory, std::uint32_t address, std::string& error);
  // The words the last load or store moved (for the scheduler's timing and statistics).
  std::uint32_t last_transfer_words() const { return last_transfer_words_; }
  void reset() { *this = VpmPort{}; }

 private:
  struct Generic {
    unsigned size = 2;  // SIZE: 0 = 8-bit, 1 = 16-bit, 2 = 32-bit
    bool laned = false;
    bool horizontal = true;
    unsigned stride = 1;
    std::uint32_t address = 0;
    unsigned remaining = 0;  // reads left (a write setup has no count)
  };
  Generic read_{}, write_{};
  bool read_set_up_ = false, write_set_up_ = false;
  // DMA load (VDR) setup
  std::uint32_t load_setup_ = 0;
  std::uint32_t load_extended_pitch_ = 0;
  bool load_set_up_ = false;
  // DMA store (VDW) setup
  std::uint32_t store_setup_ = 0;
  std::uint32_t store_stride_ = 0;
  bool store_set_up_ = false;
  std::uint32_t last_transfer_words_ = 0;
};

}  // namespace gpuvp::vc4::qpu
