#include "platform/platform.h"

#include "rtl/rtl_ring_pointer.h"
#include "tlm/core/report.h"
#include "tlm/gen/gen_regs.h"

namespace gpuvp::platform {

Platform::Platform(sc_core::sc_module_name name, const PlatformParams& params)
    : sc_module(name),
      params_(params),
      bus_("bus", params.bus.clock_hz),
      dram_("dram", params.dram.memory),
      host_("host") {
  core::set_global_quantum(params_.sim.quantum_ns * core::kPsPerNs);
  rtl::register_ring_model();  // gen.ring_model=rtl: the verilated ring_ptr block
  bus_.attach_initiator(host_.socket, "host");
  bus_.attach_target(dram_.socket, "dram", params_.dram.base, params_.dram.memory.size,
                     {params_.bus.hop_latency_cycles, params_.bus.dram_port_bytes_per_cycle});
  const core::PortTiming mmio_timing{params_.bus.hop_latency_cycles, params_.bus.mmio_port_bytes_per_cycle};
  if (params_.gen.enabled) {
    // The GGTT entries live in graphics stolen memory, by default the top of DRAM.
    const gen::GttParams& gtt = params_.gen.gpu.gtt;
    const std::uint64_t pte_bytes = gtt.ggtt_size / 4096 * 8;
    const std::uint64_t dram_end = params_.dram.base + params_.dram.memory.size;
    const std::uint64_t gsm_base = gtt.gsm_base ? gtt.gsm_base : dram_end - pte_bytes;
    if (pte_bytes > params_.dram.memory.size || gsm_base < params_.dram.base || gsm_base + pte_bytes > dram_end) {
      throw core::ConfigError("config key 'gen.gtt.gsm_base': the " + std::to_string(pte_bytes >> 20) +
                              " MiB of GGTT entries at " + core::format_hex(gsm_base) + " must lie inside DRAM");
    }
    gen_ = std::make_unique<gen::GenGpu>("gen", params_.gen.gpu, gsm_base);
    bus_.attach_target(gen_->socket, "gen", params_.gen.base, gen::kBarSize, mmio_timing);
    bus_.attach_initiator(gen_->memory.socket, "gen");
    host_irqs_.emplace_back("gen", &gen_->irq());
    register_blocks_.push_back(gen_.get());
  }
  if (params_.vc4.enabled) {
    v3d_ = std::make_unique<vc4::V3d>("v3d", params_.vc4.v3d);
    bus_.attach_target(v3d_->socket, "v3d", params_.vc4.base, vc4::kV3dWindowSize, mmio_timing);
    // vc4 has no MMU: control lists hold physical DRAM addresses, fetched through the V3D's own initiator port.
    bus_.attach_initiator(v3d_->memory.socket, "v3d");
    v3d_->set_dram(params_.dram.base, params_.dram.memory.size);
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
