#include "platform/progress_monitor.h"

#include <algorithm>
#include <cstdio>

#include "platform/stop_signal.h"

namespace gpuvp::platform {

namespace {
// Characters of the progress line on the terminal now (0: none shown).
int g_shown = 0;
}  // namespace

ProgressMonitor::ProgressMonitor(sc_core::sc_module_name name, core::Picoseconds interval, bool show_progress)
    : sc_module(name),
      interval_(interval),
      show_(show_progress),
      started_(std::chrono::steady_clock::now()),
      last_print_(started_) {
  SC_HAS_PROCESS(ProgressMonitor);
  SC_METHOD(tick);  // first at time 0: a signal that came during start-up stops the run before it begins
}

void ProgressMonitor::sample_every(core::Picoseconds interval, std::function<void(core::Picoseconds)> sample) {
  sample_interval_ = interval;
  next_sample_ = 0;
  sample_ = std::move(sample);
}

void ProgressMonitor::tick() {
  const core::Picoseconds now = core::now_ps();
  if (sample_ && now >= next_sample_) {
    sample_(now);
    next_sample_ += sample_interval_;
  }
  if (stop_signal() != 0) {
    stopped_by_signal_ = true;
    sc_core::sc_stop();
    return;
  }
  // Nothing else will ever happen: let the simulation end as it would without the monitor.
  if (!sc_core::sc_pending_activity()) return;
  if (show_) {
    const auto wall_now = std::chrono::steady_clock::now();
    if (wall_now - last_print_ >= std::chrono::milliseconds(500)) {
      last_print_ = wall_now;
      const double wall = std::chrono::duration<double>(wall_now - started_).count();
      const double sim_us = static_cast<double>(core::now_ps()) / static_cast<double>(core::kPsPerUs);
      clear_line();
      g_shown = std::fprintf(stderr, "  simulated %.3f ms  wall %.1f s  %.1f us/s", sim_us / 1000.0, wall,
                             wall > 0 ? sim_us / wall : 0.0);
      std::fflush(stderr);
    }
  }
  if (now >= next_check_) next_check_ += interval_;
  const core::Picoseconds next = sample_ ? std::min(next_check_, next_sample_) : next_check_;
  next_trigger(core::to_sc_time(next - now));
}

void ProgressMonitor::finish() { clear_line(); }

void ProgressMonitor::clear_line() {
  if (g_shown <= 0) return;
  std::fprintf(stderr, "\r%*s\r", g_shown, "");
  std::fflush(stderr);
  g_shown = 0;
}

}  // namespace gpuvp::platform
