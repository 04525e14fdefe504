// Timed DMI: a direct memory pointer that keeps what b_transport would have done on the way to the target. Plain DMI
// hands out a pointer and one fixed latency, so accesses through it skip the bus's contention model and the target's
// statistics. A timed grant also carries, for every block the access would have crossed, a stage that charges that
// block's latency, books its contention and counts its statistics exactly as its b_transport does; the initiator copies
// through the pointer and runs the stages. Timing, contention and statistics are those of b_transport (the blocks share
// the code), only the transaction's host cost is gone.
//
// The request is a payload extension on get_direct_mem_ptr: the target answering it sets its own stage and marks the
// chain complete, every interconnect on the way back prepends its stage. An initiator uses a grant only when the chain
// is complete, so a target that does not know the extension leaves accesses on b_transport.
#pragma once

#include <array>
#include <systemc>
#include <tlm>

namespace gpuvp::core {

class DmiTimingStage {
 public:
  // Adds this block's share to delay (which holds the initiator's local offset plus what the stages before added), as
  // its b_transport would for a successful access of len bytes, and counts the access in the block's statistics.
  virtual void account(bool write, unsigned len, sc_core::sc_time& delay) = 0;
  virtual ~DmiTimingStage() = default;
};

// The stages of one grant, in the order b_transport reaches the blocks (outermost interconnect first).
class DmiTimingChain {
 public:
  static constexpr unsigned kMaxStages = 4;

  void account(bool write, unsigned len, sc_core::sc_time& delay) const {
    for (unsigned i = 0; i < count_; ++i) stages_[i]->account(write, len, delay);
  }
  // Called by the target: its stage is the last one and the chain is complete.
  void set_target(DmiTimingStage* stage) {
    stages_[0] = stage;
    count_ = 1;
    complete_ = true;
  }
  // Called by an interconnect after the target granted. A path deeper than kMaxStages cannot be timed: the chain
  // becomes incomplete and the initiator keeps using b_transport.
  void prepend(DmiTimingStage* stage) {
    if (count_ == kMaxStages) {
      complete_ = false;
      return;
    }
    for (unsigned i = count_; i > 0; --i) stages_[i] = stages_[i - 1];
    stages_[0] = stage;
    ++count_;
  }
  bool complete() const { return complete_; }
  unsigned size() const { return count_; }
  void clear() { *this = DmiTimingChain{}; }

 private:
  std::array<DmiTimingStage*, kMaxStages> stages_{};
  unsigned count_ = 0;
  bool complete_ = false;
};

// Attached to the payload of get_direct_mem_ptr to ask for a timed grant.
class TimedDmiRequest : public tlm::tlm_extension<TimedDmiRequest> {
 public:
  DmiTimingChain chain;

  tlm::tlm_extension_base* clone() const override { return new TimedDmiRequest(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    chain = static_cast<const TimedDmiRequest&>(other).chain;
  }
};

}  // namespace gpuvp::core
