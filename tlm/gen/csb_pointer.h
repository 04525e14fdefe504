// CsbPointer: the write/read pointer logic of the execlists context status buffer, the RING_CONTEXT_STATUS_PTR
// register (engine base + 0x3A0). Pure and event-level, so the RTL block rtl/csb_ptr.sv can be checked against it
// event by event. Facts: i915 gt/intel_execlists_submission.c (GEN8_CSB_ENTRIES, GEN8_CSB_READ_PTR_MASK,
// GEN8_CSB_WRITE_PTR_MASK), GVT-g gvt/execlist.c (emulate_csb_update, init_vgpu_execlist).
#pragma once

#include <cstdint>

#include "hw/gen/execlist_regs.h"

namespace gpuvp::gen {

// The register's fields (kEntries, the pointer masks, the reset value): hw/gen/execlist_regs.h.
class CsbPointer : public CsbPointerFields {
 public:
  void reset() { value_ = kResetValue; }
  // Software write of the masked register: bits 31:16 enable the change of bits 15:0; only the pointer fields are
  // stored (other bits read 0).
  void write(std::uint32_t data);
  // The entry the next hardware status write goes to: 0 after reset (write pointer 7) and after the last entry, and
  // for a write pointer software set to an entry that does not exist (6).
  std::uint32_t next_entry() const {
    const std::uint32_t wp = write_pointer();
    return wp + 1 >= kEntries ? 0 : wp + 1;
  }
  // Hardware writes a status entry: the write pointer moves to it. Returns the entry index.
  std::uint32_t advance();

  std::uint32_t value() const { return value_; }
  std::uint32_t write_pointer() const { return value_ & kWritePointerMask; }
  std::uint32_t read_pointer() const { return (value_ & kReadPointerMask) >> kReadPointerShift; }

 private:
  std::uint32_t value_ = kResetValue;
};

}  // namespace gpuvp::gen
