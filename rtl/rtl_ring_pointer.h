// RtlRingPointer: the verilated rtl/ring_ptr.sv behind the RingPointerModel interface, so that it can replace the
// C++ RingPointer inside a command streamer (gen.ring_model=rtl), and be driven cycle by cycle by the cross-check.
//
// The adapter is clocked: every register write or consume is one rising edge of the block's clock, with the inputs
// of that cycle applied before the edge; the outputs are read after it. Several inputs may be given in one cycle
// (cycle()). The verilated model and its runtime stay inside the .cpp (no Verilator header leaks to users).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tlm/gen/ring_pointer.h"

namespace gpuvp::rtl {

// Inputs of one clock cycle of ring_ptr.
struct RingInputs {
  bool reset = false;  // rst_ni low for this cycle (asynchronous reset), other inputs ignored
  bool start_we = false, ctl_we = false, head_we = false, tail_we = false, consume = false;
  std::uint32_t start = 0, ctl = 0, head = 0, tail = 0, consume_bytes = 0;
  std::string describe() const;
};

// Every output of ring_ptr (and the same values computed by the C++ model for comparison).
struct RingOutputs {
  std::uint32_t start = 0, ctl = 0, head = 0, tail = 0;
  bool enabled = false;
  std::uint32_t size_bytes = 0, head_offset = 0, wrap_count = 0, tail_offset = 0;
  bool empty = false;
  std::uint32_t bytes_available = 0, driver_space = 0, head_address = 0;
  bool wrap = false;  // the consume of the last cycle crossed the end of the ring
  bool operator==(const RingOutputs& o) const;
  bool operator!=(const RingOutputs& o) const { return !(*this == o); }
  std::string describe() const;
};

// The outputs of the C++ RingPointer (wrapped: the result of the last consume()).
RingOutputs outputs_of(const gen::RingPointer& ring, bool wrapped);

class RtlRingPointer final : public gen::RingPointerModel {
 public:
  // lockstep: run_to_cycle() clocks every idle cycle up to the engine's current cycle (gen.ring_model=rtl_lockstep);
  // otherwise the block is clocked once per operation only (gen.ring_model=rtl).
  explicit RtlRingPointer(bool lockstep = false);
  ~RtlRingPointer() override;
  RtlRingPointer(const RtlRingPointer&) = delete;
  RtlRingPointer& operator=(const RtlRingPointer&) = delete;

  // One clock cycle with these inputs; returns the outputs after the edge.
  RingOutputs cycle(const RingInputs& in);
  RingOutputs outputs() const;
  // Writes a VCD waveform of every following cycle to path (false if it cannot be opened).
  bool trace_to(const std::string& path);
  std::uint64_t cycles() const { return cycles_; }
  std::uint64_t idle_cycles() const { return idle_cycles_; }
  void run_to_cycle(std::uint64_t cycle) override;

  // gen::RingPointerModel: each call is one clock cycle (reads are combinational, no cycle).
  void reset() override;
  void write_start(std::uint32_t value) override;
  void write_ctl(std::uint32_t value) override;
  void write_head(std::uint32_t value) override;
  void write_tail(std::uint32_t value) override;
  bool consume(std::uint32_t bytes) override;
  std::uint32_t start_reg() const override;
  std::uint32_t ctl_reg() const override;
  std::uint32_t head_reg() const override;
  std::uint32_t tail_reg() const override;
  bool empty() const override;
  std::uint32_t bytes_available() const override;
  std::uint32_t driver_space() const override;
  std::uint32_t head_address() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::uint64_t cycles_ = 0;
  std::uint64_t idle_cycles_ = 0;
  bool lockstep_ = false;
};

// Registers "rtl" and "rtl_lockstep" as gen.ring_model values (gen::register_ring_pointer_model). Idempotent.
void register_ring_model();

}  // namespace gpuvp::rtl
