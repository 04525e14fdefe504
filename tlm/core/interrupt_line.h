// Interrupt lines: a level a block drives and a controller or the host observes. Listeners are called synchronously
// on every change (so an interrupt controller can latch an edge), and an event is notified for waiting threads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <vector>

namespace gpuvp::core {

class InterruptLine {
 public:
  explicit InterruptLine(std::string name);
  InterruptLine(const InterruptLine&) = delete;
  InterruptLine& operator=(const InterruptLine&) = delete;

  const std::string& name() const { return name_; }
  bool level() const { return level_; }
  void set(bool level);
  void raise() { set(true); }
  void lower() { set(false); }

  // Rising edges seen so far.
  std::uint64_t raise_count() const { return raise_count_; }
  // Notified (one delta later) on every rising edge.
  const sc_core::sc_event& raised_event() const { return raised_; }
  void on_change(std::function<void(bool)> listener) { listeners_.push_back(std::move(listener)); }

 private:
  std::string name_;
  bool level_ = false;
  std::uint64_t raise_count_ = 0;
  sc_core::sc_event raised_;
  std::vector<std::function<void(bool)>> listeners_;
};

}  // namespace gpuvp::core
