// GenGpu: the Intel Gen8/Gen9 GPU as the host sees it, its 16 MiB GTTMMADR BAR. Registers of every Gen block live in
// one table (the BAR's register bank, decoded by offset); the upper 8 MiB is the GGTT entry window. The GPU reaches
// memory through one initiator port on the system bus.
#pragma once

#include <cstdint>
#include <string>

#include "tlm/core/config.h"
#include "tlm/core/initiator_port.h"
#include "tlm/core/interrupt_line.h"
#include "tlm/core/register_block.h"
#include "tlm/gen/gtt.h"

namespace gpuvp::gen {

struct GenGpuParams {
  std::uint32_t generation = 9;
  std::uint64_t clock_hz = 1'000'000'000;
  std::uint32_t mmio_latency_cycles = 2;
  GttParams gtt;

  void visit(core::ParamVisitor& v) {
    v.param("generation", generation, "8 (Broadwell) or 9 (Skylake)", 8, 9);
    v.param("clock_hz", clock_hz, "GPU clock in Hz", 1'000'000, 10'000'000'000ULL);
    v.param("mmio_latency_cycles", mmio_latency_cycles, "register access latency", 0, 1000);
    v.group("gtt", gtt, "GTT MMU");
  }
};

class GenGpu : public core::RegisterBlock {
 public:
  // The GPU's path to memory: bind memory.socket to the system bus.
  core::InitiatorPort memory;

  // gsm_base: physical address of the GGTT entries (graphics stolen memory), resolved by the platform.
  GenGpu(sc_core::sc_module_name name, const GenGpuParams& params, std::uint64_t gsm_base);

  Gtt& gtt() { return gtt_; }
  // The GPU's interrupt to the host.
  core::InterruptLine& irq() { return irq_; }
  const GenGpuParams& params() const { return params_; }

 protected:
  bool forward_access(tlm::tlm_generic_payload& trans, sc_core::sc_time* delay) override;

 private:
  void update_irq();

  GenGpuParams params_;
  Gtt gtt_;
  core::InterruptLine irq_;
};

}  // namespace gpuvp::gen
