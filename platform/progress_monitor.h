// The run monitor: stops the simulation when SIGINT/SIGTERM arrived (checked at every quantum boundary of simulated
// time) and, on a terminal, shows a progress line with simulated time and host speed, refreshed twice a second.
#pragma once

#include <chrono>
#include <functional>
#include <systemc>

#include "tlm/core/timing.h"

namespace gpuvp::platform {

class ProgressMonitor : public sc_core::sc_module {
 public:
  // interval: simulated time between checks (> 0); show_progress: draw the progress line on stderr.
  ProgressMonitor(sc_core::sc_module_name name, core::Picoseconds interval, bool show_progress);
  // Clears the progress line (call once the simulation has stopped).
  void finish();
  // Also calls `sample` at simulated time 0, interval, 2 x interval, ... (--stats-interval). One process serves both:
  // each keeps the simulation alive only while something else is pending, which two processes could not see of
  // each other.
  void sample_every(core::Picoseconds interval, std::function<void(core::Picoseconds)> sample);
  // True once the monitor stopped the simulation for a stop signal.
  bool stopped_by_signal() const { return stopped_by_signal_; }
  // Erases the progress line if one is on the terminal, so that the next line written (a script answer, a report)
  // starts at the left margin and is not run into by the next refresh.
  static void clear_line();

 private:
  void tick();

  core::Picoseconds interval_;
  core::Picoseconds next_check_ = 0;
  core::Picoseconds sample_interval_ = 0;
  core::Picoseconds next_sample_ = 0;
  std::function<void(core::Picoseconds)> sample_;
  bool show_;
  bool stopped_by_signal_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_print_;
};

}  // namespace gpuvp::platform
