// GT interrupt registers of Gen8/Gen9 and the master interrupt control: engines report events (user interrupt,
// context switch, CS error, semaphore wait) and the block drives the GPU's interrupt line to the host, exactly as
// i915's gen8 interrupt handler and GVT-g's emulation expect (i915 i915_reg.h, i915_irq.c gen8_irq_handler,
// gt/intel_gt_irq.c; GVT-g gvt/interrupt.c; docs/gen-interrupts.md).
//
// Banks GEN8_GT_ISR/IMR/IIR/IER(n) at 0x44300 + 0x10n (+0 ISR, +4 IMR, +8 IIR, +0xC IER):
//   bank 0: RCS bits 15:0, BCS bits 31:16; bank 1: VCS0 15:0, VCS1 31:16; bank 2: PM/GuC; bank 3: VECS 15:0.
// Per-engine event bits: 0 user interrupt, 3 CS master error, 4 PIPE_CONTROL / MI_FLUSH_DW notify, 8 context switch,
// 11 wait on semaphore.
// GEN8_MASTER_IRQ 0x44200: bit 31 master enable (software), bits 0-6 which GT sources are pending (hardware).
// The host line is exactly: master enable && any GT master bit (a bank half's IIR & IER). Nothing else drives it: every
// source of the GPU reaches the host through a bank (i915 i915_irq.c gen8_irq_handler reads GEN8_MASTER_IRQ and
// gt/intel_gt_irq.c gen8_gt_irq_handler the banks it names; no other GT source exists for it).
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "tlm/core/interrupt_line.h"
#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"

namespace gpuvp::gen {

enum class Engine : std::uint8_t { kRcs, kBcs, kVcs0, kVcs1, kVecs };
constexpr int kEngineCount = 5;
const char* to_string(Engine e);

class GtInterrupts {
 public:
  static constexpr std::uint32_t kMasterIrq = 0x44200;
  static constexpr std::uint32_t kGtIsrBase = 0x44300;  // + 0x10 * bank
  static constexpr std::uint32_t kMasterEnable = 1u << 31;

  static constexpr std::uint32_t kUserInterrupt = 1u << 0;
  static constexpr std::uint32_t kCsError = 1u << 3;
  // PIPE_CONTROL notify (render) / MI_FLUSH_DW notify (other engines): GVT gen8_init_irq RCS_PIPE_CONTROL bit 4,
  // BCS_MI_FLUSH_DW bit 20, VCS_MI_FLUSH_DW bit 4 (i915 gen6 GT_RENDER_PIPECTL_NOTIFY_INTERRUPT 1 << 4).
  static constexpr std::uint32_t kFlushNotify = 1u << 4;
  static constexpr std::uint32_t kContextSwitch = 1u << 8;
  static constexpr std::uint32_t kWaitOnSemaphore = 1u << 11;
  // Bank 2, GuC half (bits 31:16): i915 GUC_INTR_GUC2HOST (bit 15 of the GuC's 16-bit vector) << 16.
  static constexpr int kGucBank = 2;
  static constexpr std::uint32_t kGucToHost = 1u << 31;

  // Takes the engine event bits steered elsewhere (to the GuC) and returns them; the rest reach the host banks.
  using Router = std::function<std::uint32_t(Engine, std::uint32_t bits)>;

  // Declares the registers in the BAR's bank; drives host_irq.
  GtInterrupts(core::RegisterBank& bar, core::InterruptLine& host_irq, const std::string& stats_prefix);

  // An engine event (one or more of the bits above): latched into IIR unless masked (IMR), counted, and the host
  // line re-evaluated.
  void raise(Engine engine, std::uint32_t bits);
  // Engine events first offered to the router (i915 guc_interrupts_capture: GFX_INTERRUPT_STEERING and the GuC's
  // IER registers decide which events the GuC takes instead of the host).
  void set_router(Router router) { router_ = std::move(router); }
  // A non-engine event of a bank (bank 2: the GuC-to-host interrupt), latched into IIR unless masked.
  void raise_bank(int bank, std::uint32_t bits);

  // Bank and shift of an engine's 16-bit field.
  static int bank_of(Engine e);
  static int shift_of(Engine e);
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
  std::array<core::Counter*, kEngineCount> events_{};
};

}  // namespace gpuvp::gen
