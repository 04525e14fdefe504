#include "tlm/gen/gen_gpu.h"

#include "tlm/gen/gen_regs.h"

namespace gpuvp::gen {

GenGpu::GenGpu(sc_core::sc_module_name name, const GenGpuParams& params, std::uint64_t gsm_base)
    : RegisterBlock(name, kBarSize, core::ClockDomain("gen", params.clock_hz), params.mmio_latency_cycles),
      memory("memory"),
      params_(params),
      gtt_("gtt", params.gtt, gsm_base, regs(), memory, clock()),
      irq_(std::string(this->name()) + ".irq") {
  // Until the GT interrupt registers arrive with the command streamers, a GTT fault drives the host line directly.
  gtt_.fault_irq().on_change([this](bool) { update_irq(); });
}

void GenGpu::update_irq() { irq_.set(gtt_.fault_irq().level()); }

bool GenGpu::forward_access(tlm::tlm_generic_payload& trans, sc_core::sc_time* delay) {
  const std::uint64_t addr = trans.get_address();
  if (addr < kGgttPteWindowOffset) return false;
  gtt_.pte_window_access(trans, addr - kGgttPteWindowOffset, delay);
  return true;
}

}  // namespace gpuvp::gen
