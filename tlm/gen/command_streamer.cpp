#include "tlm/gen/command_streamer.h"

#include <cstdio>
#include <cstring>

#include "hw/gen/gtt_regs.h"
#include "hw/gen/mi_commands.h"
#include "tlm/core/report.h"
#include "tlm/core/timeline.h"
#include "tlm/core/write_clock.h"
#include "tlm/gen/render_pipe.h"

namespace gpuvp::gen {

namespace er = engine_reg;
using core::Access;

CommandStreamer::CommandStreamer(sc_core::sc_module_name name, const EngineInfo& info,
                                 const CommandStreamerParams& params, const EngineServices& services)
    : sc_module(name),
      info_(info),
      params_(params),
      services_(services),
      table_(CommandTable::for_generation(services.generation)),
      engine_(this->name(), services.clock, params.hang_timeout_ns * core::kPsPerNs, State::kIdle),
      length_memo_info_(table_.find(0)),
      stats_(this->name()),
      commands_(stats_.counter("commands", "events", "commands executed to completion (ring and batches)")),
      batches_started_(
          stats_.counter("batches", "events", "batch buffers started (first level, second level, chained)")),
      user_interrupts_(stats_.counter("user_interrupts", "events", "MI_USER_INTERRUPT commands executed")),
      semaphore_polls_(stats_.counter("semaphore_polls", "events", "reads of a semaphore by MI_SEMAPHORE_WAIT")),
      contexts_(*this, info_, services.bar, services.interrupts, params.context_restore_cycles,
                params.context_save_cycles, std::string(info.name) + ".", stats_) {
  const std::uint32_t base = info_.mmio_base;
  const std::string prefix = std::string(info_.name) + ".";
  auto add = [&](const char* reg, std::uint32_t offset, Access access, const char* desc,
                 std::vector<core::RegisterField> fields = {}, unsigned width = 32) -> core::Register& {
    return services_.bar.add({prefix + reg, base + offset, width, 0, access, desc, std::move(fields)});
  };
  auto kick = [this] { kick_.notify(sc_core::SC_ZERO_TIME); };

  tail_ = &add("RING_TAIL", er::kTail, Access::kReadWrite, "ring tail offset (bits 20:3)", {{"TAIL", 3, 18, ""}});
  tail_->on_write([this, kick](core::Register& r, std::uint64_t, std::uint64_t) {
    ring_.write_tail(static_cast<std::uint32_t>(r.value()));
    r.set(ring_.tail_reg());
    fetch_line_.invalidate();  // new commands may sit in a line fetched before
    kick();
  });
  head_ = &add("RING_HEAD", er::kHead, Access::kReadWrite, "ring head offset (20:2) and wrap count (31:21)",
               {{"HEAD", 2, 19, ""}, {"WRAP", 21, 11, "incremented by hardware on wrap"}});
  head_->on_write([this, kick](core::Register& r, std::uint64_t, std::uint64_t) {
    ring_.write_head(static_cast<std::uint32_t>(r.value()));
    kick();
  });
  head_->on_read([this](core::Register&, std::uint64_t) { return ring_.head_reg(); });
  start_ = &add("RING_START", er::kStart, Access::kReadWrite, "ring GGTT address, 4 KiB aligned");
  start_->on_write([this](core::Register& r, std::uint64_t, std::uint64_t) {
    ring_.write_start(static_cast<std::uint32_t>(r.value()));
    r.set(ring_.start_reg());
  });
  ctl_ = &add("RING_CTL", er::kCtl, Access::kReadWrite, "bit 0 enable, 20:12 pages - 1, 10 waiting on semaphore",
              {{"VALID", 0, 1, ""}, {"WAIT_SEMAPHORE", 10, 1, "status"}, {"PAGES_MINUS_1", 12, 9, ""}});
  ctl_->on_write([this, kick](core::Register& r, std::uint64_t, std::uint64_t) {
    ring_.write_ctl(static_cast<std::uint32_t>(r.value()));
    r.set(ring_.ctl_reg());
    kick();
  });
  ctl_->on_read([this](core::Register&, std::uint64_t) {
    return ring_.ctl_reg() | (waiting_semaphore_ ? er::kCtlWaitSemaphore : 0u);
  });
  acthd_udw_ = &add("ACTHD_UDW", er::kActhdUdw, Access::kReadOnly, "active head, bits 47:32");
  ipeir_ = &add("IPEIR", er::kIpeir, Access::kReadOnly, "instruction parser error identity");
  ipehr_ = &add("IPEHR", er::kIpehr, Access::kReadOnly, "header of the command that failed");
  acthd_ = &add("ACTHD", er::kActhd, Access::kReadOnly, "address of the command being executed");
  hws_pga_ = &add("HWS_PGA", er::kHwsPga, Access::kReadWrite, "GGTT address of the hardware status page");
  nopid_ = &add("NOPID", er::kNopid, Access::kReadOnly, "last MI_NOOP identification number");
  add("HWSTAM", er::kHwstam, Access::kReadWrite, "status page interrupt mask");
  mi_mode_ = &add("MI_MODE", er::kMiMode, Access::kMasked, "bit 8 STOP_RING, bit 9 MODE_IDLE (status)",
                  {{"STOP_RING", 8, 1, ""}, {"MODE_IDLE", 9, 1, "engine not executing"}});
  mi_mode_->on_write([kick](core::Register&, std::uint64_t, std::uint64_t) { kick(); });
  mi_mode_->on_read([this](core::Register&, std::uint64_t v) {
    const bool idle = !engine_.running();
    return (v & ~std::uint64_t{er::kModeIdle}) | (idle ? er::kModeIdle : 0u);
  });
  eir_ = &add("EIR", er::kEir, Access::kWriteOneToClear, "error identity (bit 0 instruction, 4 page table)");
  emr_ = &add("EMR", er::kEmr, Access::kReadWrite, "error mask");
  esr_ = &add("ESR", er::kEsr, Access::kReadOnly, "error status");
  add("INSTPM", er::kInstpm, Access::kMasked, "instruction parser mode");
  reset_ctl_ = &add("RESET_CTL", er::kResetCtl, Access::kMasked, "bit 0 request reset, bit 1 ready to reset",
                    {{"REQUEST_RESET", 0, 1, ""}, {"READY_TO_RESET", 1, 1, "status"}});
  reset_ctl_->on_read([this](core::Register&, std::uint64_t v) {
    // Ready once a reset was requested and the engine is not in the middle of a command.
    const bool ready = (v & er::kRequestReset) && !engine_.running();
    return (v & ~std::uint64_t{er::kReadyToReset}) | (ready ? er::kReadyToReset : 0u);
  });
  reset_ctl_->on_write([kick](core::Register&, std::uint64_t, std::uint64_t) { kick(); });
  batch_regs_[0].state = &add("BBSTATE", er::kBbState, Access::kReadWrite, "first-level batch state (bit 5 PPGTT)");
  batch_regs_[1].address = &add("SBBADDR", er::kSbbAddr, Access::kReadWrite, "second-level batch address");
  batch_regs_[1].state = &add("SBBSTATE", er::kSbbState, Access::kReadWrite, "second-level batch state");
  batch_regs_[1].address_udw =
      &add("SBBADDR_UDW", er::kSbbAddrUdw, Access::kReadWrite, "second-level batch address 63:32");
  batch_regs_[0].address = &add("BBADDR", er::kBbAddr, Access::kReadWrite, "first-level batch address");
  batch_regs_[0].address_udw =
      &add("BBADDR_UDW", er::kBbAddrUdw, Access::kReadWrite, "first-level batch address 63:32");
  for (unsigned n = 0; n < 4; ++n) {
    const std::string pdp = "PDP" + std::to_string(n);
    pdp_[2 * n] = &services_.bar.add({prefix + pdp + "_LDW",
                                      base + er::kPdp0Ldw + 8 * n,
                                      32,
                                      0,
                                      Access::kReadWrite,
                                      "page directory pointer, low",
                                      {}});
    pdp_[2 * n + 1] = &services_.bar.add({prefix + pdp + "_UDW",
                                          base + er::kPdp0Ldw + 8 * n + 4,
                                          32,
                                          0,
                                          Access::kReadWrite,
                                          "page directory pointer, high",
                                          {}});
    pdp_[2 * n]->on_write([this](core::Register&, std::uint64_t, std::uint64_t) { update_ppgtt_root(); });
    pdp_[2 * n + 1]->on_write([this](core::Register&, std::uint64_t, std::uint64_t) { update_ppgtt_root(); });
  }
  gfx_mode_ =
      &add("GFX_MODE", er::kGfxMode, Access::kMasked,
           "RING_MODE_GEN7: bit 15 run list (execlists), 14 interrupt steering to the GuC, 9 PPGTT, 7 48-bit PPGTT",
           {{"PPGTT_48B", 7, 1, ""},
            {"PPGTT_ENABLE", 9, 1, ""},
            {"INTERRUPT_STEERING", 14, 1, ""},
            {"RUN_LIST_ENABLE", 15, 1, ""}});
  gfx_mode_->on_write([this, kick](core::Register&, std::uint64_t, std::uint64_t) {
    update_ppgtt_root();
    kick();
  });
  add("CS_DEBUG_MODE2", er::kCsDebugMode2, Access::kMasked, "debug controls (in the context image); stored, no effect");
  if (info_.render) {
    add("CS_CHICKEN1", er::kCsChicken1, Access::kMasked,
        "preemption granularity (2:1); stored: commands and thread groups run whole in the model");
  }
  add("BB_PER_CTX_PTR", er::kBbPerCtxPtr, Access::kReadWrite, "per-context batch pointer");
  add("INDIRECT_CTX", er::kIndirectCtx, Access::kReadWrite, "indirect context pointer");
  add("INDIRECT_CTX_OFFSET", er::kIndirectCtxOffset, Access::kReadWrite, "indirect context offset");
  add("CONTEXT_CONTROL", er::kContextControl, Access::kMasked, "context control (restore inhibit bit 0)");
  add("TIMESTAMP", er::kTimestamp, Access::kReadOnly, "command streamer timestamp, low")
      .on_read([this](core::Register&, std::uint64_t) { return timestamp_ticks() & 0xFFFFFFFFu; });
  add("TIMESTAMP_UDW", er::kTimestampUdw, Access::kReadOnly, "command streamer timestamp, high")
      .on_read([this](core::Register&, std::uint64_t) { return timestamp_ticks() >> 32; });
  for (unsigned n = 0; n < 16; ++n) {
    gpr_[n] = &services_.bar.add({prefix + "CS_GPR" + std::to_string(n),
                                  base + er::kGpr0 + 8 * n,
                                  64,
                                  0,
                                  Access::kReadWrite,
                                  "general purpose register for MI_MATH",
                                  {}});
  }

  history_.resize(params_.hang_history);

  // The render engine has the render pipe (PIPE_CONTROL); every command the table lets this engine execute must have
  // its pipe here.
  // The render engine has the render pipe (PIPE_CONTROL) and the GPGPU pipe behind it.
  if (info_.render) {
    auto gpgpu = std::make_unique<GpgpuPipe>(params_.gpgpu, stats_);
    auto render = std::make_unique<RenderPipe>();
    GpgpuPipe* g = gpgpu.get();
    render->on_instruction_cache_invalidate([g] { g->invalidate_instruction_cache(); });
    pipes_[static_cast<std::size_t>(Pipe::kGpgpu)] = std::move(gpgpu);
    pipes_[static_cast<std::size_t>(Pipe::kRender)] = std::move(render);
  }
  for (const CommandInfo* row : table_.rows()) {
    if (row->pipe != Pipe::kNone && (row->engines & engine_mask(info_.id)) &&
        !pipes_[static_cast<std::size_t>(row->pipe)]) {
      core::report_error(this->name(), std::string(row->name) + " needs the " + to_string(row->pipe) +
                                           " pipe, which this engine does not have");
    }
  }

  SC_HAS_PROCESS(CommandStreamer);
  SC_THREAD(run);
}

// ---- state ----

void CommandStreamer::set_state(State s) {
  if (s == engine_.state()) return;
  engine_.set_state(s);
  // A stopped engine's batches end here on the timeline (a reset later clears them).
  if (engine_.halted()) end_batch_spans_from(0);
}

bool CommandStreamer::has_work() const {
  if (engine_.halted()) return false;
  if (mi_mode_->value() & er::kStopRing) return false;
  if (reset_ctl_->value() & er::kRequestReset) return false;
  if (execlist_mode() && !contexts_.running()) return false;
  if (!batches_.empty()) return true;
  return ring_.enabled() && !ring_.empty();
}

void CommandStreamer::attach_ring_model(std::unique_ptr<RingPointerModel> model) {
  // The engine's local time: its own thread's, or the kernel's when a host register write arrives.
  ring_.attach(std::move(model), [this] { return services_.clock.cycles_in(engine_.now()); });
}

bool CommandStreamer::execlist_mode() const { return (gfx_mode_->value() & er::kGfxRunListEnable) != 0; }

bool CommandStreamer::interrupts_steered_to_guc() const {
  return (gfx_mode_->value() & er::kGfxInterruptSteering) != 0;
}

bool CommandStreamer::go_idle() {
  if (engine_.running()) {
    const bool stopped = (mi_mode_->value() & er::kStopRing) || (reset_ctl_->value() & er::kRequestReset);
    set_state(stopped ? State::kStopped : State::kIdle);
  }
  fetch_line_.invalidate();
  // Catch up with the local time, but wake early for a kick: a TAIL write (or any other kick) that arrives while the
  // engine catches up must not be lost by the wait for the next one.
  return engine_.catch_up_or(kick_);
}

void CommandStreamer::run() {
  for (;;) {
    if (execlist_mode()) contexts_.schedule();
    if (!has_work()) {
      if (!go_idle()) sc_core::wait(kick_);
      continue;
    }
    if (!engine_.running()) {
      set_state(State::kRunning);
      engine_.progress();
    }
    step();
    engine_.time().sync_if_needed();
  }
}

void CommandStreamer::reset() {
  ++resets_;
  ring_.reset();
  for (core::Register* r :
       {tail_, head_, start_, ctl_, acthd_, acthd_udw_, ipeir_, ipehr_, mi_mode_, eir_, esr_, reset_ctl_}) {
    r->reset();
  }
  for (const BatchRegisters& level : batch_regs_) {
    for (core::Register* r : {level.address, level.address_udw, level.state}) r->reset();
  }
  drop_batches();
  waiting_semaphore_ = false;
  contexts_.reset();
  for (auto& pipe : pipes_) {
    if (pipe) pipe->reset();
  }
  // Out of any state (a halted engine too): busy time ends if it ran.
  engine_.set_state(State::kIdle);
  kick_.notify(sc_core::SC_ZERO_TIME);
}

void CommandStreamer::update_ppgtt_root() {
  const std::uint64_t mode = gfx_mode_->value();
  load_ppgtt((mode & er::kGfxPpgtt48b)      ? PpgttMode::k48Bit
             : (mode & er::kGfxPpgttEnable) ? PpgttMode::kLegacy32
                                            : PpgttMode::kNone);
}

void CommandStreamer::load_ppgtt(PpgttMode mode) {
  PpgttRoot root;
  root.mode = mode;
  for (unsigned n = 0; n < 4; ++n) root.pdp[n] = pdp_[2 * n + 1]->value() << 32 | pdp_[2 * n]->value();
  services_.gtt.set_ppgtt_root(root);
}

std::uint64_t CommandStreamer::timestamp_ticks() const {
  // CS timestamp: 12.5 MHz on Gen8, 12 MHz on Gen9 (i915 read_timestamp_frequency).
  const unsigned __int128 ps = engine_.now();
  const std::uint64_t hz = services_.generation == 8 ? 12'500'000 : 12'000'000;
  return static_cast<std::uint64_t>(ps * hz / 1'000'000'000'000ULL);
}

// ---- fetch ----

bool CommandStreamer::fetch_dword_miss(std::uint64_t address, AddressSpace space, std::uint32_t& out) {
  const std::uint64_t line = fetch_line_.line_of(address);
  const auto space_tag = static_cast<unsigned>(space);
  if (!fetch_line_.holds(address, space_tag)) {
    const Translation t = services_.gtt.translate(line, space, false, engine_.delay());
    if (!t.ok) {
      fetch_line_.invalidate();
      current_header_ = 0;
      return false;
    }
    if (engine_.read(services_.memory, t.pa, fetch_line_.buffer(), fetch_line_.size()) != tlm::TLM_OK_RESPONSE) {
      fetch_line_.invalidate();
      current_header_ = 0;  // as for a fault: the failing command's header was never fetched
      return false;
    }
    fetch_line_.filled(line, space_tag, t.pa);
  }
  out = fetch_line_.dword(address);
  return true;
}

bool CommandStreamer::fetch_command(Command& cmd) {
  const bool in_ring = batches_.empty();
  cmd.space = in_ring ? AddressSpace::kGgtt : batches_.back().space;
  cmd.address = in_ring ? ring_.head_address() : batches_.back().address;
  auto address_of_dword = [&](unsigned i) -> std::uint64_t {
    if (!in_ring) return cmd.address + 4ULL * i;
    // Commands may straddle the end of the ring: dword i lives at (head + 4i) mod size.
    const std::uint32_t size = ring_.size_bytes();
    return (ring_.start_reg() & RingPointer::kStartAddrMask) + ((ring_.head_offset() % size + 4ULL * i) % size);
  };
  if (!fetch_dword(cmd.address, cmd.space, cmd.dw[0])) {
    fail(nullptr, "command fetch at " + core::format_hex(cmd.address) + " failed (GTT fault or bus error)",
         er::kErrorPageTable);
    return false;
  }
  current_header_ = cmd.dw[0];
  // A long batch repeats the same headers: the row and length of the last valid header are remembered (they depend
  // only on the header, the generation and the engine, which are fixed).
  if (cmd.dw[0] == length_memo_header_) {
    cmd.length = length_memo_;
    cmd.info = length_memo_info_;
  } else {
    cmd.length = table_.decode(cmd.dw[0], info_.id, cmd.info, nullptr);  // the reason text only when rejected
    if (cmd.length != 0) {
      length_memo_header_ = cmd.dw[0];
      length_memo_ = cmd.length;
      length_memo_info_ = cmd.info;
    }
  }
  if (cmd.length == 0) {
    std::string reason;
    table_.decode(cmd.dw[0], info_.id, cmd.info, &reason);
    cmd.length = 1;
    fail(&cmd, reason, er::kErrorInstruction);
    return false;
  }
  if (in_ring && ring_.bytes_available() < 4 * cmd.length) {
    // The rest of the command is not below TAIL yet: wait for the driver to advance TAIL.
    return false;
  }
  // A command that ends inside the line buffer the header came from (and, in the ring, before the ring's end, so its
  // dwords do not wrap to the start): its dwords are there (what fetch_dword would return one by one).
  if ((cmd.address & 63) + 4ULL * cmd.length <= 64 &&
      (!in_ring || ring_.head_offset() + 4ULL * cmd.length <= ring_.size_bytes())) {
    // A fixed-size copy (inline, no library call): the dwords past the command's length are never read, and the
    // line's padding keeps the source inside the buffer.
    std::memcpy(cmd.dw.data() + 1, fetch_line_.at(cmd.address) + 4, 4 * 15);
    return true;
  }
  for (unsigned i = 1; i < cmd.length; ++i) {
    if (!fetch_dword(address_of_dword(i), cmd.space, cmd.dw[i])) {
      fail(&cmd, "fetching dword " + std::to_string(i) + " failed (GTT fault or bus error)", er::kErrorPageTable);
      return false;
    }
  }
  return true;
}

// ---- execution ----

void CommandStreamer::step() {
  if (engine_.watchdog_expired()) {
    declare_hang("no progress for " + std::to_string(params_.hang_timeout_ns) + " ns");
    return;
  }
  Command cmd;
  if (!fetch_command(cmd)) {
    if (engine_.running() && batches_.empty()) {
      // Incomplete command in the ring: wait for TAIL.
      if (!go_idle()) sc_core::wait(kick_);
    }
    return;
  }
  acthd_->set(cmd.address & 0xFFFFFFFF);
  acthd_udw_->set(cmd.address >> 32);
  cycles(params_.decode_cycles + params_.dword_cycles * (cmd.length - 1));
  record_history(cmd);
  const bool in_ring = batches_.empty();
  const std::size_t batch_depth = batches_.size();
  const std::uint64_t resets = resets_;
  const Outcome outcome = execute(cmd);
  // A command that waited for its local time (a visible effect, a watched memory write) may find the engine reset
  // when it resumes: the reset came first and the command's progress no longer applies.
  if (resets != resets_) return;
  if (outcome == Outcome::kRetry) {
    // A semaphore wait is preemptible while arbitration is on; it runs again when the context returns.
    contexts_.arbitration_point(false);
    return;
  }
  if (outcome == Outcome::kStopped) return;
  ++commands_;
  if (in_ring) {
    // Ring progress: HEAD moves past the command (also past an MI_BATCH_BUFFER_START whose batch now runs).
    ring_.consume(4 * cmd.length);
    engine_.progress();
  } else if (outcome == Outcome::kNext && !batches_.empty() && batches_.back().address == cmd.address) {
    batches_.back().address += 4ULL * cmd.length;
    // Batch progress: executing beyond the furthest address reached since the batch was started from the ring. A
    // long linear batch keeps making progress; a batch looping on itself (or chaining backwards) does not.
    if (cmd.address >= batch_high_water_) {
      batch_high_water_ = cmd.address + 4ULL * cmd.length;
      engine_.progress();
    }
  }
  // Arbitration points for execlists: MI_ARB_CHECK, the end of a batch level, or any command while arbitration is on
  // (MI_ARB_ON_OFF), in the ring or inside a batch. A context switched out inside a batch saves its batch heads
  // (BBADDR/SBBADDR with BBSTATE/SBBSTATE marked active) and resumes there.
  const bool arbitration_point = cmd.info->flags & CommandInfo::kArbitrationPoint;
  contexts_.arbitration_point(arbitration_point || batches_.size() < batch_depth);
}

Outcome CommandStreamer::execute(const Command& cmd) {
  const CommandInfo& row = *cmd.info;
  if (row.pipe == Pipe::kNone) return row.handler(*this, cmd);
  return pipes_[static_cast<std::size_t>(row.pipe)]->execute(*this, cmd);
}

// ---- ring and batch buffers ----

void CommandStreamer::set_batch_registers(std::size_t level, std::uint64_t address, AddressSpace space) {
  const BatchRegisters& r = batch_regs_[level];
  r.address->set(address & 0xFFFFFFFF);
  r.address_udw->set(address >> 32);
  r.state->set(space == AddressSpace::kPpgtt ? er::kBbStatePpgtt : 0);
}

Outcome CommandStreamer::batch_buffer_start(const Command& cmd, std::uint64_t target, AddressSpace space,
                                            bool second_level) {
  fetch_line_.invalidate();
  // Nesting rules as GVT-g's parser enforces them (gvt/cmd_parser.c cmd_handler_mi_batch_buffer_start).
  if (batches_.empty()) {
    if (second_level) return fail(&cmd, "second-level MI_BATCH_BUFFER_START from the ring", er::kErrorInstruction);
    batches_.push_back({target, space});
    begin_batch_span(0, target);
    batch_high_water_ = target;
    set_batch_registers(0, target, space);
    ++batches_started_;
    return Outcome::kNext;  // the ring's HEAD moves past this command; the batch runs next
  }
  if (batches_.size() == 2) {
    return fail(&cmd, "MI_BATCH_BUFFER_START from a second-level batch (nesting deeper than allowed)",
                er::kErrorInstruction);
  }
  if (second_level) {
    // Call: the first level resumes after this command when the second level ends.
    batches_.back().address = cmd.address + 4ULL * cmd.length;
    batches_.push_back({target, space});
    begin_batch_span(1, target);
    set_batch_registers(1, target, space);
  } else {
    // Chaining: the first-level batch continues at the target.
    batches_.back() = {target, space};
    begin_batch_span(batches_.size() - 1, target);
    set_batch_registers(0, target, space);
  }
  ++batches_started_;
  return Outcome::kJumped;
}

Outcome CommandStreamer::batch_buffer_end() {
  fetch_line_.invalidate();
  if (batches_.empty()) {
    // Nothing to return from: the hardware ignores it in the ring; say so, since it usually means a driver bug.
    core::report_guest_warning(name(), std::string(info_.name) + ": MI_BATCH_BUFFER_END in the ring at " +
                                           core::format_hex(ring_.head_address()) + " ignored");
    return Outcome::kNext;
  }
  batches_.pop_back();
  end_batch_spans_from(batches_.size());
  return Outcome::kJumped;
}

void CommandStreamer::begin_batch_span(std::size_t level, std::uint64_t address) {
  if (core::timeline().enabled())
    batch_spans_[level].begin(engine_.track(), "batch " + core::format_hex(address), engine_.now());
}

void CommandStreamer::end_batch_spans_from(std::size_t level) {
  for (std::size_t l = batch_spans_.size(); l-- > level;) batch_spans_[l].end(engine_.now());
}

void CommandStreamer::drop_batches() {
  end_batch_spans_from(0);
  batches_.clear();
  fetch_line_.invalidate();
}

void CommandStreamer::resume_batch(std::uint64_t address, AddressSpace space) {
  begin_batch_span(batches_.size(), address);
  batches_.push_back({address, space});
  batch_high_water_ = address;
}

// ---- what commands do to the engine ----

// Stops the engine with the page-table error a faulting translation of a memory access gives; false.
bool CommandStreamer::gtt_fault(std::uint64_t gva, AddressSpace space, bool write, const Translation& t) {
  fail(nullptr,
       std::string("GTT fault on ") + (write ? "write to " : "read of ") +
           (space == AddressSpace::kGgtt ? "GGTT " : "PPGTT ") + core::format_hex(gva) + " (" + t.level + ": " +
           to_string(t.fault) + ")",
       er::kErrorPageTable);
  return false;
}

bool CommandStreamer::access(std::uint64_t gva, AddressSpace space, void* data, unsigned len, bool write) {
  auto* bytes = static_cast<unsigned char*>(data);
  cycles(params_.memory_cycles);
  while (len) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::uint64_t>(len, 4096 - (gva & 4095)));
    const Translation t = services_.gtt.translate(gva, space, write, engine_.delay());
    if (!t.ok) return gtt_fault(gva, space, write, t);
    if (bytes == data) first_pa_ = t.pa;
    const auto status = write ? engine_.write(services_.memory, t.pa, bytes, chunk)
                              : engine_.read(services_.memory, t.pa, bytes, chunk);
    if (status != tlm::TLM_OK_RESPONSE) {
      fail(nullptr,
           std::string("bus error on ") + (write ? "write to " : "read of ") + "physical " + core::format_hex(t.pa) +
               " (graphics address " + core::format_hex(gva) + ")",
           er::kErrorPageTable);
      return false;
    }
    if (write) fetch_line_.written(t.pa);  // self-modifying commands
    gva += chunk;
    bytes += chunk;
    len -= chunk;
  }
  if (write && services_.memory_waiters != 0) services_.memory_written.notify(sc_core::SC_ZERO_TIME);
  return true;
}

