// CommandStreamer: one Gen engine's command streamer (RCS, BCS, VCS0, VCS1, VECS). It fetches MI commands from its
// ring buffer (and from first- and second-level batch buffers) through the GTT, executes them with timing, and
// reports through the GT interrupt registers. Facts: docs/gen-command-streamer.md, i915 gt/intel_engine_regs.h,
// gt/intel_gpu_commands.h, GVT-g gvt/cmd_parser.c (batch nesting rules).
//
// A guest can never crash or hang the simulator through it: malformed commands, illegal nesting and GTT faults stop
// the engine with its error registers set and a CS error interrupt; an engine that makes no progress for
// hang_timeout_ns is declared hung with a report; GDRST (or the full reset) brings it back.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "hw/gen/engine_regs.h"
#include "hw/gen/engines.h"
#include "tlm/core/config.h"
#include "tlm/core/initiator_port.h"
#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/timeline.h"
#include "tlm/core/timing.h"
#include "tlm/gen/context_image.h"
#include "tlm/gen/execlists.h"
#include "tlm/gen/gt_interrupts.h"
#include "tlm/gen/gtt.h"
#include "tlm/gen/mi_math.h"
#include "tlm/gen/ring_pointer.h"

namespace gpuvp::gen {

struct CommandStreamerParams {
  std::uint32_t decode_cycles = 2;           // every command
  std::uint32_t dword_cycles = 1;            // every dword after the header
  std::uint32_t register_cycles = 4;         // every register read or write a command makes
  std::uint32_t memory_cycles = 4;           // issuing a memory read or write (the bus adds its own time)
  std::uint32_t semaphore_poll_cycles = 256; // between two reads of an unsatisfied semaphore
  std::uint64_t hang_timeout_ns = 10'000'000;
  std::uint32_t hang_history = 16;           // commands kept for the hang report
  std::uint32_t context_restore_cycles = 200;  // fixed cost of loading a context, besides its register writes
  std::uint32_t context_save_cycles = 200;     // fixed cost of saving a context, besides writing its image

  void visit(core::ParamVisitor& v) {
    v.param("decode_cycles", decode_cycles, "engine cycles to decode any command", 0, 100000);
    v.param("dword_cycles", dword_cycles, "engine cycles per command dword after the header", 0, 100000);
    v.param("register_cycles", register_cycles, "engine cycles per register access of a command", 0, 100000);
    v.param("memory_cycles", memory_cycles, "engine cycles to issue a memory access (plus bus time)", 0, 100000);
    v.param("semaphore_poll_cycles", semaphore_poll_cycles, "engine cycles between semaphore polls", 1, 10000000);
    v.param("hang_timeout_ns", hang_timeout_ns, "simulated time without progress before an engine is hung",
            1000, 1'000'000'000'000ULL);
    v.param("hang_history", hang_history, "commands listed in a hang report", 1, 1024);
    v.param("context_restore_cycles", context_restore_cycles,
            "execlists: engine cycles to load a context, plus its register writes and image read", 0, 10000000);
    v.param("context_save_cycles", context_save_cycles,
            "execlists: engine cycles to save a context, plus its register reads and image write", 0, 10000000);
  }
};

// What an engine needs from the GPU around it.
struct EngineServices {
  core::RegisterBank& bar;
  core::InitiatorPort& memory;
  GtInterrupts& interrupts;
  GttClient& gtt;
  const core::ClockDomain& clock;
  std::uint32_t generation;
  sc_core::sc_event& memory_written;  // any engine wrote memory (semaphores in signal mode wake on it)
  // Engines waiting on memory_written: a write notifies only when there is one (a notification per write costs a
  // tenth of a memory-writing command's host time).
  unsigned& memory_waiters;
};

class CommandStreamer : public sc_core::sc_module {
 public:
  enum class State : std::uint8_t { kIdle, kRunning, kStopped, kError, kHung };

  CommandStreamer(sc_core::sc_module_name name, const EngineInfo& info, const CommandStreamerParams& params,
                  const EngineServices& services);

  const EngineInfo& info() const { return info_; }
  State state() const { return state_; }
  const EngineRingPointer& ring() const { return ring_; }
  // Replaces the built-in ring pointer logic with another implementation (the RTL block); before the first access.
  void attach_ring_model(std::unique_ptr<RingPointerModel> model);
  // Engine reset (GDRST domain or full reset): registers to reset values, pending work dropped.
  void reset();
  // Text reports of hangs and errors so far (for the run summary).
  const std::vector<std::string>& incidents() const { return incidents_; }
  std::uint64_t commands_executed() const { return commands_.value; }
  Execlists& execlists() { return execlists_; }
  // Execlists mode: GFX_MODE.RUN_LIST_ENABLE set; work comes from contexts submitted through ELSP.
  bool execlist_mode() const;
  // RING_MODE_GEN7 GFX_INTERRUPT_STEERING: interrupts offered to the GuC first.
  bool interrupts_steered_to_guc() const;
  // Context ID of the running context, if any.
  std::optional<std::uint32_t> running_context() const;

