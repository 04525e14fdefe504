// The run monitor: stops the simulation when SIGINT/SIGTERM arrived (checked at every quantum boundary of simulated
// time) and, on a terminal, shows a progress line with simulated time and host speed, refreshed twice a second.
#pragma once

#include <chrono>

#include <systemc>

#include "tlm/core/timing.h"

namespace gpuvp::platform {

class ProgressMonitor : public sc_core::sc_module {
 public:
  // interval: simulated time between checks (> 0); show_progress: draw the progress line on stderr.
  ProgressMonitor(sc_core::sc_module_name name, core::Picoseconds interval, bool show_progress);
  // Clears the progress line (call once the simulation has stopped).
  void finish();
  // True once the monitor stopped the simulation for a stop signal.
  bool stopped_by_signal() const { return stopped_by_signal_; }
  // Erases the progress line if one is on the terminal, so that the next line written (a script answer, a report)
  // starts at the left margin and is not run into by the next refresh.
  static void clear_line();

 private:
  void tick();

  core::Picoseconds interval_;
  bool show_;
  bool stopped_by_signal_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_print_;
};

}  // namespace gpuvp::platform
