// What the platform-level benchmarks (bench_execlists, bench_guc, bench_vc4) do before measuring: build the default
// platform with one testbench module on it, elaborate, and let the module set up until it pauses the kernel
// (sc_pause). SystemC elaborates once per process, so both live until the process ends.
#pragma once

#include <systemc>

#include "platform/platform.h"

namespace gpuvp::bench {

// Rig: an sc_module constructed as Rig(name, platform) whose thread sets up and then calls sc_pause().
template <typename Rig>
Rig* default_platform_rig() {
  auto* soc = new platform::Platform("gpuvp", platform::PlatformParams{});
  auto* rig = new Rig("rig", *soc);
  sc_core::sc_start();
  return rig;
}

}  // namespace gpuvp::bench
