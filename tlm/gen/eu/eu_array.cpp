#include "tlm/gen/eu/eu_array.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace gpuvp::gen::eu {

namespace {

std::uint64_t issued(const EuCore& core) {
  const auto& n = core.stats().instructions;
  return std::accumulate(n.begin(), n.end(), std::uint64_t{0});
}

}  // namespace

EuArray::EuArray(const EuArrayParams& params) : params_(params) {
  const unsigned subslices = params.slices * params.subslices_per_slice;
  for (unsigned i = 0; i < subslices * params.eus_per_subslice; ++i) {
    eus_.push_back(std::make_unique<EuCore>(params.core));
    group_of_.emplace_back(params.core.threads, 0);
  }
  dispatcher_free_.assign(subslices, 0);
  next_eu_.assign(subslices, 0);
}

EuArray::~EuArray() = default;

void EuArray::attach_memory(MemoryHierarchy* memory) {
  memory_ = memory;
  for (unsigned e = 0; e < eus_.size(); ++e) eus_[e]->attach_memory(memory, e / params_.eus_per_subslice);
}

void EuArray::add(Group group) {
  const unsigned capacity = params_.eus_per_subslice * params_.core.threads;
  if (group.threads.size() > capacity) {
    throw std::invalid_argument("a thread group of " + std::to_string(group.threads.size()) + " threads exceeds the " +
                                std::to_string(capacity) + " of a subslice");
  }
  queue_.push_back(std::move(group));
  barriers_.emplace_back();
}

// Places queued groups, in order, on subslices with room for all their threads, from cycle `at`, until the next group
// does not fit anywhere yet.
void EuArray::dispatch(std::uint64_t at, const std::function<bool(Group&)>* next, bool& exhausted) {
  const auto subslices = static_cast<unsigned>(dispatcher_free_.size());
  for (;;) {
    if (next_group_ == queue_.size()) {
      Group pulled;
      if (next == nullptr || exhausted) return;
      if (!(*next)(pulled)) {
        exhausted = true;
        return;
      }
      add(std::move(pulled));
    }
    Group& group = queue_[next_group_];
    const auto needed = static_cast<unsigned>(group.threads.size());
    unsigned chosen = subslices;
    for (unsigned k = 0; k < subslices && chosen == subslices; ++k) {
      const unsigned ss = (next_subslice_ + k) % subslices;
      unsigned free_slots = 0;
      for (unsigned e = 0; e < params_.eus_per_subslice; ++e) {
        free_slots += params_.core.threads - eus_[ss * params_.eus_per_subslice + e]->resident();
      }
      if (free_slots >= needed) chosen = ss;
    }
    if (chosen == subslices) return;
    Barrier& barrier = barriers_[next_group_];
    barrier.threads = needed;
    for (std::size_t t = 0; t < group.threads.size(); ++t) {
      Trace& trace = group.threads[t];
      unsigned eu = 0;
      for (unsigned k = 0; k < params_.eus_per_subslice; ++k) {  // the next EU round robin with a free slot
        const unsigned e = (next_eu_[chosen] + k) % params_.eus_per_subslice;
        eu = chosen * params_.eus_per_subslice + e;
        if (eus_[eu]->has_free_slot()) {
          next_eu_[chosen] = (e + 1) % params_.eus_per_subslice;
          break;
        }
      }
      const std::uint64_t start = std::max(at, dispatcher_free_[chosen]);
      dispatcher_free_[chosen] = start + params_.dispatch_cycles;
      EuCore& core = *eus_[eu];
      const unsigned slot = core.start(start);
      core.append(slot, std::move(trace));
      if (t < group.memory.size()) core.set_memory_log(slot, std::move(group.memory[t]));
      group_of_[eu][slot] = static_cast<unsigned>(next_group_);
      barrier.members.push_back({static_cast<unsigned>(next_group_), eu, slot});
      Trace().swap(trace);  // the core holds it now
    }
    next_subslice_ = (chosen + 1) % subslices;
    ++next_group_;
  }
}

