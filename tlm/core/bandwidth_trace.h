// Bandwidth of a memory or bus port on the timeline: two Perfetto counter tracks, "<name> read B/us" and
// "<name> write B/us", each sample the bytes moved in one window of simulated time (kWindowPs) divided by the window in
// microseconds, so with the 1 us window a sample is exactly the window's bytes. Recording is one branch while the
// timeline is off.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <systemc>

#include "tlm/core/timeline.h"
#include "tlm/core/timing.h"

namespace gpuvp::core {

class BandwidthTrace : public TimelineSource {
 public:
  static constexpr Picoseconds kWindowPs = kPsPerUs;

  explicit BandwidthTrace(const std::string& name, Timeline& timeline = core::timeline());
  ~BandwidthTrace() override;
  BandwidthTrace(const BandwidthTrace&) = delete;
  BandwidthTrace& operator=(const BandwidthTrace&) = delete;

  // bytes moved at the caller's local time (the kernel's time plus delay).
  void add(bool write, std::uint64_t bytes, const sc_core::sc_time& delay) {
    if (timeline_.enabled()) record(write, bytes, now_ps() + to_ps(delay));
  }
  // bytes moved at time at (for callers that have computed it anyway).
  void add_at(bool write, std::uint64_t bytes, Picoseconds at) {
    if (timeline_.enabled()) record(write, bytes, at);
  }
  void flush_to_timeline() override;

 private:
  struct Bytes {
    std::uint64_t read = 0;
    std::uint64_t written = 0;
  };
  // One counter track: the window of its last sample and whether that sample was non-zero (the track then needs a
  // zero where the traffic stops).
  struct Series {
    std::string name;
    std::uint64_t last_window = 0;
    bool nonzero = false;
  };
  [[gnu::noinline]] void record(bool write, std::uint64_t bytes, Picoseconds at);
  // Writes the windows that end at or before time until (every window when until is the maximum).
  void write_until(Picoseconds until);
  void write_sample(Series& series, std::uint64_t window, std::uint64_t bytes);
  void write_stop(Series& series);

  Timeline& timeline_;
  Series read_;
  Series write_;
  std::map<std::uint64_t, Bytes> pending_;  // window index -> bytes, not yet written
};

}  // namespace gpuvp::core
