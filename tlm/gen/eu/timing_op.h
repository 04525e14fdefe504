// TimingOp: what the EU timing model needs to know about one decoded instruction, computed once at decode: the unit it
// issues to, how long it occupies that unit and the thread's front end, when its result is ready, and the registers it
// reads and writes (the per-thread scoreboard's dependencies). SystemC-free, like the rest of tlm/gen/eu.
//
// Facts: Junkins, "The Compute Architecture of Intel Processor Graphics Gen9" (2015), section 5.3: two SIMD-4 FPUs per
// EU, both for FP32 and INT32 (SIMD-8 for 16-bit types), one of them (FPU0 here) also for FP64 and the extended math
// functions; SIMD8/16 instructions issue as SIMD-4 passes. Mesa src/intel/compiler/brw_ir_performance.cpp (its
// Gen8-10 table, fitted to measured timings): destination latency 8 cycles for 32-bit ALU work, 12 for 64-bit types
// and dot products, 16 for the transcendental math functions and 24 for pow and fdiv, 26 cycles of unit occupancy and
// 28 of latency for integer division, 8 front-end cycles for structured control flow and 2 for a send. Where neither
// says, the choice is stated beside it and in docs/gen-eu-timing.md.
#pragma once

#include <array>
#include <cstdint>

#include "tlm/gen/eu/decoder.h"

namespace gpuvp::gen::eu {

// The unit an instruction issues to.
enum class TimingPipe : std::uint8_t {
  kFpuAny,   // either FPU (FP32, INT32, 16-bit types)
  kFpu0,     // FPU0 only: 64-bit types and extended math
  kSend,     // the message gateway to the shared functions
  kControl,  // the branch unit
  kNone,     // nop, wait: the front end only
};

// What the statistics count an instruction as.
enum class TimingClass : std::uint8_t { kFpu, kFpu0Only, kExtendedMath, kSend, kControl, kOther };

// Registers an instruction reads or writes: GRFs [first, first + count).
struct GrfRange {
  std::uint8_t first = 0;
  std::uint8_t count = 0;  // 0: none
  bool operator==(const GrfRange& o) const { return first == o.first && count == o.count; }
};

// Architecture registers the scoreboard tracks beside the GRFs, as bits.
namespace arf {
constexpr std::uint8_t kF0 = 1U << 0;   // flag register f0 (f0.0, f0.1)
constexpr std::uint8_t kF1 = 1U << 1;   // flag register f1
constexpr std::uint8_t kAcc = 1U << 2;  // accumulators
constexpr std::uint8_t kA0 = 1U << 3;   // address register
}  // namespace arf

struct TimingOp {
  TimingPipe pipe = TimingPipe::kNone;
  TimingClass cls = TimingClass::kOther;
  std::uint8_t occupancy = 0;  // cycles the unit is busy
  std::uint8_t front_end = 1;  // cycles before the thread may issue its next instruction
  std::uint8_t latency = 0;    // cycles from issue until the destination may be read (sends: the memory model's)
  std::uint8_t exec_size = 1;
  std::uint8_t reads_arf = 0;   // arf:: bits
  std::uint8_t writes_arf = 0;  // arf:: bits
  // An indirectly addressed operand: the instruction waits for every register write of its thread in flight.
  bool indirect = false;
  // A send whose descriptor is in a0.0: its payload and response lengths are the message's, known at execution.
  bool dynamic_descriptor = false;
  bool eot = false;
  // A barrier message to the gateway (SFID 3, function 4), and a wait on the notification register it releases.
  bool barrier = false;
  bool wait = false;
  // Floating-point operations at the full execution size (mad and the like 2 per channel), by precision.
  std::uint16_t flops32 = 0;
  std::uint16_t flops64 = 0;
  std::uint16_t flops16 = 0;
  std::array<GrfRange, 3> reads{};  // sources (a send: its payload, two parts for sends)
  GrfRange writes;                  // destination (a send: its response)
};

// The timing of a decoded instruction.
TimingOp timing_of(const DecodedInstruction& d);

}  // namespace gpuvp::gen::eu
