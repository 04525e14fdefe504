#include "platform/platform.h"

#include "tlm/core/report.h"

namespace gpuvp::platform {

Platform::Platform(sc_core::sc_module_name name, const PlatformParams& params)
    : sc_module(name),
      params_(params),
      bus_("bus", params.bus.clock_hz),
      dram_("dram", params.dram.memory),
      host_("host") {
  core::set_global_quantum(params_.sim.quantum_ns * core::kPsPerNs);
  bus_.attach_initiator(host_.socket, "host");
  bus_.attach_target(dram_.socket, "dram", params_.dram.base, params_.dram.memory.size,
                     {params_.bus.hop_latency_cycles, params_.bus.dram_port_bytes_per_cycle});
  const core::PortTiming mmio_timing{params_.bus.hop_latency_cycles, params_.bus.mmio_port_bytes_per_cycle};
  if (params_.gen.enabled) {
    gen_bar_ = std::make_unique<core::RegisterBlock>("gen", kGenBarSize, core::ClockDomain("gen", params_.gen.clock_hz),
                                                     params_.gen.mmio_latency_cycles);
    gen_irq_ = std::make_unique<core::InterruptLine>("gen");
    bus_.attach_target(gen_bar_->socket, "gen", params_.gen.base, kGenBarSize, mmio_timing);
    host_irqs_.emplace_back("gen", gen_irq_.get());
    register_blocks_.push_back(gen_bar_.get());
  }
  if (params_.vc4.enabled) {
    v3d_ = std::make_unique<vc4::V3d>("v3d", params_.vc4.v3d);
    bus_.attach_target(v3d_->socket, "v3d", params_.vc4.base, vc4::kV3dWindowSize, mmio_timing);
    host_irqs_.emplace_back("vc4", &v3d_->irq());
    register_blocks_.push_back(v3d_.get());
  }
}

core::InterruptLine* Platform::find_irq(const std::string& name_or_index) const {
  for (const auto& [n, line] : host_irqs_) {
    if (n == name_or_index) return line;
  }
  std::uint64_t index;
  if (core::parse_u64(name_or_index, index) && index < host_irqs_.size()) return host_irqs_[index].second;
  return nullptr;
}

nlohmann::json Platform::describe() const {
  nlohmann::json blocks = nlohmann::json::array();
  for (const core::RegisterBlock* b : register_blocks_) {
    blocks.push_back({{"name", b->name()},
                      {"size", core::format_hex(b->size())},
                      {"clock_hz", b->clock().frequency_hz()},
                      {"registers", b->regs().describe()}});
  }
  nlohmann::json irqs = nlohmann::json::array();
  for (std::size_t i = 0; i < host_irqs_.size(); ++i) irqs.push_back({{"index", i}, {"name", host_irqs_[i].first}});
  core::JsonParamWriter config;
  PlatformParams copy = params_;
  copy.visit(config);
  return {{"memory_map", bus_.describe()},
          {"dram", {{"size", core::format_hex(params_.dram.memory.size)},
                    {"page_size", core::format_hex(params_.dram.memory.page_size)}}},
          {"blocks", blocks},
          {"interrupts", irqs},
          {"config", config.json()}};
}

}  // namespace gpuvp::platform