 private:
  struct BatchLevel {
    std::uint64_t address;
    AddressSpace space;
  };
  struct Command {
    std::uint64_t address;  // where the header was fetched
    AddressSpace space;
    std::array<std::uint32_t, 258> dw;  // the longest: MI_MATH with 256 ALU dwords
    unsigned length;  // dwords
  };
  enum class Outcome { kNext, kJumped, kRetry, kStopped };

  void run();
  bool has_work() const;
  // Execlists: acts on submissions, completions and preemption at arbitration points.
  void schedule();
  void start_pending();
  bool restore_context(const ContextDescriptor& desc);
  void save_context();
  // The timeline span "batch <address>" of batch level `level` (0 first, 1 second), from its MI_BATCH_BUFFER_START
  // (or the context restore resuming it at address) to its MI_BATCH_BUFFER_END (or the switch that saves it), at the
  // engine's local time.
  void begin_batch_span(std::size_t level, std::uint64_t address);
  void end_batch_spans(std::size_t from_level = 0);
  void apply_context_ppgtt(const ContextDescriptor& desc);
  // Batch levels <-> the BB/SBB head and state registers, around a context save and restore.
  void batches_to_registers();
  void batches_from_registers();
  void complete_context();
  void preempt_at_arbitration_point();
  void update_execlist_status();
  std::uint64_t context_timestamp() const;
  // Leaves the running state and catches up with the local time; true if a kick arrived meanwhile (do not wait).
  bool go_idle();
  void step();
  // Fetches command dwords at the current position; false if the engine stopped (fault) or must wait for TAIL.
  bool fetch_command(Command& cmd);
  bool fetch_dword(std::uint64_t address, AddressSpace space, std::uint32_t& out) {
    // Hit in the line buffer: no translation, bus access or time conversion (the common case, inline).
    if ((address & ~std::uint64_t{63}) == line_gva_ && space == line_space_) {
      out = line_[(address & 63) / 4];
      return true;
    }
    return fetch_dword_miss(address, space, out);
  }
  bool fetch_dword_miss(std::uint64_t address, AddressSpace space, std::uint32_t& out);
  // Returns the command's length in dwords from its header, or 0 when it is malformed/unknown, with *reason set if
  // reason is given (the text is built only then: this runs for every command).
  unsigned command_length(std::uint32_t dw0, std::string* reason) const;
  Outcome execute(Command& cmd);
  Outcome batch_buffer_start(const Command& cmd);
  Outcome batch_buffer_end();
  Outcome store_data_imm(const Command& cmd);
  Outcome store_data_index(const Command& cmd);
  Outcome load_register_imm(const Command& cmd);
  Outcome store_register_mem(const Command& cmd);
  Outcome load_register_mem(const Command& cmd);
  Outcome semaphore_wait(const Command& cmd);
  Outcome flush_dw(const Command& cmd);
  Outcome pipe_control(const Command& cmd);
  Outcome math(const Command& cmd);
  Outcome atomic(const Command& cmd);
  Outcome conditional_batch_buffer_end(const Command& cmd);

  // Memory through the GTT; a fault stops the engine (page table error) and returns false.
  bool access(std::uint64_t gva, AddressSpace space, void* data, unsigned len, bool write);
  // Register access for LRI/SRM/LRM; false (and engine error) if the offset is not a register offset.
  bool reg_read(std::uint32_t offset, std::uint32_t& value);
  bool reg_write(std::uint32_t offset, std::uint32_t value, std::uint32_t byte_enables = 0xF);
  std::uint64_t address_of(std::uint32_t low, std::uint32_t high) const;
  AddressSpace space_of(std::uint32_t dw0) const;
  std::uint64_t timestamp_ticks() const;
  void post_sync_write(std::uint64_t address, AddressSpace space, const void* data, unsigned len);
  // Visible effects (interrupts, CSB entries, error registers) take effect at the engine's local time, not at the
  // start of its quantum: the engine waits out its offset first. False if the engine was reset meanwhile (the reset
  // came first; the effect is dropped).
  bool sync_for_effect();
  Outcome raise_interrupt(std::uint32_t bits);
  void write_csb(std::uint32_t status, std::uint32_t context_id);

