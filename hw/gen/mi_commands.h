// Command encodings of the Gen8/Gen9 command streamer (docs/gen-command-streamer.md; Mesa genxml gen8.xml/gen9.xml,
// i915 gt/intel_gpu_commands.h): opcodes, flag bits and the MI_MATH ALU instruction encoding the command streamer
// decodes, and the encoders testbenches, the host driver models and the demo workload emit; both sides share one
// definition.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

namespace gpuvp::gen::mi {

// DW0 bits 31:29: command type; MI commands are type 0 with the opcode in bits 28:23.
constexpr std::uint32_t type_of(std::uint32_t dw0) { return dw0 >> 29; }
constexpr std::uint32_t opcode_of(std::uint32_t dw0) { return (dw0 >> 23) & 0x3F; }
constexpr std::uint32_t instr(std::uint32_t opcode, std::uint32_t flags) { return opcode << 23 | flags; }

constexpr std::uint32_t kTypeMi = 0;
constexpr std::uint32_t kTypeGfxPipe = 3;

// MI opcodes.
constexpr std::uint32_t kNoop = 0x00;
constexpr std::uint32_t kUserInterrupt = 0x02;
constexpr std::uint32_t kArbCheck = 0x05;
constexpr std::uint32_t kArbOnOff = 0x08;
constexpr std::uint32_t kBatchBufferEnd = 0x0A;
constexpr std::uint32_t kMath = 0x1A;
constexpr std::uint32_t kSemaphoreWait = 0x1C;
constexpr std::uint32_t kStoreDataImm = 0x20;
constexpr std::uint32_t kStoreDataIndex = 0x21;
constexpr std::uint32_t kLoadRegisterImm = 0x22;
constexpr std::uint32_t kStoreRegisterMem = 0x24;
constexpr std::uint32_t kFlushDw = 0x26;
constexpr std::uint32_t kLoadRegisterMem = 0x29;
constexpr std::uint32_t kAtomic = 0x2F;
constexpr std::uint32_t kBatchBufferStart = 0x31;
constexpr std::uint32_t kConditionalBatchBufferEnd = 0x36;

// MI_LOAD_REGISTER_IMM header for `pairs` (offset, value) pairs; FORCE_POSTED (bit 12) is what i915 sets in context
// images (v4.x intel_lrc.c populate_lr_context).
constexpr std::uint32_t kLriForcePosted = 1u << 12;
constexpr std::uint32_t lri_header(std::uint32_t pairs) { return instr(kLoadRegisterImm, 2 * pairs - 1); }

// GPGPU_CSR_BASE_ADDRESS (GFXPIPE 3, 0, 1, 4; Mesa genxml gen9.xml): a 3-dword state command the hardware itself saves
// into render context images (docs/gen-execlists.md).
constexpr std::uint32_t kGpgpuCsrBaseAddressDw0 = 0x61040000;

// Shared DW0 flag bits.
constexpr std::uint32_t kUseGgtt = 1u << 22;        // SDI, SRM, LRM, SEMAPHORE_WAIT, ATOMIC, COND_BB_END
constexpr std::uint32_t kStoreQword = 1u << 21;     // SDI, STORE_DATA_INDEX
constexpr std::uint32_t kBbPpgtt = 1u << 8;         // BB_START address space indicator
constexpr std::uint32_t kBbSecondLevel = 1u << 22;  // BB_START second level
constexpr std::uint32_t kNoopIdentify = 1u << 22;   // MI_NOOP: write bits 21:0 to NOPID
constexpr std::uint32_t kSemaphorePoll = 1u << 15;  // SEMAPHORE_WAIT wait mode
constexpr std::uint32_t kCondCompareSemaphore = 1u << 21;
// MI_ATOMIC DW0 (Mesa genxml gen8/gen9.xml, media-driver mhw_mi_hwcmd_g9_X.h, compute-runtime gen9; see mi_atomic.h).
constexpr std::uint32_t kAtomicPostSync = 1u << 21;  // "Post-Sync Operation" (genxml); media-driver: reserved
constexpr std::uint32_t kAtomicQword = 1u << 19;     // Data Size 20:19: 0 dword, 1 qword, 2 octword
constexpr std::uint32_t kAtomicInlineData = 1u << 18;
constexpr std::uint32_t kAtomicCsStall = 1u << 17;
constexpr std::uint32_t kAtomicReturnData = 1u << 16;  // Return Data Control: memory return data -> CS_GPR4

// SEMAPHORE_WAIT compare operations (bits 14:12): SAD = memory data, SDD = inline data.
enum class Compare : std::uint32_t {
  kGreater = 0,
  kGreaterEqual = 1,
  kLess = 2,
  kLessEqual = 3,
  kEqual = 4,
  kNotEqual = 5
};

// MI_FLUSH_DW DW0 bits.
constexpr std::uint32_t kFlushStoreIndex = 1u << 21;
constexpr std::uint32_t kFlushTlbInvalidate = 1u << 18;
constexpr std::uint32_t kFlushPostSyncImm = 1u << 14;  // 15:14 = 1: write immediate data
constexpr std::uint32_t kFlushPostSyncTimestamp = 3u << 14;
constexpr std::uint32_t kFlushNotify = 1u << 8;
constexpr std::uint32_t kFlushDestGgtt = 1u << 2;  // DW1 bit 2

// PIPE_CONTROL: GFXPIPE (3, 2, 0); DW1 flags.
constexpr std::uint32_t kPipeControlDw0 = 0x7A000000;  // length in 7:0
constexpr std::uint32_t kPcNotify = 1u << 8;
constexpr std::uint32_t kPcPostSyncImm = 1u << 14;
constexpr std::uint32_t kPcPostSyncDepthCount = 2u << 14;
constexpr std::uint32_t kPcPostSyncTimestamp = 3u << 14;
constexpr std::uint32_t kPcTlbInvalidate = 1u << 18;
constexpr std::uint32_t kPcInstructionCacheInvalidate = 1u << 11;
constexpr std::uint32_t kPcCsStall = 1u << 20;
constexpr std::uint32_t kPcStoreDataIndex = 1u << 21;
constexpr std::uint32_t kPcDestGgtt = 1u << 24;

// MI_MATH ALU instructions (i915 gt/intel_gpu_commands.h MI_MATH_INSTR, MI_MATH_*; Mesa genxml
// MI_MATH_ALU_INSTRUCTION): opcode << 20 | operand1 << 10 | operand2.
struct Alu {
  static constexpr std::uint32_t encode(std::uint32_t opcode, std::uint32_t op1, std::uint32_t op2) {
    return opcode << 20 | op1 << 10 | op2;
  }
  // Opcodes (bits 31:20).
  static constexpr std::uint32_t kNoop = 0x000;
  static constexpr std::uint32_t kLoad = 0x080;
  static constexpr std::uint32_t kLoadInv = 0x480;
  static constexpr std::uint32_t kLoad0 = 0x081;
  static constexpr std::uint32_t kLoad1 = 0x481;
  static constexpr std::uint32_t kAdd = 0x100;
  static constexpr std::uint32_t kSub = 0x101;
  static constexpr std::uint32_t kAnd = 0x102;
  static constexpr std::uint32_t kOr = 0x103;
  static constexpr std::uint32_t kXor = 0x104;
  static constexpr std::uint32_t kStore = 0x180;
  static constexpr std::uint32_t kStoreInv = 0x580;
  // Operands: R0..R15 are 0x00..0x0F.
  static constexpr std::uint32_t kSrcA = 0x20;
  static constexpr std::uint32_t kSrcB = 0x21;
  static constexpr std::uint32_t kAccu = 0x31;
  static constexpr std::uint32_t kZf = 0x32;
  static constexpr std::uint32_t kCf = 0x33;
};

// ---- Encoders (what a driver emits) ----

inline std::vector<std::uint32_t> noop() { return {0}; }
inline std::vector<std::uint32_t> user_interrupt() { return {instr(kUserInterrupt, 0)}; }
inline std::vector<std::uint32_t> arb_check() { return {instr(kArbCheck, 0)}; }
inline std::vector<std::uint32_t> arb_on_off(bool enable) { return {instr(kArbOnOff, enable ? 1u : 0u)}; }
inline std::vector<std::uint32_t> batch_buffer_end() { return {instr(kBatchBufferEnd, 0)}; }

inline std::vector<std::uint32_t> batch_buffer_start(std::uint64_t address, bool ppgtt, bool second_level = false) {
  return {instr(kBatchBufferStart, 1) | (ppgtt ? kBbPpgtt : 0) | (second_level ? kBbSecondLevel : 0),
          static_cast<std::uint32_t>(address), static_cast<std::uint32_t>(address >> 32)};
}

inline std::vector<std::uint32_t> store_data_imm(std::uint64_t address, std::uint32_t value, bool ggtt = true) {
  return {instr(kStoreDataImm, 2) | (ggtt ? kUseGgtt : 0), static_cast<std::uint32_t>(address),
          static_cast<std::uint32_t>(address >> 32), value};
}

inline std::vector<std::uint32_t> store_qword_imm(std::uint64_t address, std::uint64_t value, bool ggtt = true) {
  return {instr(kStoreDataImm, 3) | kStoreQword | (ggtt ? kUseGgtt : 0), static_cast<std::uint32_t>(address),
          static_cast<std::uint32_t>(address >> 32), static_cast<std::uint32_t>(value),
          static_cast<std::uint32_t>(value >> 32)};
}

// i915 MI_STORE_DWORD_INDEX: a dword at byte offset index * 4 of the engine's status page.
inline std::vector<std::uint32_t> store_data_index(std::uint32_t dword_index, std::uint32_t value) {
  return {instr(kStoreDataIndex, 1), dword_index << 2, value};
}

// MI_LOAD_REGISTER_IMM with (offset, value) pairs; byte_disables in bits 11:8.
inline std::vector<std::uint32_t> load_register_imm(std::initializer_list<std::pair<std::uint32_t, std::uint32_t>> regs,
                                                    std::uint32_t byte_disables = 0) {
  std::vector<std::uint32_t> out{lri_header(static_cast<std::uint32_t>(regs.size())) | (byte_disables & 0xF) << 8};
  for (const auto& [offset, value] : regs) {
    out.push_back(offset);
    out.push_back(value);
  }
  return out;
}

inline std::vector<std::uint32_t> store_register_mem(std::uint32_t reg, std::uint64_t address, bool ggtt = true) {
  return {instr(kStoreRegisterMem, 2) | (ggtt ? kUseGgtt : 0), reg, static_cast<std::uint32_t>(address),
          static_cast<std::uint32_t>(address >> 32)};
}

inline std::vector<std::uint32_t> load_register_mem(std::uint32_t reg, std::uint64_t address, bool ggtt = true) {
  return {instr(kLoadRegisterMem, 2) | (ggtt ? kUseGgtt : 0), reg, static_cast<std::uint32_t>(address),
          static_cast<std::uint32_t>(address >> 32)};
}

inline std::vector<std::uint32_t> semaphore_wait(std::uint64_t address, std::uint32_t data, Compare op,
                                                 bool poll = true, bool ggtt = true) {
  return {instr(kSemaphoreWait, 2) | (ggtt ? kUseGgtt : 0) | (poll ? kSemaphorePoll : 0) |
              static_cast<std::uint32_t>(op) << 12,
          data, static_cast<std::uint32_t>(address), static_cast<std::uint32_t>(address >> 32)};
}

// MI_FLUSH_DW with an optional post-sync immediate dword write to a GGTT address and a notify.
inline std::vector<std::uint32_t> flush_dw(std::uint64_t address, std::uint32_t value, bool write, bool notify,
                                           bool tlb_invalidate = false) {
  return {instr(kFlushDw, 2) | (write ? kFlushPostSyncImm : 0) | (notify ? kFlushNotify : 0) |
              (tlb_invalidate ? kFlushTlbInvalidate : 0),
          static_cast<std::uint32_t>(address) | (write ? kFlushDestGgtt : 0), static_cast<std::uint32_t>(address >> 32),
          value};
}

// PIPE_CONTROL (6 dwords) with DW1 flags, a GGTT destination and immediate data.
inline std::vector<std::uint32_t> pipe_control(std::uint32_t flags, std::uint64_t address = 0, std::uint64_t data = 0) {
  return {kPipeControlDw0 | 4,
          flags,
          static_cast<std::uint32_t>(address),
          static_cast<std::uint32_t>(address >> 32),
          static_cast<std::uint32_t>(data),
          static_cast<std::uint32_t>(data >> 32)};
}

// MI_MATH with ALU instruction dwords (length = count - 1).
inline std::vector<std::uint32_t> math(std::initializer_list<std::uint32_t> alu) {
  std::vector<std::uint32_t> out{instr(kMath, static_cast<std::uint32_t>(alu.size() - 1))};
  out.insert(out.end(), alu.begin(), alu.end());
  return out;
}

// Ends the batch when the dword at address is <= data (Compare Semaphore set, as every driver emits it).
inline std::vector<std::uint32_t> conditional_batch_buffer_end(std::uint64_t address, std::uint32_t data,
                                                               bool ggtt = true) {
  return {instr(kConditionalBatchBufferEnd, 2) | (ggtt ? kUseGgtt : 0) | kCondCompareSemaphore, data,
          static_cast<std::uint32_t>(address), static_cast<std::uint32_t>(address >> 32)};
}

// MI_ATOMIC on a dword (size 0) or qword (size 1) with optional inline operands. Inline operand dwords are
// interleaved (DW3 op1[31:0], DW4 op2[31:0], DW5 op1[63:32], DW6 op2[63:32]) and only those the data size needs are
// emitted: 5 dwords for a dword (i915 gen8 WaRsRestoreWithPerCtxtBb uses MI_ATOMIC(5)), 7 for a qword (Mesa blorp
// MOVE8B). Without inline data the operands come from CS_GPR0 / CS_GPR2.
inline std::vector<std::uint32_t> atomic(std::uint32_t op, std::uint64_t address, bool ggtt, bool qword,
                                         bool inline_data = false, std::uint64_t operand1 = 0,
                                         std::uint64_t operand2 = 0, bool return_data = false, bool cs_stall = false) {
  const std::uint32_t total = inline_data ? (qword ? 7u : 5u) : 3u;
  std::vector<std::uint32_t> out{instr(kAtomic, total - 2) | (ggtt ? kUseGgtt : 0) | (qword ? kAtomicQword : 0) |
                                     (inline_data ? kAtomicInlineData : 0) | (cs_stall ? kAtomicCsStall : 0) |
                                     (return_data ? kAtomicReturnData : 0) | (op & 0xFF) << 8,
                                 static_cast<std::uint32_t>(address),
                                 static_cast<std::uint32_t>(address >> 32) & 0xFFFF};
  if (inline_data) {
    out.push_back(static_cast<std::uint32_t>(operand1));
    out.push_back(static_cast<std::uint32_t>(operand2));
    if (qword) {
      out.push_back(static_cast<std::uint32_t>(operand1 >> 32));
      out.push_back(static_cast<std::uint32_t>(operand2 >> 32));
    }
  }
  return out;
}

// Appends a command to a buffer being built.
inline void emit(std::vector<std::uint32_t>& buffer, const std::vector<std::uint32_t>& command) {
  buffer.insert(buffer.end(), command.begin(), command.end());
}

}  // namespace gpuvp::gen::mi
