// ThreadGroup: runs the hardware threads of one GPGPU thread group (an OpenCL work-group) to completion on the
// functional EU, and is their shared-function interface: the data port (DC0/DC1), the message gateway's barrier and
// the thread spawner's end of thread. Threads run round-robin in slices, so a barrier is reached by all of them as
// on hardware; the barrier's release increments each thread's n0.0, which its `wait n0.0` consumes (Mesa
// brw_fs_visitor.cpp emit_barrier; docs/gen-gpgpu.md). SystemC-free and untimed: the GPGPU pipe charges time for
// what it reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tlm/gen/eu/data_port.h"
#include "tlm/gen/eu/executor.h"
#include "tlm/gen/eu/program.h"
#include "tlm/gen/eu/thread_state.h"

namespace gpuvp::gen::eu {

struct ThreadGroupResult {
  bool ok = true;
  bool memory_fault = false;  // the data port's memory access faulted (the engine already reports it)
  std::string error;          // the first fault, with its thread
  std::uint64_t instructions = 0;
  std::uint64_t messages = 0;
  std::uint64_t barriers = 0;
};

class ThreadGroup final : public SharedFunctions {
 public:
  // Instructions a thread runs before the next one gets its turn.
  static constexpr std::uint64_t kSlice = 256;

  ThreadGroup(Program& program, DataPort& data_port) : executor_(program, *this), data_port_(data_port) {}

  // Runs `threads` (their payloads and control flow set) until every one has ended, a fault, or `instruction_limit`
  // instructions in total (a kernel that never ends). With `traces` (one per thread), appends the timing of each
  // thread's executed instructions there in order, for the EU array.
  ThreadGroupResult run(std::vector<ThreadState>& threads, std::uint64_t instruction_limit,
                        std::vector<std::vector<const TimingOp*>>* traces = nullptr);

  // The same in steps, for the EU array, which takes each thread's instructions as it issues them: begin() with the
  // threads (which must stay in place), then resume() until done(). Each resume runs the threads round robin until
  // they have executed `chunk` instructions each on average (threads at a barrier run when it completes), every
  // thread has ended, or a fault; it appends to `traces` as run() does, and its result counts this step's work.
  // With `allowed`, only those threads run: a step in which they cannot progress (they wait at a barrier for the
  // others) ends without error, as long as some live thread was not allowed.
  void begin(std::vector<ThreadState>& threads, std::uint64_t instruction_limit);
  ThreadGroupResult resume(std::uint64_t chunk, std::vector<std::vector<const TimingOp*>>* traces,
                           const std::vector<bool>* allowed = nullptr);
  bool done() const { return running_ == 0 || failed_; }

  MessageResult send(const Message& message, ThreadState& thread) override;

 private:
  MessageResult gateway(const Message& message, ThreadState& thread);
  std::string where(const std::vector<ThreadState>& threads) const;

  Executor executor_;
  DataPort& data_port_;
  std::vector<ThreadState>* threads_ = nullptr;
  std::uint64_t instruction_limit_ = 0;
  std::uint64_t executed_ = 0;  // instructions since begin()
  std::size_t running_ = 0;
  bool failed_ = false;
  std::vector<bool> at_barrier_;
  unsigned arrived_ = 0;
  std::uint64_t messages_ = 0;
  std::uint64_t barriers_ = 0;
};

}  // namespace gpuvp::gen::eu
