// What the code that executes a Gen engine's commands may do to that engine. The MI command handlers
// (mi_handlers.h) and the pipe units (pipe_unit.h) work only through EngineContext; the CommandStreamer implements it
// and keeps fetch, ring and batch handling, arbitration, errors and hangs. Facts: docs/gen-command-streamer.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/timing.h"
#include "tlm/gen/gtt.h"

namespace gpuvp::gen {

struct CommandInfo;

// One command as the streamer fetched it.
struct Command {
  std::uint64_t address;  // where the header was fetched
  AddressSpace space;
  std::array<std::uint32_t, 258> dw;  // the longest: MI_MATH with 256 ALU dwords
  unsigned length;                    // dwords
  const CommandInfo* info;            // its row of the command table (command_table.h)
};

// What executing a command did to the command flow.
enum class Outcome {
  kNext,     // go on with the next command
  kJumped,   // the command moved the position itself (batch start or end)
  kRetry,    // execute the command again (an unsatisfied semaphore)
  kStopped,  // the engine stopped on an error, or a reset came first
};

// A batch buffer level the engine executes: where its next command is.
struct BatchLevel {
  std::uint64_t address;
  AddressSpace space;
};

class EngineContext {
 public:
  virtual unsigned generation() const = 0;

  // Time: engine cycles on the engine's local time, the configured cost of one register access, the local time
  // and the CS timestamp (12.5 MHz on Gen8, 12 MHz on Gen9) at it.
  virtual void cycles(std::uint64_t n) = 0;
  // A long command finished a unit of its work (a walker its thread groups): progress for the hang watchdog.
  virtual void progress() = 0;
  // A long command between units of its work lets the rest of the model run once its local time has used up the
  // quantum (temporal decoupling); false when a reset came first: the command must end (kStopped).
  virtual bool pause_point() = 0;
  virtual std::uint32_t register_cycles() const = 0;
  virtual core::Picoseconds local_time() const = 0;
  virtual std::uint64_t timestamp_ticks() const = 0;

  // Memory through the engine's GTT client; false when a GTT fault or a bus error stopped the engine (page table
  // error).
  virtual bool access(std::uint64_t gva, AddressSpace space, void* data, unsigned len, bool write) = 0;
  // The same access without its time: for work whose time another model gives (the EU array times a kernel's memory
  // requests itself). The GTT still translates (its TLB is the engine's), faults stop the engine as access() does,
  // and writes are stamped in the write clock at the engine's local time.
  virtual bool access_untimed(std::uint64_t gva, AddressSpace space, void* data, unsigned len, bool write) = 0;
  // Traffic whose data an untimed access moved already (the EU array's DRAM lines: their data moved in the functional
  // run, the array timed them): at time `at` (or now, if that has passed) the bus and memory book it at the physical
  // address the GTT gives it, so that their contention, statistics and bandwidth traces count it. The GTT's statistics
  // counted the data's translation already. The engine's time does not move.
  // False when the address no longer translates (its page table changed after the data moved) or the bus answers an
  // error: nothing is booked and nothing stops; the caller counts it.
  virtual bool account_traffic(std::uint64_t gva, AddressSpace space, unsigned len, bool write,
                               core::Picoseconds at) = 0;
  // A PPGTT is bound (execlists with a context's page tables): the pipes' memory goes through it, else the GGTT.
  virtual bool ppgtt_bound() const = 0;
  // GGTT address of the engine's hardware status page (HWS_PGA).
  virtual std::uint64_t status_page() const = 0;
  virtual void invalidate_tlb() = 0;

  // Registers through the GPU's register bank, one register access each (cycles); false when the offset is not a
  // register offset (the engine stopped).
  virtual bool reg_read(std::uint32_t offset, std::uint32_t& value) = 0;
  virtual bool reg_write(std::uint32_t offset, std::uint32_t value, std::uint32_t byte_enables) = 0;
  // The engine's own registers that commands update directly.
  virtual core::Register& gpr(unsigned n) = 0;  // CS_GPR0-15, 64-bit
  virtual void set_nopid(std::uint32_t id) = 0;

  // Raises engine interrupt bits (GtInterrupts) at the engine's local time; kStopped when a reset came first.
  virtual Outcome raise_interrupt(std::uint32_t bits) = 0;

  // Stops the engine with an instruction error (EIR bit 0) at cmd (nullptr: at the current position).
  virtual Outcome fail(const Command* cmd, const std::string& what) = 0;

  // Batch buffers (GVT-g's nesting rules are the streamer's): levels entered, a start and an end.
  virtual std::size_t batch_depth() const = 0;
  virtual Outcome batch_buffer_start(const Command& cmd, std::uint64_t target, AddressSpace space,
                                     bool second_level) = 0;
  virtual Outcome batch_buffer_end() = 0;

  // Execlists: MI_ARB_ON_OFF makes every command an arbitration point.
  virtual void set_arbitration(bool enabled) = 0;

  // MI_SEMAPHORE_WAIT: when the dword the last access() read was written (core::write_clock(): a value another
  // engine wrote ahead of its quantum is not there yet at this engine's time); the wait is over (RING_CTL bit 10
  // clears), or not: the engine waits (poll interval, or in signal mode for a write) and the command runs again.
  virtual core::Picoseconds last_read_written_at() const = 0;
  virtual void end_semaphore_wait() = 0;
  virtual Outcome wait_semaphore(bool signal_mode, bool visible, core::Picoseconds written) = 0;

  // Statistics the MI handlers count.
  virtual core::Counter& user_interrupts() = 0;
  virtual core::Counter& semaphore_polls() = 0;

 protected:
  ~EngineContext() = default;
};

}  // namespace gpuvp::gen
