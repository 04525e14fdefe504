// Ring pointer logic of one engine, with the exact semantics of RING_START/RING_CTL/RING_HEAD/RING_TAIL
// (docs/gen-command-streamer.md; i915 gt/intel_engine_regs.h and gt/intel_ring.h). Pure and cycle-level: one call is
// one event, so the same stimulus can drive this class and the RTL ring_ptr block and their outputs be compared.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "hw/gen/engine_regs.h"

namespace gpuvp::gen {

// The register fields (kCtlEnable, kHeadAddrMask, ...): hw/gen/engine_regs.h.
class RingPointer : public RingRegisterFields {
 public:
  static constexpr std::uint32_t kCachelineBytes = 64;  // the driver's slack in its free-space rule

  // Reset state: every register 0 (ring disabled, 4 KiB size field).
  void reset();

  // Software (MMIO or context restore) writes. Bits outside each register's fields are dropped.
  void write_start(std::uint32_t value);
  void write_ctl(std::uint32_t value);
  // Both the offset and the wrap count are written, as i915 and the LRC image do.
  void write_head(std::uint32_t value);
  void write_tail(std::uint32_t value);

  // Hardware consumption: advances HEAD by bytes (a multiple of 4, at most bytes_available()); crossing the end of
  // the ring wraps HEAD to 0 and increments the 11-bit wrap count. Returns true if it wrapped.
  bool consume(std::uint32_t bytes);

  // Register read-back.
  std::uint32_t start_reg() const { return start_; }
  std::uint32_t ctl_reg() const { return ctl_; }
  std::uint32_t head_reg() const { return head_; }
  std::uint32_t tail_reg() const { return tail_; }

  // Decoded state.
  bool enabled() const { return (ctl_ & kCtlEnable) != 0; }
  std::uint32_t size_bytes() const { return (ctl_ & kCtlSizeMask) + 4096; }
  std::uint32_t head_offset() const { return head_ & kHeadAddrMask; }
  std::uint32_t tail_offset() const { return tail_ & kTailAddrMask; }
  std::uint32_t wrap_count() const { return head_ >> 21; }
  // HEAD == TAIL (modulo the ring size): nothing to execute.
  bool empty() const { return bytes_available() == 0; }
  // Bytes of commands between HEAD and TAIL, modulo the ring size (the hardware's notion of available commands).
  // Offsets at or beyond the ring size (a programming error) are taken modulo the size.
  std::uint32_t bytes_available() const;
  // The driver's free-space rule: (head - tail - 64) & (size - 1) (i915 __intel_ring_space).
  std::uint32_t driver_space() const;
  // GGTT address of the next command.
  std::uint32_t head_address() const { return (start_ & kStartAddrMask) + (head_offset() % size_bytes()); }

