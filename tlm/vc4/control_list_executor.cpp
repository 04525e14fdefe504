#include "tlm/vc4/control_list_executor.h"

#include <cstdio>

#include "tlm/core/report.h"
#include "tlm/core/timeline.h"

namespace gpuvp::vc4 {

using core::Access;

namespace {

// The V3D 2.1 packet table (docs/vc4-v3d.md): names and lengths from hw/vc4/packets.h, and the unit that executes
// each packet (the CLE itself unless listed here).
PacketUnit unit_of(std::uint8_t opcode) {
  using namespace packet;
  switch (opcode) {
    case kFlush:
    case kFlushAllState:
    case kGlIndexedPrimitive:
    case kGlArrayPrimitive:
    case kVgCoordinateArrayPrimitives:
    case kVgInlinePrimitives:
      return PacketUnit::kBinner;
    case kStoreMsTileBuffer:
    case kStoreMsTileBufferAndEof:
    case kStoreFullResTileBuffer:
    case kLoadFullResTileBuffer:
    case kStoreTileBufferGeneral:
    case kLoadTileBufferGeneral:
    case kCompressedPrimitive:
    case kClippedCompressedPrimitive:
    case kTileCoordinates:
      return PacketUnit::kRenderer;
    default:
      return PacketUnit::kCle;
  }
}

struct Table {
  std::array<PacketInfo, 256> info{};
  std::array<bool, 256> defined{};
  Table() {
    for (unsigned op = 0; op < 256; ++op) {
      const PacketLayout* layout = packet_layout(static_cast<std::uint8_t>(op));
      if (layout == nullptr) continue;
      info[op] = {layout->name, layout->length, unit_of(static_cast<std::uint8_t>(op))};
      defined[op] = true;
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

const char* opcode_name(int opcode) {
  if (opcode < 0) return "?";
  const PacketInfo* info = packet_info(static_cast<std::uint8_t>(opcode));
  return info ? info->name : "unknown";
}

}  // namespace

const PacketInfo* packet_info(std::uint8_t opcode) {
  const Table& t = table();
  return t.defined[opcode] ? &t.info[opcode] : nullptr;
}

bool ends_frame(const StatePacket& p) {
  const std::uint8_t op = p.u8(0);
  return op == packet::kStoreMsTileBufferAndEof ||
         (op == packet::kStoreFullResTileBuffer && (p.u32(1) & packet::kLoadStoreEof) != 0) ||
         (op == packet::kStoreTileBufferGeneral && (p.u32(3) & packet::kLoadStoreEof) != 0);
}

bool ControlListUnit::timed_access(core::Initiator& port, UnitContext& ctx, bool write, std::uint64_t address,
                                   void* data, unsigned len) {
  const auto status =
      write ? port.write(address, data, len, ctx.time.offset()) : port.read(address, data, len, ctx.time.offset());
  return status == tlm::TLM_OK_RESPONSE;
}

// ---- semaphore ----

bool CleSemaphore::increment(const sc_core::sc_time& delay) {
  if (count_ >= kMax) return false;
  ++count_;
  changed_.notify(delay);
  return true;
}

bool CleSemaphore::try_decrement() {
  if (count_ == 0) return false;
  --count_;
  return true;
}

void CleSemaphore::reset() {
  count_ = 0;
  changed_.notify(sc_core::SC_ZERO_TIME);
}

// ---- construction and registers ----

namespace {
unsigned checked_fetch_bytes(unsigned bytes) {
  if (bytes == 0 || (bytes & (bytes - 1)) != 0) {
    throw core::ConfigError("config key 'vc4.v3d.cle.fetch_bytes': " + std::to_string(bytes) +
                            " is not a power of two");
  }
  return bytes;
}
}  // namespace

ControlListExecutor::ControlListExecutor(sc_core::sc_module_name name, unsigned thread,
                                         const ControlListExecutorParams& params, const ControlListServices& services)
    : sc_module(name),
      thread_(thread),
      params_(params),
      services_(services),
      engine_(this->name(), services.clock, params.hang_timeout_ns * core::kPsPerNs, State::kStopped),
      fetch_line_(checked_fetch_bytes(params.fetch_bytes)),
      unit_ctx_{engine_.time(), kick_, [this] { return engine_.running() && unit_generation_ == generation_; },
                params.hang_timeout_ns * core::kPsPerNs},
      stats_(this->name()),
      packets_(stats_.counter("packets", "events", "control-list packets executed")),
      bytes_(stats_.counter("bytes", "bytes", "control-list bytes executed")),
      not_modelled_(
          stats_.counter("not_modelled", "events", "packets that need the PTB binner or the tile renderer (skipped)")),
      semaphore_waits_(stats_.counter("semaphore_waits", "events", "WAIT_ON_SEMAPHORE packets that had to wait")) {
  const std::string n = std::to_string(thread_);
  auto add = [&](const std::string& reg, std::uint32_t offset, Access access, const char* desc,
                 std::vector<core::RegisterField> fields = {}) -> core::Register& {
    return services_.regs.add({reg, offset, 32, 0, access, desc, std::move(fields)});
  };

  // CTnCS (vc4_regs.h V3D_CTNCS): status computed from the thread; software writes CTRUN (0 stops, 1 resumes at CA)
  // and CTRSTA (1 stops the thread and resets its status). The Linux driver never writes CTnCS (it only starts jobs
  // through CTnCA/CTnEA, vc4_gem.c submit_cl); bare-metal code writes CTRUN = 1 and waits for it to clear, which
  // these semantics satisfy. The model's choices: CTMODE reads 1 on CT0 (the binning thread); CTSUBS is set while
  // the thread is inside a sub-list; CTRSTA also clears the shared semaphore (it is a field of this register).
  cs_ = &add("CT" + n + "CS", kV3dCtnCs(thread_), Access::kReadWrite, "control list executor thread control and status",
             {{"CTMODE", 0, 1, "binning mode (CT0)"},
              {"CTERR", 3, 1, "stopped with an error"},
              {"CTSUBS", 4, 1, "executing a sub-list"},
              {"CTRUN", 5, 1, "running; write 0 to stop, 1 to resume at CA"},
              {"CTRTSD", 8, 2, "return stack depth"},
              {"CTSEMA", 12, 3, "semaphore count"},
              {"CTRSTA", 15, 1, "write 1: stop the thread and reset its status"}});
  cs_->on_read([this](core::Register&, std::uint64_t) { return cs_value(); });
  cs_->on_write([this](core::Register& r, std::uint64_t, std::uint64_t written) {
    r.set(0);
    if (written & kCtRsta) {
      reset();
    } else if (written & kCtRun) {
      if (!run_bit()) start(false);
    } else if (run_bit()) {
      stop(State::kStopped);
    }
  });
  // CTnEA: writing it starts the thread at CTnCA (vc4_gem.c submit_cl: "Writing the end register is what starts the
  // job"). Written while the thread runs, it only moves the end.
  ea_ = &add("CT" + n + "EA", kV3dCtnEa(thread_), Access::kReadWrite, "end address: the byte after the last packet");
  ea_->on_write([this](core::Register&, std::uint64_t, std::uint64_t) {
    if (run_bit()) {
      kick_.notify(sc_core::SC_ZERO_TIME);
    } else {
      start(true);
    }
  });
  ca_ = &add("CT" + n + "CA", kV3dCtnCa(thread_), Access::kReadWrite, "current address (write before EA)");
  ca_->on_write([this](core::Register&, std::uint64_t, std::uint64_t) {
    fetch_line_.invalidate();
    engine_.set_high_water(ca_->value());
  });
  ra0_ =
      &add("CT" + n + "RA0", kV3dCtnRa0(thread_), Access::kReadOnly, "return address of the innermost sub-list call");
  lc_ = &add("CT" + n + "LC", kV3dCtnLc(thread_), Access::kReadWrite, "list counters",
             {{"SLCT", 0, 16, "sub-list returns"}, {"MLCT", 16, 16, "major lists (flushes)"}});
  pc_ = &add("CT" + n + "PC", kV3dCtnPc(thread_), Access::kReadOnly,
             "primitives remaining in the primitive packet being binned");

  SC_HAS_PROCESS(ControlListExecutor);
  SC_THREAD(run);
}

std::string ControlListExecutor::thread_name() const { return thread_ == 0 ? "CT0 (binning)" : "CT1 (rendering)"; }

std::uint32_t ControlListExecutor::cs_value() const {
  std::uint32_t v = thread_ == 0 ? kCtMode : 0;
  if (engine_.state() == State::kError) v |= kCtErr;
  if (!stack_.empty()) v |= kCtSubs;
  if (run_bit()) v |= kCtRun;
  v |= static_cast<std::uint32_t>(stack_.size() & 3) << kCtRtsdShift;
  v |= (services_.semaphore.count() & 7) << kCtSemaShift;
  return v;
}

std::string ControlListExecutor::describe_registers() const {
  return "CT" + std::to_string(thread_) + "CS=" + core::format_hex(cs_value(), 8) +
         " CA=" + core::format_hex(ca_->value(), 8) + " EA=" + core::format_hex(ea_->value(), 8) +
         " RA0=" + core::format_hex(ra0_->value(), 8) + " LC=" + core::format_hex(lc_->value(), 8) +
         " semaphore=" + std::to_string(services_.semaphore.count());
}

// ---- state ----

void ControlListExecutor::start(bool fresh) {
  if (fresh) {
    stack_.clear();
    in_compressed_ = false;
    update_stack_registers();
  }
  waiting_semaphore_ = false;
  fetch_line_.invalidate();
  if (ca_->value() == ea_->value()) {
    // Nothing to execute: the thread stays stopped (a restart still clears CTERR).
    engine_.set_state(State::kStopped);
    return;
  }
  engine_.set_state(State::kRunning);
  if (fresh) {
    ++frames_;
    unit_ctx_.frame = frames_;
    unit_ctx_.track = engine_.track();
    if (core::timeline().enabled()) {
      list_span_.begin(engine_.track(),
                       (thread_ == 0 ? "bin list " : "render list ") + core::format_hex(ca_->value(), 8) + " (frame " +
                           std::to_string(frames_) + ")",
                       engine_.now());
    }
  }
  engine_.progress();
  engine_.set_high_water(ca_->value());
  kick_.notify(sc_core::SC_ZERO_TIME);
}

void ControlListExecutor::stop(State s) {
  engine_.set_state(s);
  waiting_semaphore_ = false;
  kick_.notify(sc_core::SC_ZERO_TIME);  // wakes the thread from a semaphore wait
}

void ControlListExecutor::reset() {
  ++generation_;
  list_span_.end(engine_.now());
  stop(State::kStopped);
  stack_.clear();
  in_compressed_ = false;
  pending_increments_ = 0;
  update_stack_registers();
  services_.semaphore.reset();
  pc_->set(0);
  if (unit_) unit_->thread_reset();
}

void ControlListExecutor::set_ca(std::uint32_t ca) { ca_->set(ca); }

void ControlListExecutor::update_stack_registers() { ra0_->set(stack_.empty() ? 0 : stack_.back()); }

// ---- the thread ----

void ControlListExecutor::run() {
  for (;;) {
    if (!engine_.running()) {
      engine_.time().sync();
      fetch_line_.invalidate();
      sc_core::wait(kick_);
      continue;
    }
    step();
    engine_.time().sync_if_needed();
  }
}

bool ControlListExecutor::fetch(std::uint32_t address, unsigned len, std::uint8_t* out, std::string& reason) {
  const unsigned size = fetch_line_.size();
  for (unsigned i = 0; i < len; ++i) {
    const std::uint64_t a = static_cast<std::uint64_t>(address) + i;
    if (!fetch_line_.holds(a)) {
      const std::uint64_t line = fetch_line_.line_of(a);
      if (!services_.in_dram(a, 1) || !services_.in_dram(line, size)) {
        reason = "address " + core::format_hex(a, 8) + " is outside DRAM";
        return false;
      }
      if (engine_.read(services_.memory, line, fetch_line_.buffer(), size) != tlm::TLM_OK_RESPONSE) {
        fetch_line_.invalidate();
        reason = "the bus refused the read at " + core::format_hex(line, 8);
        return false;
      }
      fetch_line_.filled(line, 0, line);  // vc4 has no MMU: the line's address is physical
    }
    out[i] = *fetch_line_.at(a);
  }
  return true;
}

void ControlListExecutor::step() {
  if (engine_.watchdog_expired()) {
    const bool peer_waiting = waiting_semaphore_ && services_.peer_waiting && services_.peer_waiting();
    if (waiting_semaphore_ && !peer_waiting && services_.peer_running && services_.peer_running()) {
      // Waiting for the other thread, which still works: not a hang of this one (the Linux hangcheck, too, only
      // resets when neither CT0CA nor CT1CA moved, vc4_gem.c vc4_hangcheck_elapsed).
      engine_.progress();
    } else {
      // Both threads waiting on the semaphore: nothing can increment it, neither CA moves (a deadlock).
      declare_hang(peer_waiting ? "deadlock: the other thread waits on the semaphore too, nothing can release it" : "");
      return;
    }
  }
  const auto ca = static_cast<std::uint32_t>(ca_->value());
  const auto ea = static_cast<std::uint32_t>(ea_->value());
  if (in_compressed_) {
    step_compressed(ca, ea);
    return;
  }
  if (ca == ea) {
    finish_at_end();
    return;
  }
  Packet p;
  p.address = ca;
  std::string reason;
  if (!fetch(ca, 1, &p.opcode, reason)) {
    fail(ca, -1, "packet fetch failed: " + reason);
    return;
  }
  const PacketInfo* info = packet_info(p.opcode);
  if (!info) {
    fail(ca, p.opcode, "unknown opcode " + std::to_string(p.opcode));
    return;
  }
  unsigned len = info->length;
  if (len == 0) {
    if (p.opcode == packet::kVgInlinePrimitives) {
      fail(ca, p.opcode,
           "VG_INLINE_PRIMITIVES is not modelled: no available source documents its escape code, so its "
           "length cannot be determined");
      return;
    }
    // Compressed primitive lists: the opcode (and for the clipped form a u32 address word), then entries up to an
    // escape byte, executed entry by entry in step_compressed(). Only the 16-bit-index encodings are modelled
    // (compressed_list.h); Broadcom's debugger gives lengths for the 32-bit x/y forms but no meaning we could check.
    const std::uint8_t format = list_state_.primitive_list_format();
    if (compressed::vertices_of(format) == 0) {
      fail(ca, p.opcode,
           "compressed primitive list in PRIMITIVE_LIST_FORMAT " + core::format_hex(format, 8) +
               " is not modelled (only the 16-bit-index formats 0x10 points, 0x11 lines and 0x12 "
               "triangles)");
      return;
    }
    len = p.opcode == packet::kClippedCompressedPrimitive ? 5 : 1;
  }
  if (ca<ea&& static_cast<std::uint64_t>(ca) + len> ea) {
    fail(ca, p.opcode,
         std::string(info->name) + " (" + std::to_string(len) + " bytes) runs past the end address " +
             core::format_hex(ea, 8));
    return;
  }
  if (!fetch(ca, len, p.bytes.data(), reason)) {
    fail(ca, p.opcode, "packet fetch failed: " + reason);
    return;
  }
  p.length = len;
  const bool jump =
      p.opcode == packet::kBranch || p.opcode == packet::kBranchToSubList || p.opcode == packet::kReturnFromSubList;
  cycles(decode_cycles(len, jump));
  const Outcome outcome = execute(p);
  if (outcome == Outcome::kRetry) return;
  ++packets_;
  bytes_ += len;
  ++list_state_.executed[p.opcode];
  if (outcome == Outcome::kNext) {
    set_ca(ca + len);
    engine_.progress_to(static_cast<std::uint64_t>(ca) + len);
  }
}

void ControlListExecutor::step_compressed(std::uint32_t ca, std::uint32_t ea) {
  if (ca == ea) {
    fail(ca, compressed_opcode_, "compressed primitive list reaches the end address without its escape byte");
    return;
  }
  std::uint8_t b[compressed::kMaxEntryLength] = {};
  std::string reason;
  if (!fetch(ca, 1, b, reason)) {
    fail(ca, compressed_opcode_, "compressed list fetch failed: " + reason);
    return;
  }
  // Entry lengths and meanings: tlm/vc4/compressed_list.h (vc4-gpu-tools, Broadcom's control list debugger).
  const std::uint8_t format = list_state_.primitive_list_format();
  const unsigned len = compressed::entry_length(format, b[0]);
  if (ca<ea&& static_cast<std::uint64_t>(ca) + len> ea) {
    fail(ca, compressed_opcode_,
         "compressed list entry (" + std::to_string(len) + " bytes) runs past the end address " +
             core::format_hex(ea, 8));
    return;
  }
  if (!fetch(ca, len, b, reason)) {
    fail(ca, compressed_opcode_, "compressed list fetch failed: " + reason);
    return;
  }
  cycles(decode_cycles(len, b[0] == compressed::kRelativeBranch));
  bytes_ += len;
  if (b[0] == compressed::kRelativeBranch) {
    const auto offset = static_cast<std::int16_t>(b[1] | b[2] << 8);
    const std::int64_t target = static_cast<std::int64_t>(ca & ~31u) + static_cast<std::int64_t>(offset) * 32;
    if (target < 0 || !services_.in_dram(static_cast<std::uint64_t>(target), 1)) {
      fail(ca, compressed_opcode_,
           "relative branch in a compressed list to " + core::format_hex(static_cast<std::uint64_t>(target), 8) +
               ", outside DRAM");
      return;
    }
    set_ca(static_cast<std::uint32_t>(target));
    return;
  }
  if (b[0] == compressed::kEscape) {
    in_compressed_ = false;
  } else {
    compressed::Primitive prim;
    std::string why;
    if (!compressed::decode(format, b, previous_primitive_, prim, why)) {
      fail(ca, compressed_opcode_,
           "compressed list entry " + core::format_hex(b[0], 8) + " in PRIMITIVE_LIST_FORMAT " +
               core::format_hex(format, 8) + ": " + why);
      return;
    }
    previous_primitive_ = prim;
    if (unit_ && thread_ == 1) {
      unit_generation_ = generation_;
      const UnitResult r = unit_->compressed_primitive(ca, format, prim, unit_ctx_);
      if (r.kind == UnitResult::Kind::kError) {
        fail(ca, compressed_opcode_, r.message);
        return;
      }
    }
  }
  set_ca(ca + len);
  engine_.progress_to(static_cast<std::uint64_t>(ca) + len);
}

ControlListExecutor::Outcome ControlListExecutor::execute(Packet& p) {
  const std::uint8_t op = p.opcode;
  StatePacket& rec = list_state_.last[op];
  rec.seen = true;
  rec.address = p.address;
  rec.length = static_cast<std::uint8_t>(p.length);
  rec.bytes = p.bytes;
  switch (op) {
    case packet::kHalt:
      // HALT stops the thread without an error (the kernel validator, too, stops parsing at HALT: vc4_validate.c).
      // CA is left after the packet.
      set_ca(p.address + 1);
      stop(State::kStopped);
      return Outcome::kStopped;
    case packet::kNop:
      return Outcome::kNext;
    case packet::kIncrementSemaphore:
      increment_semaphore();
      return Outcome::kNext;
    case packet::kWaitOnSemaphore:
      return wait_on_semaphore(p);
    case packet::kBranch:
      return branch(p, false);
    case packet::kBranchToSubList:
      return branch(p, true);
    case packet::kReturnFromSubList:
      return return_from_sub_list(p);
    default:
      break;
  }
  if (op == packet::kCompressedPrimitive || op == packet::kClippedCompressedPrimitive) {
    in_compressed_ = true;
    compressed_opcode_ = op;
    // The relative codings refer to the previous primitive; each list starts from (0, 0, 0) (an assumption:
    // compressed_list.h).
    previous_primitive_ = compressed::Primitive{};
  }
  const Outcome outcome = run_unit(p, rec);
  if (outcome != Outcome::kNext) return outcome;
  if (op == packet::kFlush || op == packet::kFlushAllState) {
    lc_->set((lc_->value() & 0xFFFF) | ((lc_->value() >> 16) + 1) << 16);
    if (thread_ == 0) {
      // The binner has capped every tile list; BFC and FLDONE report it (Linux vc4_irq.c) and the queued
      // semaphore increments take effect (Mesa vc4_job.c).
      engine_.time().sync();  // BFC and FLDONE appear at the thread's local time, not at the start of its quantum
      if (services_.flush_done) services_.flush_done();
      on_binner_flush_complete();
    }
  }
  // End of frame: RFC and FRDONE once the store is done.
  if (ends_frame(rec) && thread_ == 1) {
    engine_.time().sync();  // RFC and FRDONE appear at the thread's local time
    if (services_.frame_done) services_.frame_done();
    on_frame_complete();  // "last tile written": queued increments of the render thread take effect
  }
  return Outcome::kNext;
}

ControlListExecutor::Outcome ControlListExecutor::run_unit(const Packet& p, const StatePacket& rec) {
  const PacketInfo* info = packet_info(p.opcode);
  if (!unit_) {
    if (info->unit != PacketUnit::kCle) without_unit(p, info->unit);
    return Outcome::kNext;
  }
  unit_generation_ = generation_;
  const UnitResult r = unit_->execute(rec, unit_ctx_);
  switch (r.kind) {
    case UnitResult::Kind::kDone:
      return Outcome::kNext;
    case UnitResult::Kind::kIgnored:
      ++not_modelled_;
      if (!ignored_warned_.test(p.opcode)) {
        ignored_warned_.set(p.opcode);
        core::report_guest_warning(name(), thread_name() + ": " + info->name + " at " + core::format_hex(p.address, 8) +
                                               " is not a packet of the " + unit_->unit_name() +
                                               ": skipped (reported once per thread and packet type)");
      }
      return Outcome::kNext;
    case UnitResult::Kind::kError:
      return fail(p.address, p.opcode, r.message);
    case UnitResult::Kind::kHang:
      set_ca(p.address);
      declare_hang(r.message);
      return Outcome::kStopped;
    case UnitResult::Kind::kAborted:
      return Outcome::kStopped;
  }
  return Outcome::kNext;
}

void ControlListExecutor::without_unit(const Packet& p, PacketUnit unit) {
  ++not_modelled_;
  if (warned_.test(p.opcode)) return;
  warned_.set(p.opcode);
  core::report_guest_warning(
      name(), thread_name() + ": " + opcode_name(p.opcode) + " at " + core::format_hex(p.address, 8) + " needs the " +
                  (unit == PacketUnit::kBinner ? "PTB binner" : "tile renderer") +
                  ", which is not attached to this thread: decoded, counted and skipped (reported once per "
                  "thread and packet type)");
}

ControlListExecutor::Outcome ControlListExecutor::branch(const Packet& p, bool sub_list) {
  const std::uint32_t target = p.u32(1);
  if (!services_.in_dram(target, 1)) {
    return fail(p.address, p.opcode,
                std::string(sub_list ? "BRANCH_TO_SUB_LIST" : "BRANCH") + " target " + core::format_hex(target, 8) +
                    " is outside DRAM");
  }
  if (sub_list) {
    if (stack_.size() >= kMaxSubListDepth) {
      return fail(p.address, p.opcode,
                  "BRANCH_TO_SUB_LIST nested deeper than " + std::to_string(kMaxSubListDepth) + " levels");
    }
    stack_.push_back(p.address + p.length);
    update_stack_registers();
  }
  engine_.progress_to(static_cast<std::uint64_t>(p.address) + p.length);
  set_ca(target);
  return Outcome::kJumped;
}

ControlListExecutor::Outcome ControlListExecutor::return_from_sub_list(const Packet& p) {
  if (stack_.empty()) return fail(p.address, p.opcode, "RETURN_FROM_SUB_LIST with an empty return stack");
  const std::uint32_t back = stack_.back();
  stack_.pop_back();
  update_stack_registers();
  lc_->set((lc_->value() & 0xFFFF0000) | ((lc_->value() + 1) & 0xFFFF));
  engine_.progress_to(static_cast<std::uint64_t>(p.address) + p.length);
  set_ca(back);
  return Outcome::kJumped;
}

void ControlListExecutor::increment_semaphore() {
  ++pending_increments_;
  if (!semaphore_increment_waits_for_flush() && !semaphore_increment_waits_for_frame()) apply_semaphore_increments();
}

void ControlListExecutor::on_binner_flush_complete() { apply_semaphore_increments(); }

void ControlListExecutor::on_frame_complete() { apply_semaphore_increments(); }

void ControlListExecutor::apply_semaphore_increments() {
  for (; pending_increments_ > 0; --pending_increments_) {
    if (!services_.semaphore.increment(engine_.delay())) {
      core::report_guest_warning(name(), thread_name() + ": INCREMENT_SEMAPHORE with the semaphore at its maximum (" +
                                             std::to_string(CleSemaphore::kMax) +
                                             ", CTSEMA is 3 bits): increment lost");
    }
  }
}

ControlListExecutor::Outcome ControlListExecutor::wait_on_semaphore(const Packet&) {
  if (services_.semaphore.try_decrement()) {
    waiting_semaphore_ = false;
    engine_.progress();
    return Outcome::kNext;
  }
  if (!waiting_semaphore_) ++semaphore_waits_;
  waiting_semaphore_ = true;
  engine_.time().sync();
  if (!engine_.running()) return Outcome::kRetry;
  // Sleep until the other thread increments the semaphore, software stops this thread, or the hang timeout expires
  // (step() then decides).
  const core::Picoseconds deadline = engine_.watchdog_deadline();
  const core::Picoseconds now = core::now_ps();
  if (deadline > now) sc_core::wait(core::to_sc_time(deadline - now), services_.semaphore.changed() | kick_);
  return Outcome::kRetry;
}

void ControlListExecutor::finish_at_end() {
  // The thread stops when CA reaches EA (guide's CTnEA "byte address after the last record", PeterLemon
  // LIB/V3D.INC; Linux vc4_gem.c submit_cl), which software sees in CTnCS at the thread's local time.
  engine_.time().sync();
  stop(State::kStopped);
  list_span_.end(engine_.now());
  engine_.instant("end of list");
}

ControlListExecutor::Outcome ControlListExecutor::fail(std::uint32_t address, int opcode, const std::string& what) {
  set_ca(address);
  stop(State::kError);
  in_compressed_ = false;
  char op[64];
  if (opcode >= 0) {
    std::snprintf(op, sizeof op, "opcode %d (%s)", opcode, opcode_name(opcode));
  } else {
    std::snprintf(op, sizeof op, "no opcode fetched");
  }
  const std::string message =
      thread_name() + ": " + what + "; thread stopped with CTERR at " + core::format_hex(address, 8) + ", " + op;
  list_span_.end(engine_.now());
  engine_.instant("error");
  engine_.record_error(message);
  return Outcome::kStopped;
}

void ControlListExecutor::declare_hang(const std::string& cause) {
  const std::string report = thread_name() + " hung: no progress for " + std::to_string(params_.hang_timeout_ns) +
                             " ns" + (waiting_semaphore_ ? " (waiting on the semaphore)" : "") +
                             (cause.empty() ? "" : " (" + cause + ")") + "; " + describe_registers() +
                             "; write CTRSTA to reset the thread";
  engine_.set_state(State::kHung);
  list_span_.end(engine_.now());
  engine_.instant("hang");
  engine_.record_hang(report);
}

}  // namespace gpuvp::vc4
