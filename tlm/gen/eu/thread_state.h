// The architectural state of one EU hardware thread (Gen8/Gen9): 128 general registers of 32 bytes and the
// architecture register file. Register numbers: Mesa brw_eu_defines.h (BRW_ARF_*); IGA's names (ce, sp, tm0, ...);
// cr0 bits: Mesa brw_eu_defines.h (BRW_CR0_*, citing the Skylake PRM "Control Register").
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "tlm/gen/eu/memory_log.h"

namespace gpuvp::gen::eu {

// ARF register numbers as encoded in an operand (high nibble: the file, low nibble: the register).
namespace arf {
constexpr std::uint8_t kNull = 0x00;
constexpr std::uint8_t kAddress = 0x10;        // a0
constexpr std::uint8_t kAccumulator = 0x20;    // acc0, acc1
constexpr std::uint8_t kFlag = 0x30;           // f0, f1
constexpr std::uint8_t kChannelEnable = 0x40;  // ce
constexpr std::uint8_t kStackPointer = 0x60;   // sp
constexpr std::uint8_t kState = 0x70;          // sr0
constexpr std::uint8_t kControl = 0x80;        // cr0
constexpr std::uint8_t kNotification = 0x90;   // n0
constexpr std::uint8_t kInstructionPointer = 0xA0;
constexpr std::uint8_t kThreadDependency = 0xB0;  // tdr
constexpr std::uint8_t kTimestamp = 0xC0;         // tm0
}  // namespace arf

// cr0.0 fields (Skylake PRM via Mesa brw_eu_defines.h).
namespace cr0 {
constexpr std::uint32_t kRoundingModeShift = 4;  // 0 RTNE, 1 RU (+inf), 2 RD (-inf), 3 RTZ
constexpr std::uint32_t kRoundingModeMask = 0x30;
constexpr std::uint32_t kFp64DenormPreserve = 1U << 6;
constexpr std::uint32_t kFp32DenormPreserve = 1U << 7;
constexpr std::uint32_t kFp16DenormPreserve = 1U << 10;
}  // namespace cr0

struct ThreadState {
  static constexpr unsigned kGrfCount = 128;
  static constexpr unsigned kRegBytes = 32;
  static constexpr unsigned kGrfBytes = kGrfCount * kRegBytes;
  static constexpr unsigned kMaxChannels = 32;

  alignas(64) std::array<std::uint8_t, kGrfBytes> grf{};
  // ARF storage, one 32-byte slot per register that holds data; a0 is 16 words, f0/f1 are 32 bits each.
  alignas(32) std::array<std::uint8_t, 2 * kRegBytes> acc{};  // acc0, acc1
  std::array<std::uint8_t, kRegBytes> a0{};
  std::array<std::uint32_t, 2> flags{};  // f0 (f0.0 = bits 15:0, f0.1 = bits 31:16), f1
  std::array<std::uint32_t, 4> sr0{};
  std::array<std::uint32_t, 4> cr0{};
  std::array<std::uint32_t, 4> tdr{};
  std::array<std::uint32_t, 4> tm0{};
  std::array<std::uint32_t, 4> n0{};
  std::uint32_t sp = 0;

  // Channels the thread was dispatched with (the walker's execution mask for the last, partial group).
  std::uint32_t dispatch_mask = 0xFFFF;
  // Divergent control flow: channels in `active` are at `ip`; the other dispatched channels are parked at their own
  // instruction pointers in `channel_ip`. After a branch the thread continues at the lowest pointer of any dispatched
  // channel, where the channels waiting there join again (Gen8+ SIMD control flow keeps per-channel IPs for
  // goto/join; structured if/else/while/break code reconverges the same way at its endif, else and loop exits).
  std::array<std::uint32_t, kMaxChannels> channel_ip{};
  // Subroutine calls: `scope` holds the channels taking part in the current subroutine (the dispatched channels outside
  // any call); the thread chooses its next channels among them only. A call by some channels leaves the others waiting
  // (at the return address, or parked where they were) until every calling channel has returned: call_scopes keeps
  // the scope of each open call, innermost last.
  static constexpr unsigned kMaxCallDepth = 64;
  std::uint32_t scope = 0xFFFF;
  std::array<std::uint32_t, kMaxCallDepth> call_scopes{};
  unsigned call_depth = 0;
  std::uint32_t active = 0xFFFF;
  std::uint32_t ip = 0;
  bool ended = false;  // EOT sent
  // Where the data port notes this thread's memory requests for the EU array's timing (nullptr: not timed).
  MemoryLog* memory_log = nullptr;

  std::uint32_t rounding_mode() const { return (cr0[0] & cr0::kRoundingModeMask) >> cr0::kRoundingModeShift; }

  template <typename T>
  T grf_read(unsigned byte_offset) const {
    T value;
    std::memcpy(&value, grf.data() + byte_offset, sizeof(T));
    return value;
  }
  template <typename T>
  void grf_write(unsigned byte_offset, T value) {
    std::memcpy(grf.data() + byte_offset, &value, sizeof(T));
  }

  // Starts a thread at byte offset `start` with the given channels alive.
  void reset_control_flow(std::uint32_t start, std::uint32_t mask) {
    dispatch_mask = mask;
    scope = mask;
    call_depth = 0;
    channel_ip.fill(start);
    active = mask;
    ip = start;
    ended = false;
  }
};

}  // namespace gpuvp::gen::eu
