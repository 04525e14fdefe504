// libFuzzer harness: the vc4 control list executor with the binner and the tile renderer. The input is a control
// list run on CT0 (binning) or CT1 (rendering), with the overspill memory a driver supplies (tb/host/vc4_driver);
// 100 us of simulated time.
// Input: byte 0: bit 0 the thread (0 CT0, 1 CT1), bit 1: the other thread runs the same list too; the rest: the list
// (at most 64 KiB) at a fixed address.
#include <cstddef>
#include <cstdint>

#include "hw/vc4/v3d_regs.h"
#include "platform/platform.h"
#include "tb/host/host_port.h"
#include "tb/host/vc4_driver.h"
#include "tests/fuzz/fuzz_platform.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuvp;
  fuzz::FuzzPlatform& fp = fuzz::FuzzPlatform::instance();
  fuzz::InputReader in(data, size);
  const std::uint8_t mode = in.byte();
  const std::vector<std::uint8_t> list = in.bytes(64 * 1024);

  host::ScriptHostPort port;
  host::Vc4Layout layout;
  layout.v3d = fp.v3d_base();
  layout.memory_base = static_cast<std::uint32_t>(fp.platform().params().dram.base + 0x0600'0000);
  layout.memory_size = 0x0100'0000;
  host::Vc4Driver driver(port, layout);
  driver.enable_interrupts();
  driver.supply_overspill();
  const auto buffer = driver.alloc(64 * 1024);
  if (!list.empty()) driver.upload(buffer, 0, list);
  const std::uint32_t end = buffer.addr + static_cast<std::uint32_t>(list.size());
  for (unsigned t = 0; t < 2; ++t) {
    if (t != (mode & 1u) && !(mode & 2u)) continue;
    port.write32(layout.v3d + vc4::kV3dCtnCa(t), buffer.addr);
    port.write32(layout.v3d + vc4::kV3dCtnEa(t), end);  // starts the thread
  }
  fp.run(port.script() + "clock_step 100000\n");
  return 0;
}
