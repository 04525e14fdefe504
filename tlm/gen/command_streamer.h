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
#include <systemc>
#include <vector>

#include "hw/gen/engine_regs.h"
#include "hw/gen/engines.h"
#include "tlm/core/config.h"
#include "tlm/core/engine_kit.h"
#include "tlm/core/initiator.h"
#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/timeline.h"
#include "tlm/core/timing.h"
#include "tlm/gen/command_table.h"
#include "tlm/gen/context_switch.h"
#include "tlm/gen/engine_context.h"
#include "tlm/gen/execlists.h"
#include "tlm/gen/gpgpu_pipe.h"
#include "tlm/gen/gt_interrupts.h"
#include "tlm/gen/gtt.h"
#include "tlm/gen/pipe_unit.h"
#include "tlm/gen/ring_pointer.h"

namespace gpuvp::gen {

struct CommandStreamerParams {
  std::uint32_t decode_cycles = 2;            // every command
  std::uint32_t dword_cycles = 1;             // every dword after the header
  std::uint32_t register_cycles = 4;          // every register read or write a command makes
  std::uint32_t memory_cycles = 4;            // issuing a memory read or write (the bus adds its own time)
  std::uint32_t semaphore_poll_cycles = 256;  // between two reads of an unsatisfied semaphore
  std::uint64_t hang_timeout_ns = 10'000'000;
  std::uint32_t hang_history = 16;             // commands kept for the hang report
  std::uint32_t context_restore_cycles = 200;  // fixed cost of loading a context, besides its register writes
  std::uint32_t context_save_cycles = 200;     // fixed cost of saving a context, besides writing its image

  GpgpuParams gpgpu;  // visited by GenGpuParams as "gpgpu"

  void visit(core::ParamVisitor& v) {
    v.param("decode_cycles", decode_cycles, "engine cycles to decode any command", 0, 100000);
    v.param("dword_cycles", dword_cycles, "engine cycles per command dword after the header", 0, 100000);
    v.param("register_cycles", register_cycles, "engine cycles per register access of a command", 0, 100000);
    v.param("memory_cycles", memory_cycles, "engine cycles to issue a memory access (plus bus time)", 0, 100000);
    v.param("semaphore_poll_cycles", semaphore_poll_cycles, "engine cycles between semaphore polls", 1, 10000000);
    v.param("hang_timeout_ns", hang_timeout_ns, "simulated time without progress before an engine is hung", 1000,
            1'000'000'000'000ULL);
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
  core::Initiator& memory;
  GtInterrupts& interrupts;
  GttClient& gtt;
  const core::ClockDomain& clock;
  std::uint32_t generation;
  sc_core::sc_event& memory_written;  // any engine wrote memory (semaphores in signal mode wake on it)
  // Engines waiting on memory_written: a write notifies only when there is one (a notification per write costs a
  // tenth of a memory-writing command's host time).
  unsigned& memory_waiters;
};

// The engine: fetch from the ring and batch buffers, batch nesting, arbitration, errors and hangs. Commands execute
// through the command table (command_table.h): MI handlers (mi_handlers.h) and pipe units (pipe_unit.h) reach the
// engine through EngineContext; execlist context switching (context_switch.h) through ContextSwitchEngine.
class CommandStreamer final : private ContextSwitchEngine, public sc_core::sc_module {
 public:
  // kIdle: enabled, no work; kStopped: MI_MODE STOP_RING or a reset request holds it.
  using State = core::EngineState;

  CommandStreamer(sc_core::sc_module_name name, const EngineInfo& info, const CommandStreamerParams& params,
                  const EngineServices& services);

