// Specialised executors for the instructions that dominate compute kernels, chosen once when an instruction is
// decoded: SIMD8/SIMD16 float and dword arithmetic on whole registers (contiguous or scalar GRF operands, an immediate
// second source) and cmp into a flag, without predication or saturation; add, mul and mad also in half precision
// (IGC's Gen9 half-precision code, clpeak's half test) and in double precision. The executor uses one only when every
// channel of the instruction is enabled and, for floating point, when cr0 asks for round-to-nearest-even and, for
// float and double, the denormal handling the host is set to; otherwise the generic interpreter runs it. Results are
// identical either way (tests/test_eu_exec.cpp runs kernels both ways).
#pragma once

#include <array>
#include <cstdint>

#include "tlm/gen/eu/decoder.h"
#include "tlm/gen/eu/thread_state.h"

namespace gpuvp::gen::eu {

// The floating-point modes a fast form needs, as bits: the executor works out which hold for the thread's cr0 and the
// host's float mode, and runs a fast form when its bit is among them.
namespace fast_mode {
constexpr std::uint8_t kAny = 1U << 0;     // integer and logic work: any mode
constexpr std::uint8_t kSingle = 1U << 1;  // F: round to nearest even, F denormals as the host handles them
constexpr std::uint8_t kDouble = 1U << 2;  // DF: round to nearest even, DF denormals as the host handles them
constexpr std::uint8_t kHalf = 1U << 3;    // HF: round to nearest even (HF denormals are flushed by the form itself)
}  // namespace fast_mode

struct FastOp {
  using Fn = void (*)(ThreadState& thread, const FastOp& op);
  Fn fn = nullptr;
  std::uint8_t mode = fast_mode::kAny;  // the fast_mode bit the form needs
  bool no_mask = false;
  std::uint32_t channels = 0;  // thread channels the instruction covers (all must be enabled)
  std::uint16_t dst = 0;       // GRF byte offsets
  std::array<std::uint16_t, 3> src{};
  std::uint8_t scalar = 0;  // bit i: source i is one element broadcast to every channel
  bool src1_immediate = false;
  std::uint32_t imm = 0;  // src1 immediate bits (HF: the low 16)
  bool dst_null = false;
  std::uint8_t cond = 0;        // cmp: the condition
  std::uint8_t flag_word = 0;   // cmp: f0 or f1
  std::uint8_t flag_shift = 0;  // cmp: first flag bit of the instruction's channel 0
};

// The fast form of `d`, or one with fn == nullptr when the generic interpreter must run it.
FastOp plan_fast_op(const DecodedInstruction& d);

// For tests and benchmarks: turns the fast forms off process-wide so that the generic interpreter runs everything.
void set_fast_paths_enabled(bool enabled);
bool fast_paths_enabled();

}  // namespace gpuvp::gen::eu
