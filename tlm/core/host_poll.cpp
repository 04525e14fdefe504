#include "tlm/core/host_poll.h"

#include <algorithm>

#include "tlm/core/write_clock.h"

namespace gpuvp::core {

namespace {

// Lets the processes that are runnable at this instant (and the delta notifications they made) run before the host
// samples memory: a store at exactly the poll's start is then seen by that poll, whatever order the kernel picked
// for the processes of one instant. Bounded, so that a model that keeps making delta activity cannot hold the host.
void settle() {
  constexpr int kMaxDeltas = 8;
  for (int i = 0; i < kMaxDeltas && sc_core::sc_pending_activity_at_current_time(); ++i) {
    sc_core::wait(sc_core::SC_ZERO_TIME);
  }
}

// Whether what a read starting at `t` returned is the memory's content at t. Another initiator running ahead of the
// kernel (temporal decoupling) may already have stored a value that, in its own time, lands only after t; a poll that
// matched on it would answer before the value was there. The one place that decides it, for every poll.
bool visible_at(std::uint64_t addr, unsigned width, Picoseconds t) { return write_clock().latest(addr, width) <= t; }

}  // namespace

PollResult poll(Initiator& cpu, const PollRequest& request) {
  PollResult result;
  cpu.sync();
  const Picoseconds start = now_ps();
  const Picoseconds deadline = request.timeout > ~Picoseconds{0} - start ? ~Picoseconds{0} : start + request.timeout;
  for (;;) {
    settle();
    const Picoseconds began = now_ps();
    std::uint64_t value = 0;
    result.status = cpu.read(request.addr, &value, request.width);
    ++result.reads;
    result.last = value;
    // The read may have synchronised by itself (a quantum shorter than its latency): its completion is the kernel's
    // time plus whatever offset is left.
    const Picoseconds done = now_ps() + cpu.local_time().offset_ps();
    // A value that is there but not yet visible at the read's start is a miss: a later read sees it in time.
    result.matched = result.status == tlm::TLM_OK_RESPONSE && (value & request.mask) == request.value &&
                     visible_at(request.addr, request.width, began);
    const Picoseconds next = std::max(began + request.interval, done);
    if (result.matched || result.status != tlm::TLM_OK_RESPONSE || next > deadline) {
      cpu.sync();
      result.time = now_ps();
      return result;
    }
    // One wait covers the read's latency and the rest of the interval.
    cpu.local_time().set_offset(0);
    sc_core::wait(to_sc_time(next - now_ps()));
  }
}

bool wait_for_interrupt(Initiator& cpu, const InterruptLine& line, Picoseconds timeout) {
  cpu.sync();
  if (line.level()) return true;
  const std::uint64_t raised_before = line.raise_count();
  sc_core::wait(to_sc_time(timeout), line.raised_event());
  return line.level() || line.raise_count() != raised_before;
}

}  // namespace gpuvp::core
