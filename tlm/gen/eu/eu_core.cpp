#include "tlm/gen/eu/eu_core.h"

#include <algorithm>
#include <stdexcept>

namespace gpuvp::gen::eu {

namespace {

enum Unit : unsigned { kFpu0 = 0, kFpu1 = 1, kSendUnit = 2, kBranch = 3, kNoUnit = 4 };

template <typename F>
void for_each_arf(std::uint8_t bits, F f) {
  for (unsigned i = 0; i < 4; ++i) {
    if ((bits >> i) & 1U) f(i);
  }
}

}  // namespace

EuCore::EuCore(const EuCoreParams& params) : params_(params), slots_(params.threads) {}

bool EuCore::has_free_slot() const { return resident_ < slots_.size(); }

unsigned EuCore::start(std::uint64_t at) {
  for (unsigned i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    if (s.resident) continue;
    s = Slot{};
    s.resident = true;
    s.started_at = at;
    s.front_end = at;
    s.latest_write = at;
    ++resident_;
    return i;
  }
  throw std::logic_error("EuCore::start without a free slot");
}

std::uint64_t EuCore::ready(const Slot& s, const TimingOp& op) const {
  std::uint64_t at = s.front_end;
  const auto wait_for = [&](const GrfRange& r) {
    for (unsigned g = r.first; g < r.first + r.count && g < kGrfs; ++g) at = std::max(at, s.grf[g]);
  };
  for (const GrfRange& r : op.reads) wait_for(r);
  wait_for(op.writes);
  for_each_arf(static_cast<std::uint8_t>(op.reads_arf | op.writes_arf),
               [&](unsigned i) { at = std::max(at, s.arf[i]); });
  if (op.indirect || op.dynamic_descriptor) at = std::max(at, s.latest_write);
  if (op.wait) at = std::max(at, s.released_at);
  if (op.eot) at = std::max(at, s.memory_done);
  return at;
}

unsigned EuCore::unit_of(const TimingOp& op, std::uint64_t ready_at) const {
  switch (op.pipe) {
    case TimingPipe::kFpuAny:
      // The FPU free first; on a tie (both free by then) FPU1, which keeps FPU0 for the work only it does.
      return std::max(ready_at, unit_free_[kFpu0]) < std::max(ready_at, unit_free_[kFpu1]) ? kFpu0 : kFpu1;
    case TimingPipe::kFpu0:
      return kFpu0;
    case TimingPipe::kSend:
      return kSendUnit;
    case TimingPipe::kControl:
      return kBranch;
    case TimingPipe::kNone:
      break;
  }
  return kNoUnit;
}

void EuCore::issue_one(unsigned slot, std::uint64_t start, unsigned unit) {
  Slot& s = slots_[slot];
  const TimingOp& op = *s.trace[s.next++];
  s.next_ready_valid = false;
  if (unit != kNoUnit) unit_free_[unit] = start + op.occupancy;
  if (unit <= kFpu1) stats_.fpu_busy[unit] += op.occupancy;
  s.front_end = start + op.front_end;
  std::uint64_t done = start + op.latency;
  if (op.pipe == TimingPipe::kSend) {
    done = start + params_.send_latency;
    if (s.next_message < s.log.messages.size()) {
      const MemoryMessage& m = s.log.messages[s.next_message++];
      if (memory_ != nullptr && m.line_count > 0) {
        done = memory_->access(subslice_, s.log, m, start);
        s.memory_done = std::max(s.memory_done, done);
      }
    }
  }
  for (unsigned g = op.writes.first; g < op.writes.first + op.writes.count && g < kGrfs; ++g) s.grf[g] = done;
  for_each_arf(op.writes_arf, [&](unsigned i) { s.arf[i] = done; });
  if (op.writes.count > 0 || op.writes_arf != 0) s.latest_write = std::max(s.latest_write, done);
  if (op.barrier) arrivals_.push_back({slot, start});
  if (op.wait) s.released_at = kNotReleased;  // consumed: the next barrier's wait waits for its own release
  ++stats_.instructions[static_cast<unsigned>(op.cls)];
  if (start != last_issue_) ++stats_.issue_cycles;
  last_issue_ = start;
  stats_.flops32 += op.flops32;
  stats_.flops64 += op.flops64;
  stats_.flops16 += op.flops16;
  if (!op.eot) last_cycle_ = std::max(last_cycle_, start + op.occupancy);
  last_issued_ = slot;
  if (op.eot) {
    s.ended = true;
    s.resident = false;
    s.ended_at = start + params_.eot_cycles;
    s.trace.clear();
    s.next = 0;
    s.log.clear();
    s.next_message = 0;
    --resident_;
    ++stats_.threads;
    stats_.thread_cycles += s.ended_at - s.started_at;
    last_cycle_ = std::max(last_cycle_, s.ended_at);
  } else if (s.next == s.trace.size()) {
    s.trace.clear();  // consumed: the next append starts a fresh run
    s.next = 0;
  }
}

std::optional<unsigned> EuCore::issue(std::uint64_t horizon) {
  const auto count = static_cast<unsigned>(slots_.size());
  for (;;) {
    bool any = false;
    unsigned best = 0;
    std::uint64_t best_start = 0;
    unsigned best_unit = kNoUnit;
    // Round robin from the thread after the one that issued last: the first of equal starts wins.
    unsigned i = last_issued_;
    for (unsigned k = 0; k < count; ++k) {
      if (++i == count) i = 0;
      const Slot& s = slots_[i];
      if (!s.resident) continue;
      if (s.next >= s.trace.size()) return i;  // its next instruction is not known yet
      const TimingOp& op = *s.trace[s.next];
      if (!s.next_ready_valid) {
        slots_[i].next_ready = ready(s, op);
        slots_[i].next_ready_valid = true;
      }
      const std::uint64_t r = s.next_ready;
      if (r == kNotReleased) continue;  // waits for its barrier's release
      const unsigned unit = unit_of(op, r);
      const std::uint64_t start = unit == kNoUnit ? r : std::max(r, unit_free_[unit]);
      if (!any || start < best_start) {
        any = true;
        best = i;
        best_start = start;
        best_unit = unit;
      }
    }
    if (!any || best_start >= horizon) return std::nullopt;
    issue_one(best, best_start, best_unit);
  }
}

}  // namespace gpuvp::gen::eu
