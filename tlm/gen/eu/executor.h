// The functional EU: executes pre-decoded Gen8/Gen9 instructions on one hardware thread's state. SystemC-free and
// untimed (the EU array's timing model drives it and charges cycles); messages (send/sends/sendc) go to a
// shared-function interface that the GPGPU pipeline implements (data port, thread spawner, gateway, ...).
//
// Semantics follow Intel's Gen ISA as Mesa's compiler (src/intel/compiler) and IGC rely on it; where a choice had to be
// made it is stated next to the code and in docs/gen-eu-isa.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tlm/gen/eu/program.h"
#include "tlm/gen/eu/thread_state.h"

namespace gpuvp::gen::eu {

// One message as the EU hands it to a shared function.
struct Message {
  std::uint32_t pc = 0;  // of the send
  std::uint8_t sfid = 0;
  std::uint32_t desc = 0;
  std::uint32_t ex_desc = 0;
  unsigned payload_reg = 0;        // src0: first payload register (mlen = desc bits 28:25)
  unsigned payload1_reg = 0;       // sends: src1, the second payload part (its length in ex_desc bits 9:6)
  bool split = false;              // sends/sendsc
  bool dst_null = false;           // the response goes nowhere (rlen should be 0)
  unsigned dst_reg = 0;            // first response register (rlen = desc bits 24:20)
  unsigned exec_size = 8;          // of the send instruction
  unsigned channel_offset = 0;     // M0/M8/M16/M24
  std::uint32_t channel_mask = 0;  // enabled channels of the instruction, bit n = its channel n
  bool eot = false;

  unsigned message_length() const { return (desc >> 25) & 0xFU; }
  unsigned response_length() const { return (desc >> 20) & 0x1FU; }
  bool header_present() const { return ((desc >> 19) & 1U) != 0; }
};

enum class MessageStatus : std::uint8_t {
  kDone,     // the response (if any) is in the thread's registers
  kSuspend,  // the thread waits (a barrier, a pending response): the executor stops after the send
  kError,    // the shared function rejects the message: the thread faults with the error
};

struct MessageResult {
  MessageStatus status = MessageStatus::kDone;
  std::string error;
};

class SharedFunctions {
 public:
  virtual ~SharedFunctions() = default;
  virtual MessageResult send(const Message& message, ThreadState& thread) = 0;
};

enum class StopReason : std::uint8_t {
  kEndOfThread,  // a send with EOT
  kSuspended,    // a shared function suspended the thread; run() again resumes after the send
  kBudget,       // the instruction budget ran out; run() again continues
  kFault,        // a modelled error: `fault` says what and where
};

struct RunResult {
  StopReason reason = StopReason::kBudget;
  std::uint64_t instructions = 0;       // executed in this call
  std::uint64_t fast_instructions = 0;  // of which by a fast form (fast_path.h)
  std::uint32_t fault_pc = 0;
  std::string fault;
};

class Executor {
 public:
  Executor(Program& program, SharedFunctions& shared) : program_(program), shared_(shared) {}

  // Executes at most `budget` instructions of `thread` from its current instruction pointer. With `trace`, appends
  // the timing of each instruction it executes (the one that stopped the run included), in order: what the timing
  // model issues.
  RunResult run(ThreadState& thread, std::uint64_t budget, std::vector<const TimingOp*>* trace = nullptr);

 private:
  Program& program_;
  SharedFunctions& shared_;
};

}  // namespace gpuvp::gen::eu
