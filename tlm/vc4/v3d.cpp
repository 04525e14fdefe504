#include "tlm/vc4/v3d.h"

namespace gpuvp::vc4 {

using core::Access;

std::uint32_t V3d::ident1_for(const V3dParams& p) {
  const std::uint32_t vpm = p.vpm_kib == 16 ? 0 : p.vpm_kib;
  return (p.revision & 0xF) | (p.slices & 0xF) << 4 | (p.qpus_per_slice & 0xF) << 8 | (p.tmus_per_slice & 0xF) << 12 |
         (p.semaphores & 0xFF) << 16 | (vpm & 0xF) << 28;
}

std::uint32_t V3d::ident2_for(const V3dParams& p) { return (p.tlb_size & 0xF) << 4; }

V3d::V3d(sc_core::sc_module_name name, const V3dParams& params)
    : RegisterBlock(name, kV3dWindowSize, core::ClockDomain("v3d", params.clock_hz), params.mmio_latency_cycles),
      params_(params),
      irq_(std::string(this->name()) + ".irq") {
  regs().add({"IDENT0", kV3dIdent0, 32, kV3dExpectedIdent0, Access::kReadOnly, "'V' '3' 'D' and tech version",
              {{"ID", 0, 24, "ASCII V3D"}, {"TVER", 24, 8, "technology version"}}});
  regs().add({"IDENT1", kV3dIdent1, 32, ident1_for(params_), Access::kReadOnly, "configuration",
              {{"REV", 0, 4, ""},
               {"NSLC", 4, 4, "slices"},
               {"QUPS", 8, 4, "QPUs per slice"},
               {"TUPS", 12, 4, "TMUs per slice"},
               {"NSEM", 16, 8, "semaphores"},
               {"HDRT", 24, 4, "HDR support"},
               {"VPMSZ", 28, 4, "VPM size in KiB, 0 = 16"}}});
  regs().add({"IDENT2", kV3dIdent2, 32, ident2_for(params_), Access::kReadOnly, "tile buffer",
              {{"VRISZ", 0, 4, ""}, {"TLBSZ", 4, 4, "tile buffer size"}, {"TLBDB", 8, 4, "double buffer"}}});
  regs().add({"SCRATCH", kV3dScratch, 32, 0, Access::kReadWrite, "software scratch", {}});
}

}  // namespace gpuvp::vc4
