// A kernel as the executor runs it: instructions fetched from instruction memory and decoded once, on first use, into
// pre-decoded form (an executed instruction is never decoded again), and a cache of programs keyed by kernel address
// that the GPU invalidates where hardware requires software to (PIPE_CONTROL instruction-cache invalidate, a new
// STATE_BASE_ADDRESS), the points where a real EU's instruction cache may be stale.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tlm/gen/eu/decoder.h"
#include "tlm/gen/eu/fast_path.h"
#include "tlm/gen/eu/timing_op.h"

namespace gpuvp::gen::eu {

// Where instructions come from: the GPU's view of memory (the GTT) in the platform, a byte buffer in tests.
class InstructionMemory {
 public:
  virtual ~InstructionMemory() = default;
  // Reads `bytes` bytes at `address`; false when the range is not readable (an instruction fetch fault).
  virtual bool read(std::uint64_t address, std::uint8_t* out, std::size_t bytes) = 0;
};

// Instruction memory over a host buffer at a base address.
class BufferInstructionMemory final : public InstructionMemory {
 public:
  BufferInstructionMemory(std::uint64_t base, std::vector<std::uint8_t> bytes)
      : base_(base), bytes_(std::move(bytes)) {}
  bool read(std::uint64_t address, std::uint8_t* out, std::size_t bytes) override;

 private:
  std::uint64_t base_;
  std::vector<std::uint8_t> bytes_;
};

struct ExecInstruction {
  std::uint32_t pc = 0;      // byte offset in the kernel
  std::uint8_t length = 16;  // 16, or 8 for a compacted instruction
  DecodedInstruction inst;
  TimingOp timing;    // for the EU timing model
  FastOp fast;        // a specialised executor, when the instruction has one
  std::string error;  // a decode or fetch error: executing this instruction faults with it
  bool ok() const { return error.empty(); }
};

class Program {
 public:
  // Kernels are limited to `max_bytes` of instructions: an instruction pointer beyond faults.
  static constexpr std::uint32_t kDefaultMaxBytes = 1U << 20;

  Program(InstructionMemory& memory, std::uint64_t kernel_address, Generation gen,
          std::uint32_t max_bytes = kDefaultMaxBytes);

  // The instruction at byte offset `pc`, decoded on first use.
  const ExecInstruction& at(std::uint32_t pc) {
    const std::size_t slot = pc / 8;
    if (pc % 8 == 0 && slot < slots_.size() && slots_[slot] != nullptr) return *slots_[slot];
    return decode_at(pc);
  }

  std::uint64_t kernel_address() const { return kernel_address_; }
  // The instruction base address calla's absolute targets count from; the kernel's own address unless set.
  std::uint64_t instruction_base() const { return instruction_base_; }
  void set_instruction_base(std::uint64_t base) { instruction_base_ = base; }
  Generation generation() const { return gen_; }
  std::uint64_t decoded_instructions() const { return instructions_.size(); }

 private:
  const ExecInstruction& decode_at(std::uint32_t pc);

  InstructionMemory& memory_;
  std::uint64_t kernel_address_;
  std::uint64_t instruction_base_;
  Generation gen_;
  std::uint32_t max_bytes_;
  std::vector<const ExecInstruction*> slots_;  // by pc / 8
  std::deque<ExecInstruction> instructions_;   // stable addresses
};

// Programs by (kernel address, generation). Lookups after an invalidation decode afresh.
class DecodeCache {
 public:
  explicit DecodeCache(InstructionMemory& memory) : memory_(memory) {}
  std::shared_ptr<Program> program(std::uint64_t kernel_address, Generation gen);
  // PIPE_CONTROL with Instruction Cache Invalidate, or a new STATE_BASE_ADDRESS (instruction base).
  void invalidate();

  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }
  std::uint64_t invalidations() const { return invalidations_; }

 private:
  InstructionMemory& memory_;
  std::map<std::pair<std::uint64_t, Generation>, std::shared_ptr<Program>> programs_;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
  std::uint64_t invalidations_ = 0;
};

}  // namespace gpuvp::gen::eu
