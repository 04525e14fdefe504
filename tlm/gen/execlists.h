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

#include "hw/gen/execlist_regs.h"
#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"
#include "tlm/gen/csb_pointer.h"

namespace gpuvp::gen {

// Register offsets, CSB status bits and the context descriptor: hw/gen/execlist_regs.h.
class Execlists : public ExeclistRegs {
 public:
  struct Hooks {
    // A complete ELSP submission (element 0 first); the engine decides when to act on it.
    std::function<void(const ContextDescriptor& element0, const ContextDescriptor& element1)> submitted;
    // Writes the status-page mirror (GGTT address of the status page, dword index, value).
    std::function<void(std::uint32_t dword_index, std::uint32_t value)> mirror;
    // Raises the engine's context-switch interrupt.
    std::function<void()> interrupt;
  };

  // reg_prefix names the registers ("rcs."); the statistics go into the engine's group (gpuvp.gen.rcs).
  Execlists(core::RegisterBank& bar, std::uint32_t engine_base, const std::string& reg_prefix, core::StatsGroup& stats,
            Hooks hooks);

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
  static constexpr std::uint32_t kLastSwitchReasonShift = 5;
  static constexpr std::uint32_t kLastSwitchReasonMask = 0x1FF;
  std::uint32_t last_switch_reason_ = 0;
  core::Register* status_lo_;
  core::Register* status_hi_;
  std::array<core::Register*, 2 * kCsbEntries> csb_{};
  core::Register* csb_pointer_;
  CsbPointer csb_ptr_;
  core::Counter& submissions_;
  core::Counter& csb_writes_;
};

}  // namespace gpuvp::gen
