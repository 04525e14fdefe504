// MI_ATOMIC semantics and encoding (facts and sources in tlm/gen/mi_atomic.h). Every expected value is worked out by
// hand in the comment next to it.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "hw/gen/mi_commands.h"
#include "tlm/gen/mi_atomic.h"

using namespace gpuvp::gen;
namespace op = gpuvp::gen::atomic_op;

namespace {

constexpr std::uint32_t kDword = atomic_size::kDword;
constexpr std::uint32_t kQword = atomic_size::kQword;

std::uint64_t ok(std::uint32_t opcode, std::uint32_t size, std::uint64_t old_value, std::uint64_t a = 0,
                 std::uint64_t b = 0) {
  const AtomicResult r = apply_mi_atomic(opcode, size, old_value, a, b);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.error.empty());
  return r.new_value;
}

std::string err(std::uint32_t opcode, std::uint32_t size, std::uint64_t old_value = 0) {
  const AtomicResult r = apply_mi_atomic(opcode, size, old_value, 1, 2);
  EXPECT_FALSE(r.ok);
  return r.error;
}

}  // namespace

TEST(MiAtomicOps, OpcodeValues) {
  // Mesa MI_ATOMIC_OP_* / compute-runtime gen9 ATOMIC_4B_MOVE 0x4, ATOMIC_8B_ADD 0x27, ATOMIC_8B_CMP_WR 0x2E.
  EXPECT_EQ(op::kAnd, 1u);
  EXPECT_EQ(op::kMove, 4u);
  EXPECT_EQ(op::kInc, 5u);
  EXPECT_EQ(op::kDec, 6u);
  EXPECT_EQ(op::kAdd | op::k8B, 0x27u);
  EXPECT_EQ(op::kCmpWr | op::k8B, 0x2Eu);
  EXPECT_EQ(op::kPredec | op::k8B, 0x2Fu);
  EXPECT_EQ(mi_atomic_opcode_name(0x09), "RSUB");
  EXPECT_EQ(mi_atomic_opcode_name(0x2E), "CMP_WR8B");
  EXPECT_EQ(mi_atomic_opcode_name(0x4E), "CMP_WR16B");
  EXPECT_EQ(mi_atomic_opcode_name(0x10), "");
}