bool CommandStreamer::access_untimed(std::uint64_t gva, AddressSpace space, void* data, unsigned len, bool write) {
  auto* bytes = static_cast<unsigned char*>(data);
  while (len) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::uint64_t>(len, 4096 - (gva & 4095)));
    sc_core::sc_time discarded = sc_core::SC_ZERO_TIME;
    const Translation t = services_.gtt.translate(gva, space, write, discarded);
    if (!t.ok) return gtt_fault(gva, space, write, t);
    const unsigned done =
        write ? services_.memory.debug_write(t.pa, bytes, chunk) : services_.memory.debug_read(t.pa, bytes, chunk);
    if (done != chunk) {
      fail(nullptr,
           std::string("bus error on ") + (write ? "write to " : "read of ") + "physical " + core::format_hex(t.pa) +
               " (graphics address " + core::format_hex(gva) + ")",
           er::kErrorPageTable);
      return false;
    }
    if (write) {
      fetch_line_.written(t.pa);
      core::write_clock().record(t.pa, chunk, engine_.now());
    }
    gva += chunk;
    bytes += chunk;
    len -= chunk;
  }
  if (write && services_.memory_waiters != 0) services_.memory_written.notify(sc_core::SC_ZERO_TIME);
  return true;
}

bool CommandStreamer::account_traffic(std::uint64_t gva, AddressSpace space, unsigned len, bool write,
                                      core::Picoseconds at) {
  const core::Picoseconds now = core::now_ps();
  sc_core::sc_time delay = core::to_sc_time(at > now ? at - now : 0);
  while (len) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::uint64_t>(len, 4096 - (gva & 4095)));
    // The data's access translated the address (and counted the translation): the line needs its address only.
    const Translation t = services_.gtt.peek(gva, space, write);
    if (!t.ok) return false;
    sc_core::sc_time line_delay = delay;  // the chunks of one transfer move together
    if (services_.memory.traffic(t.pa, chunk, write, line_delay) != tlm::TLM_OK_RESPONSE) return false;
    gva += chunk;
    len -= chunk;
  }
  return true;
}

