// Where DRAM lands in the physical address space, arranged around the MMIO windows as on a PC with an Intel host
// bridge: DRAM up to TOLUD (top of low usable DRAM, the bottom of the PCI hole under the MMIO windows), the DRAM the
// hole hides remapped above 4 GiB up to TOUUD (top of upper usable DRAM), and graphics stolen memory (the GGTT
// entries) at the top of low DRAM, below TOLUD, where the BIOS puts it (BGSM). The platform builds its bus windows
// from this; the configuration is checked against it before anything is built.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/platform_params.h"

namespace gpuvp::platform {

// One bus window onto DRAM: physical [base, base + size) is DRAM [offset, offset + size).
struct DramRange {
  std::string name;  // "dram" below TOLUD, "dram_hi" remapped above 4 GiB
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;
  std::uint64_t end() const { return base + size; }  // exclusive
};

struct MemoryMap {
  static constexpr std::uint64_t k4GiB = 1ULL << 32;
  // TOLUD's granularity (Intel host bridge TOLUD register bits 31:20).
  static constexpr std::uint64_t kToludAlign = 1ULL << 20;
  static constexpr std::uint64_t kPageSize = 4096;

  std::vector<DramRange> dram;  // in address order; the first holds the start of DRAM
  std::uint64_t tolud = 0;      // bottom of the PCI hole; 4 GiB when no MMIO window lies below 4 GiB
  std::uint64_t touud = 0;      // end of the remapped DRAM above 4 GiB; 0 when nothing is remapped
  std::uint64_t gsm_base = 0;   // GGTT entries (when the Gen GPU is present)
  std::uint64_t gsm_size = 0;

  // The DRAM range holding [address, address + len), or nullptr.
  const DramRange* find(std::uint64_t address, std::uint64_t len = 1) const;
};

// The map of a configuration; throws core::ConfigError (one line naming the key) when DRAM cannot be placed: a size
// that is not a multiple of 4 KiB, DRAM beyond the GPU's physical address width (gen.gtt.physical_address_bits),
// DRAM that would overlap an MMIO window above 4 GiB, stolen memory outside DRAM.
MemoryMap plan_memory_map(const PlatformParams& params);

}  // namespace gpuvp::platform
