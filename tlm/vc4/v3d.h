// V3D register block of the VideoCore IV 3D core (offsets from the V3D base; reference-vc4.md section 2). This first
// version models the identification registers and SCRATCH; control-list execution and binning arrive with the CLE and
// PTB (issue 7). Offsets not yet modelled read as zero with a warning from the register kit.
#pragma once

#include <cstdint>

#include "tlm/core/config.h"
#include "tlm/core/interrupt_line.h"
#include "tlm/core/register_block.h"

namespace gpuvp::vc4 {

// V3D register offsets (Linux vc4_regs.h names).
constexpr std::uint32_t kV3dIdent0 = 0x000;
constexpr std::uint32_t kV3dIdent1 = 0x004;
constexpr std::uint32_t kV3dIdent2 = 0x008;
constexpr std::uint32_t kV3dScratch = 0x010;
// 'V' '3' 'D' and technology version 2 (vc4_regs.h V3D_EXPECTED_IDENT0).
constexpr std::uint32_t kV3dExpectedIdent0 = 0x02443356;
constexpr std::uint64_t kV3dWindowSize = 0x1000;

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
  }
};

class V3d : public core::RegisterBlock {
 public:
  V3d(sc_core::sc_module_name name, const V3dParams& params);

  // The V3D interrupt to the host (INTCTL & INTENA once those are modelled).
  core::InterruptLine& irq() { return irq_; }

  static std::uint32_t ident1_for(const V3dParams& p);
  static std::uint32_t ident2_for(const V3dParams& p);

 private:
  V3dParams params_;
  core::InterruptLine irq_;
};

}  // namespace gpuvp::vc4
