// WriteClock: when recently written memory was written, in the writer's local time. Under temporal decoupling a
// writer runs up to a quantum ahead of the kernel, so its data reaches memory before the time it was written at; an
// observer that finds a value it waits for (MI_SEMAPHORE_WAIT, the host's poll) asks here whether the value is visible
// yet at its own time and, if not, waits until it is, as it would have without decoupling. So what observers see does
// not move with the quantum (README, "Timing").
//
// Direct-mapped on 8-byte granules of the bus address. A granule whose entry another write took counts as written
// long ago, which is right as long as the table is larger than what is written within one quantum near an address
// someone waits on; 16 Ki entries cover 128 KiB written per quantum.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "tlm/core/timing.h"

namespace gpuvp::core {

class WriteClock {
 public:
  static constexpr unsigned kGranuleShift = 3;
  static constexpr unsigned kEntries = 1u << 14;

  // A write of len bytes at addr, complete at local time at_ps.
  void record(std::uint64_t addr, std::uint64_t len, Picoseconds at_ps) {
    if (len == 0) return;
    const std::uint64_t first = addr >> kGranuleShift;
    const std::uint64_t last = (addr + len - 1) >> kGranuleShift;
    for (std::uint64_t g = first; g <= last; ++g) {
      Entry& e = entries_[g & (kEntries - 1)];
      e.granule = g + 1;  // 0 marks an empty entry
      e.at_ps = at_ps;
    }
  }
  // The latest recorded write time of any byte in [addr, addr + len), 0 if none is known.
  Picoseconds latest(std::uint64_t addr, std::uint64_t len) const {
    if (len == 0) return 0;
    Picoseconds latest = 0;
    const std::uint64_t first = addr >> kGranuleShift;
    const std::uint64_t last = (addr + len - 1) >> kGranuleShift;
    for (std::uint64_t g = first; g <= last; ++g) {
      const Entry& e = entries_[g & (kEntries - 1)];
      if (e.granule == g + 1) latest = std::max(latest, e.at_ps);
    }
    return latest;
  }
  void clear() { entries_.fill({}); }

 private:
  struct Entry {
    std::uint64_t granule = 0;
    Picoseconds at_ps = 0;
  };
  std::array<Entry, kEntries> entries_{};
};

// The clock of this simulation (one SystemC kernel per process). Every initiator port records its writes.
inline WriteClock g_write_clock;
inline WriteClock& write_clock() { return g_write_clock; }

}  // namespace gpuvp::core
