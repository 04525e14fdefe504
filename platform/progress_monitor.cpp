#include "platform/progress_monitor.h"

#include <cstdio>

namespace gpuvp::platform {

namespace {
// How often (in simulated time) the wall clock is looked at.
constexpr core::Picoseconds kCheckInterval = 10 * core::kPsPerUs;
}  // namespace

ProgressMonitor::ProgressMonitor(sc_core::sc_module_name name)
    : sc_module(name), started_(std::chrono::steady_clock::now()), last_print_(started_) {
  SC_HAS_PROCESS(ProgressMonitor);
  SC_METHOD(tick);
}

void ProgressMonitor::tick() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_print_ >= std::chrono::milliseconds(500)) {
    last_print_ = now;
    const double wall = std::chrono::duration<double>(now - started_).count();
    const double sim_us = static_cast<double>(core::now_ps()) / static_cast<double>(core::kPsPerUs);
    std::fprintf(stderr, "\r  simulated %.3f ms  wall %.1f s  %.1f us/s  ", sim_us / 1000.0, wall,
                 wall > 0 ? sim_us / wall : 0.0);
    std::fflush(stderr);
    printed_ = true;
  }
  next_trigger(core::to_sc_time(kCheckInterval));
}

void ProgressMonitor::finish() {
  if (printed_) std::fprintf(stderr, "\r%60s\r", "");
}

}  // namespace gpuvp::platform
