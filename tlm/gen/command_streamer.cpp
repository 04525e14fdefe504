#include "tlm/gen/command_streamer.h"

#include <cstdio>
#include <cstring>

#include "hw/gen/gtt_regs.h"
#include "hw/gen/mi_commands.h"
#include "tlm/core/report.h"
#include "tlm/core/timeline.h"
#include "tlm/core/write_clock.h"
#include "tlm/gen/mi_atomic.h"

namespace gpuvp::gen {

namespace er = engine_reg;
using core::Access;

namespace {
std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

bool compare(mi::Compare op, std::uint32_t memory, std::uint32_t data) {
  switch (op) {
    case mi::Compare::kGreater: return memory > data;
    case mi::Compare::kGreaterEqual: return memory >= data;
    case mi::Compare::kLess: return memory < data;
    case mi::Compare::kLessEqual: return memory <= data;
    case mi::Compare::kEqual: return memory == data;
    case mi::Compare::kNotEqual: return memory != data;
  }
  return false;
}
}  // namespace

CommandStreamer::CommandStreamer(sc_core::sc_module_name name, const EngineInfo& info,
                                 const CommandStreamerParams& params, const EngineServices& services)
    : sc_module(name),
      info_(info),
      params_(params),
      services_(services),
      execlists_(services.bar, info.mmio_base, std::string(info.name) + ".", std::string(this->name()) + ".",
                 Execlists::Hooks{
                     [this](const ContextDescriptor& e0, const ContextDescriptor& e1) {
                       // A submission waits for the engine thread: at once when idle, else at an arbitration point.
                       pending_ = std::array<ContextDescriptor, 2>{e0, e1};
                       submitted_ps_ = core::now_ps();
                       kick_.notify(sc_core::SC_ZERO_TIME);
                     },
                     [this](std::uint32_t dword, std::uint32_t value) {
                       const std::uint64_t hwsp = hws_pga_->value() & ~0xFFFULL;
                       access(hwsp + 4ULL * dword, AddressSpace::kGgtt, &value, 4, true);
                     },
                     [this] { services_.interrupts.raise(info_.id, GtInterrupts::kContextSwitch); }}),
      track_(core::timeline().track(this->name())),
      commands_(core::stats().counter(std::string(this->name()) + ".commands")),
      batches_started_(core::stats().counter(std::string(this->name()) + ".batches")),
      user_interrupts_(core::stats().counter(std::string(this->name()) + ".user_interrupts")),
      semaphore_polls_(core::stats().counter(std::string(this->name()) + ".semaphore_polls")),
      errors_(core::stats().counter(std::string(this->name()) + ".errors")),
      hangs_(core::stats().counter(std::string(this->name()) + ".hangs")),
      context_switches_(core::stats().counter(std::string(this->name()) + ".context_switches")),
      forced_restores_(core::stats().counter(std::string(this->name()) + ".forced_restores",
                                             "same-context resubmissions reloaded in full (FORCE_RESTORE)")),
      forced_pd_restores_(core::stats().counter(std::string(this->name()) + ".forced_pd_restores",
                                                "lite restores that reloaded the PDPs (FORCE_PD_RESTORE)")),
      submit_to_start_ps_(core::stats().histogram(std::string(this->name()) + ".submit_to_start_ps",
                                                  "ELSP submission to the submitted context running")),
      busy_(core::stats().busy_time(std::string(this->name()) + ".busy")) {
  busy_.track = track_;
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
    line_gva_ = ~0ULL;  // new commands may sit in a line fetched before
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
    const bool idle = state_ != State::kRunning;
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
    const bool ready = (v & er::kRequestReset) && state_ != State::kRunning;
    return (v & ~std::uint64_t{er::kReadyToReset}) | (ready ? er::kReadyToReset : 0u);
  });
  reset_ctl_->on_write([kick](core::Register&, std::uint64_t, std::uint64_t) { kick(); });
  bb_state_ = &add("BBSTATE", er::kBbState, Access::kReadWrite, "first-level batch state (bit 5 PPGTT)");
  sbb_addr_ = &add("SBBADDR", er::kSbbAddr, Access::kReadWrite, "second-level batch address");
  sbb_state_ = &add("SBBSTATE", er::kSbbState, Access::kReadWrite, "second-level batch state");
  sbb_addr_udw_ = &add("SBBADDR_UDW", er::kSbbAddrUdw, Access::kReadWrite, "second-level batch address 63:32");
  bb_addr_ = &add("BBADDR", er::kBbAddr, Access::kReadWrite, "first-level batch address");
  bb_addr_udw_ = &add("BBADDR_UDW", er::kBbAddrUdw, Access::kReadWrite, "first-level batch address 63:32");
  for (unsigned n = 0; n < 4; ++n) {
    const std::string pdp = "PDP" + std::to_string(n);
    pdp_[2 * n] = &services_.bar.add({prefix + pdp + "_LDW", base + er::kPdp0Ldw + 8 * n, 32, 0, Access::kReadWrite,
                                      "page directory pointer, low", {}});
    pdp_[2 * n + 1] = &services_.bar.add({prefix + pdp + "_UDW", base + er::kPdp0Ldw + 8 * n + 4, 32, 0,
                                          Access::kReadWrite, "page directory pointer, high", {}});
    pdp_[2 * n]->on_write([this](core::Register&, std::uint64_t, std::uint64_t) { update_ppgtt_root(); });
    pdp_[2 * n + 1]->on_write([this](core::Register&, std::uint64_t, std::uint64_t) { update_ppgtt_root(); });
  }
  gfx_mode_ = &add("GFX_MODE", er::kGfxMode, Access::kMasked,
                   "RING_MODE_GEN7: bit 15 run list (execlists), 14 interrupt steering to the GuC, 9 PPGTT, 7 48-bit PPGTT",
                   {{"PPGTT_48B", 7, 1, ""},
                    {"PPGTT_ENABLE", 9, 1, ""},
                    {"INTERRUPT_STEERING", 14, 1, ""},
                    {"RUN_LIST_ENABLE", 15, 1, ""}});
  gfx_mode_->on_write([this, kick](core::Register&, std::uint64_t, std::uint64_t) {
    update_ppgtt_root();
    kick();
  });
  add("BB_PER_CTX_PTR", er::kBbPerCtxPtr, Access::kReadWrite, "per-context batch pointer");
  add("INDIRECT_CTX", er::kIndirectCtx, Access::kReadWrite, "indirect context pointer");
  add("INDIRECT_CTX_OFFSET", er::kIndirectCtxOffset, Access::kReadWrite, "indirect context offset");
  add("CONTEXT_CONTROL", er::kContextControl, Access::kMasked, "context control (restore inhibit bit 0)");
  ctx_timestamp_ = &add("CTX_TIMESTAMP", er::kCtxTimestamp, Access::kReadWrite,
                        "context timestamp: advances only while the context runs");
  ctx_timestamp_->on_read([this](core::Register&, std::uint64_t) { return context_timestamp() & 0xFFFFFFFF; });
  add("TIMESTAMP", er::kTimestamp, Access::kReadOnly, "command streamer timestamp, low")
      .on_read([this](core::Register&, std::uint64_t) { return timestamp_ticks() & 0xFFFFFFFFu; });
  add("TIMESTAMP_UDW", er::kTimestampUdw, Access::kReadOnly, "command streamer timestamp, high")
      .on_read([this](core::Register&, std::uint64_t) { return timestamp_ticks() >> 32; });
  for (unsigned n = 0; n < 16; ++n) {
    gpr_[n] = &services_.bar.add({prefix + "CS_GPR" + std::to_string(n), base + er::kGpr0 + 8 * n, 64, 0,
                                  Access::kReadWrite, "general purpose register for MI_MATH", {}});
  }

  history_.resize(params_.hang_history);

  SC_HAS_PROCESS(CommandStreamer);
  SC_THREAD(run);
}

