#include "tlm/core/timing.h"

#include <stdexcept>
#include <tlm>

namespace gpuvp::core {

void ensure_picosecond_resolution() {
  // The default resolution of SystemC is 1 ps; refuse to run if something changed it, since every integer time
  // conversion in the model assumes it.
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) {
    throw std::logic_error("gpuvp needs a SystemC time resolution of 1 ps");
  }
}

ClockDomain::ClockDomain(std::string name, std::uint64_t frequency_hz)
    : name_(std::move(name)), frequency_hz_(frequency_hz) {
  if (frequency_hz_ == 0 || frequency_hz_ > 1'000'000'000'000ULL) {
    throw std::invalid_argument("clock domain '" + name_ + "': frequency must be between 1 Hz and 1 THz");
  }
  period_ps_ = 1'000'000'000'000ULL / frequency_hz_;
}

LocalTime::LocalTime() { refresh_quantum(); }

void LocalTime::sync() {
  if (offset_ != sc_core::SC_ZERO_TIME) {
    sc_core::wait(offset_);
    offset_ = sc_core::SC_ZERO_TIME;
  }
}

void wait_out_delay(sc_core::sc_time& delay) {
  if (delay == sc_core::SC_ZERO_TIME) return;
  const sc_core::sc_process_handle process = sc_core::sc_get_current_process_handle();
  if (!process.valid()) return;
  const sc_core::sc_curr_proc_kind kind = process.proc_kind();
  if (kind != sc_core::SC_THREAD_PROC_ && kind != sc_core::SC_CTHREAD_PROC_) return;
  sc_core::wait(delay);
  delay = sc_core::SC_ZERO_TIME;
}

void LocalTime::refresh_quantum() { quantum_ps_ = global_quantum_ps(); }

void set_global_quantum(Picoseconds ps) { tlm::tlm_global_quantum::instance().set(to_sc_time(ps)); }

Picoseconds global_quantum_ps() { return to_ps(tlm::tlm_global_quantum::instance().get()); }

}  // namespace gpuvp::core
