// A GoogleTest fixture for tests that drive the default platform through the i915-like host driver model: the
// platform, a live host port, the driver, and helpers to look at memory and let simulated time pass.
#pragma once

#include <cstdint>
#include <systemc>

#include <gtest/gtest.h>

#include "platform/platform.h"
#include "tb/host/host_port.h"
#include "tb/host/i915_driver.h"

namespace gpuvp::test {

class DriverTest : public ::testing::Test {
 protected:
  DriverTest() : soc_("gpuvp", platform::PlatformParams{}), port_(soc_.host()), driver_(port_) {}
  void TearDown() override {
    for (const auto& f : port_.failures()) ADD_FAILURE() << f;
  }
  std::uint32_t dram32(std::uint64_t addr) {
    std::uint32_t v = 0;
    soc_.dram().store().read(addr, reinterpret_cast<unsigned char*>(&v), 4);
    return v;
  }
  void dram64(std::uint64_t addr, std::uint64_t value) {
    soc_.dram().store().write(addr, reinterpret_cast<const unsigned char*>(&value), 8);
  }
  // Synchronises the host and waits ns of simulated time (from a test thread).
  void settle(std::uint64_t ns = 20'000) {
    soc_.host().sync();
    sc_core::wait(sc_core::sc_time(static_cast<double>(ns), sc_core::SC_NS));
  }
  // A 4-level (48-bit) PPGTT at tables (4 pages: PML4, PDP, PD, PT) mapping virtual page 0x10000 to page.
  void map_48bit_ppgtt(std::uint64_t tables, std::uint64_t page) {
    dram64(tables, (tables + 0x1000) | 3);           // PML4[0] -> PDP
    dram64(tables + 0x1000, (tables + 0x2000) | 3);  // PDP[0] -> PD
    dram64(tables + 0x2000, (tables + 0x3000) | 3);  // PD[0] -> PT
    dram64(tables + 0x3000 + 0x10 * 8, page | 3);    // PT[0x10] -> page
  }

  platform::Platform soc_;
  host::BusHostPort port_;
  host::I915Driver driver_;
};

}  // namespace gpuvp::test