bool CommandStreamer::reg_read(std::uint32_t offset, std::uint32_t& value) {
  cycles(params_.register_cycles);
  if (offset >= kGgttPteWindowOffset) {
    fail(nullptr, "register offset " + core::format_hex(offset) + " is outside the MMIO range", er::kErrorInstruction);
    return false;
  }
  unsigned char bytes[4];
  services_.bar.read(offset, bytes, 4);
  std::memcpy(&value, bytes, 4);
  return true;
}

bool CommandStreamer::reg_write(std::uint32_t offset, std::uint32_t value, std::uint32_t byte_enables) {
  cycles(params_.register_cycles);
  if (offset >= kGgttPteWindowOffset) {
    fail(nullptr, "register offset " + core::format_hex(offset) + " is outside the MMIO range", er::kErrorInstruction);
    return false;
  }
  unsigned char bytes[4];
  std::memcpy(bytes, &value, 4);
  if (byte_enables == 0xF) {
    services_.bar.write(offset, bytes, 4);
  } else {
    for (unsigned i = 0; i < 4; ++i) {
      if (byte_enables & (1u << i)) services_.bar.write(offset + i, bytes + i, 1);
    }
  }
  return true;
}

bool CommandStreamer::pause_point() {
  const std::uint64_t resets = resets_;
  engine_.time().sync_if_needed();
  return resets == resets_;
}

