#include "tlm/gen/eu/thread_group.h"

#include <algorithm>

#include "tlm/core/format_hex.h"

namespace gpuvp::gen::eu {

namespace {
// SFIDs (Mesa brw_eu_defines.h BRW_SFID_*).
constexpr std::uint8_t kSfidNull = 0;
constexpr std::uint8_t kSfidGateway = 3;
constexpr std::uint8_t kSfidThreadSpawner = 7;
constexpr std::uint8_t kSfidDc0 = 0xA;
constexpr std::uint8_t kSfidDc1 = 0xC;
// Gateway function codes (BRW_MESSAGE_GATEWAY_SFID_*): 4 barrier.
constexpr std::uint32_t kGatewayBarrier = 4;
}  // namespace

// Where each thread is (kernel offsets), for reports of groups that do not end.
std::string ThreadGroup::where(const std::vector<ThreadState>& threads) const {
  std::string s = " threads at";
  for (std::size_t i = 0; i < threads.size() && i < 16; ++i) {
    s += " " + std::to_string(i) + ":" + (threads[i].ended ? std::string("ended") : core::format_hex(threads[i].ip));
    if (!threads[i].ended && at_barrier_[i]) s += "(barrier)";
  }
  return s;
}

ThreadGroupResult ThreadGroup::run(std::vector<ThreadState>& threads, std::uint64_t instruction_limit,
                                   std::vector<std::vector<const TimingOp*>>* traces) {
  begin(threads, instruction_limit);
  return resume(~0ULL, traces);
}

void ThreadGroup::begin(std::vector<ThreadState>& threads, std::uint64_t instruction_limit) {
  threads_ = &threads;
  instruction_limit_ = instruction_limit;
  executed_ = 0;
  failed_ = false;
  at_barrier_.assign(threads.size(), false);
  arrived_ = 0;
  running_ = 0;
  for (const ThreadState& t : threads) running_ += t.ended ? 0 : 1;
}

ThreadGroupResult ThreadGroup::resume(std::uint64_t chunk, std::vector<std::vector<const TimingOp*>>* traces,
                                      const std::vector<bool>* allowed) {
  std::vector<ThreadState>& threads = *threads_;
  if (traces != nullptr) traces->resize(threads.size());
  ThreadGroupResult result;
  messages_ = 0;
  barriers_ = 0;
  const auto may_run = [&](std::size_t i) { return allowed == nullptr || (i < allowed->size() && (*allowed)[i]); };
  std::size_t runnable = 0;
  for (std::size_t i = 0; i < threads.size(); ++i) runnable += !threads[i].ended && may_run(i) ? 1 : 0;
  const std::uint64_t target = chunk == ~0ULL ? ~0ULL : chunk * std::max<std::size_t>(runnable, 1);
  const auto fail = [&](std::string error) {
    result.ok = false;
    result.error = std::move(error);
    failed_ = true;
  };
  while (running_ > 0 && result.instructions < target) {
    bool progressed = false;
    for (std::size_t i = 0; i < threads.size(); ++i) {
      ThreadState& t = threads[i];
      if (t.ended || !may_run(i)) continue;
      const std::uint32_t ip = t.ip;
      const RunResult r = executor_.run(t, kSlice, traces != nullptr ? &(*traces)[i] : nullptr);
      result.instructions += r.instructions;
      executed_ += r.instructions;
      // A wait retried without its notification is no progress (it stays at the same instruction).
      const bool still_waiting = r.reason == StopReason::kSuspended && t.ip == ip && r.instructions <= 1;
      if (r.instructions > 0 && !still_waiting) progressed = true;
      if (r.reason == StopReason::kFault) {
        result.memory_fault = data_port_.memory_faulted();
        fail("thread " + std::to_string(i) + ": " + r.fault);
        break;
      }
      if (r.reason == StopReason::kEndOfThread) {
        --running_;
        progressed = true;
      }
      if (executed_ > instruction_limit_) {
        fail("the thread group ran " + std::to_string(executed_) +
             " instructions without ending (gpgpu.thread_group_instruction_limit): a kernel that never ends;" +
             where(threads));
        break;
      }
    }
    if (failed_) break;
    bool others = false;  // live threads not allowed to run: they reach the barrier in a later step
    for (std::size_t i = 0; i < threads.size() && !others; ++i) others = !threads[i].ended && !may_run(i);
    if (!progressed && others) break;
    if (!progressed) {
      // Every live thread waits and nothing can release it: on hardware the group hangs.
      unsigned waiting = 0;
      for (bool b : at_barrier_) waiting += b ? 1 : 0;
      fail("thread group deadlock: " + std::to_string(running_) + " of " + std::to_string(threads.size()) +
           " threads wait (" + std::to_string(waiting) +
           " at a barrier that threads which ended or never arrive do not complete);" + where(threads));
      break;
    }
  }
  result.messages = messages_;
  result.barriers = barriers_;
  return result;
}

MessageResult ThreadGroup::send(const Message& message, ThreadState& thread) {
  ++messages_;
  switch (message.sfid) {
    case kSfidDc0:
    case kSfidDc1:
      return data_port_.send(message, thread);
    case kSfidGateway:
      return gateway(message, thread);
    case kSfidThreadSpawner:
    case kSfidNull:
      // The end-of-thread message (Mesa generate_cs_terminate: thread spawner, mlen 1, a copy of r0) frees the
      // thread's slot; without EOT neither carries anything the model acts on.
      if (message.eot) return {};
      return {MessageStatus::kError, "a thread spawner message without end of thread is not modelled"};
    default:
      return {MessageStatus::kError, "shared function " + core::format_hex(message.sfid) +
                                         " is not modelled (sampler, URB, pixel interpolator, ... come later)"};
  }
}

MessageResult ThreadGroup::gateway(const Message& message, ThreadState& thread) {
  const std::uint32_t function = message.desc & 7U;
  if (function != kGatewayBarrier) {
    return {MessageStatus::kError, "message gateway function " + std::to_string(function) + " is not modelled"};
  }
  const std::size_t index = static_cast<std::size_t>(&thread - threads_->data());
  if (index >= threads_->size()) return {MessageStatus::kError, "barrier from a thread outside the group"};
  if (at_barrier_[index]) return {MessageStatus::kError, "a second barrier message before the first completed"};
  at_barrier_[index] = true;
  ++arrived_;
  if (arrived_ == threads_->size()) {
    // Every thread of the group signalled: the gateway notifies each (n0.0), which its wait consumes.
    for (std::size_t i = 0; i < threads_->size(); ++i) {
      (*threads_)[i].n0[0] += 1;
      at_barrier_[i] = false;
    }
    arrived_ = 0;
    ++barriers_;
  }
  return {};
}

}  // namespace gpuvp::gen::eu
