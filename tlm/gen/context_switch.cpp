#include "tlm/gen/context_switch.h"

#include <utility>

#include "hw/gen/engine_regs.h"
#include "hw/gen/engines.h"
#include "tlm/core/report.h"
#include "tlm/core/timeline.h"

namespace gpuvp::gen {

namespace er = engine_reg;

ContextSwitch::ContextSwitch(ContextSwitchEngine& engine, const EngineInfo& info, core::RegisterBank& bar,
                             GtInterrupts& interrupts, std::uint32_t restore_cycles, std::uint32_t save_cycles,
                             const std::string& reg_prefix, core::StatsGroup stats)
    : engine_(engine),
      info_(info),
      bar_(bar),
      interrupts_(interrupts),
      restore_cycles_(restore_cycles),
      save_cycles_(save_cycles),
      stats_(std::move(stats)),
      execlists_(bar, info.mmio_base, reg_prefix, stats_,
                 Execlists::Hooks{[this](const ContextDescriptor& e0, const ContextDescriptor& e1) {
                                    // A submission waits for the engine thread: at once when idle, else at an
                                    // arbitration point.
                                    pending_ = std::array<ContextDescriptor, 2>{e0, e1};
                                    submitted_ps_ = core::now_ps();
                                    engine_.kick();
                                  },
                                  [this](std::uint32_t dword, std::uint32_t value) {
                                    engine_.access(engine_.status_page() + 4ULL * dword, AddressSpace::kGgtt, &value, 4,
                                                   true);
                                  },
                                  [this] { interrupts_.raise(info_.id, GtInterrupts::kContextSwitch); }}),
      ctx_timestamp_(&bar.add({reg_prefix + "CTX_TIMESTAMP",
                               info.mmio_base + er::kCtxTimestamp,
                               32,
                               0,
                               core::Access::kReadWrite,
                               "context timestamp: advances only while the context runs",
                               {}})),
      context_switches_(stats_.counter("context_switches", "events",
                                       "contexts loaded from their context image (lite restores not counted)")),
      forced_restores_(
          stats_.counter("forced_restores", "events", "same-context resubmissions reloaded in full (FORCE_RESTORE)")),
      forced_pd_restores_(
          stats_.counter("forced_pd_restores", "events", "lite restores that reloaded the PDPs (FORCE_PD_RESTORE)")),
      submit_to_start_ps_(
          stats_.histogram("submit_to_start_ps", "ps", "ELSP submission to the submitted context running")) {
  ctx_timestamp_->on_read([this](core::Register&, std::uint64_t) { return context_timestamp() & 0xFFFFFFFF; });
}

std::optional<std::uint32_t> ContextSwitch::running_context() const {
  if (!running_) return std::nullopt;
  return elements_[current_element_].context_id();
}

void ContextSwitch::reset() {
  execlists_.reset();
  running_ = false;
  pending_.reset();
  elements_ = {};
  arbitration_enabled_ = false;
}

void ContextSwitch::schedule() {
  if (engine_.halted()) return;
  if (running_ && engine_.out_of_work()) complete_context();
  if (!running_ && pending_) start_pending();
}

void ContextSwitch::write_csb(std::uint32_t status, std::uint32_t context_id) {
  // The entry, its status-page mirror and the context-switch interrupt appear at the engine's local time (the GuC or
  // the host reads them at once).
  if (!engine_.sync_for_effect()) return;
  execlists_.write_status(status, context_id);
}

void ContextSwitch::start_pending() {
  const auto elements = *pending_;
  pending_.reset();
  // GVT-g's checks on a submission (gvt/execlist.c intel_vgpu_submit_execlist).
  if (!elements[0].valid()) {
    engine_.fail(nullptr, "ELSP submission with element 0 not valid");
    return;
  }
  for (const auto& e : elements) {
    if (e.valid() && !e.privilege()) {
      engine_.fail(nullptr,
                   "ELSP element with context ID " + core::format_hex(e.context_id()) + " lacks the privilege bit");
      return;
    }
  }
  elements_ = elements;
  if (!elements_[1].valid()) elements_[1] = ContextDescriptor{};
  current_element_ = 0;
  write_csb(Execlists::kIdleToActive, 0);
  restore_context(elements_[0]);
}

bool ContextSwitch::restore_context(const ContextDescriptor& desc) {
  ++context_switches_;
  engine_.cycles(restore_cycles_);
  const std::uint64_t state_page = desc.lrca() + 4096;  // LRCA is the context's status page; registers follow
  image_.assign(1024, 0);
  if (!engine_.access(state_page, AddressSpace::kGgtt, image_.data(), 4096, false)) return false;
  image_layout_ = parse_context_image(image_.data(), image_.size());
  const std::string context =
      "context " + core::format_hex(desc.context_id()) + " (LRCA " + core::format_hex(desc.lrca()) + ")";
  if (!image_layout_.error.empty()) {
    engine_.fail(nullptr, context + ": " + image_layout_.error);
    return false;
  }
  if (desc.addressing_mode() != 1 && desc.addressing_mode() != 3) {
    engine_.fail(nullptr, context + ": addressing mode " + std::to_string(desc.addressing_mode()) +
                              " (advanced context) is not modelled");
    return false;
  }
  engine_.end_batch_spans();
  engine_.drop_batches();
  for (const auto& slot : image_layout_.slots) {
    // A context image is the hardware's own save format: its restore also loads registers that MMIO cannot write
    // (NEO's images fill a register list with NOP ID, 0x2094: compute-runtime aub_mem_dump.cpp).
    core::Register* reg = bar_.find(slot.offset);
    if (reg && reg->def().access == core::Access::kReadOnly && reg->size_bytes() == 4 && slot.byte_disables == 0) {
      reg->set(image_[slot.dword]);
      continue;
    }
    if (!engine_.reg_write(slot.offset, image_[slot.dword], ~slot.byte_disables & 0xF)) return false;
  }
  // The descriptor's addressing mode selects the PPGTT layout; the PDPs came from the image.
  engine_.load_ppgtt(desc.addressing_mode() == 3 ? PpgttMode::k48Bit : PpgttMode::kLegacy32);
  if (!engine_.restore_pipe_state(desc.lrca())) return false;
  batches_from_registers();
  running_ = true;
  started_ps_ = engine_.local_time();
  if (desc.raw == elements_[0].raw && current_element_ == 0 && started_ps_ >= submitted_ps_) {
    submit_to_start_ps_.sample(started_ps_ - submitted_ps_);
  }
  update_status();
  return true;
}

void ContextSwitch::batches_to_registers() {
  // Level 0's address is where it resumes (the command after a second-level call while level 1 runs).
  const std::vector<BatchLevel>& batches = engine_.batches();
  for (std::size_t n = 0; n < 2; ++n) {
    const ContextSwitchEngine::BatchRegisters r = engine_.batch_registers(n);
    if (n < batches.size()) {
      r.address->set(batches[n].address & 0xFFFFFFFF);
      r.address_udw->set(batches[n].address >> 32);
      r.state->set((batches[n].space == AddressSpace::kPpgtt ? er::kBbStatePpgtt : 0) | er::kBbStateActive);
    } else {
      r.state->set(r.state->value() & ~std::uint64_t{er::kBbStateActive});
    }
  }
}

void ContextSwitch::batches_from_registers() {
  // The second level counts only inside an active first level.
  for (std::size_t n = 0; n < 2; ++n) {
    const ContextSwitchEngine::BatchRegisters r = engine_.batch_registers(n);
    if (!(r.state->value() & er::kBbStateActive)) return;
    engine_.resume_batch(r.address_udw->value() << 32 | r.address->value(),
                         (r.state->value() & er::kBbStatePpgtt) ? AddressSpace::kPpgtt : AddressSpace::kGgtt);
  }
}

std::uint64_t ContextSwitch::context_timestamp() const {
  std::uint64_t ticks = ctx_timestamp_->value();
  if (running_) {
    const unsigned __int128 ps = engine_.local_time() - started_ps_;
    const std::uint64_t hz = engine_.generation() == 8 ? 12'500'000 : 12'000'000;
    ticks += static_cast<std::uint64_t>(ps * hz / 1'000'000'000'000ULL);
  }
  return ticks & 0xFFFFFFFF;
}

void ContextSwitch::save_context() {
  const ContextDescriptor& desc = elements_[current_element_];
  const core::Picoseconds now = engine_.local_time();
  if (core::timeline().enabled()) {
    core::timeline().span(engine_.track(), ("ctx " + core::format_hex(desc.context_id())).c_str(), started_ps_,
                          now - started_ps_);
  }
  ctx_timestamp_->set(context_timestamp());
  started_ps_ = now;
  engine_.end_batch_spans();
  batches_to_registers();
  engine_.cycles(save_cycles_);
  for (const auto& slot : image_layout_.slots) {
    std::uint32_t value = 0;
    if (!engine_.reg_read(slot.offset, value)) return;
    if (is_masked_context_register(slot.offset - info_.mmio_base)) value = 0xFFFF0000u | (value & 0xFFFF);
    image_[slot.dword] = value;
  }
  if (!engine_.access(desc.lrca() + 4096, AddressSpace::kGgtt, image_.data(), 4096, true)) return;
  engine_.save_pipe_state(desc.lrca());
}

void ContextSwitch::complete_context() {
  const ContextDescriptor done = elements_[current_element_];
  save_context();
  if (current_element_ == 0 && elements_[1].valid()) {
    write_csb(Execlists::kComplete | Execlists::kElementSwitch, done.context_id());
    current_element_ = 1;
    restore_context(elements_[1]);
    return;
  }
  running_ = false;
  write_csb(Execlists::kComplete | Execlists::kActiveToIdle, done.context_id());
  update_status();
}

void ContextSwitch::preempt() {
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
      if (!engine_.access(running.lrca() + 4096 + 4ULL * slot.dword, AddressSpace::kGgtt, &value, 4, false)) return;
      if (!engine_.reg_write(slot.offset, value, 0xF)) return;
    }
    if (reload_pdps) {
      ++forced_pd_restores_;
      engine_.load_ppgtt(next[0].addressing_mode() == 3 ? PpgttMode::k48Bit : PpgttMode::kLegacy32);
    }
    update_status();
    return;
  }
  if (same_context) {
    ++forced_restores_;
    running_ = false;
  } else {
    save_context();
  }
  write_csb(Execlists::kPreempted, running.context_id());
  pending_.reset();
  if (!next[0].valid()) {
    engine_.fail(nullptr, "ELSP submission with element 0 not valid");
    return;
  }
  elements_ = next;
  if (!elements_[1].valid()) elements_[1] = ContextDescriptor{};
  current_element_ = 0;
  restore_context(elements_[0]);
}

void ContextSwitch::update_status() {
  execlists_.set_status(elements_[0].valid(), elements_[1].valid(), running_ && current_element_ == 0,
                        running_ && current_element_ == 1, running_ ? elements_[current_element_].context_id() : 0);
}

}  // namespace gpuvp::gen