bool EuArray::collect_arrivals(unsigned eu_index) {
  EuCore& core = *eus_[eu_index];
  bool released = false;
  for (const EuCore::Arrival& a : core.arrivals()) {
    Barrier& b = barriers_[group_of_[eu_index][a.slot]];
    ++b.arrived;
    b.last = std::max(b.last, a.at);
    if (b.arrived < b.threads) continue;
    for (const Placed& p : b.members) eus_[p.eu]->release(p.slot, b.last + params_.barrier_cycles);
    b.arrived = 0;
    b.last = 0;
    released = true;
  }
  core.arrivals().clear();
  return released;
}

bool EuArray::refill_group(unsigned eu_index, unsigned slot, const Refill& refill) {
  const unsigned index = group_of_[eu_index][slot];
  Group more;
  if (!refill(index, more)) return false;
  const std::vector<Placed>& members = barriers_[index].members;
  for (std::size_t t = 0; t < members.size(); ++t) {
    EuCore& core = *eus_[members[t].eu];
    if (t < more.threads.size() && !more.threads[t].empty()) core.append(members[t].slot, std::move(more.threads[t]));
    if (t < more.memory.size() && !more.memory[t].messages.empty()) {
      core.append_memory_log(members[t].slot, std::move(more.memory[t]));
    }
  }
  return true;
}

std::uint64_t EuArray::run() { return run(nullptr, nullptr); }

std::uint64_t EuArray::run(const std::function<bool(Group&)>& next) { return run(&next, nullptr); }

std::uint64_t EuArray::run(const std::function<bool(Group&)>& next, const Refill& refill) {
  return run(&next, &refill);
}

std::uint64_t EuArray::run(const std::function<bool(Group&)>* next, const Refill* refill) {
  // Windows in which no thread could issue although threads are resident: every one waits for a release that cannot
  // come (the functional run of a group finds such deadlocks first; this guards the loop).
  constexpr unsigned kStuckWindows = 1U << 16;
  unsigned stuck = 0;
  bool exhausted = next == nullptr;
  for (;;) {
    dispatch(now_, next, exhausted);
    bool resident = false;
    for (const auto& core : eus_) resident = resident || core->resident() > 0;
    if (!resident && next_group_ == queue_.size() && exhausted) break;
    const std::uint64_t horizon = now_ + params_.window_cycles;
    // Requests of this window start at its beginning at the earliest (a thread dispatched at now_).
    if (memory_ != nullptr) memory_->retire(now_);
    std::uint64_t before = 0, after = 0;
    for (const auto& core : eus_) before += issued(*core);
    // A barrier released late in the window may let an EU visited earlier issue within it.
    bool released = true;
    while (released) {
      released = false;
      for (unsigned e = 0; e < eus_.size(); ++e) {
        EuCore& core = *eus_[e];
        if (core.resident() == 0) continue;
        for (auto dry = core.issue(horizon); dry; dry = core.issue(horizon)) {
          if (refill == nullptr) {
            throw std::logic_error("EU array: a thread's instructions end without an end of thread (EU " +
                                   std::to_string(e) + ", slot " + std::to_string(*dry) + ")");
          }
          if (!refill_group(e, *dry, *refill)) {
            aborted_ = true;
            queue_.clear();
            barriers_.clear();
            next_group_ = 0;
            return now_;
          }
          if (core.backlog(*dry) == 0) core.hold(*dry);  // it waits for the rest of its group
        }
        if (!core.arrivals().empty() && collect_arrivals(e)) released = true;
      }
    }
    // Every thread start or end from now on is at or after the horizon.
    for (const auto& core : eus_) core->settle(horizon);
    for (const auto& core : eus_) after += issued(*core);
    stuck = after == before ? stuck + 1 : 0;
    if (stuck > kStuckWindows) throw std::logic_error("EU array: resident threads wait for barriers never released");
    now_ = horizon;
  }
  for (const auto& core : eus_) {
    core->settle();
    end_ = std::max(end_, core->last_cycle());
  }
  queue_.clear();
  barriers_.clear();
  next_group_ = 0;
  return end_;
}

}  // namespace gpuvp::gen::eu