bool CommandStreamer::sync_for_effect() {
  const std::uint64_t resets = resets_;
  engine_.time().sync();
  return resets == resets_;
}

Outcome CommandStreamer::raise_interrupt(std::uint32_t bits) {
  if (!sync_for_effect()) return Outcome::kStopped;
  services_.interrupts.raise(info_.id, bits);
  return Outcome::kNext;
}

core::Picoseconds CommandStreamer::last_read_written_at() const { return core::write_clock().latest(first_pa_, 4); }

Outcome CommandStreamer::wait_semaphore(bool signal_mode, bool visible, core::Picoseconds written) {
  waiting_semaphore_ = true;
  if (signal_mode && !visible) {
    // Signal mode wakes when the write happens: at its time.
    engine_.time().sync();
    const core::Picoseconds now = core::now_ps();
    if (written > now) sc_core::wait(core::to_sc_time(written - now), kick_);
    return Outcome::kRetry;
  }
  // Not satisfied: the command is tried again. Poll mode re-reads after the poll interval; signal mode waits for a
  // write by another engine, with the same interval as a fallback for writes the GPU cannot see (the host's).
  cycles(params_.semaphore_poll_cycles);
  engine_.time().sync();
  if (signal_mode) {
    ++services_.memory_waiters;
    sc_core::wait(static_cast<double>(services_.clock.cycles(params_.semaphore_poll_cycles) * 16) *
                      sc_core::sc_time(1, sc_core::SC_PS),
                  services_.memory_written | kick_);
    --services_.memory_waiters;
  }
  return Outcome::kRetry;
}

