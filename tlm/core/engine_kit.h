// EngineKit: the machinery every active block shares, written once: a command streamer, a CLE thread, and next an EU
// thread dispatcher, a QPU and the GuC. An active block runs a SystemC thread that executes work ahead of the kernel
// on its own local time (temporal decoupling) and:
// - is in one of a few states, and is busy while it runs: busy time for the statistics and "busy" spans on its
//   timeline track;
// - is watched for progress: a block that has work but makes none for hang_timeout is hung (a watchdog the block
//   checks on its own time, as hardware hangcheck compares a progress pointer between two looks: i915's
//   intel_engine_heartbeat, vc4_gem.c vc4_hangcheck_elapsed);
// - stops on guest mistakes with an error, or on a hang, each counted, kept for the run summary's incident list and
//   reported as a guest error (report.h);
// - reads and writes memory with timing on its local time (the bus adds its delay to the local offset in place);
// - fetches its instruction stream through a line buffer (FetchLine).
// The block keeps what is its own: its registers, what its states mean to software, the text of its reports.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "tlm/core/initiator.h"
#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"
#include "tlm/core/timing.h"

namespace gpuvp::core {

enum class EngineState : std::uint8_t {
  kIdle,     // nothing to do (enabled)
  kRunning,  // executing work: busy
  kStopped,  // stopped by software (or not started)
  kError,    // stopped by a guest error until software resets it
  kHung,     // declared hung by the watchdog until software resets it
};
const char* to_string(EngineState state);

class EngineKit {
 public:
  // path: the block's hierarchical name; its statistics NAME.errors, NAME.hangs and NAME.busy and its timeline track
  // carry it, and its reports name it. hang_timeout_ps: how long the block may have work without progress.
  EngineKit(std::string path, const ClockDomain& clock, Picoseconds hang_timeout_ps, EngineState initial);

  // ---- local time ----
  LocalTime& time() { return time_; }
  // The block's notion of now: the kernel's time plus its local offset.
  Picoseconds now() const { return time_.now(); }
  void cycles(std::uint64_t n) { time_.advance(clock_.cycles(n)); }
  const ClockDomain& clock() const { return clock_; }
  // Waits out the local offset, but wakes early for wake (a kick that must not be lost while the block catches up);
  // the rest of the offset is kept. True if woken early.
  bool catch_up_or(const sc_core::sc_event& wake);

  // ---- timed accesses on the local time (call from the block's thread) ----
  tlm::tlm_response_status read(Initiator& port, std::uint64_t address, void* data, unsigned len) {
    return port.read(address, data, len, time_.offset());
  }
  tlm::tlm_response_status write(Initiator& port, std::uint64_t address, const void* data, unsigned len) {
    return port.write(address, data, len, time_.offset());
  }
  // The local offset as a delay for other timed calls (a GTT translation), updated in place.
  sc_core::sc_time& delay() { return time_.offset(); }

  // ---- state and busy accounting ----
  EngineState state() const { return state_; }
  // Enters s at the local time: leaving kRunning closes the busy span, entering it opens one.
  void set_state(EngineState s);
  bool running() const { return state_ == EngineState::kRunning; }
  // Stopped by an error or a hang: only a reset brings the block back.
  bool halted() const { return state_ == EngineState::kError || state_ == EngineState::kHung; }
  int track() const { return track_; }
  // A point event on the block's timeline track at the local time.
  void instant(const char* what) const;

  // ---- progress watchdog ----
  // Progress now (the block moved its progress pointer).
  void progress() { last_progress_ps_ = now(); }
  // Progress measured by a mark that only counts when it passes the furthest one reached (a list or batch executed
  // beyond its previous end): loops re-executing the same addresses make none.
  void progress_to(std::uint64_t mark) {
    if (mark > high_water_) {
      high_water_ = mark;
      progress();
    }
  }
  // A new stream starts at mark (nothing beyond it executed yet).
  void set_high_water(std::uint64_t mark) { high_water_ = mark; }
  // The block had work and made no progress for longer than the hang timeout.
  // (Progress recorded from another process, a register write that restarts the block, may lie ahead of the
  // block's own time: that is no expiry.)
  bool watchdog_expired() const { return now() > last_progress_ps_ && now() - last_progress_ps_ > hang_timeout_ps_; }
  // The first time at which the watchdog expires (for a wait that must wake to check it).
  Picoseconds watchdog_deadline() const { return last_progress_ps_ + hang_timeout_ps_ + 1; }
  Picoseconds hang_timeout_ps() const { return hang_timeout_ps_; }

  // ---- errors, hangs and the incident log ----
  // A guest error stopped the block (the caller set its error state and registers): counted, kept as
  // "error: message" and reported as a guest error.
  // The report names the caller's source line, as a direct report_guest_error would.
  void record_error(const std::string& message, const char* file = __builtin_FILE(), int line = __builtin_LINE());
  // The block is hung: counted, kept as "hang: report" and reported as a guest error.
  void record_hang(const std::string& report, const char* file = __builtin_FILE(), int line = __builtin_LINE());
  // Text of the errors and hangs so far, oldest first (the run summary lists them).
  const std::vector<std::string>& incidents() const { return incidents_; }
  std::uint64_t errors() const { return errors_.value; }
  std::uint64_t hangs() const { return hangs_.value; }

 private:
  std::string path_;
  const ClockDomain& clock_;
  Picoseconds hang_timeout_ps_;
  LocalTime time_;
  EngineState state_;
  Picoseconds busy_since_ps_ = 0;
  Picoseconds last_progress_ps_ = 0;
  std::uint64_t high_water_ = 0;
  int track_;
  std::vector<std::string> incidents_;
  StatsGroup stats_;
  Counter& errors_;
  Counter& hangs_;
  BusyTime& busy_;
};

// The line a block fetched last (commands, control lists, later instructions), so that consecutive fetches from one
// line cost no translation and no bus access. Tagged by the line's address in the block's address space and a space
// tag (GGTT or PPGTT), and remembers the physical address it came from, so that a write there can drop it.
class FetchLine {
 public:
  // bytes: the line size, a power of two.
  explicit FetchLine(unsigned bytes);

  unsigned size() const { return static_cast<unsigned>(mask_ + 1); }
  std::uint64_t line_of(std::uint64_t address) const { return address & ~mask_; }
  bool holds(std::uint64_t address, unsigned space = 0) const { return (address & ~mask_) == tag_ && space == space_; }
  // The bytes from address (which the line holds) on; size() bytes of padding follow the line, so that a caller may
  // copy a fixed-size window starting anywhere inside it.
  const std::uint8_t* at(std::uint64_t address) const { return data_.data() + (address & mask_); }
  std::uint32_t dword(std::uint64_t address) const {
    std::uint32_t v;
    std::memcpy(&v, at(address), 4);
    return v;
  }
  // Where a fetch writes the line; then filled() tags it.
  std::uint8_t* buffer() { return data_.data(); }
  void filled(std::uint64_t line, unsigned space, std::uint64_t physical) {
    tag_ = line;
    space_ = space;
    physical_ = physical;
  }
  void invalidate() { tag_ = kNone; }
  // A write to the physical line of pa drops the line (self-modifying streams).
  void written(std::uint64_t pa) {
    if ((pa & ~mask_) == physical_) tag_ = kNone;
  }

 private:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  std::uint64_t mask_;
  std::uint64_t tag_ = kNone;
  unsigned space_ = 0;
  std::uint64_t physical_ = kNone;
  std::vector<std::uint8_t> data_;  // the line, then as many bytes of padding
};

}  // namespace gpuvp::core
