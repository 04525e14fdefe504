// Timing helpers: clock domains and an integer local-time keeper for temporal decoupling.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <systemc>
#include <type_traits>

namespace gpuvp::core {

// Simulated time in hot paths is an integer count of picoseconds; the kernel's resolution is set to 1 ps so that
// sc_time::value() is picoseconds too (see ensure_picosecond_resolution()).
using Picoseconds = std::uint64_t;

constexpr Picoseconds kPsPerNs = 1000;
constexpr Picoseconds kPsPerUs = 1000 * kPsPerNs;

// Checks (once) that the SystemC time resolution is 1 ps; the integer conversions below rely on it.
void ensure_picosecond_resolution();

// sc_time::from_value() is an out-of-line library call that re-checks the kernel's time resolution on every use, which
// costs more than a whole DMI access, and scaling 1 ps by a double puts an int-to-double, a multiply, an add and a
// double-to-int conversion on the critical path of every timed access. With the resolution fixed at 1 ps an sc_time's
// only member is the picosecond count itself, so the value is stored directly (the static_assert guards the layout
// this relies on; test_timing checks the round trip).
inline sc_core::sc_time to_sc_time(Picoseconds ps) {
  static_assert(sizeof(sc_core::sc_time) == sizeof(Picoseconds) && std::is_standard_layout_v<sc_core::sc_time>,
                "sc_time is expected to hold exactly its value");
  sc_core::sc_time t;
  std::memcpy(static_cast<void*>(&t), &ps, sizeof ps);
  return t;
}
inline Picoseconds to_ps(const sc_core::sc_time& t) { return t.value(); }
// sc_time_stamp() is an out-of-line library call; the simulation context's time_stamp() is the same value, inline.
// The compiler keeps sc_get_curr_simcontext() out of line (it may create the context), so the context pointer it
// returns is read directly once it exists.
inline Picoseconds now_ps() {
  sc_core::sc_simcontext* context = sc_core::sc_curr_simcontext;
  if (context == nullptr) context = sc_core::sc_get_curr_simcontext();
  return context->time_stamp().value();
}

// A clock domain: a name and a frequency. Blocks annotate delays in their own cycles through it.
class ClockDomain {
 public:
  ClockDomain() : ClockDomain("default", 1'000'000'000ULL) {}
  ClockDomain(std::string name, std::uint64_t frequency_hz);

  const std::string& name() const { return name_; }
  std::uint64_t frequency_hz() const { return frequency_hz_; }
  Picoseconds period_ps() const { return period_ps_; }
  Picoseconds cycles(std::uint64_t n) const { return n * period_ps_; }
  // Whole cycles elapsed in a span (rounded down).
  std::uint64_t cycles_in(Picoseconds span) const { return span / period_ps_; }

 private:
  std::string name_;
  std::uint64_t frequency_hz_;
  Picoseconds period_ps_;
};

// Local time of one initiator under temporal decoupling: it runs ahead of the kernel by offset_ps() and yields to the
// kernel once the offset reaches the global quantum (tlm::tlm_global_quantum). A quantum of zero synchronises at every
// access, which is the "quantum off" mode used to measure what decoupling buys.
class LocalTime {
 public:
  LocalTime();

  Picoseconds offset_ps() const { return to_ps(offset_); }
  void advance(Picoseconds ps) { offset_ = to_sc_time(to_ps(offset_) + ps); }
  void set_offset(Picoseconds ps) { offset_ = to_sc_time(ps); }
  // The offset itself, for a b_transport call to update in place: copying it in and out would put two more
  // store-to-load round trips on the chain that links each timed access to the next.
  sc_core::sc_time& offset() { return offset_; }
  // The initiator's notion of now.
  Picoseconds now() const { return now_ps() + offset_ps(); }
  bool need_sync() const { return offset_ps() >= quantum_ps_; }
  // Waits out the offset (must be called from a thread process).
  void sync();
  // Synchronises only when the quantum is used up.
  void sync_if_needed() {
    if (need_sync()) sync();
  }
  // Re-reads the global quantum (call after changing it).
  void refresh_quantum();
  Picoseconds quantum_ps() const { return quantum_ps_; }

 private:
  sc_core::sc_time offset_;
  Picoseconds quantum_ps_ = 0;
};

// Target-side synchronisation (TLM-2.0 LT allows a target to wait in b_transport): waits out the initiator's
// annotated delay so that an access with effects visible to other initiators (a register, watched memory) takes
// effect at the initiator's local time rather than at the start of its quantum. The delay becomes zero. Only a
// thread process can wait: from a method or outside the simulation the access keeps its delay and happens at once.
void wait_out_delay(sc_core::sc_time& delay);

// Sets the global quantum used by every LocalTime.
void set_global_quantum(Picoseconds ps);
Picoseconds global_quantum_ps();

}  // namespace gpuvp::core
