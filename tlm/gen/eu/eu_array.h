// EuArray: the timing of a walker's thread groups on the EU array, SystemC-free. Groups come in dispatch order with
// the instructions each of their threads executed (the functional executor runs a group when it is dispatched); the
// array places each group on a subslice with room for all its threads (its barrier and shared local memory live
// there: Junkins, "The Compute Architecture of Intel Processor Graphics Gen9", 5.5.2-5.6.1), its threads on that
// subslice's EUs round robin, one launch per dispatch_cycles, and times every EU with eu::EuCore. Barriers: when every
// thread of a group has issued its barrier message, the gateway releases their waits barrier_cycles after the last
// arrival.
//
// The array advances in windows of window_cycles: every EU with resident threads issues up to the window's end in
// turn, so that cross-EU events (barrier releases, dispatch into freed slots) are seen within a window; an EU without
// threads costs nothing. docs/gen-eu-timing.md has the rules.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "tlm/gen/eu/eu_core.h"

namespace gpuvp::gen::eu {

struct EuArrayParams {
  unsigned slices = 1;
  unsigned subslices_per_slice = 3;
  unsigned eus_per_subslice = 8;
  unsigned dispatch_cycles = 2;  // between two thread launches of a subslice's dispatcher (stated: not published)
  unsigned barrier_cycles = 90;  // from the last arrival until the waits are released (Mesa's gateway figure)
  unsigned window_cycles = 64;
  EuCoreParams core;  // threads per EU, end of thread, send latency
};

class EuArray {
 public:
  explicit EuArray(const EuArrayParams& params);
  ~EuArray();

  // A thread group: for each thread, the instructions it executed in order (ending with its end-of-thread send).
  // The TimingOps must outlive the run (they live in the kernel's eu::Program).
  using Trace = std::vector<const TimingOp*>;
  struct Group {
    std::vector<Trace> threads;
    // Per thread (or none): what its sends asked of memory, timed by the memory hierarchy when one is attached.
    std::vector<MemoryLog> memory;
  };

  // Data port messages with lines complete when `memory` says (it must outlive the array's runs); without it, every
  // send takes the cores' send_latency.
  void attach_memory(MemoryHierarchy* memory);

  // Queues a group for dispatch.
  void add(Group group);
  // Times every queued group; returns the cycle the last thread ended (0 without groups). Groups queued later start
  // from that state (the array keeps its time).
  std::uint64_t run();
  // The same, pulling groups from `next` whenever the queue is empty and a subslice may have room (a walker runs each
  // group functionally as it is dispatched); `next` returns false when there are no more. now() is the dispatch time.
  std::uint64_t run(const std::function<bool(Group&)>& next);
  // The same with groups given in parts: a group's threads need not end their traces with the end of thread. When a
  // thread has issued everything it was given, `refill` is asked for more of its group (`group`: the group's index
  // in the order this run took them) and fills `more` with each thread's next instructions and memory messages
  // (none for threads without more). Returning false stops the run at once (aborted()). A thread that got nothing
  // is held (EuCore::hold) until a later refill of its group gives it more.
  using Refill = std::function<bool(std::size_t group, Group& more)>;
  std::uint64_t run(const std::function<bool(Group&)>& next, const Refill& refill);
  bool aborted() const { return aborted_; }
  // During a run, for a refill: where thread `t` of group `group` runs (its EU and slot: the hardware thread) and how
  // many of the instructions it was given it has not issued yet.
  struct Placement {
    unsigned eu;
    unsigned slot;
  };
  Placement placement(std::size_t group, std::size_t t) const {
    const Placed& p = barriers_.at(group).members.at(t);
    return {p.eu, p.slot};
  }
  std::size_t backlog(std::size_t group, std::size_t t) const {
    const Placement p = placement(group, t);
    return eus_[p.eu]->backlog(p.slot);
  }

  std::uint64_t now() const { return now_; }
  const EuCore& eu(unsigned index) const { return *eus_[index]; }
  unsigned eu_count() const { return static_cast<unsigned>(eus_.size()); }

 private:
  struct Placed {  // a resident thread: where it runs and what it still has to issue
    unsigned group;
    unsigned eu;
    unsigned slot;
  };
  struct Barrier {  // per group in flight
    unsigned threads = 0;
    unsigned arrived = 0;
    std::uint64_t last = 0;
    std::vector<Placed> members;
  };
  // Places queued groups (pulling more from `next` when it is given and the queue is empty) on subslices with room;
  // `exhausted` becomes true when `next` has no more.
  void dispatch(std::uint64_t at, const std::function<bool(Group&)>* next, bool& exhausted);
  std::uint64_t run(const std::function<bool(Group&)>* next, const Refill* refill);
  bool collect_arrivals(unsigned eu_index);  // true when a barrier was released
  bool refill_group(unsigned eu_index, unsigned slot, const Refill& refill);

  EuArrayParams params_;
  std::vector<std::unique_ptr<EuCore>> eus_;
  std::vector<std::uint64_t> dispatcher_free_;  // per subslice
  unsigned next_subslice_ = 0;
  std::vector<unsigned> next_eu_;  // per subslice: where its dispatcher places the next thread
  std::vector<Group> queue_;
  std::size_t next_group_ = 0;
  std::vector<Barrier> barriers_;  // by group index in queue_
  // Per EU and slot: the group a resident thread belongs to.
  std::vector<std::vector<unsigned>> group_of_;
  std::uint64_t now_ = 0;
  std::uint64_t end_ = 0;
  MemoryHierarchy* memory_ = nullptr;
  bool aborted_ = false;
};

}  // namespace gpuvp::gen::eu
