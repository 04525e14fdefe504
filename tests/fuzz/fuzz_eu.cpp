// libFuzzer harness: the EU decoder and bounded execution (tlm/gen/eu, SystemC-free). The input is a Gen9 kernel run
// by a thread group of 1-4 threads with the data port on a 1 MiB sandbox of GPU memory (stateless and surface
// accesses, SLM) for at most 20000 instructions. Undecodable instructions, bad messages and out-of-range accesses
// must be modelled faults, never a crash. With bit 4 of byte 0 the group runs as a walker under array timing runs it:
// in steps of 64 instructions per thread, each step's instructions and memory requests timed by a GT2 EU array with
// its memory hierarchy as the array asks for them (eu::EuArray::Refill).
// Input: byte 0: threads (bits 1:0, plus one), SIMD width (bit 2: 16, else 8; bit 3: 32) and timing (bit 4); bytes
// 1-64: the start of r0-r1 of each thread (the payload); the rest: the kernel's instructions (at most 64 KiB).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tlm/gen/eu/data_port.h"
#include "tlm/gen/eu/eu_array.h"
#include "tlm/gen/eu/memory_hierarchy.h"
#include "tlm/gen/eu/program.h"
#include "tlm/gen/eu/thread_group.h"
#include "tlm/gen/eu/thread_state.h"

namespace {
// GPU memory: 1 MiB at graphics address 0; anything else faults.
class SandboxMemory final : public gpuvp::gen::eu::GpuMemory {
 public:
  explicit SandboxMemory(std::vector<std::uint8_t> bytes) : bytes_(std::move(bytes)) { bytes_.resize(kSize); }
  bool read(std::uint64_t address, void* data, unsigned bytes) override {
    if (address > kSize || bytes > kSize - address) return false;
    std::memcpy(data, bytes_.data() + address, bytes);
    return true;
  }
  bool write(std::uint64_t address, const void* data, unsigned bytes) override {
    if (address > kSize || bytes > kSize - address) return false;
    std::memcpy(bytes_.data() + address, data, bytes);
    return true;
  }

 private:
  static constexpr std::uint64_t kSize = 1 << 20;
  std::vector<std::uint8_t> bytes_;
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace eu = gpuvp::gen::eu;
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  const std::size_t payload = std::min<std::size_t>(size - 1, 64);
  const std::uint8_t* kernel = data + 1 + payload;
  const std::size_t kernel_bytes = std::min<std::size_t>(size - 1 - payload, 64 * 1024);
  std::vector<std::uint8_t> code(kernel, kernel + kernel_bytes);

  eu::BufferInstructionMemory instructions(0, code);
  eu::Program program(instructions, 0, eu::Generation::kGen9);
  SandboxMemory memory(code);  // the kernel's bytes double as surface states and data
  eu::DataPort data_port(memory);
  std::vector<std::uint8_t> slm(64 * 1024);
  eu::DataPortBindings bindings;
  bindings.slm = &slm;
  data_port.bind(bindings);
  eu::ThreadGroup group(program, data_port);
  const std::uint32_t mask = mode & 8 ? 0xFFFFFFFFu : mode & 4 ? 0xFFFFu : 0xFFu;
  std::vector<eu::ThreadState> threads(1 + (mode & 3));
  for (auto& t : threads) {
    std::memcpy(t.grf.data(), data + 1, payload);
    t.reset_control_flow(0, mask);
  }
  if ((mode & 0x10) == 0) {
    (void)group.run(threads, 20'000);
    return 0;
  }
  std::vector<eu::MemoryLog> logs(threads.size());
  for (std::size_t i = 0; i < threads.size(); ++i) threads[i].memory_log = &logs[i];
  eu::MemoryHierarchy hierarchy{eu::MemoryHierarchyParams{}};
  eu::EuArray array{eu::EuArrayParams{}};
  array.attach_memory(&hierarchy);
  group.begin(threads, 20'000);
  const auto step = [&](eu::EuArray::Group& g) {
    const eu::ThreadGroupResult r = group.resume(64, &g.threads);
    g.memory.resize(logs.size());
    for (std::size_t i = 0; i < logs.size(); ++i) {
      g.memory[i] = std::move(logs[i]);
      logs[i].clear();
    }
    return r.ok;
  };
  bool placed = false;
  (void)array.run(
      [&](eu::EuArray::Group& g) {
        if (placed) return false;
        placed = true;
        g.threads.resize(threads.size());  // the array asks for the instructions once the group is placed
        return true;
      },
      [&](std::size_t, eu::EuArray::Group& more) { return !group.done() && step(more); });
  return 0;
}
