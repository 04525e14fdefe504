// libFuzzer harness: the Gen command streamer with the GTT. The input is commands for one engine's legacy ring and
// a batch buffer, set up as i915 would (tb/host/i915_driver), run for 100 us of simulated time.
// Input: byte 0: engine (bits 2:0, modulo the engine count), bit 7: the ring starts with MI_BATCH_BUFFER_START of the
// batch; bytes 1-2: ring bytes N (at most 4 KiB, in dwords); N bytes of ring; the rest: the batch (at most 64 KiB).
#include <cstddef>
#include <cstdint>

#include "hw/gen/engines.h"
#include "hw/gen/mi_commands.h"
#include "tb/host/host_port.h"
#include "tb/host/i915_driver.h"
#include "tests/fuzz/fuzz_platform.h"

namespace {
std::vector<std::uint32_t> dwords_of(const std::vector<std::uint8_t>& bytes) {
  std::vector<std::uint32_t> out((bytes.size() + 3) / 4);
  for (std::size_t i = 0; i < bytes.size(); ++i) out[i / 4] |= static_cast<std::uint32_t>(bytes[i]) << (8 * (i % 4));
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuvp;
  fuzz::FuzzPlatform& fp = fuzz::FuzzPlatform::instance();
  fuzz::InputReader in(data, size);
  const std::uint8_t mode = in.byte();
  const auto engine = static_cast<gen::Engine>((mode & 7) % gen::kEngineCount);
  const std::size_t ring_bytes = std::min<std::size_t>((in.byte() | in.byte() << 8) & ~3u, 4096);
  const std::vector<std::uint32_t> ring_commands = dwords_of(in.bytes(ring_bytes));
  const std::vector<std::uint8_t> batch_bytes = in.bytes(64 * 1024);

  host::ScriptHostPort port;
  host::DriverLayout layout;
  layout.bar = fp.gen_base();
  host::I915Driver driver(port, layout);
  driver.enable_interrupts(engine);
  auto& ring = driver.create_ring(engine, 16 * 1024);
  const auto batch = driver.alloc(64 * 1024);
  if (!batch_bytes.empty()) port.write_block(batch.phys, batch_bytes.data(), batch_bytes.size());
  if (mode & 0x80) driver.emit(ring, gen::mi::batch_buffer_start(batch.gfx, false));
  if (!ring_commands.empty()) driver.emit(ring, ring_commands);
  driver.submit(ring);
  fp.run(port.script() + "clock_step 100000\n");
  return 0;
}
