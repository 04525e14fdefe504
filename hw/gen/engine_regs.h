// Per-engine registers of the Gen8/Gen9 command streamers (offsets from the engine's MMIO base) and the global reset
// register GEN6_GDRST. Facts: docs/gen-command-streamer.md; i915 gt/intel_engine_regs.h (RING_*), i915_reg.h /
// gt/intel_gt_regs.h (GEN6_GDRST, GEN6_GRDOM_*, GEN9_GRDOM_GUC, GEN8_GRDOM_MEDIA2).
#pragma once

#include <cstdint>

namespace gpuvp::gen {

namespace engine_reg {
constexpr std::uint32_t kTail = 0x30;
constexpr std::uint32_t kHead = 0x34;
constexpr std::uint32_t kStart = 0x38;
constexpr std::uint32_t kCtl = 0x3C;
constexpr std::uint32_t kActhdUdw = 0x5C;
constexpr std::uint32_t kIpeir = 0x64;
constexpr std::uint32_t kIpehr = 0x68;
constexpr std::uint32_t kActhd = 0x74;
constexpr std::uint32_t kHwsPga = 0x80;
constexpr std::uint32_t kNopid = 0x94;
constexpr std::uint32_t kHwstam = 0x98;
constexpr std::uint32_t kMiMode = 0x9C;
constexpr std::uint32_t kEir = 0xB0;
constexpr std::uint32_t kEmr = 0xB4;
constexpr std::uint32_t kEsr = 0xB8;
constexpr std::uint32_t kInstpm = 0xC0;
constexpr std::uint32_t kResetCtl = 0xD0;
constexpr std::uint32_t kBbState = 0x110;
constexpr std::uint32_t kSbbAddr = 0x114;
constexpr std::uint32_t kSbbState = 0x118;
constexpr std::uint32_t kSbbAddrUdw = 0x11C;
constexpr std::uint32_t kBbAddr = 0x140;
constexpr std::uint32_t kBbAddrUdw = 0x168;
constexpr std::uint32_t kBbPerCtxPtr = 0x1C0;
constexpr std::uint32_t kIndirectCtx = 0x1C4;
constexpr std::uint32_t kIndirectCtxOffset = 0x1C8;
// CS_DEBUG_MODE2 (masked): in the render context on Gen9 (GVT-g's gen9 in-context MMIO list has RCS 0x20D8; i915
// names it GEN12_CS_DEBUG_MODE2); NEO's context images and its preamble write it (compute-runtime aub_mem_dump.cpp).
constexpr std::uint32_t kCsDebugMode2 = 0x0D8;
constexpr std::uint32_t kContextControl = 0x244;
// CS_CHICKEN1 (masked; render engine): preemption granularity, bits 2:1 (i915 GEN8_CS_CHICKEN1,
// GEN9_PREEMPT_GPGPU_LEVEL; NEO programs mid-thread 0, thread-group bit 1, command level bit 2).
constexpr std::uint32_t kCsChicken1 = 0x580;
constexpr std::uint32_t kCtxTimestamp = 0x3A8;
constexpr std::uint32_t kPdp0Ldw = 0x270;  // + 8n; UDW at + 4
constexpr std::uint32_t kGfxMode = 0x29C;
constexpr std::uint32_t kTimestamp = 0x358;
constexpr std::uint32_t kTimestampUdw = 0x35C;
constexpr std::uint32_t kGpr0 = 0x600;  // + 8n, 64-bit

// MI_MODE (masked): STOP_RING bit 8 (software), MODE_IDLE bit 9 (hardware).
constexpr std::uint32_t kStopRing = 1u << 8;
constexpr std::uint32_t kModeIdle = 1u << 9;
// RING_RESET_CTL (masked): REQUEST_RESET bit 0 (software), READY_TO_RESET bit 1 (hardware).
constexpr std::uint32_t kRequestReset = 1u << 0;
constexpr std::uint32_t kReadyToReset = 1u << 1;
// RING_CTL status bits the hardware reports: waiting on a semaphore (10).
constexpr std::uint32_t kCtlWaitSemaphore = 1u << 10;
// EIR/ESR bits (i915 I915_ERROR_*): instruction error and page table error.
constexpr std::uint32_t kErrorInstruction = 1u << 0;
constexpr std::uint32_t kErrorPageTable = 1u << 4;
// GFX_MODE (masked): PPGTT enable bit 9, 48-bit PPGTT bit 7, run list enable bit 15 (execlists).
constexpr std::uint32_t kGfxRunListEnable = 1u << 15;
// i915 GFX_INTERRUPT_STEERING: the engine's interrupts go to the GuC (as far as the GuC's IER registers take them).
constexpr std::uint32_t kGfxInterruptSteering = 1u << 14;
constexpr std::uint32_t kGfxPpgttEnable = 1u << 9;
constexpr std::uint32_t kGfxPpgtt48b = 1u << 7;
// BBSTATE bit 5: the batch runs in the PPGTT.
constexpr std::uint32_t kBbStatePpgtt = 1u << 5;
// BBSTATE/SBBSTATE bit 0 in a saved context image: the context was switched out inside this batch level, whose next
// command is at BBADDR/SBBADDR (the batch head). No public source names the hardware's own encoding of an interrupted
// batch; i915 initialises BB_STATE to RING_BB_PPGTT alone (bit 0 clear), so new contexts start in their ring.
constexpr std::uint32_t kBbStateActive = 1u << 0;
}  // namespace engine_reg

// Fields of RING_START, RING_CTL, RING_HEAD and RING_TAIL (i915 gt/intel_engine_regs.h RING_VALID, RING_NR_PAGES,
// HEAD_ADDR, HEAD_WRAP_COUNT, HEAD_WRAP_ONE, TAIL_ADDR).
struct RingRegisterFields {
  static constexpr std::uint32_t kCtlEnable = 1u << 0;         // RING_VALID
  static constexpr std::uint32_t kCtlSizeMask = 0x1FF000;      // RING_NR_PAGES: bits 20:12 = pages - 1
  static constexpr std::uint32_t kHeadAddrMask = 0x1FFFFC;     // HEAD_ADDR: bits 20:2
  static constexpr std::uint32_t kHeadWrapMask = 0xFFE00000;   // HEAD_WRAP_COUNT: bits 31:21
  static constexpr std::uint32_t kHeadWrapOne = 0x200000;      // HEAD_WRAP_ONE
  static constexpr std::uint32_t kTailAddrMask = 0x1FFFF8;     // TAIL_ADDR: bits 20:3, qword aligned
  static constexpr std::uint32_t kStartAddrMask = 0xFFFFF000;  // 4 KiB aligned GGTT address
  // RING_CTL for a ring of `bytes` (4 KiB .. 2 MiB, a multiple of 4 KiB): i915 RING_CTL_SIZE(size) | RING_VALID.
  static constexpr std::uint32_t ctl_for(std::uint32_t bytes) { return ((bytes - 4096) & kCtlSizeMask) | kCtlEnable; }
};

// Gen9 memory object control state (MOCS) tables: 64 dwords of cache attributes per engine, indexed by the MOCS
// field of surface states and commands, and 32 dwords of L3 attributes, two 16-bit entries each (i915
// gt/intel_mocs.c: GEN9_GFX_MOCS, GEN9_MFX0/MFX1/VEBOX/BLT_MOCS, GEN9_LNCFCMOCS). Gen8 has none.
constexpr std::uint32_t kMocsRcs = 0xC800;
constexpr std::uint32_t kMocsVcs0 = 0xC900;
constexpr std::uint32_t kMocsVcs1 = 0xCA00;
constexpr std::uint32_t kMocsVecs = 0xCB00;
constexpr std::uint32_t kMocsBcs = 0xCC00;
constexpr std::uint32_t kMocsEntries = 64;
constexpr std::uint32_t kLncfMocs = 0xB020;
constexpr std::uint32_t kLncfMocsRegisters = 32;

// GEN6_GDRST: software sets domain bits to reset engines; the hardware clears them when done.
constexpr std::uint32_t kGdrst = 0x941C;
constexpr std::uint32_t kGdrstFull = 1u << 0;    // GEN6_GRDOM_FULL
constexpr std::uint32_t kGdrstRender = 1u << 1;  // GEN6_GRDOM_RENDER
constexpr std::uint32_t kGdrstMedia = 1u << 2;   // GEN6_GRDOM_MEDIA
constexpr std::uint32_t kGdrstBlt = 1u << 3;     // GEN6_GRDOM_BLT
constexpr std::uint32_t kGdrstVecs = 1u << 4;    // GEN6_GRDOM_VECS
constexpr std::uint32_t kGdrstGuc = 1u << 5;     // GEN9_GRDOM_GUC
constexpr std::uint32_t kGdrstMedia2 = 1u << 7;  // GEN8_GRDOM_MEDIA2

}  // namespace gpuvp::gen
