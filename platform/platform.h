// The SoC: builds a platform from PlatformParams. DRAM, the Gen GTTMMADR BAR and the V3D register block sit on one
// bus; the host CPU (scripts, the qtest server, testbenches) reaches them through its own bus initiator. DRAM is laid
// out around the MMIO windows as on a PC (platform/memory_map.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/memory_map.h"
#include "platform/platform_params.h"
#include "tlm/core/bus.h"
#include "tlm/core/initiator.h"
#include "tlm/core/interrupt_line.h"
#include "tlm/core/memory.h"
#include "tlm/core/register_block.h"
#include "tlm/core/stats_group.h"
#include "tlm/gen/gen_gpu.h"
#include "tlm/vc4/v3d.h"

namespace gpuvp::platform {

class Platform : public sc_core::sc_module {
 public:
  Platform(sc_core::sc_module_name name, const PlatformParams& params);
  ~Platform() override;

  const PlatformParams& params() const { return params_; }
  // Where DRAM and stolen memory are.
  const MemoryMap& memory_map() const { return map_; }
  core::Bus& bus() { return bus_; }
  core::Memory& dram() { return dram_; }
  core::Initiator& host() { return host_; }
  vc4::V3d* v3d() { return v3d_.get(); }
  gen::GenGpu* gen() { return gen_.get(); }

  // Interrupt lines to the host by name ("gen", "vc4"), in a stable order; index = position.
  const std::vector<std::pair<std::string, core::InterruptLine*>>& host_irqs() const { return host_irqs_; }
  // By name or by decimal index; nullptr if there is no such line.
  core::InterruptLine* find_irq(const std::string& name_or_index) const;

  // Reads DRAM as a debugger does (transport_dbg from the host port: no simulated time, no statistics), e.g. to dump a
  // frame buffer. False when [address, address + len) is not inside one DRAM range or the bus returns less.
  bool debug_read_dram(std::uint64_t address, void* data, std::uint64_t len);

  // Memory map, blocks and their register tables.
  nlohmann::json describe() const;

 private:
  PlatformParams params_;
  MemoryMap map_;
  core::Bus bus_;
  core::Memory dram_;
  core::Initiator host_;
  std::unique_ptr<gen::GenGpu> gen_;
  std::unique_ptr<vc4::V3d> v3d_;
  std::vector<std::pair<std::string, core::InterruptLine*>> host_irqs_;
  std::vector<core::RegisterBlock*> register_blocks_;
  core::StatsGroup stats_;
};

}  // namespace gpuvp::platform
