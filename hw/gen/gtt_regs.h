// The Gen8/Gen9 GTTMMADR BAR layout and the GTT, TLB and fault-reporting registers (i915 i915_reg.h /
// gt/intel_gt_regs.h names, gt/intel_ggtt.c gen6_gttadr_offset and gen8_ggtt_pte_encode; docs/gen-gtt.md).
#pragma once

#include <cstdint>

namespace gpuvp::gen {

// GGTT page table entries start 8 MiB into the 16 MiB BAR (i915 gen6_gttadr_offset).
constexpr std::uint64_t kGgttPteWindowOffset = 8ULL << 20;
constexpr std::uint64_t kBarSize = 16ULL << 20;
constexpr std::uint64_t kGgttPteBytes = 8;  // one 64-bit entry per 4 KiB page (gen8_set_pte)

// GGTT and PPGTT entry bits (i915 gt/intel_gtt.h GEN8_PAGE_PRESENT, GEN8_PAGE_RW, PPAT_*, GEN8_PDE_PS_2M).
constexpr std::uint64_t kPtePresent = 1ULL << 0;
constexpr std::uint64_t kPteWritable = 1ULL << 1;
constexpr std::uint64_t kPtePwt = 1ULL << 3;
constexpr std::uint64_t kPtePcd = 1ULL << 4;
constexpr std::uint64_t kPdePageSize = 1ULL << 7;  // PDE: 2 MiB page; PDPE: 1 GiB page (not on Gen8/9)
constexpr std::uint64_t kPtePat = 1ULL << 7;       // PTE: PAT

// GTT and fault reporting.
constexpr std::uint32_t kRingFaultReg = 0x4094;       // GEN8_RING_FAULT_REG
constexpr std::uint32_t kFaultTlbData0 = 0x4B10;      // GEN8_FAULT_TLB_DATA0: VA bits 43:12
constexpr std::uint32_t kFaultTlbData1 = 0x4B14;      // GEN8_FAULT_TLB_DATA1: VA bits 47:44, GGTT select
constexpr std::uint32_t kGtcr = 0x4274;               // GEN8_GTCR: GuC TLB invalidate
constexpr std::uint32_t kGfxFlushControl = 0x101008;  // GFX_FLSH_CNTL_GEN6: GGTT TLB flush
constexpr std::uint32_t kPrivatePatLo = 0x40E0;       // GEN8_PRIVATE_PAT_LO
constexpr std::uint32_t kPrivatePatHi = 0x40E4;       // GEN8_PRIVATE_PAT_HI
// RING_FAULT_REG fields (i915 intel_gt_regs.h): bit 0 valid, fault type in 2:1.
constexpr std::uint64_t kFaultValid = 1u << 0;
// FAULT_TLB_DATA1 fields: VA bits 47:44 in 3:0, bit 4 GGTT (i915 FAULT_VA_HIGH_BITS, FAULT_GTT_SEL).
constexpr std::uint32_t kFaultGttSel = 1u << 4;

}  // namespace gpuvp::gen
