// ExeclistScheduler: the i915 execlists back end of the host driver model for one engine. Requests (work emitted into
// a context, closed by a breadcrumb) wait in a priority queue; the scheduler fills the two ELSP ports from it, reads
// the context status buffer in its interrupt handler, retires what completed, puts preempted work back and submits
// again. A request of higher priority than the running one preempts it (the engine switches at its next arbitration
// point). Like i915 it never submits a still-active context as element 1, coalesces the queued requests of one context
// into one port, and resubmits the running context to append work (a lite restore).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <vector>

#include "tb/host/i915_driver.h"

namespace gpuvp::host {

class ExeclistScheduler {
 public:
  using Context = I915Driver::Context;

  struct Request {
    Context* context = nullptr;
    std::uint32_t seqno = 0;
    int priority = 0;
    std::uint64_t order = 0;  // submission order: FIFO among equal priorities
  };
  // What one ELSP port holds: a context and the queued requests of it that its tail covers.
  struct Port {
    Context* context = nullptr;
    int priority = 0;
    std::vector<Request> requests;
  };
  struct Counts {
    std::uint64_t elsp_writes = 0;
    std::uint64_t preemptions = 0;    // CSB preempted entries that unwound work
    std::uint64_t lite_restores = 0;  // CSB lite-restore entries
    std::uint64_t retired = 0;        // requests completed
  };

  // Enables execlists and the engine's user, CS error and context-switch interrupts.
  ExeclistScheduler(I915Driver& driver, gen::Engine engine);

  // Closes the work emitted into context so far with a breadcrumb and queues it at priority; submits what the ports
  // can take. Returns the request's seqno.
  std::uint32_t add_request(Context& context, int priority = 0);
  // Interrupt handler: waits for the context-switch interrupt (up to timeout_ns), acknowledges it, processes the CSB
  // and submits again. False on time-out.
  bool handle_interrupt(std::uint64_t timeout_ns);
  // Handles interrupts until every request retired; false if the engine went quiet for timeout_ns first.
  bool run_until_idle(std::uint64_t timeout_ns);

  bool idle() const { return queue_.empty() && !port_[0].context && !submitted_; }
  const Counts& counts() const { return counts_; }
  // Seqnos in the order their requests retired (for tests and the demo).
  const std::vector<std::uint32_t>& retired_seqnos() const { return retired_; }
  // The CSB entries the handler processed, in order.
  const std::vector<I915Driver::CsbEntry>& csb_log() const { return csb_log_; }
  // Forgets both records (the counts stay): they grow by a few words per request, so a long-running user reads and
  // then clears them.
  void clear_history() {
    retired_.clear();
    csb_log_.clear();
  }

 private:
  // Fills the ports (idle engine), preempts (higher priority queued) or appends to the running context.
  void dequeue();
  // Takes every queued request of context out of the queue into a port.
  Port take(Context* context);
  const Request* top(const Context* excluding_a = nullptr, const Context* excluding_b = nullptr) const;
  void submit(std::array<Port, 2> ports);
  void retire(Port& port);
  // A preempted port: requests whose breadcrumb landed retire, the others go back to the queue.
  void unwind(Port& port);
  void process(const I915Driver::CsbEntry& entry);

  I915Driver& driver_;
  gen::Engine engine_;
  std::deque<Request> queue_;
  std::array<Port, 2> port_{};                    // what the engine has acknowledged (element 0 runs)
  std::optional<std::array<Port, 2>> submitted_;  // written to ELSP, not yet acknowledged by a CSB entry
  bool submitted_is_lite_ = false;
  std::uint64_t next_order_ = 0;
  Counts counts_;
  std::vector<std::uint32_t> retired_;
  std::vector<I915Driver::CsbEntry> csb_log_;
};

}  // namespace gpuvp::host