bool CommandStreamer::save_pipe_state(std::uint64_t lrca) {
  for (auto& pipe : pipes_) {
    if (pipe && !pipe->save_state(*this, lrca)) return false;
  }
  return true;
}

bool CommandStreamer::restore_pipe_state(std::uint64_t lrca) {
  for (auto& pipe : pipes_) {
    if (pipe && !pipe->restore_state(*this, lrca)) return false;
  }
  return true;
}

// ---- errors and hangs ----

// One place for what stops an engine: errors (its own, its commands', its context switches') and hangs.

Outcome CommandStreamer::fail(const Command* cmd, const std::string& what) {
  return fail(cmd, what, er::kErrorInstruction);
}

Outcome CommandStreamer::fail(const Command* cmd, const std::string& what, std::uint32_t error_bit) {
  // The error registers and the CS error interrupt appear at the engine's local time; an engine reset meanwhile
  // came first and leaves nothing to report.
  if (!sync_for_effect()) return Outcome::kStopped;
  const std::uint64_t address =
      cmd ? cmd->address : (batches_.empty() ? ring_.head_address() : batches_.back().address);
  const AddressSpace space = cmd ? cmd->space : (batches_.empty() ? AddressSpace::kGgtt : batches_.back().space);
  const std::uint32_t header = cmd ? cmd->dw[0] : current_header_;
  ipehr_->set(header);
  ipeir_->set(error_bit);
  acthd_->set(address & 0xFFFFFFFF);
  acthd_udw_->set(address >> 32);
  eir_->set_bits(error_bit);
  esr_->set_bits(error_bit);
  set_state(State::kError);
  const std::string where = std::string(batches_.empty()       ? "ring"
                                        : batches_.size() == 1 ? "batch"
                                                               : "second-level batch");
  const std::string message = std::string(info_.name) + ": " + what + "; stopped at " +
                              (space == AddressSpace::kGgtt ? "GGTT " : "PPGTT ") + core::format_hex(address) + " (" +
                              where + "), command dword " + core::format_hex(header, 8);
  engine_.record_error(message);
  if (!(emr_->value() & error_bit)) services_.interrupts.raise(info_.id, GtInterrupts::kCsError);
  return Outcome::kStopped;
}

