// libFuzzer harness: the GuC's host interfaces with the project's firmware running (boot ROM, SOFT_SCRATCH mailbox,
// CT channel, doorbells). Each input loads and boots the built firmware as i915 does (tb/host/guc_driver), enables
// the CT channel, then plays up to 16 operations chosen by the input; the platform runs 100 us after them.
// Operations (1 byte each, then its operands): 0 a mailbox action of 1-8 dwords, 1 a CT request of 1-16 dwords,
// 2 a doorbell with its cookie, 3 a write of a GuC register (offset 0xC000-0xCFFC) with a value.
#include <cstddef>
#include <cstdint>

#include "firmware/tools/guc_image.h"
#include "tb/host/guc_driver.h"
#include "tb/host/host_port.h"
#include "tb/host/i915_driver.h"
#include "tests/fuzz/fuzz_platform.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuvp;
  static const std::vector<std::uint8_t> kFirmware = firmware::read_file(firmware::default_firmware_path());
  fuzz::FuzzPlatform& fp = fuzz::FuzzPlatform::instance();
  fuzz::InputReader in(data, size);

  host::ScriptHostPort port;
  host::DriverLayout layout;
  layout.bar = fp.gen_base();
  host::I915Driver driver(port, layout);
  host::GucDriver guc(driver);
  guc.load(kFirmware);
  guc.ct_enable();
  for (int op = 0; op < 16 && in.remaining() > 0; ++op) {
    switch (in.byte() & 3) {
      case 0: {
        std::vector<std::uint32_t> action(1 + in.byte() % 8);
        for (auto& d : action) d = in.u32();
        guc.send(action, 100'000);
        break;
      }
      case 1: {
        std::vector<std::uint32_t> request(1 + in.byte() % 16);
        for (auto& d : request) d = in.u32();
        guc.ct_send_raw(request);
        break;
      }
      case 2: {
        const std::uint32_t doorbell = in.u32();
        guc.ring_doorbell(doorbell, in.u32());
        break;
      }
      default: {
        const std::uint32_t offset = 0xC000 + ((in.byte() | in.byte() << 8) & 0xFFC);
        driver.mmio_write(offset, in.u32());
        break;
      }
    }
  }
  fuzz::FuzzRunLimits limits;
  limits.commands = 2'000 * core::kPsPerUs;  // the boot included
  fp.run(port.script() + "clock_step 100000\n", limits);
  return 0;
}
