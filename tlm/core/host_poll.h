// Waiting by polling, as a driver's busy loop waits (i915 wait_for / __intel_wait_for_register): a timed read from
// the host initiator every poll interval until (value & mask) == expected or the time-out passes. The host script
// protocol's pollb/pollw/polll/pollq and the live host driver models (host::BusHostPort::wait_for32) both wait this
// way, so a driver recorded as a script waits exactly as the live driver does.
#pragma once

#include <cstdint>
#include <tlm>

#include "tlm/core/initiator.h"
#include "tlm/core/interrupt_line.h"
#include "tlm/core/timing.h"

namespace gpuvp::core {

// The default poll interval: a driver's busy loop re-reading a register or status dword about every 100 ns (the
// platform's config key host.poll_interval_ns).
constexpr std::uint64_t kDefaultPollIntervalNs = 100;

struct PollRequest {
  std::uint64_t addr = 0;
  unsigned width = 4;  // bytes: 1, 2, 4 or 8 (little-endian, as every host access)
  std::uint64_t value = 0;
  std::uint64_t mask = ~0ULL;
  Picoseconds timeout = 0;
  Picoseconds interval = kDefaultPollIntervalNs * kPsPerNs;
};

struct PollResult {
  bool matched = false;
  tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;  // a read that fails ends the poll
  std::uint64_t last = 0;                                  // the last value read
  Picoseconds time = 0;  // when the last read (the matching one, if any) completed: the host's time on return
  std::uint64_t reads = 0;
};

// Polls through `cpu`; call from its thread process. Read k starts at start + k * interval, or as soon as read k-1
// has completed when reads take longer than the interval. Each read starts synchronised with the kernel, after
// everything else scheduled for that instant has run, so a value the model stores at time t is seen by the first
// read that starts at or after t. A block running ahead of the kernel (temporal decoupling) stores when it executes,
// before its own time t; the write clock (write_clock.h) says when, so such a store too is seen only by a read that
// starts at or after its time. Reads start until the deadline start + timeout has passed (a timeout of 0 reads
// once). On return the host is synchronised at `time`.
PollResult poll(Initiator& cpu, const PollRequest& request);

// Waits for an interrupt as the protocol's irq_wait does: synchronises `cpu` with the kernel, then returns at once if
// `line` is high, else waits until it rises or `timeout` passes. A pulse counts (the line may already be low again
// when the waiting thread resumes). True when the line was raised; on return the host is synchronised.
bool wait_for_interrupt(Initiator& cpu, const InterruptLine& line, Picoseconds timeout);

}  // namespace gpuvp::core
