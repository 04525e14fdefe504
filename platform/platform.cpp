#include "platform/platform.h"

#include <algorithm>

#include "hw/gen/gtt_regs.h"
#include "rtl/rtl_ring_pointer.h"
#include "tlm/core/report.h"

namespace gpuvp::platform {

Platform::Platform(sc_core::sc_module_name name, const PlatformParams& params)
    : sc_module(name),
      params_(params),
      map_(plan_memory_map(params)),
      bus_("bus", params.bus.clock_hz),
      dram_("dram", params.dram.memory),
      host_("host"),
      stats_(this->name()) {
  core::set_global_quantum(params_.sim.quantum_ns * core::kPsPerNs);
  // Guest reports of one kind past the limit are counted, not shown (report.h).
  core::set_guest_report_limit(params_.sim.guest_report_limit);
  core::set_suppressed_counter(
      &stats_.counter("reports.guest_suppressed", "reports",
                      "guest reports not shown past sim.guest_report_limit reports of "
                      "their kind (block, severity, source line, message without its numbers)"));
  rtl::register_ring_model();  // gen.ring_model=rtl: the verilated ring_ptr block
  bus_.attach_initiator(host_.socket, "host");
  // DRAM below TOLUD, and the part the PCI hole hides remapped above 4 GiB: two windows onto one DRAM port.
  const core::PortTiming dram_timing{params_.bus.hop_latency_cycles, params_.bus.dram_port_bytes_per_cycle};
  const DramRange& low = map_.dram.front();
  const unsigned dram_port = bus_.attach_target(dram_.socket, low.name, low.base, low.size, dram_timing);
  for (std::size_t i = 1; i < map_.dram.size(); ++i) {
    const DramRange& r = map_.dram[i];
    bus_.map(r.name, r.base, r.size, dram_port, dram_timing, r.offset);
  }
  const core::PortTiming mmio_timing{params_.bus.hop_latency_cycles, params_.bus.mmio_port_bytes_per_cycle};
  if (params_.gen.enabled) {
    // The GGTT entries live in graphics stolen memory, by default the top of low DRAM (plan_memory_map).
    gen::GenGpuParams gpu = params_.gen.gpu;
    gen::GpgpuParams::Dram& dram = gpu.cs.gpgpu.dram;  // what the EU array's memory hierarchy reaches
    dram.clock_hz = params_.dram.memory.clock_hz;
    dram.bytes_per_cycle = params_.dram.memory.bytes_per_cycle;
    dram.channels = params_.dram.channels;
    dram.read_latency_cycles = params_.dram.memory.read_latency_cycles;
    dram.access_overhead_ps = params_.dram.access_overhead_ps;
    gen_ = std::make_unique<gen::GenGpu>("gen", gpu, map_.gsm_base);
    bus_.attach_target(gen_->socket, "gen", params_.gen.base, gen::kBarSize, mmio_timing);
    bus_.attach_initiator(gen_->memory.socket, "gen");
    host_irqs_.emplace_back("gen", &gen_->irq());
    register_blocks_.push_back(gen_.get());
  }
  if (params_.vc4.enabled) {
    v3d_ = std::make_unique<vc4::V3d>("v3d", params_.vc4.v3d);
    bus_.attach_target(v3d_->socket, "v3d", params_.vc4.base, vc4::kV3dWindowSize, mmio_timing);
    // vc4 has no MMU: control lists hold physical DRAM addresses, fetched through the V3D's own initiator port. Its
    // bus addresses are 32 bits: it reaches the DRAM below TOLUD.
    bus_.attach_initiator(v3d_->memory.socket, "v3d");
    v3d_->set_dram(low.base, low.size);
    host_irqs_.emplace_back("vc4", &v3d_->irq());
    register_blocks_.push_back(v3d_.get());
  }
}

Platform::~Platform() { core::set_suppressed_counter(nullptr); }

core::InterruptLine* Platform::find_irq(const std::string& name_or_index) const {
  for (const auto& [n, line] : host_irqs_) {
    if (n == name_or_index) return line;
  }
  std::uint64_t index;
  if (core::parse_u64(name_or_index, index) && index < host_irqs_.size()) return host_irqs_[index].second;
  return nullptr;
}

bool Platform::debug_read_dram(std::uint64_t address, void* data, std::uint64_t len) {
  if (map_.find(address, len) == nullptr) return false;
  auto* bytes = static_cast<unsigned char*>(data);
  // transport_dbg takes an unsigned length: chunks of 1 GiB.
  constexpr std::uint64_t kChunk = 1ULL << 30;
  for (std::uint64_t done = 0; done < len;) {
    const auto n = static_cast<unsigned>(std::min(len - done, kChunk));
    if (host_.debug_read(address + done, bytes + done, n) != n) return false;
    done += n;
  }
  return true;
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
  nlohmann::json ranges = nlohmann::json::array();
  for (const DramRange& r : map_.dram) {
    ranges.push_back({{"name", r.name},
                      {"base", core::format_hex(r.base)},
                      {"end", core::format_hex(r.end() - 1)},
                      {"size", core::format_hex(r.size)},
                      {"dram_offset", core::format_hex(r.offset)}});
  }
  nlohmann::json dram = {{"size", core::format_hex(params_.dram.memory.size)},
                         {"page_size", core::format_hex(params_.dram.memory.page_size)},
                         {"tolud", core::format_hex(map_.tolud)},
                         {"ranges", ranges}};
  if (map_.touud) dram["touud"] = core::format_hex(map_.touud);
  if (gen_) dram["gsm"] = {{"base", core::format_hex(map_.gsm_base)}, {"size", core::format_hex(map_.gsm_size)}};
  core::JsonParamWriter config;
  PlatformParams copy = params_;
  copy.visit(config);
  return {{"memory_map", bus_.describe()},
          {"dram", dram},
          {"blocks", blocks},
          {"interrupts", irqs},
          {"config", config.json()}};
}

}  // namespace gpuvp::platform
