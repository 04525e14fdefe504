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
  // instructions in total (a kernel that never ends). With `traces` (one per thread), appends each thread's executed
  // instructions there in order, for the EU array's timing.
  ThreadGroupResult run(std::vector<ThreadState>& threads, std::uint64_t instruction_limit,
                        std::vector<std::vector<const ExecInstruction*>>* traces = nullptr);

  MessageResult send(const Message& message, ThreadState& thread) override;

 private:
  MessageResult gateway(const Message& message, ThreadState& thread);
  std::string where(const std::vector<ThreadState>& threads) const;

  Executor executor_;
  DataPort& data_port_;
  std::vector<ThreadState>* threads_ = nullptr;
  std::vector<bool> at_barrier_;
  unsigned arrived_ = 0;
  std::uint64_t messages_ = 0;
  std::uint64_t barriers_ = 0;
};

}  // namespace gpuvp::gen::eu
