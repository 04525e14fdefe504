#include "tlm/gen/csb_pointer.h"

namespace gpuvp::gen {

// GVT-g emulate_csb_update: 7 -> 0, otherwise (wp + 1) % 6. i915 reset_csb_pointers writes both fields to
// GEN8_CSB_ENTRIES - 1 through the mask, after which the next entry is also 0. Note that wp = 7 makes wp + 1 = 8,
// so next_entry()'s single comparison covers 6 and 7.

void CsbPointer::write(std::uint32_t data) {
  const std::uint32_t change = (data >> 16) & (kWritePointerMask | kReadPointerMask);
  value_ = (value_ & ~change) | (data & change);
}

std::uint32_t CsbPointer::advance() {
  const std::uint32_t next = next_entry();
  value_ = (value_ & ~kWritePointerMask) | next;
  return next;
}

}  // namespace gpuvp::gen
