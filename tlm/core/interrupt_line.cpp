#include "tlm/core/interrupt_line.h"

namespace gpuvp::core {

InterruptLine::InterruptLine(std::string name) : name_(std::move(name)) {}

void InterruptLine::set(bool level) {
  if (level == level_) return;
  level_ = level;
  if (level) {
    ++raise_count_;
    raised_.notify(sc_core::SC_ZERO_TIME);
  }
  for (auto& listener : listeners_) listener(level);
}

}  // namespace gpuvp::core