// ---- state ----

void CommandStreamer::set_state(State s) {
  if (s == state_) return;
  const core::Picoseconds now = core::now_ps() + time_.offset_ps();
  if (state_ == State::kRunning) {
    busy_.end(now);
    core::timeline().span(track_, "busy", busy_since_ps_, now - busy_since_ps_);
  }
  if (s == State::kRunning) {
    busy_since_ps_ = now;
    busy_.begin(now);
  }
  // A stopped engine's batches end here on the timeline (a reset later clears them).
  if (s == State::kError || s == State::kHung) end_batch_spans();
  state_ = s;
}

bool CommandStreamer::has_work() const {
  if (state_ == State::kError || state_ == State::kHung) return false;
  if (mi_mode_->value() & er::kStopRing) return false;
  if (reset_ctl_->value() & er::kRequestReset) return false;
  if (execlist_mode() && !context_running_) return false;
  if (!batches_.empty()) return true;
  return ring_.enabled() && !ring_.empty();
}

void CommandStreamer::attach_ring_model(std::unique_ptr<RingPointerModel> model) {
  // The engine's local time: its own thread's, or the kernel's when a host register write arrives.
  ring_.attach(std::move(model), [this] { return services_.clock.cycles_in(time_.now()); });
}

bool CommandStreamer::execlist_mode() const { return (gfx_mode_->value() & er::kGfxRunListEnable) != 0; }

bool CommandStreamer::interrupts_steered_to_guc() const {
  return (gfx_mode_->value() & er::kGfxInterruptSteering) != 0;
}

std::optional<std::uint32_t> CommandStreamer::running_context() const {
  if (!context_running_) return std::nullopt;
  return elements_[current_element_].context_id();
}

bool CommandStreamer::go_idle() {
  if (state_ == State::kRunning) {
    const bool stopped = (mi_mode_->value() & er::kStopRing) || (reset_ctl_->value() & er::kRequestReset);
    set_state(stopped ? State::kStopped : State::kIdle);
  }
  line_gva_ = ~0ULL;
  // Catch up with the local time, but wake early for a kick: a TAIL write (or any other kick) that arrives while the
  // engine catches up must not be lost by the wait for the next one. The rest of the offset is kept.
  const core::Picoseconds offset = time_.offset_ps();
  if (offset == 0) return false;
  const core::Picoseconds target = core::now_ps() + offset;
  sc_core::wait(core::to_sc_time(offset), kick_);
  const core::Picoseconds now = core::now_ps();
  time_.set_offset(target > now ? target - now : 0);
  return target > now;
}

void CommandStreamer::run() {
  for (;;) {
    if (execlist_mode()) schedule();
    if (!has_work()) {
      if (!go_idle()) sc_core::wait(kick_);
      continue;
    }
    if (state_ != State::kRunning) {
      set_state(State::kRunning);
      last_progress_ps_ = core::now_ps() + time_.offset_ps();
    }
    step();
    time_.sync_if_needed();
  }
}

void CommandStreamer::reset() {
  ++resets_;
  ring_.reset();
  for (core::Register* r : {tail_, head_, start_, ctl_, acthd_, acthd_udw_, ipeir_, ipehr_, mi_mode_, eir_, esr_,
                            reset_ctl_, bb_state_, bb_addr_, bb_addr_udw_, sbb_state_, sbb_addr_, sbb_addr_udw_}) {
    r->reset();
  }
  end_batch_spans();
  batches_.clear();
  waiting_semaphore_ = false;
  line_gva_ = ~0ULL;
  execlists_.reset();
  context_running_ = false;
  pending_.reset();
  elements_ = {};
  arbitration_enabled_ = false;
  if (state_ == State::kRunning) set_state(State::kIdle);
  state_ = State::kIdle;
  kick_.notify(sc_core::SC_ZERO_TIME);
}

void CommandStreamer::update_ppgtt_root() {
  PpgttRoot root;
  const std::uint64_t mode = gfx_mode_->value();
  root.mode = (mode & er::kGfxPpgtt48b) ? PpgttMode::k48Bit
              : (mode & er::kGfxPpgttEnable) ? PpgttMode::kLegacy32
                                              : PpgttMode::kNone;
  for (unsigned n = 0; n < 4; ++n) root.pdp[n] = pdp_[2 * n + 1]->value() << 32 | pdp_[2 * n]->value();
  services_.gtt.set_ppgtt_root(root);
}

std::uint64_t CommandStreamer::timestamp_ticks() const {
  // CS timestamp: 12.5 MHz on Gen8, 12 MHz on Gen9 (i915 read_timestamp_frequency).
  const unsigned __int128 ps = core::now_ps() + time_.offset_ps();
  const std::uint64_t hz = services_.generation == 8 ? 12'500'000 : 12'000'000;
  return static_cast<std::uint64_t>(ps * hz / 1'000'000'000'000ULL);
}

// ---- fetch ----

bool CommandStreamer::fetch_dword_miss(std::uint64_t address, AddressSpace space, std::uint32_t& out) {
  const std::uint64_t line = address & ~std::uint64_t{63};
  if (line != line_gva_ || space != line_space_) {
    sc_core::sc_time delay = core::to_sc_time(time_.offset_ps());
    const Translation t = services_.gtt.translate(line, space, false, delay);
    time_.set_offset(core::to_ps(delay));
    if (!t.ok) {
      line_gva_ = ~0ULL;
      current_header_ = 0;
      return false;
    }
    // delay already holds the offset just stored.
    const auto status = services_.memory.read(t.pa, line_.data(), 64, delay);
    time_.set_offset(core::to_ps(delay));
    if (status != tlm::TLM_OK_RESPONSE) {
      line_gva_ = ~0ULL;
      current_header_ = 0;  // as for a fault: the failing command's header was never fetched
      return false;
    }
    line_gva_ = line;
    line_space_ = space;
    line_pa_ = t.pa;
  }
  out = line_[(address & 63) / 4];
  return true;
}

