// Execlists submission interface of one engine: the ExecList Submit Port (ELSP), EXECLIST_STATUS, the context status
// buffer (CSB) and its pointer register, and context descriptors. Facts: docs/gen-execlists.md (i915 v4.x
// intel_lrc.c, gt/intel_execlists_submission.c, GVT-g gvt/execlist.c and handlers.c).
//
// The command streamer owns one Execlists object and drives the context state machine; this class keeps the
// registers and writes status entries (registers, status-page mirror, context-switch interrupt).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/gen/csb_pointer.h"

namespace gpuvp::gen {

// A 64-bit context descriptor (i915 intel_lrc.c, GVT execlist_ctx_descriptor_format).
struct ContextDescriptor {
  static constexpr std::uint64_t kValid = 1u << 0;
  static constexpr std::uint64_t kForcePdRestore = 1u << 1;  // reload the PDPs even on a lite restore
  static constexpr std::uint64_t kForceRestore = 1u << 2;    // reload the whole image even for the running context
  std::uint64_t raw = 0;
  bool valid() const { return raw & 1; }
  bool force_pd_restore() const { return raw & 2; }
  bool force_restore() const { return raw & 4; }
  std::uint32_t addressing_mode() const { return static_cast<std::uint32_t>(raw >> 3 & 3); }  // 1 legacy32, 3 48-bit
  bool privilege() const { return raw & (1u << 8); }
  std::uint64_t lrca() const { return raw & 0xFFFFF000ULL; }  // bits 31:12, GGTT
  std::uint32_t context_id() const { return static_cast<std::uint32_t>(raw >> 32); }
};

class Execlists {
 public:
  // CSB status bits (i915 GEN8_CTX_STATUS_*).
  static constexpr std::uint32_t kIdleToActive = 1u << 0;
  static constexpr std::uint32_t kPreempted = 1u << 1;
  static constexpr std::uint32_t kElementSwitch = 1u << 2;
  static constexpr std::uint32_t kActiveToIdle = 1u << 3;
  static constexpr std::uint32_t kComplete = 1u << 4;
  static constexpr std::uint32_t kLiteRestore = 1u << 15;

  static constexpr unsigned kCsbEntries = CsbPointer::kEntries;
  // Register offsets from the engine base.
  static constexpr std::uint32_t kElsp = 0x230;
  static constexpr std::uint32_t kExeclistStatusLo = 0x234;
  static constexpr std::uint32_t kExeclistStatusHi = 0x238;
  static constexpr std::uint32_t kCsbBase = 0x370;
  static constexpr std::uint32_t kCsbPointer = 0x3A0;
  // Status page mirror (i915 I915_HWS_CSB_BUF0_INDEX, I915_HWS_CSB_WRITE_INDEX).
  static constexpr std::uint32_t kHwspCsbDword = 0x10;
  static constexpr std::uint32_t kHwspCsbWriteDword = 0x1F;

  struct Hooks {
    // A complete ELSP submission (element 0 first); the engine decides when to act on it.
    std::function<void(const ContextDescriptor& element0, const ContextDescriptor& element1)> submitted;
    // Writes the status-page mirror (GGTT address of the status page, dword index, value).
    std::function<void(std::uint32_t dword_index, std::uint32_t value)> mirror;
    // Raises the engine's context-switch interrupt.
    std::function<void()> interrupt;
  };

  // reg_prefix names the registers ("rcs."), stats_prefix the statistics ("gpuvp.gen.rcs.").
  Execlists(core::RegisterBank& bar, std::uint32_t engine_base, const std::string& reg_prefix,
            const std::string& stats_prefix, Hooks hooks);

  // Appends a CSB entry at the next write pointer (wrapping after 5), mirrors it and interrupts.
  void write_status(std::uint32_t status, std::uint32_t context_id);
  // EXECLIST_STATUS fields the engine updates (GVT execlist_status_format).
  void set_status(bool el0_valid, bool el1_valid, bool el0_active, bool el1_active, std::uint32_t current_context_id);
  void reset();

  std::uint32_t write_pointer() const { return csb_ptr_.write_pointer(); }
  std::uint64_t submissions() const { return submissions_.value; }

 private:
  core::RegisterBank& bar_;
  Hooks hooks_;
  std::array<std::uint32_t, 4> elsp_data_{};
  unsigned elsp_index_ = 0;
  core::Register* status_lo_;
  core::Register* status_hi_;
  std::array<core::Register*, 2 * kCsbEntries> csb_{};
  core::Register* csb_pointer_;
  CsbPointer csb_ptr_;
  core::Counter& submissions_;
  core::Counter& csb_writes_;
};

}  // namespace gpuvp::gen