 private:
  std::uint32_t start_ = 0;
  std::uint32_t ctl_ = 0;
  std::uint32_t head_ = 0;
  std::uint32_t tail_ = 0;
};

// An implementation of the ring pointer logic outside this class, with the same semantics (the verilated
// rtl/ring_ptr.sv behind a clocked adapter, rtl/rtl_ring_pointer.h). tlm/gen only knows this interface; the
// implementation registers itself by name (register_ring_pointer_model) and GenGpuParams::ring_model selects it.
class RingPointerModel {
 public:
  virtual ~RingPointerModel() = default;
  virtual void reset() = 0;
  virtual void write_start(std::uint32_t value) = 0;
  virtual void write_ctl(std::uint32_t value) = 0;
  virtual void write_head(std::uint32_t value) = 0;
  virtual void write_tail(std::uint32_t value) = 0;
  virtual bool consume(std::uint32_t bytes) = 0;
  virtual std::uint32_t start_reg() const = 0;
  virtual std::uint32_t ctl_reg() const = 0;
  virtual std::uint32_t head_reg() const = 0;
  virtual std::uint32_t tail_reg() const = 0;
  virtual bool empty() const = 0;
  virtual std::uint32_t bytes_available() const = 0;
  virtual std::uint32_t driver_space() const = 0;
  virtual std::uint32_t head_address() const = 0;
  // Called before every register write or consume with the engine's current clock cycle (cycles since time 0). A
  // lockstep model clocks the idle cycles up to it first, so that the block sees every clock edge the engine's
  // clock has had; a model clocked per operation ignores it.
  virtual void run_to_cycle(std::uint64_t cycle) { (void)cycle; }
};

using RingPointerModelFactory = std::unique_ptr<RingPointerModel> (*)();
// Makes `name` available as a ring model ("tlm" is the built-in RingPointer and cannot be replaced).
void register_ring_pointer_model(const std::string& name, RingPointerModelFactory factory);
// nullptr for "tlm"; a new instance of a registered model; throws std::invalid_argument for an unknown name.
std::unique_ptr<RingPointerModel> make_ring_pointer_model(const std::string& name);
// The ring model GenGpuParams starts with ("tlm" unless a test harness changed it, see tests/support).
const std::string& default_ring_model();
void set_default_ring_model(const std::string& name);

// The ring pointer of a command streamer: the built-in RingPointer, or an attached RingPointerModel. Dispatch is a
// branch on a pointer that never changes after construction, so the TLM path stays inlined and without virtual
// calls; the decoded accessors are computed from the register read-back in both cases.
class EngineRingPointer {
 public:
  // cycle_now: the engine's current clock cycle, handed to the model before every write or consume.
  void attach(std::unique_ptr<RingPointerModel> model, std::function<std::uint64_t()> cycle_now) {
    model_ = std::move(model);
    cycle_now_ = std::move(cycle_now);
  }
  bool external() const { return model_ != nullptr; }
  RingPointerModel* model() const { return model_.get(); }

  void reset() { model_ ? (catch_up(), model_->reset()) : local_.reset(); }
  void write_start(std::uint32_t v) { model_ ? (catch_up(), model_->write_start(v)) : local_.write_start(v); }
  void write_ctl(std::uint32_t v) { model_ ? (catch_up(), model_->write_ctl(v)) : local_.write_ctl(v); }
  void write_head(std::uint32_t v) { model_ ? (catch_up(), model_->write_head(v)) : local_.write_head(v); }
  void write_tail(std::uint32_t v) { model_ ? (catch_up(), model_->write_tail(v)) : local_.write_tail(v); }
  bool consume(std::uint32_t bytes) { return model_ ? (catch_up(), model_->consume(bytes)) : local_.consume(bytes); }

  std::uint32_t start_reg() const { return model_ ? model_->start_reg() : local_.start_reg(); }
  std::uint32_t ctl_reg() const { return model_ ? model_->ctl_reg() : local_.ctl_reg(); }
  std::uint32_t head_reg() const { return model_ ? model_->head_reg() : local_.head_reg(); }
  std::uint32_t tail_reg() const { return model_ ? model_->tail_reg() : local_.tail_reg(); }
  bool empty() const { return model_ ? model_->empty() : local_.empty(); }
  std::uint32_t bytes_available() const { return model_ ? model_->bytes_available() : local_.bytes_available(); }
  std::uint32_t driver_space() const { return model_ ? model_->driver_space() : local_.driver_space(); }
  std::uint32_t head_address() const { return model_ ? model_->head_address() : local_.head_address(); }

  bool enabled() const { return (ctl_reg() & RingPointer::kCtlEnable) != 0; }
  std::uint32_t size_bytes() const { return (ctl_reg() & RingPointer::kCtlSizeMask) + 4096; }
  std::uint32_t head_offset() const { return head_reg() & RingPointer::kHeadAddrMask; }
  std::uint32_t tail_offset() const { return tail_reg() & RingPointer::kTailAddrMask; }
  std::uint32_t wrap_count() const { return head_reg() >> 21; }

 private:
  void catch_up() {
    if (cycle_now_) model_->run_to_cycle(cycle_now_());
  }

  RingPointer local_;
  std::unique_ptr<RingPointerModel> model_;
  std::function<std::uint64_t()> cycle_now_;
};

}  // namespace gpuvp::gen
