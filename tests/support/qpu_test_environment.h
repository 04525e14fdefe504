// A QPU's environment for tests of the SystemC-free core: code, uniforms and 64 KiB of memory in vectors, the
// semaphores, the mutex and the host interrupts recorded.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "tlm/vc4/qpu/qpu_core.h"

namespace gpuvp::vc4::qpu {

constexpr std::uint32_t kCode = 0x1000;
constexpr std::uint32_t kUniforms = 0x8000;
constexpr std::uint32_t kMemory = 0x10000;  // 64 KiB the DMA and the TMUs reach

class TestEnvironment : public QpuEnvironment {
 public:
  bool fetch_instruction(std::uint32_t address, std::uint64_t& instruction) override {
    if (address < kCode || (address - kCode) % 8 != 0 || (address - kCode) / 8 >= code.size()) return false;
    instruction = code[(address - kCode) / 8];
    return true;
  }
  bool read_uniform(std::uint32_t address, std::uint32_t& value) override {
    if (address < kUniforms || (address - kUniforms) / 4 >= uniforms.size()) return false;
    value = uniforms[(address - kUniforms) / 4];
    return true;
  }
  bool semaphore(unsigned number, bool acquire) override {
    unsigned& count = semaphores[number];
    if (acquire ? count == 0 : count == 15) return false;
    count = acquire ? count - 1 : count + 1;
    return true;
  }
  bool mutex_acquire(unsigned qpu) override {
    if (mutex_owner >= 0) return false;
    mutex_owner = static_cast<int>(qpu);
    return true;
  }
  void mutex_release(unsigned) override { mutex_owner = -1; }
  void host_interrupt(unsigned qpu) override { interrupts.push_back(qpu); }
  bool read_memory(std::uint32_t address, void* data, std::uint32_t bytes) override {
    if (address < kMemory || address - kMemory + bytes > memory.size()) return false;
    std::memcpy(data, memory.data() + (address - kMemory), bytes);
    return true;
  }
  bool write_memory(std::uint32_t address, const void* data, std::uint32_t bytes) override {
    if (address < kMemory || address - kMemory + bytes > memory.size()) return false;
    std::memcpy(memory.data() + (address - kMemory), data, bytes);
    return true;
  }
  Vpm& vpm() override { return vpm_storage; }
  std::uint32_t word(std::uint32_t address) const {
    std::uint32_t v;
    std::memcpy(&v, memory.data() + (address - kMemory), 4);
    return v;
  }
  void set_word(std::uint32_t address, std::uint32_t v) { std::memcpy(memory.data() + (address - kMemory), &v, 4); }

  std::vector<std::uint8_t> memory = std::vector<std::uint8_t>(0x10000);
  Vpm vpm_storage;
  std::vector<std::uint64_t> code;
  std::vector<std::uint32_t> uniforms;
  unsigned semaphores[16] = {};
  int mutex_owner = -1;
  std::vector<unsigned> interrupts;
};

}  // namespace gpuvp::vc4::qpu
