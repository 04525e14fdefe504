// The GuC as the host driver sees it, beyond the GuC registers of firmware/guc/guc_abi.h (plain C, shared with the
// freestanding firmware, which cannot include these headers): the GuC engine ids of the engines, GEN9_GT_PM_CONFIG,
// and compile-time checks that the firmware's C copies of engine, execlist and interrupt facts agree with the
// definitions here. Facts: docs/gen-guc.md; i915 gt/uc/intel_guc_reg.h, intel_guc_fwif.h.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "firmware/guc/guc_abi.h"
#include "hw/gen/engine_regs.h"
#include "hw/gen/engines.h"
#include "hw/gen/execlist_regs.h"
#include "hw/gen/gt_interrupt_regs.h"

namespace gpuvp::gen {

// GEN9_GT_PM_CONFIG (i915 intel_guc_reg.h): bit 0 GT_DOORBELL_ENABLE; the GuC load sequence sets it.
constexpr std::uint32_t kGtPmConfig = 0x13816C;
constexpr std::uint32_t kGtDoorbellEnable = 1u << 0;

// The GuC's id of an engine (i915 intel_guc_fwif.h GUC_RENDER_ENGINE ...): work item targets, engine presence masks.
constexpr std::uint32_t guc_engine_id(Engine engine) {
  switch (engine) {
    case Engine::kRcs:
      return GUC_RENDER_ENGINE;
    case Engine::kVcs0:
      return GUC_VIDEO_ENGINE;
    case Engine::kBcs:
      return GUC_BLITTER_ENGINE;
    case Engine::kVecs:
      return GUC_VIDEOENHANCE_ENGINE;
    case Engine::kVcs1:
      return GUC_VIDEO_ENGINE2;
  }
  throw std::invalid_argument("Guc: unknown engine");
}

// The firmware's copies (guc_abi.h) must say what these headers say.
namespace guc_abi_check {
constexpr std::uint32_t kFirmwareEngineBases[] = GUC_ENGINE_BASES;  // indexed by GuC engine id
constexpr bool engine_bases_agree() {
  for (const EngineInfo& e : kEngines) {
    if (kFirmwareEngineBases[guc_engine_id(e.id)] != e.mmio_base) return false;
  }
  return true;
}
static_assert(engine_bases_agree(), "GUC_ENGINE_BASES disagrees with hw/gen/engines.h");
static_assert(GUC_MAX_ENGINES_NUM == kEngineCount);
static_assert(GUC_ENGINE_ELSP == ExeclistRegs::kElsp &&
              GUC_ENGINE_EXECLIST_STATUS_LO == ExeclistRegs::kExeclistStatusLo);
static_assert(GUC_ENGINE_CSB(0) == ExeclistRegs::kCsbBase && GUC_ENGINE_CSB_POINTER == ExeclistRegs::kCsbPointer);
static_assert(GUC_CSB_ENTRIES == ExeclistRegs::kCsbEntries);
static_assert(GUC_CSB_IDLE_TO_ACTIVE == ExeclistRegs::kIdleToActive && GUC_CSB_PREEMPTED == ExeclistRegs::kPreempted &&
              GUC_CSB_ELEMENT_SWITCH == ExeclistRegs::kElementSwitch &&
              GUC_CSB_ACTIVE_TO_IDLE == ExeclistRegs::kActiveToIdle && GUC_CSB_COMPLETE == ExeclistRegs::kComplete);
static_assert(GUC_LRC_DESC_VALID == ContextDescriptor::kValid &&
              GUC_LRC_DESC_PRIVILEGE == ContextDescriptor::kPrivilege &&
              GUC_LRC_DESC_ADDRESSING_SHIFT == ContextDescriptor::kAddressingModeShift);
static_assert(GUC_ENGINE_RING_MODE == engine_reg::kGfxMode &&
              GUC_RING_MODE_INTERRUPT_STEERING == engine_reg::kGfxInterruptSteering);
static_assert(GUC_ENGINE_USER_INTERRUPT == GtInterruptRegs::kUserInterrupt &&
              GUC_ENGINE_CS_ERROR == GtInterruptRegs::kCsError &&
              GUC_ENGINE_CONTEXT_SWITCH == GtInterruptRegs::kContextSwitch);
}  // namespace guc_abi_check

}  // namespace gpuvp::gen
