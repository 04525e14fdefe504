// EuCore: the issue timing of one EU's hardware threads (fine-grained multithreading), SystemC-free. It consumes, per
// thread, the instructions the functional executor ran (their TimingOps, in order) and decides when each issues:
//   - a thread issues in order; an instruction waits for the thread's front end and for every register it reads or
//     writes that an earlier instruction of the thread has not produced yet (a per-thread scoreboard: a thread waits
//     only for the registers it needs);
//   - it then waits for its unit: two FPUs (an FPU-any instruction takes the one free first, FPU1 on a tie, keeping
//     FPU0 for the 64-bit and extended math work only it does), the send unit, the branch unit;
//   - among the threads, the EU issues the instruction that can start first; ties go round robin from the thread that
//     issued last (NEO programs round-robin thread arbitration, DebugControlReg2 0xE404 = 0x100).
// Up to four instructions from different threads may issue in one cycle, to different units (Junkins, "The Compute
// Architecture of Intel Processor Graphics Gen9", 5.3.1). Times are EU cycles. docs/gen-eu-timing.md has the rules.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tlm/gen/eu/memory_hierarchy.h"
#include "tlm/gen/eu/memory_log.h"
#include "tlm/gen/eu/timing_op.h"

namespace gpuvp::gen::eu {

struct EuCoreParams {
  unsigned threads = 7;     // hardware threads (slots)
  unsigned eot_cycles = 2;  // from an end-of-thread send until the slot is free (Mesa: the spawner's 2)
  // A send's response when no memory hierarchy times it (the gateway, fences, the end of thread; every message
  // without a MemoryHierarchy): Mesa's fitted data cache latency.
  unsigned send_latency = 100;
};

// Why a thread's instruction issued later than the thread's front end allowed: it waited for a register (or flag,
// accumulator, address register) an ALU instruction had not written yet (dependency), for a send's response or, at
// its end of thread, for its writes to complete (memory), for its barrier's release (barrier), or for its unit (an
// FPU, the send or the branch unit) taken by another instruction, of its own or another thread (unit). When several
// constraints end together the first of barrier, memory, dependency is blamed.
enum class StallReason : unsigned { kDependency, kMemory, kBarrier, kUnit };
constexpr unsigned kStallReasons = 4;

struct EuCoreStats {
  std::array<std::uint64_t, 6> instructions{};  // by TimingClass
  std::array<std::uint64_t, 6> by_width{};      // by execution size: SIMD1, 2, 4, 8, 16, 32
  std::array<std::uint64_t, 2> fpu_busy{};      // cycles FPU0 and FPU1 were occupied
  std::uint64_t flops32 = 0;
  std::uint64_t flops64 = 0;
  std::uint64_t flops16 = 0;
  std::uint64_t threads = 0;        // threads that ended
  std::uint64_t issue_cycles = 0;   // cycles in which the EU issued at least one instruction
  std::uint64_t busy_cycles = 0;    // cycles in which a unit of the EU executed an instruction (Intel's EU active)
  std::uint64_t thread_cycles = 0;  // cycles threads were resident, summed over the threads that ended
  // Cycles with at least one resident thread, counted once the core is settled past them (settle()): the EU is
  // active in busy_cycles of them and stalled in the rest, and idle outside them (Intel's EU active / stall / idle).
  std::uint64_t occupied_cycles = 0;
  std::array<std::uint64_t, kStallReasons> thread_stalls{};  // thread-cycles waiting, by StallReason
};

class EuCore {
 public:
  explicit EuCore(const EuCoreParams& params);

  // Places a thread in a free slot; its first instruction may issue at cycle `at`. Returns the slot.
  unsigned start(std::uint64_t at);
  bool has_free_slot() const;
  unsigned resident() const { return resident_; }

  // The slot's thread executed `op` next (the functional executor's order).
  void append(unsigned slot, const TimingOp& op) {
    slots_[slot].trace.push_back(&op);
    slots_[slot].held = false;
    mark_stale(slot);
  }
  // The same for a whole run of instructions; a slot with nothing pending takes the vector over without a copy, and
  // the instructions already issued are dropped.
  void append(unsigned slot, std::vector<const TimingOp*>&& ops);
  // Instructions given to the slot's thread and not issued yet.
  std::size_t backlog(unsigned slot) const { return slots_[slot].trace.size() - slots_[slot].next; }
  // The slot's thread has issued all it was given and cannot be given more yet (it waits at a barrier the other
  // threads of its group have not reached): issue() passes it by instead of returning it, until more is appended.
  // Its next instruction is the barrier's wait, which cannot issue before the others' arrivals anyway.
  void hold(unsigned slot) {
    slots_[slot].held = true;
    mark_stale(slot);
  }
  // What the slot's thread's sends asked of memory, one message per send in order (MemoryLog): with a memory
  // hierarchy attached, each send with lines completes when the hierarchy says, and the thread's end waits for them.
  void set_memory_log(unsigned slot, MemoryLog log) { slots_[slot].log = std::move(log); }
  // More of the slot's messages, for the sends appended after those already given; the messages already timed are
  // dropped.
  void append_memory_log(unsigned slot, MemoryLog&& more);
  void attach_memory(MemoryHierarchy* memory, unsigned subslice) {
    memory_ = memory;
    subslice_ = subslice;
  }

