#include "platform/memory_map.h"

#include <algorithm>
#include <limits>

#include "hw/gen/gtt_regs.h"
#include "tlm/core/config.h"
#include "tlm/core/report.h"
#include "tlm/vc4/v3d.h"

namespace gpuvp::platform {

namespace {

// An MMIO window of the platform and the key that places it.
struct MmioWindow {
  const char* key;
  const char* what;
  std::uint64_t base;
  std::uint64_t size;
};

std::string size_text(std::uint64_t bytes) {
  for (const auto& [unit, shift] : {std::pair{"GiB", 30}, std::pair{"MiB", 20}, std::pair{"KiB", 10}}) {
    if (bytes != 0 && bytes % (1ULL << shift) == 0) return std::to_string(bytes >> shift) + " " + unit;
  }
  return core::format_hex(bytes) + " bytes";
}

std::string range_text(std::uint64_t base, std::uint64_t size) {
  return "[" + core::format_hex(base) + ", " + core::format_hex(base + (size - 1)) + "]";
}

}  // namespace

const DramRange* MemoryMap::find(std::uint64_t address, std::uint64_t len) const {
  for (const DramRange& r : dram) {
    if (address >= r.base && len <= r.size && address - r.base <= r.size - len) return &r;
  }
  return nullptr;
}

MemoryMap plan_memory_map(const PlatformParams& params) {
  std::vector<MmioWindow> windows;
  if (params.gen.enabled) windows.push_back({"gen.base", "the Gen GTTMMADR BAR", params.gen.base, gen::kBarSize});
  if (params.vc4.enabled) {
    windows.push_back({"vc4.base", "the V3D register window", params.vc4.base, vc4::kV3dWindowSize});
  }
  const std::uint64_t base = params.dram.base;
  const std::uint64_t size = params.dram.memory.size;
  if (size % MemoryMap::kPageSize != 0) {
    throw core::ConfigError("config key 'dram.size': " + core::format_hex(size) +
                            " is not a multiple of the 4 KiB page");
  }
  if (base % MemoryMap::kPageSize != 0) {
    throw core::ConfigError("config key 'dram.base': " + core::format_hex(base) + " is not aligned to the 4 KiB page");
  }

  MemoryMap map;
  // TOLUD: DRAM stops below the lowest MMIO window under 4 GiB (at or above the start of DRAM), at the 1 MiB
  // granularity of the host bridge's TOLUD register; everything from there to 4 GiB is the PCI hole.
  bool hole = false;
  map.tolud = MemoryMap::k4GiB;
  for (const MmioWindow& w : windows) {
    if (w.base < base || w.base >= MemoryMap::k4GiB) continue;
    hole = true;
    map.tolud = std::min(map.tolud, w.base & ~(MemoryMap::kToludAlign - 1));
  }
  if (hole && map.tolud <= base) {
    throw core::ConfigError("config key 'dram.base': DRAM at " + core::format_hex(base) +
                            " would begin in the PCI hole (top of low DRAM " + core::format_hex(map.tolud) +
                            ", below the lowest MMIO window)");
  }
  if (hole && size > map.tolud - base) {
    // The DRAM the hole hides reappears from 4 GiB up to TOUUD.
    const std::uint64_t low = map.tolud - base;
    map.dram.push_back({"dram", base, low, 0});
    map.dram.push_back({"dram_hi", MemoryMap::k4GiB, size - low, low});
    map.touud = MemoryMap::k4GiB + (size - low);
  } else {
    if (base > std::numeric_limits<std::uint64_t>::max() - size) {
      throw core::ConfigError("config key 'dram.base': " + size_text(size) + " of DRAM at " + core::format_hex(base) +
                              " does not fit in the 64-bit address space");
    }
    map.dram.push_back({"dram", base, size, 0});
  }

  // GGTT and PPGTT entries hold physical addresses of gen.gtt.physical_address_bits (39 on Gen9, i915
  // dma_mask_size): DRAM the GPU could not reach is a configuration error.
  const std::uint64_t top = map.dram.back().end();
  if (params.gen.enabled) {
    const unsigned bits = params.gen.gpu.gtt.physical_address_bits;
    if (bits < 64 && top > (1ULL << bits)) {
      throw core::ConfigError("config key 'dram.size': " + size_text(size) + " of DRAM ends at " +
                              core::format_hex(top - 1) + ", beyond the Gen GPU's " + std::to_string(bits) +
                              "-bit physical addresses (gen.gtt.physical_address_bits)");
    }
  }
  for (const MmioWindow& w : windows) {
    for (const DramRange& r : map.dram) {
      if (w.base <= r.end() - 1 && r.base <= w.base + (w.size - 1)) {
        throw core::ConfigError(std::string("config key '") + w.key + "': " + w.what + " " +
                                range_text(w.base, w.size) + " overlaps DRAM " + range_text(r.base, r.size));
      }
    }
  }

  if (params.gen.enabled) {
    // Graphics stolen memory at the top of low DRAM, below TOLUD (BGSM), unless configured.
    const gen::GttParams& gtt = params.gen.gpu.gtt;
    const DramRange& low = map.dram.front();
    map.gsm_size = gtt.ggtt_size / 4096 * 8;
    if (gtt.gsm_base == 0 && map.gsm_size > low.size) {
      // Placed automatically: the DRAM is what is too small (issue 23: blaming gsm_base misled).
      throw core::ConfigError("config key 'dram.size': the " + size_text(low.size) +
                              " of low DRAM cannot hold the Gen GPU's stolen memory, " + size_text(map.gsm_size) +
                              " of GGTT entries (gen.gtt.ggtt_size " + size_text(gtt.ggtt_size) +
                              "); give more DRAM or set gen.enabled=false");
    }
    map.gsm_base = gtt.gsm_base ? gtt.gsm_base : low.end() - map.gsm_size;
    if (map.find(map.gsm_base, map.gsm_size) == nullptr) {
      throw core::ConfigError("config key 'gen.gtt.gsm_base': the " + size_text(map.gsm_size) + " of GGTT entries at " +
                              core::format_hex(map.gsm_base) + " must lie inside DRAM");
    }
  }
  return map;
}

}  // namespace gpuvp::platform
