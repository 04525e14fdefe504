// GT interrupt banks and the Gen8 master interrupt control.
//
// Sources (LNX = torvalds/linux; each fact below was read in the named file):
//  - Register offsets and bits, LNX drivers/gpu/drm/i915/i915_reg.h:
//      GEN8_MASTER_IRQ 0x44200; GEN8_MASTER_IRQ_CONTROL bit 31; GEN8_GT_RCS_IRQ bit 0, GEN8_GT_BCS_IRQ bit 1,
//      GEN8_GT_VCS0_IRQ bit 2 ("NB: VCS1 in bspec!"), GEN8_GT_VCS1_IRQ bit 3 ("VCS2 in bspec"), GEN8_GT_PM_IRQ bit 4,
//      GEN8_GT_GUC_IRQ bit 5, GEN8_GT_VECS_IRQ bit 6 (display bits 16-23 and PCU bit 30 are not modelled here);
//      GEN8_GT_ISR/IMR/IIR/IER(n) = 0x44300/0x44304/0x44308/0x4430c + 0x10 * n;
//      GEN8_RCS_IRQ_SHIFT 0, GEN8_BCS_IRQ_SHIFT 16, GEN8_VCS0_IRQ_SHIFT 0, GEN8_VCS1_IRQ_SHIFT 16,
//      GEN8_VECS_IRQ_SHIFT 0.
//  - Per-engine event bits, LNX i915_reg.h / gt/intel_gt_regs.h: GT_RENDER_USER_INTERRUPT 1<<0,
//    GT_CS_MASTER_ERROR_INTERRUPT 1<<3, GT_CONTEXT_SWITCH_INTERRUPT 1<<8, GT_WAIT_SEMAPHORE_INTERRUPT 1<<11
//    (the four bits gen8_gt_irq_postinstall enables, LNX gt/intel_gt_irq.c).
//  - Driver sequence, LNX drivers/gpu/drm/i915/i915_irq.c gen8_irq_handler / gen8_master_intr_disable /
//    gen8_master_intr_enable: write 0 to GEN8_MASTER_IRQ, then read it ("with master disabled, get a sample of
//    level indications ... Indications will be cleared on related acks"), so the pending bits read back even with
//    the master enable off; then LNX gt/intel_gt_irq.c gen8_gt_irq_handler: for each master bit pair read
//    GEN8_GT_IIR(n) and write the value read back to it (bank 0 for RCS|BCS, 1 for VCS0|VCS1, 3 for VECS,
//    2 for PM|GUC with the GuC half at IIR(2) >> 16); finally write GEN8_MASTER_IRQ_CONTROL.
//    gen8_gt_irq_postinstall: IER/IMR of banks 0, 1, 3 = the four engine bits at each engine's shift; bank 2 stays
//    masked (RPS and GuC enable it on demand).
//  - Emulation semantics, LNX drivers/gpu/drm/i915/gvt/interrupt.c:
//      propagate_event: the IIR bit is set only if the same IMR bit is clear (IMR gates latching; IER does not);
//      intel_vgpu_reg_iir_handler: IIR &= ~written (write one to clear), then the master's pending bits follow;
//      intel_vgpu_reg_imr_handler: IMR is plain storage (does not clear IIR);
//      intel_vgpu_reg_master_irq_handler: "only bit 31 is allowed to be modified";
//      update_upstream_irq + gen8_irq_map: master bit = (IIR & IER) of GT0 15:0 -> 0, GT0 31:16 -> 1,
//        GT1 15:0 -> 2, GT1 31:16 -> 3, GT2 15:0 -> 4, GT3 15:0 -> 6;
//      gen8_check_pending_irq: nothing is delivered while GEN8_MASTER_IRQ_CONTROL is clear; otherwise an interrupt
//        is injected when any master bit other than 31 is set.
//    LNX gvt/handlers.c init_bdw_mmio_info: GEN8_GT_ISR(n) is a plain MMIO_D register that no event updates.
//
// Choices where the sources do not settle the question (also in docs/gen-interrupts.md):
//  - Master bit 5 (GuC) = (IIR & IER) of bank 2 bits 31:16. GVT's map has no bit 5 (it does not support GuC); the
//    mapping is inferred from i915 reading IIR(2) for GEN8_GT_PM_IRQ | GEN8_GT_GUC_IRQ and passing iir >> 16 to the
//    GuC handler. Bank 3 bits 31:16 feed no master bit (as in GVT's map).
//  - The master pending bits are computed live from IIR & IER on every read (GVT updates a stored copy at the same
//    moments: event, IIR/IER writes), and they read back whether or not the master enable is set, as i915's
//    "sample of level indications" read with the master disabled requires.
//  - ISR is read-only and reads 0: the engine events are pulses, which a transaction-level model cannot show as a
//    live level between two accesses; GVT never sets it either.
//  - IMR resets to 0xFFFFFFFF (everything masked, the state i915's GEN3_IRQ_RESET leaves), IER and IIR to 0. The
//    hardware reset values were not found in the sources.
//  - IIR holds one level per bit; i915's "IIR can theoretically queue up two events" (double-buffered IIR) is not
//    modelled.
//  - No source bypasses the banks: a GTT fault has no GT interrupt on Gen8/9 (see Gtt::record_fault), so the host line
//    is master enable && pending_sources() and nothing else.
#include "tlm/gen/gt_interrupts.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace gpuvp::gen {