  // Issues instructions in time order while every resident thread has its next instruction, and only those that start
  // before `horizon`. Returns the slot whose next instruction is not known yet (append more, or the thread has not
  // run further), or nothing when every resident thread has ended, waits for a barrier's release or past the
  // horizon. Without a horizon it also settles the occupancy statistics.
  std::optional<unsigned> issue(std::uint64_t horizon = ~0ULL);
  // Counts occupied cycles up to `upto`: the caller promises that no thread starts or ends before it any more
  // (threads start and end out of time order across issue() calls; an event older than one counted counts from it).
  void settle(std::uint64_t upto = ~0ULL);

  // Barriers: each barrier message a thread issues is recorded (slot, cycle) for the caller, who releases the waits
  // of the group's threads once all have arrived; a thread's wait does not issue before its release.
  struct Arrival {
    unsigned slot;
    std::uint64_t at;
  };
  std::vector<Arrival>& arrivals() { return arrivals_; }
  void release(unsigned slot, std::uint64_t at) {
    slots_[slot].released_at = at;
    mark_stale(slot);
  }

  // When the slot's thread ended (its end-of-thread send plus eot_cycles); valid once it has ended.
  std::uint64_t ended_at(unsigned slot) const { return slots_[slot].ended_at; }
  bool ended(unsigned slot) const { return slots_[slot].ended; }
  // The last cycle anything finished: the latest thread end or unit occupancy.
  std::uint64_t last_cycle() const { return last_cycle_; }
  const EuCoreStats& stats() const { return stats_; }

 private:
  static constexpr unsigned kGrfs = 128;
  struct Slot {
    bool resident = false;
    bool held = false;  // hold(): nothing to issue until more is appended
    bool ended = false;
    std::uint64_t started_at = 0;
    std::uint64_t ended_at = 0;
    std::uint64_t front_end = 0;             // the thread may issue from this cycle
    std::uint64_t latest_write = 0;          // the latest result in flight (indirect operands wait for it)
    std::array<std::uint64_t, kGrfs> grf{};  // when each register's pending write lands
    std::array<std::uint64_t, 4> arf{};      // f0, f1, acc, a0
    // Which pending writes come from a send (a stall on them is a memory stall).
    std::bitset<kGrfs> grf_from_send;
    std::uint8_t arf_from_send = 0;
    bool latest_write_from_send = false;
    std::vector<const TimingOp*> trace;
    std::size_t next = 0;
    std::uint64_t released_at = kNotReleased;  // the gateway's release of the barrier the thread waits for
    MemoryLog log;
    std::size_t next_message = 0;
    std::uint64_t memory_done = 0;  // the thread's last memory access completes
  };
  static constexpr std::uint64_t kNotReleased = ~0ULL;
  // What issue() needs of a slot, kept apart from the slots (each holds its 128-register scoreboard) so that choosing
  // the next issue reads a few bytes per thread: the ready cycle of the slot's next instruction and its pipe. ready()
  // depends on the slot's own state only, so the candidate stays valid until the slot issues, starts, is given more,
  // held or released (each marks it stale).
  enum class Candidacy : std::uint8_t {
    kStale,       // to be worked out again from the slot
    kIssuable,    // its next instruction is known and can start at `ready` (or once its pipe is free)
    kNeedsInput,  // resident, given nothing more and not held: issue() returns it
    kIdle,        // not resident, held, or waiting for its barrier's release
  };
  struct Candidate {
    std::uint64_t ready = 0;
    TimingPipe pipe = TimingPipe::kNone;
    Candidacy state = Candidacy::kStale;
  };
  void refresh(unsigned slot);
  void mark_stale(unsigned slot) {
    candidates_[slot].state = Candidacy::kStale;
    stale_ |= 1U << slot;
  }
  // The earliest cycle the slot's next instruction could start, and the unit it would take.
  std::uint64_t ready(const Slot& s, const TimingOp& op) const;
  unsigned unit_of(const TimingOp& op, std::uint64_t ready_at) const;
  // The constraint that held the slot's next instruction until `ready_at` (> its front end).
  StallReason blame(const Slot& s, const TimingOp& op, std::uint64_t ready_at) const;
  void issue_one(unsigned slot, std::uint64_t start, unsigned unit);

  EuCoreParams params_;
  std::vector<Slot> slots_;
  std::vector<Candidate> candidates_;
  std::uint32_t stale_ = 0;        // slots whose candidate is stale, as bits
  std::uint32_t needs_input_ = 0;  // slots in Candidacy::kNeedsInput, as bits
  unsigned resident_ = 0;
  unsigned last_issued_ = 0;
  // Cycle each unit is free from: FPU0, FPU1, send, branch.
  std::array<std::uint64_t, 4> unit_free_{};
  std::uint64_t last_cycle_ = 0;
  std::uint64_t last_issue_ = ~0ULL;  // the cycle of the last issue (issues come in time order)
  std::uint64_t busy_until_ = 0;      // the end of the latest unit occupancy so far
  EuCoreStats stats_;
  std::vector<Arrival> arrivals_;
  MemoryHierarchy* memory_ = nullptr;
  unsigned subslice_ = 0;
  // Threads' starts (+1) and ends (-1) not counted into occupied_cycles yet.
  std::vector<std::pair<std::uint64_t, int>> residency_events_;
  unsigned settled_resident_ = 0;
  std::uint64_t busy_since_ = 0;
  std::uint64_t settled_to_ = 0;
};

}  // namespace gpuvp::gen::eu