  const EngineInfo& info() const { return info_; }
  State state() const { return engine_.state(); }
  const EngineRingPointer& ring() const { return ring_; }
  // Replaces the built-in ring pointer logic with another implementation (the RTL block); before the first access.
  void attach_ring_model(std::unique_ptr<RingPointerModel> model);
  // Engine reset (GDRST domain or full reset): registers to reset values, pending work dropped.
  void reset();
  // Text reports of hangs and errors so far (for the run summary).
  const std::vector<std::string>& incidents() const { return engine_.incidents(); }
  // Errors and hangs so far: the count incidents() stops listing at its limit.
  std::uint64_t incident_count() const { return engine_.errors() + engine_.hangs(); }
  std::uint64_t commands_executed() const { return commands_.value; }
  Execlists& execlists() { return contexts_.execlists(); }
  // Execlists mode: GFX_MODE.RUN_LIST_ENABLE set; work comes from contexts submitted through ELSP.
  bool execlist_mode() const;
  // RING_MODE_GEN7 GFX_INTERRUPT_STEERING: interrupts offered to the GuC first.
  bool interrupts_steered_to_guc() const;
  // Context ID of the running context, if any.
  std::optional<std::uint32_t> running_context() const { return contexts_.running_context(); }
  // Executing, or work is waiting that it will start without help (ring or batch commands, an execlist submission):
  // what a host waiting for the GPU to go idle looks at. Not busy when stopped, in error or hung.
  bool busy() const { return state() == State::kRunning || has_work() || (!engine_.halted() && contexts_.pending()); }

 private:
  void run();
  bool has_work() const;
  // The timeline span "batch <address>" of batch level `level` (0 first, 1 second), from its MI_BATCH_BUFFER_START
  // (or the context restore resuming it at address) to its MI_BATCH_BUFFER_END (or the switch that saves it), at the
  // engine's local time.
  void begin_batch_span(std::size_t level, std::uint64_t address);
  // Leaves the running state and catches up with the local time; true if a kick arrived meanwhile (do not wait).
  bool go_idle();
  void step();

  // ---- fetch ----
  // Fetches command dwords at the current position; false if the engine stopped (fault) or must wait for TAIL.
  bool fetch_command(Command& cmd);
  bool fetch_dword(std::uint64_t address, AddressSpace space, std::uint32_t& out) {
    // Hit in the line buffer: no translation and no bus access (the common case, inline).
    if (fetch_line_.holds(address, static_cast<unsigned>(space))) {
      out = fetch_line_.dword(address);
      return true;
    }
    return fetch_dword_miss(address, space, out);
  }
  bool fetch_dword_miss(std::uint64_t address, AddressSpace space, std::uint32_t& out);
  Outcome execute(const Command& cmd);
  void set_batch_registers(std::size_t level, std::uint64_t address, AddressSpace space);

  // ---- EngineContext (commands) ----
  unsigned generation() const override { return services_.generation; }
  void cycles(std::uint64_t n) override { engine_.cycles(n); }
  void progress() override { engine_.progress(); }
  bool pause_point() override;
  std::uint32_t register_cycles() const override { return params_.register_cycles; }
  core::Picoseconds local_time() const override { return engine_.now(); }
  std::uint64_t timestamp_ticks() const override;
  // Memory through the GTT; a fault stops the engine (page table error) and returns false.
  bool access(std::uint64_t gva, AddressSpace space, void* data, unsigned len, bool write) override;
  bool access_untimed(std::uint64_t gva, AddressSpace space, void* data, unsigned len, bool write) override;
  bool account_traffic(std::uint64_t gva, AddressSpace space, unsigned len, bool write, core::Picoseconds at) override;
  bool gtt_fault(std::uint64_t gva, AddressSpace space, bool write, const Translation& t);
  bool ppgtt_bound() const override { return services_.gtt.ppgtt_root().mode != PpgttMode::kNone; }
  std::uint64_t status_page() const override { return hws_pga_->value() & ~0xFFFULL; }
  void invalidate_tlb() override { services_.gtt.invalidate_tlb(); }
  // Register access for LRI/SRM/LRM; false (and engine error) if the offset is not a register offset.
  bool reg_read(std::uint32_t offset, std::uint32_t& value) override;
  bool reg_write(std::uint32_t offset, std::uint32_t value, std::uint32_t byte_enables) override;
  core::Register& gpr(unsigned n) override { return *gpr_[n]; }
  void set_nopid(std::uint32_t id) override { nopid_->set(id); }
  Outcome raise_interrupt(std::uint32_t bits) override;
  Outcome fail(const Command* cmd, const std::string& what) override;
  std::size_t batch_depth() const override { return batches_.size(); }
  Outcome batch_buffer_start(const Command& cmd, std::uint64_t target, AddressSpace space, bool second_level) override;
  Outcome batch_buffer_end() override;
  void set_arbitration(bool enabled) override { contexts_.set_arbitration(enabled); }
  core::Picoseconds last_read_written_at() const override;
  void end_semaphore_wait() override { waiting_semaphore_ = false; }
  Outcome wait_semaphore(bool signal_mode, bool visible, core::Picoseconds written) override;
  core::Counter& user_interrupts() override { return user_interrupts_; }
  core::Counter& semaphore_polls() override { return semaphore_polls_; }

