// ContextSwitch: execlist context switching of one Gen engine. It acts on ELSP submissions, restores a context from
// its logical ring context image (registers, PPGTT, batch levels, pipe state), saves it back when it completes or is
// preempted at an arbitration point, and reports every transition in the context status buffer (CSB). Facts:
// docs/gen-execlists.md (i915 v4.x intel_lrc.c, gt/intel_execlists_submission.c, GVT-g gvt/execlist.c).
//
// The engine's command streamer owns it, calls schedule() before fetching, and arbitration_point() where a context
// may be switched out; everything it does to the engine goes through ContextSwitchEngine.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"
#include "tlm/core/timing.h"
#include "tlm/gen/context_image.h"
#include "tlm/gen/engine_context.h"
#include "tlm/gen/execlists.h"
#include "tlm/gen/gt_interrupts.h"

namespace gpuvp::gen {

struct EngineInfo;

// What context switching needs from its engine besides what commands may do (the CommandStreamer implements it).
class ContextSwitchEngine : public EngineContext {
 public:
  // The batch head registers of level 0 (BBADDR, BBADDR_UDW, BBSTATE) or 1 (SBBADDR, SBBADDR_UDW, SBBSTATE).
  struct BatchRegisters {
    core::Register* address;
    core::Register* address_udw;
    core::Register* state;
  };

  // Waits out the engine's local time offset for an effect others see at once (a CSB entry); false when a reset
  // came first.
  virtual bool sync_for_effect() = 0;
  // Wakes the engine's thread (a submission to act on).
  virtual void kick() = 0;
  // The engine stopped on an error or a hang (it acts on nothing until a reset).
  virtual bool halted() const = 0;
  // No batch running and the ring empty: the running context's work is done.
  virtual bool out_of_work() const = 0;
  // The engine's timeline track (context spans).
  virtual int track() const = 0;

  // The batch levels the engine is inside, and their head registers.
  virtual const std::vector<BatchLevel>& batches() const = 0;
  virtual BatchRegisters batch_registers(std::size_t level) = 0;
  // Ends the timeline spans of the batch levels at the local time (switch-out, or before a switch-in).
  virtual void end_batch_spans() = 0;
  // Forgets the batch levels (and the fetched line): a context is being loaded.
  virtual void drop_batches() = 0;
  // Enters a batch level at address, the next level down (a restored context resumes inside its batches).
  virtual void resume_batch(std::uint64_t address, AddressSpace space) = 0;

  // Points the engine's GTT client at the PPGTT whose roots are in the PDP registers, in mode.
  virtual void load_ppgtt(PpgttMode mode) = 0;
  // The pipe units' state into / out of the context image at lrca (PipeUnit::save_state, restore_state).
  virtual bool save_pipe_state(std::uint64_t lrca) = 0;
  virtual bool restore_pipe_state(std::uint64_t lrca) = 0;

 protected:
  ~ContextSwitchEngine() = default;
};

class ContextSwitch {
 public:
  // reg_prefix names the registers ("rcs."); stats is the engine's group (gpuvp.gen.rcs), where context switching and
  // the execlist ports declare their statistics.
  ContextSwitch(ContextSwitchEngine& engine, const EngineInfo& info, core::RegisterBank& bar, GtInterrupts& interrupts,
                std::uint32_t restore_cycles, std::uint32_t save_cycles, const std::string& reg_prefix,
                core::StatsGroup stats);

  Execlists& execlists() { return execlists_; }
  // A context is loaded on the engine.
  bool running() const { return running_; }
  // A submission waits to be loaded (or to preempt the running context).
  bool pending() const { return pending_.has_value(); }
  std::optional<std::uint32_t> running_context() const;
  // Before each fetch: completes a context whose work is done, starts a pending submission on an idle engine.
  void schedule();
  // An arbitration point: switches to a pending submission if there is one and arbitration allows it here (always
  // at an explicit point: MI_ARB_CHECK, the end of a batch level; anywhere while MI_ARB_ON_OFF enabled it).
  void arbitration_point(bool explicit_point) {
    if (pending_ && running_ && (arbitration_enabled_ || explicit_point)) preempt();  // inline: after every command
  }
  void set_arbitration(bool enabled) { arbitration_enabled_ = enabled; }
  // Engine reset.
  void reset();

 private:
  void start_pending();
  bool restore_context(const ContextDescriptor& desc);
  void save_context();
  void complete_context();
  void preempt();
  // Batch levels <-> the BB/SBB head and state registers, around a context save and restore.
  void batches_to_registers();
  void batches_from_registers();
  void update_status();
  void write_csb(std::uint32_t status, std::uint32_t context_id);
  std::uint64_t context_timestamp() const;

  ContextSwitchEngine& engine_;
  const EngineInfo& info_;
  core::RegisterBank& bar_;
  GtInterrupts& interrupts_;
  std::uint32_t restore_cycles_;
  std::uint32_t save_cycles_;
  core::StatsGroup stats_;
  Execlists execlists_;
  std::array<ContextDescriptor, 2> elements_{};
  unsigned current_element_ = 0;
  bool running_ = false;
  std::optional<std::array<ContextDescriptor, 2>> pending_;
  std::vector<std::uint32_t> image_;  // register-state page of the running context
  ContextImage image_layout_;
  core::Picoseconds started_ps_ = 0;
  bool arbitration_enabled_ = false;
  core::Picoseconds submitted_ps_ = 0;
  core::Register* ctx_timestamp_;

  core::Counter& context_switches_;
  core::Counter& forced_restores_;
  core::Counter& forced_pd_restores_;
  core::Histogram& submit_to_start_ps_;  // ELSP submission to the context running
};

}  // namespace gpuvp::gen
