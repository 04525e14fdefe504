// MemoryLog: what one EU thread's messages asked of memory, in the order the thread sent them, for the EU array's
// memory timing (eu::MemoryHierarchy). The functional run of a thread group fills it (the data port notes the 64-byte
// lines each message touched, after coalescing); the timing run replays it when each send issues. SystemC-free.
#pragma once

#include <cstdint>
#include <vector>

namespace gpuvp::gen::eu {

// One 64-byte line a message touched.
struct MemoryLine {
  static constexpr std::uint8_t kRead = 1U << 0;
  static constexpr std::uint8_t kWrite = 1U << 1;
  static constexpr std::uint8_t kSlm = 1U << 2;  // shared local memory (address: the byte offset in the group's SLM)
  std::uint64_t address = 0;                     // the line's first byte (graphics virtual address, or SLM offset)
  std::uint8_t flags = 0;
};

// One send: its lines are lines[first_line, first_line + line_count). A send that reached no memory (the gateway,
// the end of thread, a fence, a null surface) has none.
struct MemoryMessage {
  std::uint32_t first_line = 0;
  std::uint16_t line_count = 0;
  std::uint16_t atomics = 0;  // lanes doing atomic operations
};

struct MemoryLog {
  std::vector<MemoryMessage> messages;  // one per send the thread executed, in order
  std::vector<MemoryLine> lines;
  std::uint16_t pending_atomics = 0;  // the data port's count for the message being sent

  void clear() {
    messages.clear();
    lines.clear();
    pending_atomics = 0;
  }
};

}  // namespace gpuvp::gen::eu
