// DataPort: the Gen9 data cache data port (SFIDs DC0 0xA and DC1 0xC) as IGC-compiled OpenCL kernels use it: untyped
// surface read/write and atomics, byte and dword scattered, A64 scattered/untyped atomics/OWord block, OWord block
// read/write, scratch block read/write and memory fences; surfaces through the binding table and RENDER_SURFACE_STATE
// (buffer surfaces: out-of-bounds reads return 0 and writes are dropped, as the hardware does), shared local memory
// (BTI 254) and stateless access (BTI 255, A32 relative to General State Base). SystemC-free and untimed.
//
// Like the hardware's data port, which coalesces a SIMD message's lane accesses into 64-byte line requests (Junkins,
// "The Compute Architecture of Intel Processor Graphics Gen9", section 5.4), a message reaches memory once per line it
// touches: a read of the line's requested bytes before the lanes take theirs, a write of each run of written bytes
// after. The memory behind GpuMemory gives those requests their time.
//
// Facts: Mesa brw_eu_defines.h / brw_eu.h (descriptor fields, message types, BRW_AOP_*), genxml gen9.xml
// (RENDER_SURFACE_STATE), NEO hw_helper.h (SURFACE_STATE_BUFFER_LENGTH); docs/gen-gpgpu.md lists what is modelled.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tlm/gen/eu/executor.h"
#include "tlm/gen/eu/thread_state.h"

namespace gpuvp::gen::eu {

// The GPU's view of memory (graphics virtual addresses). false: the access faulted (the walker stops the engine).
class GpuMemory {
 public:
  virtual ~GpuMemory() = default;
  virtual bool read(std::uint64_t address, void* data, unsigned bytes) = 0;
  virtual bool write(std::uint64_t address, const void* data, unsigned bytes) = 0;
};

// Where a dispatch's surfaces and memories are.
struct DataPortBindings {
  std::uint64_t surface_state_base = 0;  // STATE_BASE_ADDRESS
  std::uint64_t general_state_base = 0;  // STATE_BASE_ADDRESS: A32 stateless and scratch addresses are relative to it
  std::uint32_t binding_table = 0;       // SSH-relative (INTERFACE_DESCRIPTOR_DATA DW4)
  std::vector<std::uint8_t>* slm = nullptr;  // the work-group's shared local memory (none: BTI 254 is an error)
};

// Special binding table indices (Mesa brw_eu_defines.h GFX7_BTI_SLM, BRW_BTI_STATELESS,
// GFX8_BTI_STATELESS_NON_COHERENT).
constexpr std::uint32_t kBtiSlm = 254;
constexpr std::uint32_t kBtiStateless = 255;
constexpr std::uint32_t kBtiStatelessNonCoherent = 253;

struct DataPortStats {
  std::uint64_t messages = 0;
  std::uint64_t bytes_read = 0;  // bytes the lanes asked for (inside their buffers)
  std::uint64_t bytes_written = 0;
  std::uint64_t lines_read = 0;  // 64-byte lines read from memory: one per distinct line of a message
  std::uint64_t lines_written = 0;
  std::uint64_t atomics = 0;
  std::uint64_t out_of_bounds = 0;  // lanes of surface accesses outside their buffer (read 0 / dropped)
};

class DataPort {
 public:
  explicit DataPort(GpuMemory& memory);
  ~DataPort();

  // New bindings (a new dispatch or work-group): forgets the surfaces read so far.
  void bind(const DataPortBindings& bindings);

  // A DC0/DC1 message; kError names what is wrong (an unmodelled message type says so).
  MessageResult send(const Message& message, ThreadState& thread);

  // True when the last error came from a memory fault (the GPU stops), not from a bad message.
  bool memory_faulted() const { return memory_faulted_; }
  const DataPortStats& stats() const { return stats_; }

 private:
  struct Surface {
    enum class Kind : std::uint8_t { kBuffer, kNull, kSlm, kStateless } kind = Kind::kNull;
    std::uint64_t base = 0;  // graphics address (buffers, stateless)
    std::uint64_t size = 0;  // bytes (buffers)
  };
  class Access;
  class Lines;

  bool surface(std::uint32_t bti, Surface& out, std::string& error);
  // Planning: a lane's SLM access, noted per line for the timing (MemoryLog).
  void note_slm(std::uint64_t offset, unsigned bytes, bool write);

  // Each message runs twice through the same code: once to plan (the lanes' memory accesses are noted, nothing is
  // read, written or answered), then, after its lines are read, to execute against them.
  MessageResult dc0(const Message& m, ThreadState& t, Lines& lines, bool planning);
  MessageResult dc1(const Message& m, ThreadState& t, Lines& lines, bool planning);

  GpuMemory& memory_;
  DataPortBindings bindings_;
  std::map<std::uint32_t, Surface> surfaces_;
  DataPortStats stats_;
  bool memory_faulted_ = false;
  std::unique_ptr<Lines> lines_;       // reused across messages
  std::vector<MemoryLine> slm_lines_;  // the message's SLM lines (planning)
};

}  // namespace gpuvp::gen::eu
