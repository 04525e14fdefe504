// Bandwidth of a bus port on the timeline: two Perfetto counter tracks, "<name> read B/us" and
// "<name> write B/us", each sample the bytes moved in one window of simulated time (kWindowPs) divided by the window in
// microseconds, so with the 1 us window a sample is exactly the window's bytes. Blocks create one only while tracing,
// so that an untraced access pays nothing for it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

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

  // bytes moved at time at (a block's local time: the kernel's time or up to a quantum ahead of it).
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
