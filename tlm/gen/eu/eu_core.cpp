#include "tlm/gen/eu/eu_core.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpuvp::gen::eu {

namespace {

enum Unit : unsigned { kFpu0 = 0, kFpu1 = 1, kSendUnit = 2, kBranch = 3, kNoUnit = 4 };

constexpr unsigned kMaxThreads = 32;
constexpr unsigned kRankBits = 5;

template <typename F>
void for_each_arf(std::uint8_t bits, F f) {
  for (unsigned i = 0; i < 4; ++i) {
    if ((bits >> i) & 1U) f(i);
  }
}

}  // namespace

EuCore::EuCore(const EuCoreParams& params) : params_(params), slots_(params.threads), candidates_(params.threads) {
  // issue() keeps slots as bits of a 32-bit word and their round-robin rank in 5 bits of a sort key.
  if (params.threads == 0 || params.threads > kMaxThreads) {
    throw std::invalid_argument("EuCore: " + std::to_string(params.threads) + " threads per EU (1 to 32)");
  }
}

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
    residency_events_.emplace_back(at, +1);
    mark_stale(i);
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

void EuCore::append(unsigned slot, std::vector<const TimingOp*>&& ops) {
  Slot& s = slots_[slot];
  s.held = false;
  mark_stale(slot);
  if (s.next == s.trace.size()) {
    s.trace = std::move(ops);
    s.next = 0;
    return;
  }
  if (s.next > 0) {
    s.trace.erase(s.trace.begin(), s.trace.begin() + static_cast<std::ptrdiff_t>(s.next));
    s.next = 0;
  }
  s.trace.insert(s.trace.end(), ops.begin(), ops.end());
}

void EuCore::append_memory_log(unsigned slot, MemoryLog&& more) {
  Slot& s = slots_[slot];
  if (s.next_message == s.log.messages.size()) {
    s.log.clear();
    s.next_message = 0;
  }
  if (s.log.messages.empty()) {
    s.log = std::move(more);
    return;
  }
  if (s.next_message > 0) {  // drop the messages already timed and their lines
    const std::uint32_t first = s.log.messages[s.next_message].first_line;
    s.log.messages.erase(s.log.messages.begin(), s.log.messages.begin() + static_cast<std::ptrdiff_t>(s.next_message));
    s.log.lines.erase(s.log.lines.begin(), s.log.lines.begin() + first);
    for (MemoryMessage& m : s.log.messages) m.first_line -= first;
    s.next_message = 0;
  }
  const auto offset = static_cast<std::uint32_t>(s.log.lines.size());
  s.log.lines.insert(s.log.lines.end(), more.lines.begin(), more.lines.end());
  for (MemoryMessage m : more.messages) {
    m.first_line += offset;
    s.log.messages.push_back(m);
  }
}

StallReason EuCore::blame(const Slot& s, const TimingOp& op, std::uint64_t ready_at) const {
  if (op.wait && s.released_at == ready_at) return StallReason::kBarrier;
  if (op.eot && s.memory_done == ready_at) return StallReason::kMemory;
  const auto of_grf = [&](unsigned g) { return s.grf_from_send[g] ? StallReason::kMemory : StallReason::kDependency; };
  for (const GrfRange& r : op.reads) {
    for (unsigned g = r.first; g < r.first + r.count && g < kGrfs; ++g) {
      if (s.grf[g] == ready_at) return of_grf(g);
    }
  }
  for (unsigned g = op.writes.first; g < op.writes.first + op.writes.count && g < kGrfs; ++g) {
    if (s.grf[g] == ready_at) return of_grf(g);
  }
  const auto arfs = static_cast<std::uint8_t>(op.reads_arf | op.writes_arf);
  for (unsigned i = 0; i < 4; ++i) {
    if (((arfs >> i) & 1U) != 0 && s.arf[i] == ready_at) {
      return ((s.arf_from_send >> i) & 1U) != 0 ? StallReason::kMemory : StallReason::kDependency;
    }
  }
  if ((op.indirect || op.dynamic_descriptor) && s.latest_write == ready_at && s.latest_write_from_send) {
    return StallReason::kMemory;
  }
  return StallReason::kDependency;
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
  // The wait since the front end let the thread go: for a constraint of its own until ready, then for the unit.
  if (start > s.front_end) {
    const std::uint64_t ready_at = std::max(candidates_[slot].ready, s.front_end);
    if (ready_at > s.front_end) {
      stats_.thread_stalls[static_cast<unsigned>(blame(s, op, ready_at))] += ready_at - s.front_end;
    }
    stats_.thread_stalls[static_cast<unsigned>(StallReason::kUnit)] += start - ready_at;
  }
  mark_stale(slot);
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
  const bool from_send = op.pipe == TimingPipe::kSend;
  for (unsigned g = op.writes.first; g < op.writes.first + op.writes.count && g < kGrfs; ++g) {
    s.grf[g] = done;
    s.grf_from_send[g] = from_send;
  }
  for_each_arf(op.writes_arf, [&](unsigned i) {
    s.arf[i] = done;
    s.arf_from_send = static_cast<std::uint8_t>(from_send ? s.arf_from_send | (1U << i) : s.arf_from_send & ~(1U << i));
  });
  if ((op.writes.count > 0 || op.writes_arf != 0) && done >= s.latest_write) {
    s.latest_write = done;
    s.latest_write_from_send = from_send;
  }
  if (op.barrier) arrivals_.push_back({slot, start});
  if (op.wait) s.released_at = kNotReleased;  // consumed: the next barrier's wait waits for its own release
  ++stats_.instructions[static_cast<unsigned>(op.cls)];
  ++stats_.by_width[std::min(5, __builtin_ctz(op.exec_size | 32U))];  // log2 of a power of two up to 32
  if (start != last_issue_) ++stats_.issue_cycles;
  last_issue_ = start;
  // Issues come in time order, so the union of the units' occupancies grows at its end only.
  const std::uint64_t busy_end = start + std::max<std::uint64_t>(op.occupancy, 1);
  if (busy_end > busy_until_) {
    stats_.busy_cycles += busy_end - std::max(start, busy_until_);
    busy_until_ = busy_end;
  }
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
    residency_events_.emplace_back(s.ended_at, -1);
    last_cycle_ = std::max(last_cycle_, s.ended_at);
  } else if (s.next == s.trace.size()) {
    s.trace.clear();  // consumed: the next append starts a fresh run
    s.next = 0;
  }
}