  // ---- ContextSwitchEngine (execlists) ----
  // Visible effects (interrupts, CSB entries, error registers) take effect at the engine's local time, not at the
  // start of its quantum: the engine waits out its offset first. False if the engine was reset meanwhile (the reset
  // came first; the effect is dropped).
  bool sync_for_effect() override;
  void kick() override { kick_.notify(sc_core::SC_ZERO_TIME); }
  bool halted() const override { return engine_.halted(); }
  bool out_of_work() const override { return batches_.empty() && ring_.empty(); }
  int track() const override { return engine_.track(); }
  const std::vector<BatchLevel>& batches() const override { return batches_; }
  BatchRegisters batch_registers(std::size_t level) override { return batch_regs_[level]; }
  void end_batch_spans() override { end_batch_spans_from(0); }
  void end_batch_spans_from(std::size_t level);
  void drop_batches() override;
  void resume_batch(std::uint64_t address, AddressSpace space) override;
  void load_ppgtt(PpgttMode mode) override;
  bool save_pipe_state(std::uint64_t lrca) override;
  bool restore_pipe_state(std::uint64_t lrca) override;

  // ---- errors and hangs ----
  // Stops the engine at the current command with its error registers set, a CS error interrupt and an SC error.
  Outcome fail(const Command* cmd, const std::string& what, std::uint32_t error_bit);
  void declare_hang(const std::string& why);
  void record_history(const Command& cmd);
  std::string describe_registers() const;

  void set_state(State s);
  void update_ppgtt_root();

  EngineInfo info_;
  CommandStreamerParams params_;
  EngineServices services_;
  const CommandTable& table_;
  EngineRingPointer ring_;
  // Local time, state and busy time, watchdog, errors/hangs statistics and incidents.
  core::EngineKit engine_;
  std::uint64_t first_pa_ = 0;       // physical address of the last access()'s first byte
  std::uint64_t resets_ = 0;         // engine resets so far (a wait for the local time checks that none came meanwhile)
  std::vector<BatchLevel> batches_;  // 0, 1 or 2 levels
  sc_core::sc_event kick_;
  std::uint64_t batch_high_water_ = 0;  // furthest batch address executed since the ring started the batch
  bool waiting_semaphore_ = false;
  std::uint32_t current_header_ = 0;
  // fetch_command(): the last header the table accepted, its length and row; starts as header 0 (MI_NOOP, 1 dword).
  std::uint32_t length_memo_header_ = 0;
  unsigned length_memo_ = 1;
  const CommandInfo* length_memo_info_;
  PipeUnits pipes_;

  // Command fetch line buffer (64 bytes, tagged with the address space), dropped on TAIL writes, jumps and writes to
  // it.
  core::FetchLine fetch_line_{64};

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
  std::array<BatchRegisters, 2> batch_regs_{};  // BBADDR/BBADDR_UDW/BBSTATE, SBBADDR/SBBADDR_UDW/SBBSTATE
  core::Register* gfx_mode_;
  std::array<core::Register*, 8> pdp_{};  // LDW0, UDW0, LDW1, ...
  std::array<core::Register*, 16> gpr_{};

  std::array<core::OpenSpan, 2> batch_spans_;  // per batch level
  core::StatsGroup stats_;
  core::Counter& commands_;
  core::Counter& batches_started_;
  core::Counter& user_interrupts_;
  core::Counter& semaphore_polls_;
  // Execlists state and the context switches (after the registers and statistics it shares).
  ContextSwitch contexts_;
};

}  // namespace gpuvp::gen