TEST(MiAtomicOps, Logic4B) {
  EXPECT_EQ(ok(op::kAnd, kDword, 0xF0F0'1234, 0x0FF0'FF00), 0x00F0'1200u);
  EXPECT_EQ(ok(op::kOr, kDword, 0xF000'0001, 0x0000'0F10), 0xF000'0F11u);
  EXPECT_EQ(ok(op::kXor, kDword, 0xFFFF'0000, 0x0F0F'0F0F), 0xF0F0'0F0Fu);
  // Upper halves of the inputs are ignored for a dword: 0x1'0000'00FF & 0xFFFF'FFFF'0000'000F -> 0xF.
  EXPECT_EQ(ok(op::kAnd, kDword, 0x1'0000'00FFull, 0xFFFF'FFFF'0000'000Full), 0xFu);
}

TEST(MiAtomicOps, Logic8B) {
  EXPECT_EQ(ok(op::kAnd | op::k8B, kQword, 0xFFFF'0000'FFFF'0000ull, 0x0F0F'0F0F'0F0F'0F0Full),
            0x0F0F'0000'0F0F'0000ull);
  EXPECT_EQ(ok(op::kOr | op::k8B, kQword, 0x8000'0000'0000'0000ull, 1), 0x8000'0000'0000'0001ull);
  EXPECT_EQ(ok(op::kXor | op::k8B, kQword, ~0ull, 0x1234'5678'9ABC'DEF0ull), 0xEDCB'A987'6543'210Full);
}

TEST(MiAtomicOps, Move) {
  EXPECT_EQ(ok(op::kMove, kDword, 0xDEAD'BEEF, 0x1'2345'6789ull), 0x2345'6789u);  // truncated to 32 bits
  EXPECT_EQ(ok(op::kMove | op::k8B, kQword, 7, 0x1'2345'6789ull), 0x1'2345'6789ull);
}

TEST(MiAtomicOps, IncrementDecrementWrapAt32Bits) {
  EXPECT_EQ(ok(op::kInc, kDword, 41), 42u);
  EXPECT_EQ(ok(op::kInc, kDword, 0xFFFF'FFFF), 0u);  // wraps, no carry into bit 32
  EXPECT_EQ(ok(op::kDec, kDword, 0), 0xFFFF'FFFFu);  // wraps, zero-extended
  EXPECT_EQ(ok(op::kPredec, kDword, 0), 0xFFFF'FFFFu);
  EXPECT_EQ(ok(op::kPredec, kDword, 10), 9u);
  EXPECT_EQ(ok(op::kInc | op::k8B, kQword, 0xFFFF'FFFF), 0x1'0000'0000ull);  // qword carries
  EXPECT_EQ(ok(op::kInc | op::k8B, kQword, ~0ull), 0u);
  EXPECT_EQ(ok(op::kDec | op::k8B, kQword, 0), ~0ull);
  EXPECT_EQ(ok(op::kPredec | op::k8B, kQword, 0x1'0000'0000ull), 0xFFFF'FFFFull);
  // INC ignores its operands.
  EXPECT_EQ(ok(op::kInc, kDword, 5, 100, 200), 6u);
}

TEST(MiAtomicOps, AddSubRsub) {
  EXPECT_EQ(ok(op::kAdd, kDword, 0xFFFF'FFF0, 0x20), 0x10u);  // 0x1'0000'0010 -> 0x10
  EXPECT_EQ(ok(op::kSub, kDword, 5, 7), 0xFFFF'FFFEu);        // 5 - 7 = -2
  EXPECT_EQ(ok(op::kRsub, kDword, 5, 7), 2u);                 // 7 - 5
  EXPECT_EQ(ok(op::kRsub, kDword, 7, 5), 0xFFFF'FFFEu);       // 5 - 7
  EXPECT_EQ(ok(op::kAdd | op::k8B, kQword, 0xFFFF'FFF0, 0x20), 0x1'0000'0010ull);
  EXPECT_EQ(ok(op::kSub | op::k8B, kQword, 5, 7), 0xFFFF'FFFF'FFFF'FFFEull);
  EXPECT_EQ(ok(op::kRsub | op::k8B, kQword, 1, 0x1'0000'0000ull), 0xFFFF'FFFFull);
}

TEST(MiAtomicOps, SignedVersusUnsignedMaxMin) {
  // 0xFFFF'FFFF is -1 signed, 4294967295 unsigned; against 1:
  EXPECT_EQ(ok(op::kImax, kDword, 0xFFFF'FFFF, 1), 1u);
  EXPECT_EQ(ok(op::kImin, kDword, 0xFFFF'FFFF, 1), 0xFFFF'FFFFu);
  EXPECT_EQ(ok(op::kUmax, kDword, 0xFFFF'FFFF, 1), 0xFFFF'FFFFu);
  EXPECT_EQ(ok(op::kUmin, kDword, 0xFFFF'FFFF, 1), 1u);
  // 0x8000'0000 = INT32_MIN vs 0x7FFF'FFFF = INT32_MAX.
  EXPECT_EQ(ok(op::kImax, kDword, 0x8000'0000, 0x7FFF'FFFF), 0x7FFF'FFFFu);
  EXPECT_EQ(ok(op::kUmax, kDword, 0x8000'0000, 0x7FFF'FFFF), 0x8000'0000u);
  // A dword's sign is bit 31 even when the caller passes garbage above it: 0x1'7FFF'FFFF is +INT32_MAX.
  EXPECT_EQ(ok(op::kImin, kDword, 0x1'7FFF'FFFFull, 0x8000'0000), 0x8000'0000u);
  // Qword: 0xFFFF'FFFF (positive as int64) vs -1.
  EXPECT_EQ(ok(op::kImax | op::k8B, kQword, 0xFFFF'FFFF, ~0ull), 0xFFFF'FFFFull);
  EXPECT_EQ(ok(op::kImin | op::k8B, kQword, 0xFFFF'FFFF, ~0ull), ~0ull);
  EXPECT_EQ(ok(op::kUmax | op::k8B, kQword, 0xFFFF'FFFF, ~0ull), ~0ull);
  EXPECT_EQ(ok(op::kUmin | op::k8B, kQword, 0xFFFF'FFFF, ~0ull), 0xFFFF'FFFFull);
  // Equal values: unchanged.
  EXPECT_EQ(ok(op::kUmin, kDword, 9, 9), 9u);
}

TEST(MiAtomicOps, CompareAndWrite) {
  // Hit: memory == operand1 -> operand2.
  EXPECT_EQ(ok(op::kCmpWr, kDword, 0x1234, 0x1234, 0xABCD), 0xABCDu);
  // Miss: memory unchanged.
  EXPECT_EQ(ok(op::kCmpWr, kDword, 0x1235, 0x1234, 0xABCD), 0x1235u);
  // Dword compare ignores bits 63:32 of the inputs.
  EXPECT_EQ(ok(op::kCmpWr, kDword, 0x5'0000'0001ull, 0x9'0000'0001ull, 0x7'0000'0002ull), 2u);
  // Qword compares all 64 bits: differing only in bit 32 is a miss.
  EXPECT_EQ(ok(op::kCmpWr | op::k8B, kQword, 0x1'0000'0001ull, 0x0'0000'0001ull, 99), 0x1'0000'0001ull);
  EXPECT_EQ(ok(op::kCmpWr | op::k8B, kQword, 0x1'0000'0001ull, 0x1'0000'0001ull, 0xFEDC'BA98'7654'3210ull),
            0xFEDC'BA98'7654'3210ull);
}

TEST(MiAtomicOps, ReturnData) {
  // Old value for every op except PREDEC, which returns the decremented value.
  EXPECT_EQ(mi_atomic_return_data(op::kInc, 5, 6), 5u);
  EXPECT_EQ(mi_atomic_return_data(op::kDec, 5, 4), 5u);
  EXPECT_EQ(mi_atomic_return_data(op::kPredec, 5, 4), 4u);
  EXPECT_EQ(mi_atomic_return_data(op::kPredec | op::k8B, 5, 4), 4u);
  EXPECT_EQ(mi_atomic_return_data(op::kCmpWr | op::k8B, 1, 2), 1u);
}

TEST(MiAtomicErrors, UnknownOpcodeIsNamed) {
  EXPECT_EQ(err(0x00, kDword), "unknown MI_ATOMIC opcode 0x00");
  EXPECT_EQ(err(0x10, kDword), "unknown MI_ATOMIC opcode 0x10");
  EXPECT_EQ(err(0x20, kQword), "unknown MI_ATOMIC opcode 0x20");
  EXPECT_EQ(err(0x30, kQword), "unknown MI_ATOMIC opcode 0x30");
  EXPECT_EQ(err(0x41, kDword), "unknown MI_ATOMIC opcode 0x41");
  EXPECT_EQ(err(0xFF, kQword), "unknown MI_ATOMIC opcode 0xff");
}

TEST(MiAtomicErrors, SizeAndWidth) {
  EXPECT_NE(err(op::kAdd, atomic_size::kOctword).find("not modelled"), std::string::npos);
  EXPECT_NE(err(op::kCmpWr16B, atomic_size::kOctword).find("not modelled"), std::string::npos);
  EXPECT_NE(err(op::kCmpWr16B, kQword).find("CMP_WR16B"), std::string::npos);
  EXPECT_NE(err(op::kAdd, 3).find("reserved data size 3"), std::string::npos);
  EXPECT_EQ(err(op::kAdd | op::k8B, kDword), "MI_ATOMIC opcode 0x27 (ADD8B) does not match data size DWORD");
  EXPECT_EQ(err(op::kAdd, kQword), "MI_ATOMIC opcode 0x07 (ADD) does not match data size QWORD");
}

TEST(MiAtomicEncoding, NoInlineData) {
  // 3 dwords, length 1: 0x17800001 | GGTT (bit 22) | INC << 8.
  const auto cmd = mi::atomic(op::kInc, 0x1'2345'6780ull, /*ggtt=*/true, /*qword=*/false);
  ASSERT_EQ(cmd.size(), 3u);
  EXPECT_EQ(cmd[0], 0x17800001u | 1u << 22 | 0x05u << 8);
  EXPECT_EQ(cmd[1], 0x2345'6780u);
  EXPECT_EQ(cmd[2], 0x1u);
}

TEST(MiAtomicEncoding, InlineDwordIsFiveDwords) {
  // i915 gen8 WaRsRestoreWithPerCtxtBb: MI_ATOMIC(5) | GGTT | INLINE | CS_STALL | RETURN_DATA_CTL | MOVE.
  const auto cmd = mi::atomic(op::kMove, 0x1000, true, false, true, 0xAAAA'BBBB, 0xCCCC'DDDD, true, true);
  ASSERT_EQ(cmd.size(), 5u);
  EXPECT_EQ(cmd[0], 0x17800003u | 1u << 22 | 1u << 18 | 1u << 17 | 1u << 16 | 0x04u << 8);
  EXPECT_EQ(cmd[3], 0xAAAA'BBBBu);  // Operand1 dword 0
  EXPECT_EQ(cmd[4], 0xCCCC'DDDDu);  // Operand2 dword 0
}

TEST(MiAtomicEncoding, InlineQwordInterleavesOperands) {
  const auto cmd =
      mi::atomic(op::kCmpWr | op::k8B, 0x2000, false, true, true, 0x1111'1111'2222'2222ull, 0x3333'3333'4444'4444ull);
  ASSERT_EQ(cmd.size(), 7u);
  EXPECT_EQ(cmd[0], 0x17800005u | 1u << 19 | 1u << 18 | 0x2Eu << 8);  // PPGTT, QWORD, inline
  EXPECT_EQ(cmd[3], 0x2222'2222u);                                    // DW3 Operand1 dword 0
  EXPECT_EQ(cmd[4], 0x4444'4444u);                                    // DW4 Operand2 dword 0
  EXPECT_EQ(cmd[5], 0x1111'1111u);                                    // DW5 Operand1 dword 1
  EXPECT_EQ(cmd[6], 0x3333'3333u);                                    // DW6 Operand2 dword 1
  // DW0 fields decode back.
  EXPECT_EQ(mi::opcode_of(cmd[0]), mi::kAtomic);
  EXPECT_EQ(cmd[0] >> 19 & 3, kQword);
  EXPECT_EQ(cmd[0] >> 8 & 0xFF, 0x2Eu);
  EXPECT_EQ(cmd[0] & 0xFF, cmd.size() - 2);
}