void EuCore::refresh(unsigned slot) {
  const Slot& s = slots_[slot];
  Candidate& c = candidates_[slot];
  if (!s.resident) {
    c.state = Candidacy::kIdle;
  } else if (s.next >= s.trace.size()) {
    c.state = s.held ? Candidacy::kIdle : Candidacy::kNeedsInput;
  } else {
    const TimingOp& op = *s.trace[s.next];
    c.ready = ready(s, op);
    c.pipe = op.pipe;
    c.state = c.ready == kNotReleased ? Candidacy::kIdle : Candidacy::kIssuable;  // kIdle: waits for its release
  }
  if (c.state == Candidacy::kNeedsInput) {
    needs_input_ |= 1U << slot;
  } else {
    needs_input_ &= ~(1U << slot);
  }
}

std::optional<unsigned> EuCore::issue(std::uint64_t horizon) {
  const auto count = static_cast<unsigned>(slots_.size());
  // A slot's round-robin rank: 0 for the thread after the one that issued last.
  const auto rank_of = [&](unsigned i) {
    return i > last_issued_ ? i - last_issued_ - 1 : i + count - last_issued_ - 1;
  };
  for (;;) {
    for (; stale_ != 0; stale_ &= stale_ - 1) refresh(static_cast<unsigned>(__builtin_ctz(stale_)));
    if (needs_input_ != 0) {  // the first such thread in round-robin order: its next instruction is not known yet
      unsigned first = 0;
      unsigned first_rank = count;
      for (std::uint32_t m = needs_input_; m != 0; m &= m - 1) {
        const auto i = static_cast<unsigned>(__builtin_ctz(m));
        if (rank_of(i) < first_rank) {
          first = i;
          first_rank = rank_of(i);
        }
      }
      return first;
    }
    // When each pipe (TimingPipe's order) takes an instruction at the earliest: an FPU-any instruction takes the FPU
    // free first, so it starts at max(ready, the earlier of the two), as unit_of() chooses.
    const std::array<std::uint64_t, 5> pipe_free = {std::min(unit_free_[kFpu0], unit_free_[kFpu1]), unit_free_[kFpu0],
                                                    unit_free_[kSendUnit], unit_free_[kBranch], 0};
    // The earliest start, ties to the first in round-robin order: the least of (start, rank) as one key, without a
    // branch per thread.
    std::uint64_t best_key = ~0ULL;
    for (unsigned i = 0; i < count; ++i) {
      const Candidate& c = candidates_[i];
      const std::uint64_t start = std::max(c.ready, pipe_free[static_cast<unsigned>(c.pipe)]);
      const std::uint64_t key = c.state == Candidacy::kIssuable ? (start << kRankBits | rank_of(i)) : ~0ULL;
      best_key = std::min(best_key, key);
    }
    const std::uint64_t best_start = best_key >> kRankBits;
    if (best_key == ~0ULL || best_start >= horizon) {
      if (horizon == ~0ULL) settle();
      return std::nullopt;
    }
    unsigned best = last_issued_ + 1 + static_cast<unsigned>(best_key & ((1U << kRankBits) - 1));
    if (best >= count) best -= count;
    const Slot& s = slots_[best];
    issue_one(best, best_start, unit_of(*s.trace[s.next], candidates_[best].ready));
  }
}

void EuCore::settle(std::uint64_t upto) {
  if (residency_events_.empty()) return;
  // In time order; at equal times ends (-1) before starts, which leaves an empty gap and the same count.
  std::sort(residency_events_.begin(), residency_events_.end());
  std::size_t n = 0;
  for (; n < residency_events_.size() && residency_events_[n].first <= upto; ++n) {
    const std::uint64_t at = std::max(residency_events_[n].first, settled_to_);
    settled_to_ = at;
    if (residency_events_[n].second > 0) {
      if (settled_resident_++ == 0) busy_since_ = at;
    } else if (settled_resident_ > 0 && --settled_resident_ == 0) {
      stats_.occupied_cycles += at - busy_since_;
    }
  }
  residency_events_.erase(residency_events_.begin(), residency_events_.begin() + static_cast<std::ptrdiff_t>(n));
}

}  // namespace gpuvp::gen::eu
