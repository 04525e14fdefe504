// V3D register block of the VideoCore IV 3D core (docs/vc4-v3d.md; offsets and fields in hw/vc4/v3d_regs.h, from
// Linux drivers/gpu/drm/vc4/vc4_regs.h): identification, scratch, cache control, the interrupt registers, the two
// control list executor threads (ControlListExecutor: CT0 binning, CT1 rendering), pipeline status, flush/frame
// counters, the binner pool registers and the error/debug registers. The block reaches memory through its own
// initiator port (vc4 has no MMU: control-list addresses are physical DRAM addresses). TileBinner (the PTB, fed by
// CT0) and TileRenderer (the tile buffer, fed by CT1) execute the binning and rendering packets; primitives reaching
// the renderer are counted, not shaded (fragment shading is not modelled yet). QpuScheduler runs user programs on the
// QPUs (SRQPC/SRQUA/SRQUL/SRQCS, SQRSV0/1); a QPU's host interrupt latches its bit in DBQITC, and the V3D interrupt
// line is (INTCTL & INTENA) | (DBQITC & DBQITE) (Broadcom's BCM21553 driver services both on the one V3D interrupt).
// Offsets not modelled read as zero with a warning from the register kit.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/vc4/v3d_regs.h"
#include "tlm/core/config.h"
#include "tlm/core/initiator.h"
#include "tlm/core/interrupt_line.h"
#include "tlm/core/register_block.h"
#include "tlm/core/stats.h"
#include "tlm/vc4/control_list_executor.h"
#include "tlm/vc4/qpu_scheduler.h"
#include "tlm/vc4/tile_binner.h"
#include "tlm/vc4/tile_renderer.h"

namespace gpuvp::vc4 {

struct V3dParams {
  std::uint64_t clock_hz = 250'000'000;
  std::uint32_t revision = 1;
  std::uint32_t slices = 3;
  std::uint32_t qpus_per_slice = 4;
  std::uint32_t tmus_per_slice = 2;
  std::uint32_t semaphores = 16;
  std::uint32_t vpm_kib = 12;
  std::uint32_t tlb_size = 2;  // IDENT2.TLBSZ: 0 quarter, 1 half, 2 full (32x32 multisample tiles)
  std::uint32_t mmio_latency_cycles = 4;
  std::string memory_access = "timed_dmi";  // core::AccessMode by name
  ControlListExecutorParams cle;
  TileBinnerParams binner;
  TileRendererParams renderer;
  QpuSchedulerParams qpu;

  void visit(core::ParamVisitor& v) {
    v.param("clock_hz", clock_hz, "V3D clock in Hz", 1'000'000, 2'000'000'000);
    v.param("revision", revision, "IDENT1.REV", 0, 15);
    v.param("slices", slices, "IDENT1.NSLC: QPU slices", 1, 15);
    v.param("qpus_per_slice", qpus_per_slice, "IDENT1.QUPS", 1, 15);
    v.param("tmus_per_slice", tmus_per_slice, "IDENT1.TUPS", 0, 15);
    v.param("semaphores", semaphores, "IDENT1.NSEM", 0, 255);
    v.param("vpm_kib", vpm_kib, "VPM size in KiB (IDENT1 reports 16 KiB as 0)", 1, 16);
    v.param("tlb_size", tlb_size, "IDENT2.TLBSZ: 0 quarter, 1 half, 2 full", 0, 2);
    v.param("mmio_latency_cycles", mmio_latency_cycles, "register access latency", 0, 1000);
    core::Initiator::visit_mode_param(v, memory_access, "V3D");
    v.group("cle", cle, "control list executor (CT0 binning, CT1 rendering) timing and hang detection");
    v.group("binner", binner, "primitive tile binner (PTB) timing");
    v.group("renderer", renderer, "tile renderer (tile buffer loads and stores) timing");
    v.group("qpu", qpu, "QPUs and the user-program scheduler");
  }
};

class V3d : public core::RegisterBlock {
 public:
  // The V3D's path to memory: bind memory.socket to the system bus.
  core::Initiator memory;

  V3d(sc_core::sc_module_name name, const V3dParams& params);

  // Physical DRAM the control lists may live in (branches and fetches elsewhere are errors). Default: the whole
  // 32-bit bus address space (the bus then refuses what is not mapped).
  void set_dram(std::uint64_t base, std::uint64_t size);
  bool in_dram(std::uint64_t address, std::uint64_t length) const;

  // The V3D interrupt to the host: INTCTL & INTENA != 0.
  core::InterruptLine& irq() { return irq_; }
  ControlListExecutor& thread(unsigned n) { return *ct_.at(n); }
  TileBinner& binner() { return *binner_; }
  TileRenderer& renderer() { return *renderer_; }
  QpuScheduler& qpus() { return *qpus_; }
  CleSemaphore& semaphore() { return semaphore_; }
  // Raises INTCTL bits (the binner and renderer report through it).
  void raise_interrupt(std::uint32_t bits);
  // Errors and hangs of both CLE threads and the QPUs so far.
  std::vector<std::string> incidents() const;

  static std::uint32_t ident1_for(const V3dParams& p);
  static std::uint32_t ident2_for(const V3dParams& p);

 private:
  void update_irq();
  void set_enabled_interrupts(std::uint32_t mask);

  V3dParams params_;
  core::InterruptLine irq_;
  CleSemaphore semaphore_;
  std::uint64_t dram_base_ = 0;
  std::uint64_t dram_size_ = 1ULL << 32;
  core::Register* intctl_;
  core::Register* intena_;
  core::Register* intdis_;
  core::Register* bfc_;
  core::Register* rfc_;
  core::Counter& l2_clears_;
  core::Counter& slice_cache_clears_;
  std::array<std::unique_ptr<ControlListExecutor>, 2> ct_;
  std::unique_ptr<TileBinner> binner_;
  std::unique_ptr<TileRenderer> renderer_;
  std::unique_ptr<QpuScheduler> qpus_;
  core::Register* srqua_ = nullptr;
  core::Register* srqul_ = nullptr;
  core::Register* sqrsv_[2] = {nullptr, nullptr};
  core::Register* dbqite_ = nullptr;
  core::Register* dbqitc_ = nullptr;
};

}  // namespace gpuvp::vc4
