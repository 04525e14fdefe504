// RtlCsbPointer: the verilated rtl/csb_ptr.sv, clocked one edge per cycle like RtlRingPointer, for the cross-check
// against gen::CsbPointer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace gpuvp::rtl {

struct CsbInputs {
  bool reset = false;     // rst_ni low for this cycle, other inputs ignored
  bool sw_write = false;  // software write of RING_CONTEXT_STATUS_PTR (masked)
  std::uint32_t data = 0;
  bool advance = false;  // hardware writes the next CSB entry
  std::string describe() const;
};

struct CsbOutputs {
  std::uint32_t value = 0, write_pointer = 0, read_pointer = 0, next_entry = 0;
  bool operator==(const CsbOutputs& o) const {
    return value == o.value && write_pointer == o.write_pointer && read_pointer == o.read_pointer &&
           next_entry == o.next_entry;
  }
  bool operator!=(const CsbOutputs& o) const { return !(*this == o); }
  std::string describe() const;
};

class RtlCsbPointer {
 public:
  RtlCsbPointer();
  ~RtlCsbPointer();
  RtlCsbPointer(const RtlCsbPointer&) = delete;
  RtlCsbPointer& operator=(const RtlCsbPointer&) = delete;

  CsbOutputs cycle(const CsbInputs& in);
  CsbOutputs outputs() const;
  bool trace_to(const std::string& path);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuvp::rtl