unsigned CommandStreamer::command_length(std::uint32_t dw0, std::string* reason) const {
  const bool gen9 = services_.generation >= 9;
  const std::uint32_t type = mi::type_of(dw0);
  if (type == mi::kTypeGfxPipe) {
    if ((dw0 & 0xFFFF0000) == mi::kPipeControlDw0) {
      if (!info_.render) {
        if (reason) *reason = "PIPE_CONTROL is a render-engine command";
        return 0;
      }
      if ((dw0 & 0xFF) != 4) {
        if (reason) *reason = "PIPE_CONTROL with a length other than 6 dwords";
        return 0;
      }
      return 6;
    }
    if (reason) {
      *reason = "3D/media command (pipeline " + std::to_string(dw0 >> 27 & 3) + ", opcode " +
                std::to_string(dw0 >> 24 & 7) + ", sub-opcode " + std::to_string(dw0 >> 16 & 0xFF) +
                ") is not modelled";
    }
    return 0;
  }
  if (type != mi::kTypeMi) {
    if (reason) *reason = "command type " + std::to_string(type) + " is not modelled";
    return 0;
  }
  const std::uint32_t len = dw0 & 0xFF;
  // Commands with a fixed set of lengths (bits 7:0) set name and ok and end after the switch.
  const char* name = nullptr;
  bool ok = false;
  switch (mi::opcode_of(dw0)) {
    case mi::kNoop:
    case mi::kUserInterrupt:
    case mi::kArbCheck:
    case mi::kArbOnOff:
    case mi::kBatchBufferEnd:
      return 1;
    case mi::kMath: {
      const std::uint32_t l = dw0 & (gen9 ? 0xFF : 0x3F);
      return l + 2;
    }
    case mi::kSemaphoreWait:
      name = "MI_SEMAPHORE_WAIT";
      ok = len == 2;
      break;
    case mi::kStoreDataImm:
      name = (dw0 & mi::kStoreQword) ? "MI_STORE_DATA_IMM (qword)" : "MI_STORE_DATA_IMM";
      ok = len == ((dw0 & mi::kStoreQword) ? 3 : 2);
      break;
    case mi::kStoreDataIndex:
      name = (dw0 & mi::kStoreQword) ? "MI_STORE_DATA_INDEX (qword)" : "MI_STORE_DATA_INDEX";
      ok = len == ((dw0 & mi::kStoreQword) ? 2 : 1);
      break;
    case mi::kLoadRegisterImm:
      if (len % 2 == 0 || len > 2 * 126 - 1) {
        if (reason) *reason = "bad length " + std::to_string(len) + " for MI_LOAD_REGISTER_IMM (2n-1, n <= 126)";
        return 0;
      }
      return len + 2;
    case mi::kStoreRegisterMem:
      name = "MI_STORE_REGISTER_MEM";
      ok = len == 2;
      break;
    case mi::kLoadRegisterMem:
      name = "MI_LOAD_REGISTER_MEM";
      ok = len == 2;
      break;
    case mi::kFlushDw:
      if (info_.render) {
        if (reason) *reason = "MI_FLUSH_DW is not a render-engine command";
        return 0;
      }
      name = "MI_FLUSH_DW";
      ok = len == 2 || len == 3;
      break;
    case mi::kAtomic:
      name = "MI_ATOMIC";
      ok = len == 1 || len == 3 || len == 5 || len == 9;
      break;
    case mi::kBatchBufferStart:
      name = "MI_BATCH_BUFFER_START";
      ok = len == 1;
      break;
    case mi::kConditionalBatchBufferEnd:
      // Gen9: 4 dwords. Gen8: Mesa's gen8.xml says 3 while its address field reaches into a fourth dword and the
      // media driver emits 4; accept both.
      name = "MI_CONDITIONAL_BATCH_BUFFER_END";
      ok = len == 2 || (!gen9 && len == 1);
      break;
    default: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "unknown MI opcode 0x%02x", mi::opcode_of(dw0));
      if (reason) *reason = buf;
      return 0;
    }
  }
  if (ok) return len + 2;
  if (reason) *reason = std::string("bad length ") + std::to_string(len) + " for " + name;
  return 0;
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
  // A long batch repeats the same headers: the length of the last valid header is remembered (it depends only on the
  // header, the generation and the engine, which are fixed).
  if (cmd.dw[0] == length_memo_header_) {
    cmd.length = length_memo_;
  } else {
    cmd.length = command_length(cmd.dw[0], nullptr);  // the reason text only when the command is rejected
    if (cmd.length != 0) {
      length_memo_header_ = cmd.dw[0];
      length_memo_ = cmd.length;
    }
  }
  if (cmd.length == 0) {
    std::string reason;
    command_length(cmd.dw[0], &reason);
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
    // A fixed-size copy (inline, no library call): the dwords past the command's length are never read, and line_'s
    // padding keeps the source inside the array.
    std::memcpy(cmd.dw.data() + 1, line_.data() + (cmd.address & 63) / 4 + 1, 4 * 15);
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
  const core::Picoseconds now = core::now_ps() + time_.offset_ps();
  if (now - last_progress_ps_ > params_.hang_timeout_ns * core::kPsPerNs) {
    declare_hang("no progress for " + std::to_string(params_.hang_timeout_ns) + " ns");
    return;
  }
  Command cmd;
  if (!fetch_command(cmd)) {
    if (state_ == State::kRunning && batches_.empty()) {
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
  if (outcome == Outcome::kRetry && pending_ && context_running_ && arbitration_enabled_) {
    // A semaphore wait is preemptible while arbitration is on; it runs again when the context returns.
    preempt_at_arbitration_point();
    return;
  }
  if (outcome == Outcome::kStopped || outcome == Outcome::kRetry) return;
  ++commands_;
  if (in_ring) {
    // Ring progress: HEAD moves past the command (also past an MI_BATCH_BUFFER_START whose batch now runs).
    ring_.consume(4 * cmd.length);
    last_progress_ps_ = core::now_ps() + time_.offset_ps();
  } else if (outcome == Outcome::kNext && !batches_.empty() && batches_.back().address == cmd.address) {
    batches_.back().address += 4ULL * cmd.length;
    // Batch progress: executing beyond the furthest address reached since the batch was started from the ring. A
    // long linear batch keeps making progress; a batch looping on itself (or chaining backwards) does not.
    if (cmd.address >= batch_high_water_) {
      batch_high_water_ = cmd.address + 4ULL * cmd.length;
      last_progress_ps_ = core::now_ps() + time_.offset_ps();
    }
  }
  // Arbitration points for execlists: MI_ARB_CHECK, the end of a batch level, or any command while arbitration is on
  // (MI_ARB_ON_OFF), in the ring or inside a batch. A context switched out inside a batch saves its batch heads
  // (BBADDR/SBBADDR with BBSTATE/SBBSTATE marked active) and resumes there.
  if (pending_ && context_running_) {
    const bool arb_check = mi::type_of(cmd.dw[0]) == mi::kTypeMi && mi::opcode_of(cmd.dw[0]) == mi::kArbCheck;
    const bool batch_ended = batches_.size() < batch_depth;
    if (arbitration_enabled_ || arb_check || batch_ended) preempt_at_arbitration_point();
  }
}

CommandStreamer::Outcome CommandStreamer::execute(Command& cmd) {
  const std::uint32_t dw0 = cmd.dw[0];
  if (mi::type_of(dw0) == mi::kTypeGfxPipe) return pipe_control(cmd);
  switch (mi::opcode_of(dw0)) {
    case mi::kNoop:
      if (dw0 & mi::kNoopIdentify) nopid_->set(dw0 & 0x3FFFFF);
      return Outcome::kNext;
    case mi::kUserInterrupt:
      ++user_interrupts_;
      return raise_interrupt(GtInterrupts::kUserInterrupt);
    case mi::kArbCheck:
      return Outcome::kNext;  // an arbitration point (see step())
    case mi::kArbOnOff:
      arbitration_enabled_ = dw0 & 1;
      return Outcome::kNext;
    case mi::kBatchBufferStart: return batch_buffer_start(cmd);
    case mi::kBatchBufferEnd: return batch_buffer_end();
    case mi::kStoreDataImm: return store_data_imm(cmd);
    case mi::kStoreDataIndex: return store_data_index(cmd);
    case mi::kLoadRegisterImm: return load_register_imm(cmd);
    case mi::kStoreRegisterMem: return store_register_mem(cmd);
    case mi::kLoadRegisterMem: return load_register_mem(cmd);
    case mi::kSemaphoreWait: return semaphore_wait(cmd);
    case mi::kFlushDw: return flush_dw(cmd);
    case mi::kMath: return math(cmd);
    case mi::kAtomic: return atomic(cmd);
    case mi::kConditionalBatchBufferEnd: return conditional_batch_buffer_end(cmd);
    default: return fail(&cmd, "unknown MI command", er::kErrorInstruction);  // command_length() rejects these first
  }
}

std::uint64_t CommandStreamer::address_of(std::uint32_t low, std::uint32_t high) const {
  // Gen8 addresses are 48 bits (DW2 bits 15:0), Gen9 64 (Mesa genxml gen8.xml/gen9.xml MI_BATCH_BUFFER_START).
  const std::uint64_t hi = services_.generation >= 9 ? high : (high & 0xFFFF);
  return hi << 32 | (low & ~3u);
}

AddressSpace CommandStreamer::space_of(std::uint32_t dw0) const {
  return (dw0 & mi::kUseGgtt) ? AddressSpace::kGgtt : AddressSpace::kPpgtt;
}

CommandStreamer::Outcome CommandStreamer::batch_buffer_start(const Command& cmd) {
  const std::uint32_t dw0 = cmd.dw[0];
  const bool second_level = dw0 & mi::kBbSecondLevel;
  const AddressSpace space = (dw0 & mi::kBbPpgtt) ? AddressSpace::kPpgtt : AddressSpace::kGgtt;
  const std::uint64_t target = address_of(cmd.dw[1], cmd.dw[2]);
  line_gva_ = ~0ULL;
  // Nesting rules as GVT-g's parser enforces them (gvt/cmd_parser.c cmd_handler_mi_batch_buffer_start).
  if (batches_.empty()) {
    if (second_level) return fail(&cmd, "second-level MI_BATCH_BUFFER_START from the ring", er::kErrorInstruction);
    batches_.push_back({target, space});
    begin_batch_span(0, target);
    batch_high_water_ = target;
    bb_addr_->set(target & 0xFFFFFFFF);
    bb_addr_udw_->set(target >> 32);
    bb_state_->set(space == AddressSpace::kPpgtt ? er::kBbStatePpgtt : 0);
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
    sbb_addr_->set(target & 0xFFFFFFFF);
    sbb_addr_udw_->set(target >> 32);
    sbb_state_->set(space == AddressSpace::kPpgtt ? er::kBbStatePpgtt : 0);
  } else {
    // Chaining: the first-level batch continues at the target.
    batches_.back() = {target, space};
    begin_batch_span(batches_.size() - 1, target);
    bb_addr_->set(target & 0xFFFFFFFF);
    bb_addr_udw_->set(target >> 32);
    bb_state_->set(space == AddressSpace::kPpgtt ? er::kBbStatePpgtt : 0);
  }
  ++batches_started_;
  return Outcome::kJumped;
}

CommandStreamer::Outcome CommandStreamer::batch_buffer_end() {
  line_gva_ = ~0ULL;
  if (batches_.empty()) {
    // Nothing to return from: the hardware ignores it in the ring; say so, since it usually means a driver bug.
    core::report_guest_warning(name(), std::string(info_.name) + ": MI_BATCH_BUFFER_END in the ring at " +
                                           core::format_hex(ring_.head_address()) + " ignored");
    return Outcome::kNext;
  }
  batches_.pop_back();
  end_batch_spans(batches_.size());
  return Outcome::kJumped;
}

bool CommandStreamer::access(std::uint64_t gva, AddressSpace space, void* data, unsigned len, bool write) {
  auto* bytes = static_cast<unsigned char*>(data);
  cycles(params_.memory_cycles);
  while (len) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::uint64_t>(len, 4096 - (gva & 4095)));
    sc_core::sc_time delay = core::to_sc_time(time_.offset_ps());
    const Translation t = services_.gtt.translate(gva, space, write, delay);
    if (!t.ok) {
      time_.set_offset(core::to_ps(delay));
      fail(nullptr,
           std::string("GTT fault on ") + (write ? "write to " : "read of ") +
               (space == AddressSpace::kGgtt ? "GGTT " : "PPGTT ") + core::format_hex(gva) + " (" + t.level + ": " +
               to_string(t.fault) + ")",
           er::kErrorPageTable);
      return false;
    }
    if (bytes == data) first_pa_ = t.pa;
    const auto status = write ? services_.memory.write(t.pa, bytes, chunk, delay)
                              : services_.memory.read(t.pa, bytes, chunk, delay);
    time_.set_offset(core::to_ps(delay));
    if (status != tlm::TLM_OK_RESPONSE) {
      fail(nullptr, std::string("bus error on ") + (write ? "write to " : "read of ") + "physical " +
                        core::format_hex(t.pa) + " (graphics address " + core::format_hex(gva) + ")",
           er::kErrorPageTable);
      return false;
    }
    if (write && (t.pa & ~std::uint64_t{63}) == line_pa_) line_gva_ = ~0ULL;  // self-modifying commands
    gva += chunk;
    bytes += chunk;
    len -= chunk;
  }
  if (write && services_.memory_waiters != 0) services_.memory_written.notify(sc_core::SC_ZERO_TIME);
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

bool CommandStreamer::sync_for_effect() {
  const std::uint64_t resets = resets_;
  time_.sync();
  return resets == resets_;
}

CommandStreamer::Outcome CommandStreamer::raise_interrupt(std::uint32_t bits) {
  if (!sync_for_effect()) return Outcome::kStopped;
  services_.interrupts.raise(info_.id, bits);
  return Outcome::kNext;
}

void CommandStreamer::write_csb(std::uint32_t status, std::uint32_t context_id) {
  // The entry, its status-page mirror and the context-switch interrupt appear at the engine's local time (the GuC or
  // the host reads them at once).
  if (!sync_for_effect()) return;
  execlists_.write_status(status, context_id);
}

CommandStreamer::Outcome CommandStreamer::store_data_imm(const Command& cmd) {
  const std::uint64_t address = address_of(cmd.dw[1], cmd.dw[2]);
  const bool qword = cmd.dw[0] & mi::kStoreQword;
  std::uint32_t data[2] = {cmd.dw[3], qword ? cmd.dw[4] : 0};
  if (!access(address, space_of(cmd.dw[0]), data, qword ? 8 : 4, true)) return Outcome::kStopped;
  return Outcome::kNext;
}

CommandStreamer::Outcome CommandStreamer::store_data_index(const Command& cmd) {
  // Offset into the hardware status page (bits 11:2), always in the GGTT.
  const std::uint64_t address = (hws_pga_->value() & ~0xFFFULL) + (cmd.dw[1] & 0xFFC);
  const bool qword = cmd.dw[0] & mi::kStoreQword;
  std::uint32_t data[2] = {cmd.dw[2], qword ? cmd.dw[3] : 0};
  if (!access(address, AddressSpace::kGgtt, data, qword ? 8 : 4, true)) return Outcome::kStopped;
  return Outcome::kNext;
}

CommandStreamer::Outcome CommandStreamer::load_register_imm(const Command& cmd) {
  // Byte write disables, bits 11:8: a set bit keeps that byte of the register.
  const std::uint32_t enables = ~(cmd.dw[0] >> 8) & 0xF;
  for (unsigned i = 1; i + 1 < cmd.length; i += 2) {
    if (!reg_write(cmd.dw[i] & 0x7FFFFC, cmd.dw[i + 1], enables)) return Outcome::kStopped;
  }
  return Outcome::kNext;
}

CommandStreamer::Outcome CommandStreamer::store_register_mem(const Command& cmd) {
  std::uint32_t value;
  if (!reg_read(cmd.dw[1] & 0x7FFFFC, value)) return Outcome::kStopped;
  if (!access(address_of(cmd.dw[2], cmd.dw[3]), space_of(cmd.dw[0]), &value, 4, true)) return Outcome::kStopped;
  return Outcome::kNext;
}

CommandStreamer::Outcome CommandStreamer::load_register_mem(const Command& cmd) {
  std::uint32_t value;
  if (!access(address_of(cmd.dw[2], cmd.dw[3]), space_of(cmd.dw[0]), &value, 4, false)) return Outcome::kStopped;
  if (!reg_write(cmd.dw[1] & 0x7FFFFC, value)) return Outcome::kStopped;
  return Outcome::kNext;
}

CommandStreamer::Outcome CommandStreamer::semaphore_wait(const Command& cmd) {
  const auto op = static_cast<mi::Compare>(cmd.dw[0] >> 12 & 7);
  if (static_cast<std::uint32_t>(op) > 5) return fail(&cmd, "reserved semaphore compare operation", er::kErrorInstruction);
  std::uint32_t memory;
  if (!access(address_of(cmd.dw[2], cmd.dw[3]), space_of(cmd.dw[0]), &memory, 4, false)) return Outcome::kStopped;
  ++semaphore_polls_;
  // A value another engine wrote ahead of its quantum is not there yet at this engine's time: it counts from the time
  // it was written (the write clock), as it would without temporal decoupling.
  const core::Picoseconds written = core::write_clock().latest(first_pa_, 4);
  const bool visible = written <= time_.now();
  if (visible && compare(op, memory, cmd.dw[1])) {
    waiting_semaphore_ = false;
    return Outcome::kNext;
  }
  waiting_semaphore_ = true;
  const bool signal_mode = !(cmd.dw[0] & mi::kSemaphorePoll);
  if (signal_mode && !visible) {
    // Signal mode wakes when the write happens: at its time.
    time_.sync();
    const core::Picoseconds now = core::now_ps();
    if (written > now) sc_core::wait(core::to_sc_time(written - now), kick_);
    return Outcome::kRetry;
  }
  // Not satisfied: the command is tried again. Poll mode re-reads after the poll interval; signal mode waits for a
  // write by another engine, with the same interval as a fallback for writes the GPU cannot see (the host's).
  cycles(params_.semaphore_poll_cycles);
  time_.sync();
  if (signal_mode) {
    ++services_.memory_waiters;
    sc_core::wait(services_.clock.cycles(params_.semaphore_poll_cycles) * 16 * sc_core::sc_time(1, sc_core::SC_PS),
                  services_.memory_written | kick_);
    --services_.memory_waiters;
  }
  return Outcome::kRetry;
}

void CommandStreamer::post_sync_write(std::uint64_t address, AddressSpace space, const void* data, unsigned len) {
  std::uint64_t copy = 0;
  std::memcpy(&copy, data, len);
  access(address, space, &copy, len, true);
}

CommandStreamer::Outcome CommandStreamer::flush_dw(const Command& cmd) {
  const std::uint32_t dw0 = cmd.dw[0];
  if (dw0 & mi::kFlushTlbInvalidate) services_.gtt.invalidate_tlb();
  const std::uint32_t post_sync = dw0 >> 14 & 3;
  if (post_sync != 0) {
    std::uint64_t address;
    AddressSpace space;
    if (dw0 & mi::kFlushStoreIndex) {
      address = (hws_pga_->value() & ~0xFFFULL) + (cmd.dw[1] & 0xFF8);
      space = AddressSpace::kGgtt;
    } else {
      address = address_of(cmd.dw[1] & ~7u, cmd.dw[2]);
      space = (cmd.dw[1] & mi::kFlushDestGgtt) ? AddressSpace::kGgtt : AddressSpace::kPpgtt;
    }
    if (post_sync == 1) {
      const std::uint64_t data = cmd.dw[3] | (cmd.length == 5 ? std::uint64_t{cmd.dw[4]} << 32 : 0);
      if (!access(address, space, const_cast<std::uint64_t*>(&data), cmd.length == 5 ? 8 : 4, true)) {
        return Outcome::kStopped;
      }
    } else if (post_sync == 3) {
      std::uint64_t ts = timestamp_ticks();
      if (!access(address, space, &ts, 8, true)) return Outcome::kStopped;
    } else {
      return fail(&cmd, "MI_FLUSH_DW post-sync operation 2 is reserved", er::kErrorInstruction);
    }
  }
  if (dw0 & mi::kFlushNotify) return raise_interrupt(GtInterrupts::kFlushNotify);
  return Outcome::kNext;
}

CommandStreamer::Outcome CommandStreamer::pipe_control(const Command& cmd) {
  const std::uint32_t flags = cmd.dw[1];
  if (flags & mi::kPcTlbInvalidate) services_.gtt.invalidate_tlb();
  const std::uint32_t post_sync = flags >> 14 & 3;
  if (post_sync != 0) {
    std::uint64_t address;
    AddressSpace space;
    if (flags & mi::kPcStoreDataIndex) {
      address = (hws_pga_->value() & ~0xFFFULL) + (cmd.dw[2] & 0xFF8);
      space = AddressSpace::kGgtt;
    } else {
      address = address_of(cmd.dw[2], cmd.dw[3]);
      space = (flags & mi::kPcDestGgtt) ? AddressSpace::kGgtt : AddressSpace::kPpgtt;
    }
    std::uint64_t value;
    if (post_sync == 1) {
      value = std::uint64_t{cmd.dw[5]} << 32 | cmd.dw[4];  // immediate data: a qword
    } else if (post_sync == 3) {
      value = timestamp_ticks();
    } else {
      return fail(&cmd, "PIPE_CONTROL post-sync depth count needs the 3D pipeline, which is not modelled",
                  er::kErrorInstruction);
    }
    if (!access(address, space, &value, 8, true)) return Outcome::kStopped;
  }
  if (flags & mi::kPcNotify) return raise_interrupt(GtInterrupts::kFlushNotify);
  return Outcome::kNext;
}

CommandStreamer::Outcome CommandStreamer::math(const Command& cmd) {
  MiMathAlu::Gprs gprs;
  for (unsigned n = 0; n < 16; ++n) gprs[n] = gpr_[n]->value();
  alu_.reset();
  for (unsigned i = 1; i < cmd.length; ++i) {
    const std::string error = alu_.execute(cmd.dw[i], gprs);
    if (!error.empty()) {
      return fail(&cmd, "MI_MATH ALU dword " + std::to_string(i) + " (" + hex32(cmd.dw[i]) + "): " + error,
                  er::kErrorInstruction);
    }
  }
  for (unsigned n = 0; n < 16; ++n) gpr_[n]->set(gprs[n]);
  cycles(params_.register_cycles * (cmd.length - 1));
  return Outcome::kNext;
}

CommandStreamer::Outcome CommandStreamer::atomic(const Command& cmd) {
  const std::uint32_t dw0 = cmd.dw[0];
  const std::uint32_t size = dw0 >> 19 & 3;
  const std::uint32_t opcode = dw0 >> 8 & 0xFF;
  const unsigned bytes = size == 1 ? 8 : 4;
  if (size > 1) return fail(&cmd, "MI_ATOMIC octword operations are not modelled", er::kErrorInstruction);
  const std::uint64_t address = address_of(cmd.dw[1], cmd.dw[2]);
  std::uint64_t operand1, operand2;
  if (dw0 & mi::kAtomicInlineData) {
    // Inline operands interleave: DW3 operand1[31:0], DW4 operand2[31:0], DW5 operand1[63:32], DW6 operand2[63:32]
    // (Mesa gen9.xml, media-driver mhw_mi_hwcmd_g9_X.h).
    const auto dword = [&](unsigned i) -> std::uint64_t { return i < cmd.length ? cmd.dw[i] : 0; };
    operand1 = dword(3) | (size == 1 ? dword(5) << 32 : 0);
    operand2 = dword(4) | (size == 1 ? dword(6) << 32 : 0);
  } else {
    // Without inline data: operand1 from CS_GPR0, operand2 from CS_GPR2 (media-driver MI_ATOMIC description).
    operand1 = gpr_[0]->value();
    operand2 = gpr_[2]->value();
  }
  std::uint64_t old_value = 0;
  if (!access(address, space_of(dw0), &old_value, bytes, false)) return Outcome::kStopped;
  const AtomicResult r = apply_mi_atomic(opcode, size, old_value, operand1, operand2);
  if (!r.ok) return fail(&cmd, "MI_ATOMIC: " + r.error, er::kErrorInstruction);
  std::uint64_t new_value = r.new_value;
  if (!access(address, space_of(dw0), &new_value, bytes, true)) return Outcome::kStopped;
  if (dw0 & mi::kAtomicReturnData) {
    // Return data goes to CS_GPR4; Gen9 writes only its low dword for dword atomics, Gen8 the whole register.
    const std::uint64_t ret = mi_atomic_return_data(opcode, old_value, new_value);
    if (size == 0 && services_.generation >= 9) {
      gpr_[4]->set((gpr_[4]->value() & ~0xFFFFFFFFULL) | (ret & 0xFFFFFFFFULL));
    } else {
      gpr_[4]->set(ret);
    }
  }
  return Outcome::kNext;
}

CommandStreamer::Outcome CommandStreamer::conditional_batch_buffer_end(const Command& cmd) {
  const std::uint32_t dw0 = cmd.dw[0];
  // Compare Semaphore clear: no comparison takes place and the batch goes on (media-driver MHW description).
  if (!(dw0 & mi::kCondCompareSemaphore)) return Outcome::kNext;
  if (dw0 & (1u << 19)) {
    return fail(&cmd, "MI_CONDITIONAL_BATCH_BUFFER_END compare mask mode is not modelled", er::kErrorInstruction);
  }
  const std::uint64_t address = address_of(cmd.dw[2], cmd.length == 4 ? cmd.dw[3] : 0);
  std::uint32_t memory;
  if (!access(address, space_of(dw0), &memory, 4, false)) return Outcome::kStopped;
  // The batch goes on while the memory data is greater than the compare data (unsigned), and ends otherwise.
  if (memory <= cmd.dw[1]) {
    if (batches_.empty()) return Outcome::kNext;
    return batch_buffer_end();
  }
  return Outcome::kNext;
}

// ---- execlists ----

void CommandStreamer::schedule() {
  if (state_ == State::kError || state_ == State::kHung) return;
  if (context_running_ && batches_.empty() && ring_.empty()) complete_context();
  if (!context_running_ && pending_) start_pending();
}

void CommandStreamer::start_pending() {
  const auto elements = *pending_;
  pending_.reset();
  // GVT-g's checks on a submission (gvt/execlist.c intel_vgpu_submit_execlist).
  if (!elements[0].valid()) {
    fail(nullptr, "ELSP submission with element 0 not valid", er::kErrorInstruction);
    return;
  }
  for (const auto& e : elements) {
    if (e.valid() && !e.privilege()) {
      fail(nullptr, "ELSP element with context ID " + core::format_hex(e.context_id()) +
                        " lacks the privilege bit", er::kErrorInstruction);
      return;
    }
  }
  elements_ = elements;
  if (!elements_[1].valid()) elements_[1] = ContextDescriptor{};
  current_element_ = 0;
  write_csb(Execlists::kIdleToActive, 0);
  restore_context(elements_[0]);
}

bool CommandStreamer::restore_context(const ContextDescriptor& desc) {
  ++context_switches_;
  cycles(params_.context_restore_cycles);
  const std::uint64_t state_page = desc.lrca() + 4096;  // LRCA is the context's status page; registers follow
  image_.assign(1024, 0);
  if (!access(state_page, AddressSpace::kGgtt, image_.data(), 4096, false)) return false;
  image_layout_ = parse_context_image(image_.data(), image_.size());
  const std::string context = "context " + core::format_hex(desc.context_id()) + " (LRCA " +
                              core::format_hex(desc.lrca()) + ")";
  if (!image_layout_.error.empty()) {
    fail(nullptr, context + ": " + image_layout_.error, er::kErrorInstruction);
    return false;
  }
  if (desc.addressing_mode() != 1 && desc.addressing_mode() != 3) {
    fail(nullptr, context + ": addressing mode " + std::to_string(desc.addressing_mode()) +
                      " (advanced context) is not modelled", er::kErrorInstruction);
    return false;
  }
  end_batch_spans();
  batches_.clear();
  line_gva_ = ~0ULL;
  for (const auto& slot : image_layout_.slots) {
    if (!reg_write(slot.offset, image_[slot.dword], ~slot.byte_disables & 0xF)) return false;
  }
  apply_context_ppgtt(desc);
  batches_from_registers();
  context_running_ = true;
  context_started_ps_ = core::now_ps() + time_.offset_ps();
  if (desc.raw == elements_[0].raw && current_element_ == 0 && context_started_ps_ >= submitted_ps_) {
    submit_to_start_ps_.sample(context_started_ps_ - submitted_ps_);
  }
  update_execlist_status();
  return true;
}

void CommandStreamer::begin_batch_span(std::size_t level, std::uint64_t address) {
  if (core::timeline().enabled()) batch_spans_[level].begin(track_, "batch " + core::format_hex(address), time_.now());
}

void CommandStreamer::end_batch_spans(std::size_t from_level) {
  for (std::size_t level = batch_spans_.size(); level-- > from_level;) batch_spans_[level].end(time_.now());
}

void CommandStreamer::batches_to_registers() {
  // Level 0's address is where it resumes (the command after a second-level call while level 1 runs).
  auto level = [](core::Register* addr, core::Register* udw, core::Register* state, const BatchLevel* b) {
    if (b) {
      addr->set(b->address & 0xFFFFFFFF);
      udw->set(b->address >> 32);
      state->set((b->space == AddressSpace::kPpgtt ? er::kBbStatePpgtt : 0) | er::kBbStateActive);
    } else {
      state->set(state->value() & ~std::uint64_t{er::kBbStateActive});
    }
  };
  level(bb_addr_, bb_addr_udw_, bb_state_, batches_.empty() ? nullptr : &batches_[0]);
  level(sbb_addr_, sbb_addr_udw_, sbb_state_, batches_.size() < 2 ? nullptr : &batches_[1]);
}

void CommandStreamer::batches_from_registers() {
  auto level = [&](core::Register* addr, core::Register* udw, core::Register* state) {
    const std::uint64_t address = udw->value() << 32 | addr->value();
    begin_batch_span(batches_.size(), address);
    batches_.push_back({address, (state->value() & er::kBbStatePpgtt) ? AddressSpace::kPpgtt : AddressSpace::kGgtt});
    batch_high_water_ = address;
  };
  if (bb_state_->value() & er::kBbStateActive) {
    level(bb_addr_, bb_addr_udw_, bb_state_);
    if (sbb_state_->value() & er::kBbStateActive) level(sbb_addr_, sbb_addr_udw_, sbb_state_);
  }
}

void CommandStreamer::apply_context_ppgtt(const ContextDescriptor& desc) {
  // The descriptor's addressing mode selects the PPGTT layout; the PDPs came from the image.
  PpgttRoot root;
  root.mode = desc.addressing_mode() == 3 ? PpgttMode::k48Bit : PpgttMode::kLegacy32;
  for (unsigned n = 0; n < 4; ++n) root.pdp[n] = pdp_[2 * n + 1]->value() << 32 | pdp_[2 * n]->value();
  services_.gtt.set_ppgtt_root(root);
}

std::uint64_t CommandStreamer::context_timestamp() const {
  std::uint64_t ticks = ctx_timestamp_->value();
  if (context_running_) {
    const unsigned __int128 ps = core::now_ps() + time_.offset_ps() - context_started_ps_;
    const std::uint64_t hz = services_.generation == 8 ? 12'500'000 : 12'000'000;
    ticks += static_cast<std::uint64_t>(ps * hz / 1'000'000'000'000ULL);
  }
  return ticks & 0xFFFFFFFF;
}

void CommandStreamer::save_context() {
  const ContextDescriptor& desc = elements_[current_element_];
  const core::Picoseconds now = core::now_ps() + time_.offset_ps();
  if (core::timeline().enabled()) {
    core::timeline().span(track_, ("ctx " + core::format_hex(desc.context_id())).c_str(), context_started_ps_,
                          now - context_started_ps_);
  }
  ctx_timestamp_->set(context_timestamp());
  context_started_ps_ = now;
  end_batch_spans();
  batches_to_registers();
  cycles(params_.context_save_cycles);
  for (const auto& slot : image_layout_.slots) {
    std::uint32_t value = 0;
    if (!reg_read(slot.offset, value)) return;
    if (is_masked_context_register(slot.offset - info_.mmio_base)) value = 0xFFFF0000u | (value & 0xFFFF);
    image_[slot.dword] = value;
  }
  access(desc.lrca() + 4096, AddressSpace::kGgtt, image_.data(), 4096, true);
}

void CommandStreamer::complete_context() {
  const ContextDescriptor done = elements_[current_element_];
  save_context();
  if (current_element_ == 0 && elements_[1].valid()) {
    write_csb(Execlists::kComplete | Execlists::kElementSwitch, done.context_id());
    current_element_ = 1;
    restore_context(elements_[1]);
    return;
  }
  context_running_ = false;
  write_csb(Execlists::kComplete | Execlists::kActiveToIdle, done.context_id());
  update_execlist_status();
}

void CommandStreamer::preempt_at_arbitration_point() {
  const ContextDescriptor running = elements_[current_element_];
  const auto next = *pending_;
  // The same context resubmitted is a lite restore unless the descriptor forces a restore: i915 sets FORCE_RESTORE
  // after it rewrote the image (engine reset, lrc_reset), so the hardware must reload it rather than keep the running
  // state, which is discarded, not saved (saving would overwrite the rewritten image).
  const bool same_context = next[0].valid() && next[0].lrca() == running.lrca();
  if (same_context && !next[0].force_restore()) {
    // Lite restore: the same context resubmitted with a new TAIL; only TAIL is sampled from its image, and the PDPs
    // too when FORCE_PD_RESTORE asks for them (the driver changed the page directories of a running context).
    pending_.reset();
    write_csb(Execlists::kPreempted | Execlists::kLiteRestore, running.context_id());
    elements_ = next;
    if (!elements_[1].valid()) elements_[1] = ContextDescriptor{};
    current_element_ = 0;
    const bool reload_pdps = next[0].force_pd_restore();
    for (const auto& slot : image_layout_.slots) {
      const std::uint32_t reg = slot.offset - info_.mmio_base;
      const bool pdp = reg >= er::kPdp0Ldw && reg < er::kPdp0Ldw + 8 * 4;
      if (reg != er::kTail && !(reload_pdps && pdp)) continue;
      std::uint32_t value = 0;
      if (!access(running.lrca() + 4096 + 4ULL * slot.dword, AddressSpace::kGgtt, &value, 4, false)) return;
      if (!reg_write(slot.offset, value)) return;
    }
    if (reload_pdps) {
      ++forced_pd_restores_;
      apply_context_ppgtt(next[0]);
    }
    update_execlist_status();
    return;
  }
  if (same_context) {
    ++forced_restores_;
    context_running_ = false;
  } else {
    save_context();
  }
  write_csb(Execlists::kPreempted, running.context_id());
  pending_.reset();
  if (!next[0].valid()) {
    fail(nullptr, "ELSP submission with element 0 not valid", er::kErrorInstruction);
    return;
  }
  elements_ = next;
  if (!elements_[1].valid()) elements_[1] = ContextDescriptor{};
  current_element_ = 0;
  restore_context(elements_[0]);
}

void CommandStreamer::update_execlist_status() {
  execlists_.set_status(elements_[0].valid(), elements_[1].valid(), context_running_ && current_element_ == 0,
                        context_running_ && current_element_ == 1,
                        context_running_ ? elements_[current_element_].context_id() : 0);
}

// ---- errors and hangs ----

CommandStreamer::Outcome CommandStreamer::fail(const Command* cmd, const std::string& what, std::uint32_t error_bit) {
  // The error registers and the CS error interrupt appear at the engine's local time; an engine reset meanwhile
  // came first and leaves nothing to report.
  if (!sync_for_effect()) return Outcome::kStopped;
  const std::uint64_t address = cmd ? cmd->address : (batches_.empty() ? ring_.head_address() : batches_.back().address);
  const AddressSpace space = cmd ? cmd->space : (batches_.empty() ? AddressSpace::kGgtt : batches_.back().space);
  const std::uint32_t header = cmd ? cmd->dw[0] : current_header_;
  ++errors_;
  ipehr_->set(header);
  ipeir_->set(error_bit);
  acthd_->set(address & 0xFFFFFFFF);
  acthd_udw_->set(address >> 32);
  eir_->set_bits(error_bit);
  esr_->set_bits(error_bit);
  set_state(State::kError);
  const std::string where = std::string(batches_.empty() ? "ring" : batches_.size() == 1 ? "batch" : "second-level batch");
  const std::string message = std::string(info_.name) + ": " + what + "; stopped at " +
                              (space == AddressSpace::kGgtt ? "GGTT " : "PPGTT ") + core::format_hex(address) + " (" +
                              where + "), command dword " + hex32(header);
  incidents_.push_back("error: " + message);
  core::report_guest_error(name(), message);
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
  std::snprintf(buf, sizeof buf,
                "HEAD 0x%08x TAIL 0x%08x START 0x%08x CTL 0x%08x ACTHD 0x%08x_%08x BBADDR 0x%08x_%08x",
                ring_.head_reg(), ring_.tail_reg(), ring_.start_reg(), ring_.ctl_reg(),
                static_cast<unsigned>(acthd_udw_->value()), static_cast<unsigned>(acthd_->value()),
                static_cast<unsigned>(bb_addr_udw_->value()), static_cast<unsigned>(bb_addr_->value()));
  return buf;
}

void CommandStreamer::declare_hang(const std::string& why) {
  ++hangs_;
  std::string report = std::string(info_.name) + " hung: " + why + (waiting_semaphore_ ? " (waiting on a semaphore)" : "") +
                       "\n    " + describe_registers() + "\n    last commands:";
  // Oldest first: the ring's oldest record sits at history_next_ once it is full.
  const std::size_t first = history_count_ < history_.size() ? 0 : history_next_;
  for (std::size_t k = 0; k < history_count_; ++k) {
    const HistoryEntry& h = history_[(first + k) % history_.size()];
    std::string line = core::format_hex(h.address) + ":";
    for (unsigned i = 0; i < std::min(h.length, 8u); ++i) line += " " + hex32(h.dw[i]);
    if (h.length > 8) line += " ...";
    report += "\n      " + line;
  }
  incidents_.push_back("hang: " + report);
  set_state(State::kHung);
  core::report_guest_error(name(), report);
}

}  // namespace gpuvp::gen
