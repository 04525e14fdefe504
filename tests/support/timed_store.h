// Test support for waits by polling: a model event whose time the test knows, and the time of the host's DRAM read.
#pragma once

#include <cstdint>
#include <systemc>

#include "platform/platform.h"

namespace gpuvp::test {

// Stores a dword into DRAM at an exact simulated time: an untimed debug write, so the value is there from that
// instant on.
struct TimedStore : sc_core::sc_module {
  platform::Platform& soc;
  std::uint64_t addr;
  std::uint32_t value;
  sc_core::sc_time at;
  TimedStore(sc_core::sc_module_name n, platform::Platform& p, std::uint64_t a, std::uint32_t v, sc_core::sc_time t)
      : sc_module(n), soc(p), addr(a), value(v), at(t) {
    SC_HAS_PROCESS(TimedStore);
    SC_THREAD(run);
  }
  void run() {
    sc_core::wait(at);
    soc.host().debug_write(addr, &value, 4);
  }
};

// A DRAM read from the host on the default platform: 2 bus hop cycles + 1 port cycle + 60 read latency cycles + 1
// transfer cycle at 1 GHz.
constexpr std::uint64_t kDramReadNs = 64;

}  // namespace gpuvp::test
