// GenGpu: the Intel Gen8/Gen9 GPU as the host sees it, its 16 MiB GTTMMADR BAR. Registers of every Gen block live in
// one table (the BAR's register bank, decoded by offset); the upper 8 MiB is the GGTT entry window. The GPU reaches
// memory through one initiator port on the system bus.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tlm/core/config.h"
#include "tlm/core/initiator.h"
#include "tlm/core/interrupt_line.h"
#include "tlm/core/register_block.h"
#include "tlm/gen/command_streamer.h"
#include "tlm/gen/gt_interrupts.h"
#include "tlm/gen/gtt.h"
#include "tlm/gen/guc.h"

namespace gpuvp::gen {

// Which command streamers exist.
struct EngineSelection {
  bool rcs = true, bcs = true, vcs0 = true, vcs1 = true, vecs = true;
  void visit(core::ParamVisitor& v) {
    v.param("rcs", rcs, "render engine at 0x2000");
    v.param("bcs", bcs, "blitter engine at 0x22000");
    v.param("vcs0", vcs0, "video engine at 0x12000");
    v.param("vcs1", vcs1, "second video engine at 0x1C000");
    v.param("vecs", vecs, "video enhancement engine at 0x1A000");
  }
  bool has(Engine e) const {
    switch (e) {
      case Engine::kRcs:
        return rcs;
      case Engine::kBcs:
        return bcs;
      case Engine::kVcs0:
        return vcs0;
      case Engine::kVcs1:
        return vcs1;
      case Engine::kVecs:
        return vecs;
    }
    return false;
  }
};

struct GenGpuParams {
  std::uint32_t generation = 9;
  std::uint64_t clock_hz = 1'000'000'000;
  std::uint32_t mmio_latency_cycles = 2;
  std::string memory_access = "timed_dmi";  // core::AccessMode by name
  GttParams gtt;
  EngineSelection engines;
  CommandStreamerParams cs;
  std::string ring_model = default_ring_model();  // "tlm" (the C++ RingPointer) or "rtl" (verilated rtl/ring_ptr.sv)
  GucParams guc;

  void visit(core::ParamVisitor& v) {
    v.param("generation", generation, "8 (Broadwell) or 9 (Skylake)", 8, 9);
    v.param("clock_hz", clock_hz, "GPU clock in Hz", 1'000'000, 10'000'000'000ULL);
    v.param("mmio_latency_cycles", mmio_latency_cycles, "register access latency", 0, 1000);
    core::Initiator::visit_mode_param(v, memory_access, "GPU");
    v.group("gtt", gtt, "GTT MMU");
    v.group("engines", engines, "command streamers present");
    v.group("cs", cs, "command streamer timing and hang detection");
    v.group("gpgpu", cs.gpgpu, "GPGPU pipeline and EU array");
    v.group("guc", guc, "GuC microcontroller (x86 core running firmware/guc)");
    v.param("ring_model", ring_model,
            "ring pointer logic of every engine: tlm (C++), rtl (verilated RTL block, one clock cycle per register "
            "write or consume) or rtl_lockstep (the RTL block clocked on every engine clock cycle)",
            {"tlm", "rtl", "rtl_lockstep"});
  }
};

class GenGpu : public core::RegisterBlock {
 public:
  // The GPU's path to memory: bind memory.socket to the system bus.
  core::Initiator memory;

  // gsm_base: physical address of the GGTT entries (graphics stolen memory), resolved by the platform.
  GenGpu(sc_core::sc_module_name name, const GenGpuParams& params, std::uint64_t gsm_base);

  Gtt& gtt() { return gtt_; }
  GtInterrupts& interrupts() { return interrupts_; }
  // nullptr when the engine is not configured.
  CommandStreamer* engine(Engine e) { return engines_[static_cast<int>(e)].get(); }
  // nullptr when gen.guc.enabled is false.
  Guc* guc() { return guc_.get(); }
  // Errors and hangs of every engine so far, for the run summary.
  std::vector<std::string> incidents() const;
  // Some engine is running, or has ring, batch or execlist work it will start (what front doors wait out).
  bool busy() const;
  // The GPU's interrupt to the host.
  core::InterruptLine& irq() { return irq_; }
  const GenGpuParams& params() const { return params_; }

 protected:
  bool forward_access(tlm::tlm_generic_payload& trans, sc_core::sc_time* delay) override;

 private:
  // Gen9: the MOCS tables of every engine and the L3 one (storage).
  void add_mocs_tables();
  GenGpuParams params_;
  Gtt gtt_;
  core::InterruptLine irq_;
  GtInterrupts interrupts_;
  sc_core::sc_event memory_written_;
  unsigned memory_waiters_ = 0;  // engines waiting on memory_written_
  std::array<std::unique_ptr<CommandStreamer>, kEngineCount> engines_;
  std::unique_ptr<Guc> guc_;
};

}  // namespace gpuvp::gen
