// The VideoCore IV QPU instruction encoding: 64-bit little-endian instructions in three forms (ALU, load immediate /
// semaphore, branch), their fields, op codes, signals, conditions, input muxes, small immediates and the special read
// and write addresses. Names and values follow Linux drivers/gpu/drm/vc4/vc4_qpu_defines.h (the kernel's copy of
// Mesa's header); the load-immediate modes and semaphore fields follow py-videocore's encoding.py; what each means is
// in docs/vc4-qpu.md with its sources (../shared/docs/reference-vc4-qpu.md sections 1.2-1.10).
#pragma once

#include <cstdint>

namespace gpuvp::vc4::qpu {

// Bits [lo, lo + width) of an instruction.
constexpr std::uint32_t field(std::uint64_t inst, unsigned lo, unsigned width) {
  return static_cast<std::uint32_t>((inst >> lo) & ((std::uint64_t{1} << width) - 1));
}

// ---- fields common to the ALU and load-immediate forms ----
constexpr std::uint32_t sig(std::uint64_t i) { return field(i, 60, 4); }
constexpr std::uint32_t unpack(std::uint64_t i) { return field(i, 57, 3); }  // ALU form
constexpr std::uint32_t pm(std::uint64_t i) { return field(i, 56, 1); }
constexpr std::uint32_t pack(std::uint64_t i) { return field(i, 52, 4); }
constexpr std::uint32_t cond_add(std::uint64_t i) { return field(i, 49, 3); }
constexpr std::uint32_t cond_mul(std::uint64_t i) { return field(i, 46, 3); }
constexpr std::uint32_t sf(std::uint64_t i) { return field(i, 45, 1); }
constexpr std::uint32_t ws(std::uint64_t i) { return field(i, 44, 1); }
constexpr std::uint32_t waddr_add(std::uint64_t i) { return field(i, 38, 6); }
constexpr std::uint32_t waddr_mul(std::uint64_t i) { return field(i, 32, 6); }
// ALU form
constexpr std::uint32_t op_mul(std::uint64_t i) { return field(i, 29, 3); }
constexpr std::uint32_t op_add(std::uint64_t i) { return field(i, 24, 5); }
constexpr std::uint32_t raddr_a(std::uint64_t i) { return field(i, 18, 6); }
constexpr std::uint32_t raddr_b(std::uint64_t i) { return field(i, 12, 6); }  // the small immediate when sig = 13
constexpr std::uint32_t add_a(std::uint64_t i) { return field(i, 9, 3); }
constexpr std::uint32_t add_b(std::uint64_t i) { return field(i, 6, 3); }
constexpr std::uint32_t mul_a(std::uint64_t i) { return field(i, 3, 3); }
constexpr std::uint32_t mul_b(std::uint64_t i) { return field(i, 0, 3); }
// Load-immediate form (sig = 14): bits 59:57 are the mode, 31:0 the immediate.
constexpr std::uint32_t load_mode(std::uint64_t i) { return field(i, 57, 3); }
constexpr std::uint32_t immediate(std::uint64_t i) { return field(i, 0, 32); }
// Semaphore (load mode 4): bit 4 acquire (1) or release (0), 3:0 the semaphore.
constexpr std::uint32_t semaphore_acquire(std::uint64_t i) { return field(i, 4, 1); }
constexpr std::uint32_t semaphore_number(std::uint64_t i) { return field(i, 0, 4); }
// Branch form (sig = 15): 55:52 condition, 51 relative, 50 register, 49:45 regfile A address of the register target,
// 31:0 the signed byte offset.
constexpr std::uint32_t branch_cond(std::uint64_t i) { return field(i, 52, 4); }
constexpr std::uint32_t branch_rel(std::uint64_t i) { return field(i, 51, 1); }
constexpr std::uint32_t branch_reg(std::uint64_t i) { return field(i, 50, 1); }
constexpr std::uint32_t branch_raddr_a(std::uint64_t i) { return field(i, 45, 5); }

// ---- signals (sig) ----
enum Signal : std::uint32_t {
  kSigBreakpoint = 0,
  kSigNone = 1,
  kSigThreadSwitch = 2,
  kSigProgramEnd = 3,
  kSigWaitForScoreboard = 4,
  kSigScoreboardUnlock = 5,
  kSigLastThreadSwitch = 6,
  kSigCoverageLoad = 7,
  kSigColorLoad = 8,
  kSigColorLoadEnd = 9,
  kSigLoadTmu0 = 10,
  kSigLoadTmu1 = 11,
  kSigAlphaMaskLoad = 12,
  kSigSmallImmediate = 13,
  kSigLoadImmediate = 14,
  kSigBranch = 15,
};

// ---- load-immediate modes (bits 59:57 when sig = 14) ----
enum LoadMode : std::uint32_t {
  kLoad32 = 0,
  kLoadPerElementSigned = 1,
  kLoadPerElementUnsigned = 3,
  kLoadSemaphore = 4,
};

// ---- add and mul op codes ----
enum AddOp : std::uint32_t {
  kAddNop = 0,
  kFadd = 1,
  kFsub = 2,
  kFmin = 3,
  kFmax = 4,
  kFminabs = 5,
  kFmaxabs = 6,
  kFtoi = 7,
  kItof = 8,
  kAdd = 12,
  kSub = 13,
  kShr = 14,
  kAsr = 15,
  kRor = 16,
  kShl = 17,
  kMin = 18,
  kMax = 19,
  kAnd = 20,
  kOr = 21,
  kXor = 22,
  kNot = 23,
  kClz = 24,
  kAddV8adds = 30,
  kAddV8subs = 31,
};

enum MulOp : std::uint32_t {
  kMulNop = 0,
  kFmul = 1,
  kMul24 = 2,
  kV8muld = 3,
  kV8min = 4,
  kV8max = 5,
  kMulV8adds = 6,
  kMulV8subs = 7,
};

// ---- per-element conditions (cond_add, cond_mul) and branch conditions ----
enum Cond : std::uint32_t { kNever = 0, kAlways = 1, kZs = 2, kZc = 3, kNs = 4, kNc = 5, kCs = 6, kCc = 7 };
enum BranchCond : std::uint32_t {
  kAllZs = 0,
  kAllZc = 1,
  kAnyZs = 2,
  kAnyZc = 3,
  kAllNs = 4,
  kAllNc = 5,
  kAnyNs = 6,
  kAnyNc = 7,
  kAllCs = 8,
  kAllCc = 9,
  kAnyCs = 10,
  kAnyCc = 11,
  kBranchAlways = 15,
};

// ---- input muxes ----
enum Mux : std::uint32_t { kR0 = 0, kR1 = 1, kR2 = 2, kR3 = 3, kR4 = 4, kR5 = 5, kMuxA = 6, kMuxB = 7 };

// ---- small immediates (raddr_b when sig = 13) ----
constexpr std::uint32_t kSmallImmRotateByR5 = 48;  // 49..63: rotate the mul inputs by 1..15

// ---- special read addresses (raddr_a / raddr_b 32-63) ----
enum ReadAddress : std::uint32_t {
  kReadUniform = 32,
  kReadVarying = 35,
  kReadElementOrQpu = 38,  // A: element number, B: QPU number
  kReadNop = 39,
  kReadPixelCoord = 41,  // A: X, B: Y
  kReadMsOrRev = 42,     // A: MS flags, B: reverse flag
  kReadVpm = 48,
  kReadVpmBusy = 49,  // A: VDR (load) busy, B: VDW (store) busy
  kReadDmaWait = 50,  // A: VDR wait, B: VDW wait
  kReadMutexAcquire = 51,
};

// ---- write addresses (waddr_add / waddr_mul) ----
enum WriteAddress : std::uint32_t {
  kWriteAcc0 = 32,  // r0..r3: 32..35
  kWriteTmuNoswap = 36,
  kWriteR5 = 37,  // A: r5 quad, B: r5 rep
  kWriteHostInt = 38,
  kWriteNop = 39,
  kWriteUniformsAddress = 40,
  kWriteQuadXY = 41,
  kWriteMsOrRev = 42,
  kWriteTlbStencil = 43,
  kWriteTlbZ = 44,
  kWriteTlbColorMs = 45,
  kWriteTlbColorAll = 46,
  kWriteTlbAlphaMask = 47,
  kWriteVpm = 48,
  kWriteVpmSetup = 49,  // A: vr_setup, B: vw_setup
  kWriteVpmAddr = 50,   // A: vr_addr, B: vw_addr
  kWriteMutexRelease = 51,
  kWriteSfuRecip = 52,
  kWriteSfuRecipSqrt = 53,
  kWriteSfuExp = 54,
  kWriteSfuLog = 55,
  kWriteTmu0S = 56,  // T, R, B: 57..59
  kWriteTmu1S = 60,  // T, R, B: 61..63
};

// ---- pack (pm = 0: regfile A pack; pm = 1: mul output colour pack) and unpack codes ----
enum PackA : std::uint32_t {
  kPackNone = 0,
  kPack16a = 1,
  kPack16b = 2,
  kPack8888 = 3,
  kPack8a = 4,  // 8b, 8c, 8d: 5..7
  kPack32Sat = 8,
  kPack16aSat = 9,
  kPack16bSat = 10,
  kPack8888Sat = 11,
  kPack8aSat = 12,  // 8b, 8c, 8d sat: 13..15
};
enum Unpack : std::uint32_t {
  kUnpackNone = 0,
  kUnpack16a = 1,
  kUnpack16b = 2,
  kUnpack8dRep = 3,
  kUnpack8a = 4,  // 8b, 8c, 8d: 5..7
};

// ---- encoders (for assemblers, host drivers and tests) ----
struct AluInstruction {
  std::uint32_t sig = kSigNone, unpack = 0, pm = 0, pack = 0, cond_add = kAlways, cond_mul = kAlways, sf = 0, ws = 0;
  std::uint32_t waddr_add = 39, waddr_mul = 39, op_mul = 0, op_add = 0, raddr_a = 39, raddr_b = 39;
  std::uint32_t add_a = 0, add_b = 0, mul_a = 0, mul_b = 0;
  constexpr std::uint64_t encode() const {
    return std::uint64_t{sig & 15U} << 60 | std::uint64_t{unpack & 7U} << 57 | std::uint64_t{pm & 1U} << 56 |
           std::uint64_t{pack & 15U} << 52 | std::uint64_t{cond_add & 7U} << 49 | std::uint64_t{cond_mul & 7U} << 46 |
           std::uint64_t{sf & 1U} << 45 | std::uint64_t{ws & 1U} << 44 | std::uint64_t{waddr_add & 63U} << 38 |
           std::uint64_t{waddr_mul & 63U} << 32 | std::uint64_t{op_mul & 7U} << 29 | std::uint64_t{op_add & 31U} << 24 |
           std::uint64_t{raddr_a & 63U} << 18 | std::uint64_t{raddr_b & 63U} << 12 | std::uint64_t{add_a & 7U} << 9 |
           std::uint64_t{add_b & 7U} << 6 | std::uint64_t{mul_a & 7U} << 3 | (mul_b & 7U);
  }
};

struct LoadImmediateInstruction {
  std::uint32_t mode = kLoad32, pm = 0, pack = 0, cond_add = kAlways, cond_mul = kAlways, sf = 0, ws = 0;
  std::uint32_t waddr_add = 39, waddr_mul = 39, value = 0;
  constexpr std::uint64_t encode() const {
    return std::uint64_t{kSigLoadImmediate} << 60 | std::uint64_t{mode & 7U} << 57 | std::uint64_t{pm & 1U} << 56 |
           std::uint64_t{pack & 15U} << 52 | std::uint64_t{cond_add & 7U} << 49 | std::uint64_t{cond_mul & 7U} << 46 |
           std::uint64_t{sf & 1U} << 45 | std::uint64_t{ws & 1U} << 44 | std::uint64_t{waddr_add & 63U} << 38 |
           std::uint64_t{waddr_mul & 63U} << 32 | value;
  }
};

// A semaphore instruction: acquire (decrement, waiting at 0) or release (increment) of semaphore `number`.
constexpr std::uint64_t encode_semaphore(unsigned number, bool acquire) {
  return LoadImmediateInstruction{
      kLoadSemaphore, 0, 0, kNever, kNever, 0, 0, 39, 39, (acquire ? 16U : 0U) | (number & 15U)}
      .encode();
}

struct BranchInstruction {
  std::uint32_t cond = kBranchAlways, rel = 1, reg = 0, raddr_a = 0, ws = 0, waddr_add = 39, waddr_mul = 39;
  std::int32_t offset = 0;  // bytes
  constexpr std::uint64_t encode() const {
    return std::uint64_t{kSigBranch} << 60 | std::uint64_t{cond & 15U} << 52 | std::uint64_t{rel & 1U} << 51 |
           std::uint64_t{reg & 1U} << 50 | std::uint64_t{raddr_a & 31U} << 45 | std::uint64_t{ws & 1U} << 44 |
           std::uint64_t{waddr_add & 63U} << 38 | std::uint64_t{waddr_mul & 63U} << 32 |
           static_cast<std::uint32_t>(offset);
  }
};

constexpr unsigned kElements = 16;
constexpr unsigned kBranchDelaySlots = 3;
constexpr unsigned kProgramEndDelaySlots = 2;
constexpr unsigned kSemaphores = 16;

}  // namespace gpuvp::vc4::qpu
