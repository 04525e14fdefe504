#include "tb/host/execlist_scheduler.h"

#include <algorithm>
#include <stdexcept>

#include "hw/gen/execlist_regs.h"
#include "hw/gen/gt_interrupt_regs.h"

namespace gpuvp::host {

using gen::ExeclistRegs;
using gen::GtInterruptRegs;

ExeclistScheduler::ExeclistScheduler(I915Driver& driver, gen::Engine engine) : driver_(driver), engine_(engine) {
  driver_.enable_execlists(engine_);
  driver_.enable_interrupts(engine_, GtInterruptRegs::kContextSwitch);
}

std::uint32_t ExeclistScheduler::add_request(Context& context, int priority) {
  if (context.engine != engine_) throw std::invalid_argument("execlist scheduler: context of another engine");
  const std::uint32_t seqno = driver_.emit_breadcrumb(context);
  queue_.push_back({&context, seqno, priority, next_order_++});
  dequeue();
  return seqno;
}

const ExeclistScheduler::Request* ExeclistScheduler::top(const Context* excluding_a, const Context* excluding_b) const {
  const Request* best = nullptr;
  for (const Request& r : queue_) {
    if (r.context == excluding_a || r.context == excluding_b) continue;
    if (!best || r.priority > best->priority || (r.priority == best->priority && r.order < best->order)) best = &r;
  }
  return best;
}

ExeclistScheduler::Port ExeclistScheduler::take(Context* context) {
  Port port;
  port.context = context;
  port.priority = std::numeric_limits<int>::min();
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (it->context != context) {
      ++it;
      continue;
    }
    port.priority = std::max(port.priority, it->priority);
    port.requests.push_back(*it);
    it = queue_.erase(it);
  }
  std::sort(port.requests.begin(), port.requests.end(),
            [](const Request& a, const Request& b) { return a.order < b.order; });
  return port;
}

void ExeclistScheduler::dequeue() {
  if (submitted_) return;  // one ELSP write at a time: wait for the engine to acknowledge the last one
  const Request* next = top();
  if (!next) return;
  Context* running = port_[0].context;
  if (!running) {
    // Idle engine: the best context and the best other one.
    Port first = take(next->context);
    Port second;
    if (const Request* other = top()) second = take(other->context);
    submitted_is_lite_ = false;
    submit({std::move(first), std::move(second)});
    return;
  }
  const bool preempt = next->priority > port_[0].priority;
  const bool append = next->context == running && !port_[1].context;
  if (preempt && next->context != running) {
    // Element 1 of the preempting pair is never a context that is still active (running or waiting in port 1).
    Port first = take(next->context);
    Port second;
    if (const Request* other = top(running, port_[1].context)) second = take(other->context);
    submitted_is_lite_ = false;
    submit({std::move(first), std::move(second)});
  } else if (append) {
    // More work for the running context: resubmit it alone with the new tail (lite restore).
    submitted_is_lite_ = true;
    submit({take(running), Port{}});
  }
}

void ExeclistScheduler::submit(std::array<Port, 2> ports) {
  driver_.submit(*ports[0].context, ports[1].context);
  ++counts_.elsp_writes;
  submitted_ = std::move(ports);
}

void ExeclistScheduler::retire(Port& port) {
  for (const Request& r : port.requests) {
    ++counts_.retired;
    retired_.push_back(r.seqno);
  }
  port = Port{};
}

void ExeclistScheduler::unwind(Port& port) {
  if (!port.context) return;
  const std::uint32_t done = driver_.port().read32(driver_.seqno_address(*port.context));
  for (const Request& r : port.requests) {
    if (static_cast<std::int32_t>(done - r.seqno) >= 0) {
      ++counts_.retired;
      retired_.push_back(r.seqno);
    } else {
      queue_.push_back(r);
    }
  }
  port = Port{};
}

void ExeclistScheduler::process(const I915Driver::CsbEntry& entry) {
  csb_log_.push_back(entry);
  if (entry.status & ExeclistRegs::kIdleToActive) {
    if (!submitted_) throw std::runtime_error("execlist scheduler: idle-to-active without a submission");
    port_ = std::move(*submitted_);
    submitted_.reset();
  }
  if (entry.status & ExeclistRegs::kPreempted) {
    if (!submitted_) throw std::runtime_error("execlist scheduler: preemption without a submission");
    if (entry.status & ExeclistRegs::kLiteRestore) {
      ++counts_.lite_restores;
      Port& added = (*submitted_)[0];
      port_[0].priority = std::max(port_[0].priority, added.priority);
      port_[0].requests.insert(port_[0].requests.end(), added.requests.begin(), added.requests.end());
      port_[1] = std::move((*submitted_)[1]);
    } else {
      ++counts_.preemptions;
      unwind(port_[0]);
      unwind(port_[1]);
      port_ = std::move(*submitted_);
    }
    submitted_.reset();
  }
  if (entry.status & ExeclistRegs::kComplete) {
    retire(port_[0]);
    if (entry.status & ExeclistRegs::kElementSwitch) {
      port_[0] = std::move(port_[1]);
      port_[1] = Port{};
    } else {
      port_[1] = Port{};
    }
  }
}

bool ExeclistScheduler::handle_interrupt(std::uint64_t timeout_ns) {
  const std::uint32_t iir = GtInterruptRegs::bank_register(GtInterruptRegs::bank_of(engine_), GtInterruptRegs::kIir);
  const int shift = GtInterruptRegs::shift_of(engine_);
  const std::uint32_t context_switch = GtInterruptRegs::kContextSwitch << shift;
  if (!driver_.port().wait_for32(driver_.layout().bar + iir, context_switch, context_switch, timeout_ns)) return false;
  // Acknowledge before reading the CSB (as i915's gen8_gt_irq_handler does), so entries written meanwhile raise the
  // interrupt again instead of being lost.
  driver_.mmio_write(iir, context_switch | GtInterruptRegs::kUserInterrupt << shift);
  for (const auto& entry : driver_.process_csb(engine_)) process(entry);
  dequeue();
  return true;
}

bool ExeclistScheduler::run_until_idle(std::uint64_t timeout_ns) {
  while (!idle()) {
    if (!handle_interrupt(timeout_ns)) return false;
  }
  return true;
}

}  // namespace gpuvp::host