namespace {
constexpr std::uint32_t kLowHalf = 0x0000'FFFF, kHighHalf = 0xFFFF'0000;

// GEN8_MASTER_IRQ pending bits fed by each bank's low and high half (0 = none).
struct HalfToMaster {
  std::uint32_t low, high;
};
constexpr HalfToMaster kMasterBits[GtInterruptRegs::kBanks] = {
    {GtInterruptRegs::kMasterRcs, GtInterruptRegs::kMasterBcs},
    {GtInterruptRegs::kMasterVcs0, GtInterruptRegs::kMasterVcs1},
    {GtInterruptRegs::kMasterPm, GtInterruptRegs::kMasterGuc},  // GuC: inferred, see above
    {GtInterruptRegs::kMasterVecs, 0},
};
}  // namespace

GtInterrupts::GtInterrupts(core::RegisterBank& bar, core::InterruptLine& host_irq, const std::string& stats_path)
    : bar_(bar), host_irq_(host_irq), stats_(stats_path) {
  const std::vector<core::RegisterField> engine_fields = {
      {"user_interrupt", 0, 1, "GT_RENDER_USER_INTERRUPT (MI_USER_INTERRUPT)"},
      {"cs_error", 3, 1, "GT_CS_MASTER_ERROR_INTERRUPT"},
      {"context_switch", 8, 1, "GT_CONTEXT_SWITCH_INTERRUPT (CSB write)"},
      {"wait_on_semaphore", 11, 1, "GT_WAIT_SEMAPHORE_INTERRUPT"},
  };
  const char* const bank_use[kBanks] = {"RCS 15:0, BCS 31:16", "VCS0 15:0, VCS1 31:16", "PM 15:0, GuC 31:16",
                                        "VECS 15:0"};

  core::RegisterDef master;
  master.name = "GEN8_MASTER_IRQ";
  master.offset = kMasterIrq;
  master.access = core::Access::kReadWrite;
  master.writable_mask = kMasterEnable;  // GVT: only bit 31 may be modified
  master.description = "Master interrupt control: bit 31 enable (SW); bits 6:0 GT sources pending (IIR & IER, HW)";
  master.fields = {{"rcs", 0, 1, "GT0 15:0"},  {"bcs", 1, 1, "GT0 31:16"},
                   {"vcs0", 2, 1, "GT1 15:0"}, {"vcs1", 3, 1, "GT1 31:16"},
                   {"pm", 4, 1, "GT2 15:0"},   {"guc", 5, 1, "GT2 31:16"},
                   {"vecs", 6, 1, "GT3 15:0"}, {"control", 31, 1, "master interrupt enable"}};
  master_ = &bar_.add(master);
  master_->on_read([this](core::Register&, std::uint64_t stored) { return stored | pending_sources(); });
  master_->on_write([this](core::Register&, std::uint64_t, std::uint64_t) { update(); });

  for (int n = 0; n < kBanks; ++n) {
    const std::uint32_t base = kGtIsrBase + kBankStride * static_cast<std::uint32_t>(n);
    const std::string suffix = "(" + std::to_string(n) + ")";
    const std::string use = std::string(" [") + bank_use[n] + "]";
    auto def = [&](const char* name, std::uint32_t offset, std::uint64_t reset, core::Access access,
                   const std::string& description) {
      core::RegisterDef d;
      d.name = std::string(name) + suffix;
      d.offset = base + offset;
      d.reset = reset;
      d.access = access;
      d.description = description + use;
      if (n != kGucBank) {
        d.fields = engine_fields;
      } else {
        d.fields = {{"guc2host", 31, 1, "GUC_INTR_GUC2HOST: the GuC posted an event (SOFT_SCRATCH(15), CT buffer)"}};
      }
      return d;
    };
    isr_[n] = &bar_.add(def("GEN8_GT_ISR", kIsr, 0, core::Access::kReadOnly,
                            "Interrupt status (live level; engine events are pulses and read 0)"));
    imr_[n] = &bar_.add(def("GEN8_GT_IMR", kImr, 0xFFFF'FFFF, core::Access::kReadWrite,
                            "Interrupt mask: a set bit keeps the event out of IIR"));
    iir_[n] = &bar_.add(def("GEN8_GT_IIR", kIir, 0, core::Access::kWriteOneToClear,
                            "Interrupt identity: latched unmasked events, write 1 to clear"));
    ier_[n] = &bar_.add(def("GEN8_GT_IER", kIer, 0, core::Access::kReadWrite,
                            "Interrupt enable: IIR bits that reach GEN8_MASTER_IRQ and the host line"));
    auto reevaluate = [this](core::Register&, std::uint64_t, std::uint64_t) { update(); };
    imr_[n]->on_write(reevaluate);
    iir_[n]->on_write(reevaluate);
    ier_[n]->on_write(reevaluate);
  }

  for (int e = 0; e < kEngineCount; ++e) {
    const char* name = to_string(static_cast<Engine>(e));
    events_[static_cast<std::size_t>(e)] = &stats_.subgroup(name).counter(
        "events", "events",
        std::string("interrupt events reported by ") + name + " (masked or not, steered to the GuC or not)");
  }
}

