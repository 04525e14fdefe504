#include "tlm/core/engine_kit.h"

#include <stdexcept>
#include <utility>

#include "tlm/core/report.h"
#include "tlm/core/timeline.h"

namespace gpuvp::core {

const char* to_string(EngineState state) {
  switch (state) {
    case EngineState::kIdle:
      return "idle";
    case EngineState::kRunning:
      return "running";
    case EngineState::kStopped:
      return "stopped";
    case EngineState::kError:
      return "error";
    case EngineState::kHung:
      return "hung";
  }
  return "?";
}

EngineKit::EngineKit(std::string path, const ClockDomain& clock, Picoseconds hang_timeout_ps, EngineState initial)
    : path_(std::move(path)),
      clock_(clock),
      hang_timeout_ps_(hang_timeout_ps),
      state_(initial),
      track_(timeline().track(path_)),
      stats_(path_),
      errors_(stats_.counter("errors", "events", "times a guest error stopped the block")),
      hangs_(stats_.counter("hangs", "events", "times the block was declared hung (no progress for the hang timeout)")),
      busy_(stats_.busy_time("busy", "time the block was running")) {
  busy_.track = track_;
}

bool EngineKit::catch_up_or(const sc_core::sc_event& wake) {
  const Picoseconds offset = time_.offset_ps();
  if (offset == 0) return false;
  const Picoseconds target = now_ps() + offset;
  sc_core::wait(to_sc_time(offset), wake);
  const Picoseconds now = now_ps();
  time_.set_offset(target > now ? target - now : 0);
  return target > now;
}

void EngineKit::set_state(EngineState s) {
  if (s == state_) return;
  const Picoseconds at = now();
  if (state_ == EngineState::kRunning) {
    busy_.end(at);
    timeline().span(track_, "busy", busy_since_ps_, at - busy_since_ps_);
  }
  if (s == EngineState::kRunning) {
    busy_since_ps_ = at;
    busy_.begin(at);
  }
  state_ = s;
}

void EngineKit::instant(const char* what) const { timeline().instant(track_, what, now()); }

void EngineKit::record_error(const std::string& message, const char* file, int line) {
  ++errors_;
  keep_incident(incidents_, "error: " + message);
  report_guest(sc_core::SC_ERROR, path_.c_str(), message, file, line);
}

void EngineKit::record_hang(const std::string& report, const char* file, int line) {
  ++hangs_;
  keep_incident(incidents_, "hang: " + report);
  report_guest(sc_core::SC_ERROR, path_.c_str(), report, file, line);
}

FetchLine::FetchLine(unsigned bytes) : mask_(bytes - 1ULL), data_(2ULL * bytes) {
  if (bytes == 0 || (bytes & (bytes - 1)) != 0) {
    throw std::invalid_argument("fetch line of " + std::to_string(bytes) + " bytes: not a power of two");
  }
}

}  // namespace gpuvp::core
