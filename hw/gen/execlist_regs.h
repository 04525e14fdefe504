// Execlists submission interface of an engine: the ExecList Submit Port (ELSP), EXECLIST_STATUS, the context status
// buffer (CSB), its pointer register RING_CONTEXT_STATUS_PTR and its status-page mirror, the CSB status bits and the
// 64-bit context descriptor. Facts: docs/gen-execlists.md; i915 v4.x intel_lrc.h / intel_lrc.c (RING_ELSP,
// RING_EXECLIST_STATUS, RING_CONTEXT_STATUS_BUF, RING_CONTEXT_STATUS_PTR, GEN8_CTX_STATUS_*, GEN8_CTX_*),
// gt/intel_execlists_submission.c (GEN8_CSB_ENTRIES, GEN8_CSB_*_PTR_MASK), GVT-g gvt/execlist.c.
#pragma once

#include <cstdint>

namespace gpuvp::gen {

// RING_CONTEXT_STATUS_PTR fields.
struct CsbPointerFields {
  static constexpr unsigned kEntries = 6;                  // GEN8_CSB_ENTRIES
  static constexpr std::uint32_t kWritePointerMask = 0x7;  // bits 2:0, written by hardware
  static constexpr unsigned kReadPointerShift = 8;         // bits 10:8, written by software
  static constexpr std::uint32_t kReadPointerMask = 0x7u << kReadPointerShift;
  // Reset: write pointer 7 ("nothing written yet, the next entry is 0"), read pointer 0.
  static constexpr std::uint32_t kResetValue = 0x7;
};

struct ExeclistRegs {
  // Register offsets from the engine base.
  static constexpr std::uint32_t kElsp = 0x230;
  static constexpr std::uint32_t kExeclistStatusLo = 0x234;
  static constexpr std::uint32_t kExeclistStatusHi = 0x238;
  static constexpr std::uint32_t kCsbBase = 0x370;  // entry n: status at + 8n, context ID at + 8n + 4
  static constexpr std::uint32_t kCsbPointer = 0x3A0;
  static constexpr unsigned kCsbEntries = CsbPointerFields::kEntries;
  // Status page mirror (i915 I915_HWS_CSB_BUF0_INDEX, I915_HWS_CSB_WRITE_INDEX).
  static constexpr std::uint32_t kHwspCsbDword = 0x10;
  static constexpr std::uint32_t kHwspCsbWriteDword = 0x1F;

  // CSB status bits (i915 GEN8_CTX_STATUS_*).
  static constexpr std::uint32_t kIdleToActive = 1u << 0;
  static constexpr std::uint32_t kPreempted = 1u << 1;
  static constexpr std::uint32_t kElementSwitch = 1u << 2;
  static constexpr std::uint32_t kActiveToIdle = 1u << 3;
  static constexpr std::uint32_t kComplete = 1u << 4;
  static constexpr std::uint32_t kLiteRestore = 1u << 15;
};

// A 64-bit context descriptor (i915 intel_lrc.c GEN8_CTX_*, GVT execlist_ctx_descriptor_format).
struct ContextDescriptor {
  static constexpr std::uint64_t kValid = 1u << 0;
  static constexpr std::uint64_t kForcePdRestore = 1u << 1;  // reload the PDPs even on a lite restore
  static constexpr std::uint64_t kForceRestore = 1u << 2;    // reload the whole image even for the running context
  static constexpr unsigned kAddressingModeShift = 3;        // 1 legacy 32-bit (four PDPs), 3 48-bit (PML4)
  static constexpr std::uint64_t kPrivilege = 1u << 8;
  static constexpr std::uint64_t kLrcaMask = 0xFFFFF000ULL;  // bits 31:12, GGTT

  std::uint64_t raw = 0;

  // What i915 writes: VALID | addressing mode | PRIVILEGE | LRCA, the context ID in bits 63:32, plus flags.
  static constexpr ContextDescriptor make(std::uint64_t lrca, std::uint32_t context_id, std::uint32_t addressing_mode,
                                          std::uint64_t flags = 0) {
    return {std::uint64_t{context_id} << 32 | (lrca & kLrcaMask) | kPrivilege |
            (addressing_mode & 3) << kAddressingModeShift | kValid | flags};
  }

  bool valid() const { return raw & kValid; }
  bool force_pd_restore() const { return raw & kForcePdRestore; }
  bool force_restore() const { return raw & kForceRestore; }
  std::uint32_t addressing_mode() const { return static_cast<std::uint32_t>(raw >> kAddressingModeShift & 3); }
  bool privilege() const { return raw & kPrivilege; }
  std::uint64_t lrca() const { return raw & kLrcaMask; }
  std::uint32_t context_id() const { return static_cast<std::uint32_t>(raw >> 32); }
};

}  // namespace gpuvp::gen
