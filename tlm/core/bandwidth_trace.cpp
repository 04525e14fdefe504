#include "tlm/core/bandwidth_trace.h"

#include <limits>

namespace gpuvp::core {

namespace {
// Counters belong to the process in the Chrome trace format (Perfetto ignores their tid): no thread row for them.
constexpr int kCounterTrack = 0;
}  // namespace

BandwidthTrace::BandwidthTrace(const std::string& name, Timeline& timeline)
    : timeline_(timeline), read_{name + " read B/us"}, write_{name + " write B/us"} {
  timeline_.attach(this);
}

BandwidthTrace::~BandwidthTrace() { timeline_.detach(this); }

void BandwidthTrace::record(bool write, std::uint64_t bytes, Picoseconds at) {
  Bytes& window = pending_[at / kWindowPs];
  (write ? window.written : window.read) += bytes;
  // A decoupled initiator runs ahead of the kernel, never behind it: no access can land in a window that ended before
  // the kernel's time, so those are final (a deterministic rule, whatever the quantum).
  write_until(now_ps());
}

void BandwidthTrace::write_until(Picoseconds until) {
  while (!pending_.empty()) {
    auto first = pending_.begin();
    if (until != std::numeric_limits<Picoseconds>::max() && (first->first + 1) * kWindowPs > until) return;
    write_sample(read_, first->first, first->second.read);
    write_sample(write_, first->first, first->second.written);
    pending_.erase(first);
  }
}

void BandwidthTrace::write_sample(Series& series, std::uint64_t window, std::uint64_t bytes) {
  if (bytes == 0) return;
  // The traffic stopped after the last sample and starts again here: the track drops to zero in between.
  if (series.nonzero && series.last_window + 1 < window) write_stop(series);
  const double per_us = static_cast<double>(bytes) * static_cast<double>(kPsPerUs) / static_cast<double>(kWindowPs);
  timeline_.value(kCounterTrack, series.name.c_str(), window * kWindowPs, per_us);
  series.last_window = window;
  series.nonzero = true;
}

void BandwidthTrace::write_stop(Series& series) {
  timeline_.value(kCounterTrack, series.name.c_str(), (series.last_window + 1) * kWindowPs, 0.0);
  series.nonzero = false;
}

void BandwidthTrace::flush_to_timeline() {
  write_until(std::numeric_limits<Picoseconds>::max());
  if (read_.nonzero) write_stop(read_);
  if (write_.nonzero) write_stop(write_);
}

}  // namespace gpuvp::core
