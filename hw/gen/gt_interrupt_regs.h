// GT interrupt registers of Gen8/Gen9 and the master interrupt control (i915 i915_reg.h GEN8_MASTER_IRQ,
// GEN8_GT_ISR/IMR/IIR/IER, GEN8_*_IRQ_SHIFT, gt/intel_gt_regs.h GT_*_INTERRUPT; docs/gen-interrupts.md).
//
// Banks GEN8_GT_ISR/IMR/IIR/IER(n) at 0x44300 + 0x10n (+0 ISR, +4 IMR, +8 IIR, +0xC IER):
//   bank 0: RCS bits 15:0, BCS bits 31:16; bank 1: VCS0 15:0, VCS1 31:16; bank 2: PM/GuC; bank 3: VECS 15:0.
// Per-engine event bits: 0 user interrupt, 3 CS master error, 4 PIPE_CONTROL / MI_FLUSH_DW notify, 8 context switch,
// 11 wait on semaphore.
// GEN8_MASTER_IRQ 0x44200: bit 31 master enable (software), bits 0-6 which GT sources are pending (hardware).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "hw/gen/engines.h"

namespace gpuvp::gen {

struct GtInterruptRegs {
  static constexpr std::uint32_t kMasterIrq = 0x44200;
  static constexpr std::uint32_t kMasterEnable = 1u << 31;  // GEN8_MASTER_IRQ_CONTROL
  // GEN8_MASTER_IRQ pending bits (GEN8_GT_*_IRQ).
  static constexpr std::uint32_t kMasterRcs = 1u << 0;
  static constexpr std::uint32_t kMasterBcs = 1u << 1;
  static constexpr std::uint32_t kMasterVcs0 = 1u << 2;
  static constexpr std::uint32_t kMasterVcs1 = 1u << 3;
  static constexpr std::uint32_t kMasterPm = 1u << 4;
  static constexpr std::uint32_t kMasterGuc = 1u << 5;
  static constexpr std::uint32_t kMasterVecs = 1u << 6;

  static constexpr std::uint32_t kGtIsrBase = 0x44300;  // + 0x10 * bank
  static constexpr std::uint32_t kBankStride = 0x10;
  static constexpr int kBanks = 4;
  static constexpr std::uint32_t kIsr = 0x0, kImr = 0x4, kIir = 0x8, kIer = 0xC;
  // GEN8_GT_ISR/IMR/IIR/IER(bank): reg is kIsr, kImr, kIir or kIer.
  static constexpr std::uint32_t bank_register(int bank, std::uint32_t reg) {
    return kGtIsrBase + kBankStride * static_cast<std::uint32_t>(bank) + reg;
  }

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

  // Bank and shift of an engine's 16-bit field (GEN8_*_IRQ_SHIFT).
  static constexpr int bank_of(Engine e) {
    switch (e) {
      case Engine::kRcs:
      case Engine::kBcs:
        return 0;
      case Engine::kVcs0:
      case Engine::kVcs1:
        return 1;
      case Engine::kVecs:
        return 3;
    }
    throw std::invalid_argument("GtInterrupts: unknown engine");
  }
  static constexpr int shift_of(Engine e) {
    switch (e) {
      case Engine::kRcs:
        return 0;  // GEN8_RCS_IRQ_SHIFT
      case Engine::kBcs:
        return 16;  // GEN8_BCS_IRQ_SHIFT
      case Engine::kVcs0:
        return 0;  // GEN8_VCS0_IRQ_SHIFT
      case Engine::kVcs1:
        return 16;  // GEN8_VCS1_IRQ_SHIFT
      case Engine::kVecs:
        return 0;  // GEN8_VECS_IRQ_SHIFT
    }
    throw std::invalid_argument("GtInterrupts: unknown engine");
  }
};

}  // namespace gpuvp::gen
