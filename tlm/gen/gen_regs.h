// Register offsets of the Gen8/Gen9 GTTMMADR BAR that more than one block needs (i915 i915_reg.h / intel_gt_regs.h
// names, gt/intel_ggtt.c gen6_gttadr_offset; docs/gen-gtt.md).
#pragma once

#include <cstdint>

namespace gpuvp::gen {

// GGTT page table entries start 8 MiB into the 16 MiB BAR (i915 gen6_gttadr_offset).
constexpr std::uint64_t kGgttPteWindowOffset = 8ULL << 20;
constexpr std::uint64_t kBarSize = 16ULL << 20;

// GTT and fault reporting.
constexpr std::uint32_t kRingFaultReg = 0x4094;       // GEN8_RING_FAULT_REG
constexpr std::uint32_t kFaultTlbData0 = 0x4B10;      // GEN8_FAULT_TLB_DATA0: VA bits 43:12
constexpr std::uint32_t kFaultTlbData1 = 0x4B14;      // GEN8_FAULT_TLB_DATA1: VA bits 47:44, GGTT select
constexpr std::uint32_t kGtcr = 0x4274;               // GEN8_GTCR: GuC TLB invalidate
constexpr std::uint32_t kGfxFlushControl = 0x101008;  // GFX_FLSH_CNTL_GEN6: GGTT TLB flush
constexpr std::uint32_t kPrivatePatLo = 0x40E0;       // GEN8_PRIVATE_PAT_LO
constexpr std::uint32_t kPrivatePatHi = 0x40E4;       // GEN8_PRIVATE_PAT_HI

}  // namespace gpuvp::gen