  // Stops the engine at the current command with its error registers set, a CS error interrupt and an SC error.
  Outcome fail(const Command* cmd, const std::string& what, std::uint32_t error_bit);
  void declare_hang(const std::string& why);
  void record_history(const Command& cmd);
  std::string describe_registers() const;
  void set_state(State s);
  void update_ppgtt_root();
  void cycles(std::uint64_t n) { time_.advance(services_.clock.cycles(n)); }

  EngineInfo info_;
  CommandStreamerParams params_;
  EngineServices services_;
  EngineRingPointer ring_;
  MiMathAlu alu_;
  core::LocalTime time_;
  State state_ = State::kIdle;
  std::uint64_t first_pa_ = 0;  // physical address of the last access()'s first byte
  std::uint64_t resets_ = 0;  // engine resets so far (a wait for the local time checks that none came meanwhile)
  std::vector<BatchLevel> batches_;  // 0, 1 or 2 levels
  sc_core::sc_event kick_;
  core::Picoseconds last_progress_ps_ = 0;
  std::uint64_t batch_high_water_ = 0;  // furthest batch address executed since the ring started the batch
  core::Picoseconds busy_since_ps_ = 0;
  bool waiting_semaphore_ = false;
  std::uint32_t current_header_ = 0;
  // fetch_command(): the last header command_length() accepted and its length; starts as header 0 (MI_NOOP, 1 dword).
  std::uint32_t length_memo_header_ = 0;
  unsigned length_memo_ = 1;

  // Command fetch line buffer (64 bytes), dropped on TAIL writes, jumps and writes to it.
  std::uint64_t line_gva_ = ~0ULL;
  AddressSpace line_space_ = AddressSpace::kGgtt;
  std::uint64_t line_pa_ = ~0ULL;
  std::array<std::uint32_t, 32> line_{};  // the line is dwords 0-15; 16-31 pad fetch_command()'s fixed-size copy

  // Execlists state.
  Execlists execlists_;
  std::array<ContextDescriptor, 2> elements_{};
  unsigned current_element_ = 0;
  bool context_running_ = false;
  std::optional<std::array<ContextDescriptor, 2>> pending_;
  std::vector<std::uint32_t> image_;  // register-state page of the running context
  ContextImage image_layout_;
  core::Picoseconds context_started_ps_ = 0;
  bool arbitration_enabled_ = false;
  core::Register* ctx_timestamp_ = nullptr;

  // Hang-report history: a ring of raw records (the command's address, length and first dwords), formatted only
  // when a report is written, so that the hot path builds no strings.
  struct HistoryEntry {
    std::uint64_t address;
    unsigned length;
    std::array<std::uint32_t, 8> dw;
  };
  std::vector<HistoryEntry> history_;  // capacity hang_history, filled round-robin
  std::size_t history_next_ = 0;       // slot of the next record
  std::size_t history_count_ = 0;      // records held (<= hang_history)
  std::vector<std::string> incidents_;

  core::Register* tail_;
  core::Register* head_;
  core::Register* start_;
  core::Register* ctl_;
  core::Register* acthd_;
  core::Register* acthd_udw_;
  core::Register* ipeir_;
  core::Register* ipehr_;
  core::Register* hws_pga_;
  core::Register* nopid_;
  core::Register* mi_mode_;
  core::Register* eir_;
  core::Register* emr_;
  core::Register* esr_;
  core::Register* reset_ctl_;
  core::Register* bb_state_;
  core::Register* bb_addr_;
  core::Register* bb_addr_udw_;
  core::Register* sbb_state_;
  core::Register* sbb_addr_;
  core::Register* sbb_addr_udw_;
  core::Register* gfx_mode_;
  std::array<core::Register*, 8> pdp_{};  // LDW0, UDW0, LDW1, ...
  std::array<core::Register*, 16> gpr_{};

  int track_;
  std::array<core::OpenSpan, 2> batch_spans_;  // per batch level
  core::Counter& commands_;
  core::Counter& batches_started_;
  core::Counter& user_interrupts_;
  core::Counter& semaphore_polls_;
  core::Counter& errors_;
  core::Counter& hangs_;
  core::Counter& context_switches_;
  core::Counter& forced_restores_;
  core::Counter& forced_pd_restores_;
  core::Histogram& submit_to_start_ps_;  // ELSP submission to the context running
  core::Picoseconds submitted_ps_ = 0;
  core::BusyTime& busy_;
};

}  // namespace gpuvp::gen