void CommandStreamer::record_history(const Command& cmd) {
  // Raw record only: this runs for every command; the text is built in declare_hang().
  if (history_.empty()) return;  // hang_history 0
  HistoryEntry& e = history_[history_next_];
  e.address = cmd.address;
  e.length = cmd.length;
  std::memcpy(e.dw.data(), cmd.dw.data(), sizeof e.dw);  // fixed size; dwords past the length are never printed
  if (++history_next_ == history_.size()) history_next_ = 0;
  if (history_count_ < history_.size()) ++history_count_;
}

std::string CommandStreamer::describe_registers() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "HEAD 0x%08x TAIL 0x%08x START 0x%08x CTL 0x%08x ACTHD 0x%08x_%08x BBADDR 0x%08x_%08x",
                ring_.head_reg(), ring_.tail_reg(), ring_.start_reg(), ring_.ctl_reg(),
                static_cast<unsigned>(acthd_udw_->value()), static_cast<unsigned>(acthd_->value()),
                static_cast<unsigned>(batch_regs_[0].address_udw->value()),
                static_cast<unsigned>(batch_regs_[0].address->value()));
  return buf;
}

void CommandStreamer::declare_hang(const std::string& why) {
  std::string report = std::string(info_.name) + " hung: " + why +
                       (waiting_semaphore_ ? " (waiting on a semaphore)" : "") + "\n    " + describe_registers() +
                       "\n    last commands:";
  // Oldest first: the ring's oldest record sits at history_next_ once it is full.
  const std::size_t first = history_count_ < history_.size() ? 0 : history_next_;
  for (std::size_t k = 0; k < history_count_; ++k) {
    const HistoryEntry& h = history_[(first + k) % history_.size()];
    std::string line = core::format_hex(h.address) + ":";
    for (unsigned i = 0; i < std::min(h.length, 8u); ++i) line += " " + core::format_hex(h.dw[i], 8);
    if (h.length > 8) line += " ...";
    report += "\n      " + line;
  }
  set_state(State::kHung);
  engine_.record_hang(report);
}

}  // namespace gpuvp::gen
