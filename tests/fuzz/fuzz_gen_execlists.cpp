// libFuzzer harness: execlists and logical ring context restore. A context is created as i915 does
// (tb/host/i915_driver), then the input overwrites its register-state page (the LRC image the engine restores) and
// its ring, and the context is submitted through ELSP (which writes the ring TAIL into the image); 100 us of simulated
// time.
// Input: byte 0: engine (bits 2:0), bit 3: 48-bit addressing; bytes 1-2: image bytes N (at most 4 KiB); N bytes of
// image written over page 1 of the context from its start; the rest: ring commands (at most 4 KiB).
#include <cstddef>
#include <cstdint>

#include "hw/gen/engines.h"
#include "tb/host/host_port.h"
#include "tb/host/i915_driver.h"
#include "tests/fuzz/fuzz_platform.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuvp;
  fuzz::FuzzPlatform& fp = fuzz::FuzzPlatform::instance();
  fuzz::InputReader in(data, size);
  const std::uint8_t mode = in.byte();
  const auto engine = static_cast<gen::Engine>((mode & 7) % gen::kEngineCount);
  const std::size_t image_bytes = std::min<std::size_t>(in.byte() | in.byte() << 8, 4096);
  const std::vector<std::uint8_t> image = in.bytes(image_bytes);
  const std::vector<std::uint8_t> ring = in.bytes(4096);

  host::ScriptHostPort port;
  host::DriverLayout layout;
  layout.bar = fp.gen_base();
  host::I915Driver driver(port, layout);
  driver.enable_interrupts(engine);
  driver.enable_execlists(engine);
  auto& context = driver.create_context(engine, 16 * 1024, mode & 8 ? 3 : 1);
  if (!ring.empty()) {
    port.write_block(context.ring.phys, ring.data(), ring.size());
    context.tail = static_cast<std::uint32_t>(ring.size() & ~7u);
  }
  // The engine restores what the input says (submit then writes only the ring TAIL into the image).
  if (!image.empty()) port.write_block(context.state.phys + 4096, image.data(), image.size());
  driver.submit(context);
  fp.run(port.script() + "clock_step 100000\n");
  return 0;
}