std::uint32_t GtInterrupts::pending_sources() const {
  std::uint32_t pending = 0;
  for (int n = 0; n < kBanks; ++n) {
    const auto active = static_cast<std::uint32_t>(iir_[n]->value() & ier_[n]->value());
    if (active & kLowHalf) pending |= kMasterBits[n].low;
    if (active & kHighHalf) pending |= kMasterBits[n].high;
  }
  return pending;
}

void GtInterrupts::raise(Engine engine, std::uint32_t bits) {
  bits &= kLowHalf;  // an engine owns 16 bits of its bank
  if (bits == 0) return;
  ++*events_[static_cast<std::size_t>(engine)];
  if (router_) bits &= ~router_(engine, bits);
  if (bits == 0) return;
  const int n = bank_of(engine);
  const std::uint64_t field = static_cast<std::uint64_t>(bits) << shift_of(engine);
  iir_[n]->set_bits(field & ~imr_[n]->value());
  update();
}

void GtInterrupts::raise_bank(int bank, std::uint32_t bits) {
  if (bank < 0 || bank >= kBanks) throw std::out_of_range("GtInterrupts: no GT bank " + std::to_string(bank));
  const auto n = static_cast<std::size_t>(bank);
  iir_[n]->set_bits(bits & ~imr_[n]->value());
  update();
}

std::uint32_t GtInterrupts::iir(int bank) const {
  if (bank < 0 || bank >= kBanks) throw std::out_of_range("GtInterrupts: no GT bank " + std::to_string(bank));
  return static_cast<std::uint32_t>(iir_[static_cast<std::size_t>(bank)]->value());
}

void GtInterrupts::update() {
  const bool enabled = (master_->value() & kMasterEnable) != 0;
  host_irq_.set(enabled && pending_sources() != 0);
}

}  // namespace gpuvp::gen
