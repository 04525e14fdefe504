// Progress line for long runs on a terminal: simulated time and host speed, refreshed a few times a second.
#pragma once

#include <chrono>

#include <systemc>

#include "tlm/core/timing.h"

namespace gpuvp::platform {

class ProgressMonitor : public sc_core::sc_module {
 public:
  explicit ProgressMonitor(sc_core::sc_module_name name);
  // Clears the progress line (call once the simulation has stopped).
  void finish();

 private:
  void tick();

  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_print_;
  bool printed_ = false;
};

}  // namespace gpuvp::platform
