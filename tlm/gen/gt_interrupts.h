// GT interrupt registers of Gen8/Gen9 and the master interrupt control: engines report events (user interrupt,
// context switch, CS error, semaphore wait) and the block drives the GPU's interrupt line to the host, exactly as
// i915's gen8 interrupt handler and GVT-g's emulation expect (i915 i915_reg.h, i915_irq.c gen8_irq_handler,
// gt/intel_gt_irq.c; GVT-g gvt/interrupt.c; docs/gen-interrupts.md). The register layout and bits are
// hw/gen/gt_interrupt_regs.h.
// The host line is exactly: master enable && any GT master bit (a bank half's IIR & IER). Nothing else drives it: every
// source of the GPU reaches the host through a bank (i915 i915_irq.c gen8_irq_handler reads GEN8_MASTER_IRQ and
// gt/intel_gt_irq.c gen8_gt_irq_handler the banks it names; no other GT source exists for it).
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "hw/gen/engines.h"
#include "hw/gen/gt_interrupt_regs.h"
#include "tlm/core/interrupt_line.h"
#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"

namespace gpuvp::gen {

class GtInterrupts : public GtInterruptRegs {
 public:
  // Takes the engine event bits steered elsewhere (to the GuC) and returns them; the rest reach the host banks.
  using Router = std::function<std::uint32_t(Engine, std::uint32_t bits)>;

  // Declares the registers in the BAR's bank; drives host_irq. stats_path is the GPU's (gpuvp.gen): each engine's
  // events count in the engine's group (gpuvp.gen.rcs.events).
  GtInterrupts(core::RegisterBank& bar, core::InterruptLine& host_irq, const std::string& stats_path);

  // An engine event (one or more of the bits above): latched into IIR unless masked (IMR), counted, and the host
  // line re-evaluated.
  void raise(Engine engine, std::uint32_t bits);
  // Engine events first offered to the router (i915 guc_interrupts_capture: GFX_INTERRUPT_STEERING and the GuC's
  // IER registers decide which events the GuC takes instead of the host).
  void set_router(Router router) { router_ = std::move(router); }
  // A non-engine event of a bank (bank 2: the GuC-to-host interrupt), latched into IIR unless masked.
  void raise_bank(int bank, std::uint32_t bits);

  std::uint32_t iir(int bank) const;

 private:
  void update();
  // GEN8_MASTER_IRQ bits 6:0 computed from each bank's IIR & IER.
  std::uint32_t pending_sources() const;
  // ... implementation state (banks' registers, counters) is private to the .cpp's needs.
  core::RegisterBank& bar_;
  core::InterruptLine& host_irq_;
  std::array<core::Register*, 4> isr_{}, imr_{}, iir_{}, ier_{};
  core::Register* master_ = nullptr;
  Router router_;
  core::StatsGroup stats_;
  std::array<core::Counter*, kEngineCount> events_{};
};

}  // namespace gpuvp::gen
