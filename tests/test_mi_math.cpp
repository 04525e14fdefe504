// MiMathAlu: MI_MATH ALU instructions over the sixteen 64-bit CS_GPRs (docs/gen-command-streamer.md). Encodings are
// checked against the literal dwords i915 emits (gt/intel_gpu_commands.h MI_MATH_*); results are computed by hand.
// Flag semantics follow Mesa's hardware-checked mi_builder tests: STORE of ZF/CF writes ~0 for true, 0 for false;
// LOAD1 loads ~0; SUB's CF is the borrow, ADD's CF the carry (see tlm/gen/mi_math.cpp for the sources).
#include <cstdint>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "tlm/gen/mi_math.h"

using gpuvp::gen::MiMathAlu;

namespace {

constexpr std::uint64_t kOnes = ~std::uint64_t{0};

class MiMathTest : public ::testing::Test {
 protected:
  void SetUp() override { gprs_.fill(0); }

  // Executes and expects success.
  void run(std::uint32_t instruction) {
    const std::string reason = alu_.execute(instruction, gprs_);
    EXPECT_EQ(reason, "") << "instruction 0x" << std::hex << instruction;
  }
  static std::uint32_t load(std::uint32_t src_reg, std::uint32_t gpr) {
    return MiMathAlu::encode(MiMathAlu::kLoad, src_reg, gpr);
  }
  static std::uint32_t store(std::uint32_t gpr, std::uint32_t what) {
    return MiMathAlu::encode(MiMathAlu::kStore, gpr, what);
  }
  static std::uint32_t op(std::uint32_t opcode) { return MiMathAlu::encode(opcode, 0, 0); }

  // The i915/Mesa binary-operation pattern: LOAD SRCA, Ra; LOAD SRCB, Rb; op; STORE Rd, what.
  std::uint64_t binop(std::uint64_t a, std::uint64_t b, std::uint32_t opcode, std::uint32_t what,
                      std::uint32_t store_opcode = MiMathAlu::kStore) {
    alu_.reset();
    gprs_[0] = a;
    gprs_[1] = b;
    run(load(MiMathAlu::kSrcA, 0));
    run(load(MiMathAlu::kSrcB, 1));
    run(op(opcode));
    run(MiMathAlu::encode(store_opcode, 2, what));
    return gprs_[2];
  }

  void expect_alu(std::uint64_t srca, std::uint64_t srcb, std::uint64_t accu, bool zf, bool cf) {
    EXPECT_EQ(alu_.srca(), srca);
    EXPECT_EQ(alu_.srcb(), srcb);
    EXPECT_EQ(alu_.accu(), accu);
    EXPECT_EQ(alu_.zf(), zf);
    EXPECT_EQ(alu_.cf(), cf);
  }

  MiMathAlu alu_;
  MiMathAlu::Gprs gprs_{};
};

}  // namespace

TEST_F(MiMathTest, EncodingMatchesTheDwordsI915Emits) {
  // MI_MATH_LOAD(MI_MATH_REG_SRCA, MI_MATH_REG(2)) = 0x080 << 20 | 0x20 << 10 | 2
  EXPECT_EQ(load(MiMathAlu::kSrcA, 2), 0x08008002u);
  // MI_MATH_LOADINV(MI_MATH_REG_SRCB, MI_MATH_REG(15))
  EXPECT_EQ(MiMathAlu::encode(MiMathAlu::kLoadInv, MiMathAlu::kSrcB, 15), 0x4800840Fu);
  EXPECT_EQ(op(MiMathAlu::kAdd), 0x10000000u);
  EXPECT_EQ(op(MiMathAlu::kSub), 0x10100000u);
  EXPECT_EQ(op(MiMathAlu::kAnd), 0x10200000u);
  EXPECT_EQ(op(MiMathAlu::kOr), 0x10300000u);
  EXPECT_EQ(op(MiMathAlu::kXor), 0x10400000u);
  // MI_MATH_STORE(MI_MATH_REG(3), MI_MATH_REG_ACCU), MI_MATH_STOREINV(MI_MATH_REG(4), MI_MATH_REG_CF)
  EXPECT_EQ(store(3, MiMathAlu::kAccu), 0x18000C31u);
  EXPECT_EQ(MiMathAlu::encode(MiMathAlu::kStoreInv, 4, MiMathAlu::kCf), 0x58001033u);
  EXPECT_EQ(MiMathAlu::encode(MiMathAlu::kLoad1, MiMathAlu::kSrcA, 0), 0x48108000u);
  EXPECT_EQ(MiMathAlu::encode(MiMathAlu::kLoad0, MiMathAlu::kSrcB, 0), 0x08108400u);
}

TEST_F(MiMathTest, ResetClearsEveryAluRegister) {
  expect_alu(0, 0, 0, false, false);
  gprs_[3] = kOnes;
  run(load(MiMathAlu::kSrcA, 3));
  run(MiMathAlu::encode(MiMathAlu::kLoad1, MiMathAlu::kSrcB, 0));
  run(op(MiMathAlu::kAdd));  // ~0 + ~0 = ~0 - 1, carry
  expect_alu(kOnes, kOnes, kOnes - 1, false, true);
  alu_.reset();
  expect_alu(0, 0, 0, false, false);
  EXPECT_EQ(gprs_[3], kOnes);  // reset does not touch the GPRs
}

TEST_F(MiMathTest, NoopChangesNothing) {
  gprs_[7] = 0x77;
  run(load(MiMathAlu::kSrcA, 7));
  run(MiMathAlu::encode(MiMathAlu::kNoop, 0, 0));
  expect_alu(0x77, 0, 0, false, false);
  EXPECT_EQ(gprs_[7], 0x77u);
}

TEST_F(MiMathTest, LoadAndLoadInvReadFull64BitGprs) {
  gprs_[5] = 0x0123456789ABCDEFull;
  gprs_[15] = 0x8000000000000001ull;
  run(load(MiMathAlu::kSrcA, 5));
  run(MiMathAlu::encode(MiMathAlu::kLoadInv, MiMathAlu::kSrcB, 5));
  expect_alu(0x0123456789ABCDEFull, 0xFEDCBA9876543210ull, 0, false, false);
  run(load(MiMathAlu::kSrcB, 15));
  EXPECT_EQ(alu_.srcb(), 0x8000000000000001ull);
  run(MiMathAlu::encode(MiMathAlu::kLoadInv, MiMathAlu::kSrcA, 15));
  EXPECT_EQ(alu_.srca(), 0x7FFFFFFFFFFFFFFEull);
}

TEST_F(MiMathTest, Load0LoadsZeroAndLoad1LoadsAllOnes) {
  gprs_[0] = 0x1234;
  run(load(MiMathAlu::kSrcA, 0));
  run(load(MiMathAlu::kSrcB, 0));
  run(MiMathAlu::encode(MiMathAlu::kLoad1, MiMathAlu::kSrcA, 0));
  run(MiMathAlu::encode(MiMathAlu::kLoad0, MiMathAlu::kSrcB, 0));
  expect_alu(kOnes, 0, 0, false, false);
  // Mesa's mi_iadd(x, mi_imm(-1)) is LOAD1 + ADD and yields x - 1.
  gprs_[4] = 100;
  run(load(MiMathAlu::kSrcA, 4));
  run(MiMathAlu::encode(MiMathAlu::kLoad1, MiMathAlu::kSrcB, 0));
  run(op(MiMathAlu::kAdd));
  run(store(5, MiMathAlu::kAccu));
  EXPECT_EQ(gprs_[5], 99u);
}

TEST_F(MiMathTest, AddSetsAccuCarryAndZero) {
  // 32-bit carry propagates into bit 32: the ALU is 64-bit.
  EXPECT_EQ(binop(0x00000000FFFFFFFFull, 1, MiMathAlu::kAdd, MiMathAlu::kAccu), 0x100000000ull);
  expect_alu(0xFFFFFFFF, 1, 0x100000000ull, false, false);
  // Carry out of bit 63, result zero.
  EXPECT_EQ(binop(kOnes, 1, MiMathAlu::kAdd, MiMathAlu::kAccu), 0u);
  expect_alu(kOnes, 1, 0, true, true);
  // Carry out, non-zero result.
  EXPECT_EQ(binop(0x8000000000000000ull, 0x8000000000000001ull, MiMathAlu::kAdd, MiMathAlu::kAccu), 1u);
  EXPECT_TRUE(alu_.cf());
  EXPECT_FALSE(alu_.zf());
  // Zero without carry.
  binop(0, 0, MiMathAlu::kAdd, MiMathAlu::kAccu);
  expect_alu(0, 0, 0, true, false);
  // Largest sum without carry.
  binop(0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, MiMathAlu::kAdd, MiMathAlu::kAccu);
  expect_alu(0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, kOnes, false, false);
}

TEST_F(MiMathTest, SubSetsAccuBorrowAndZero) {
  EXPECT_EQ(binop(7, 5, MiMathAlu::kSub, MiMathAlu::kAccu), 2u);
  expect_alu(7, 5, 2, false, false);
  EXPECT_EQ(binop(5, 7, MiMathAlu::kSub, MiMathAlu::kAccu), 0xFFFFFFFFFFFFFFFEull);
  expect_alu(5, 7, 0xFFFFFFFFFFFFFFFEull, false, true);  // borrow
  EXPECT_EQ(binop(7, 7, MiMathAlu::kSub, MiMathAlu::kAccu), 0u);
  expect_alu(7, 7, 0, true, false);
  // Borrow decided on all 64 bits: 0x1_0000_0000 - 0xFFFF_FFFF does not borrow.
  EXPECT_EQ(binop(0x100000000ull, 0xFFFFFFFFull, MiMathAlu::kSub, MiMathAlu::kAccu), 1u);
  EXPECT_FALSE(alu_.cf());
  EXPECT_EQ(binop(0, kOnes, MiMathAlu::kSub, MiMathAlu::kAccu), 1u);
  EXPECT_TRUE(alu_.cf());
}

TEST_F(MiMathTest, LogicOpsSetAccuAndZeroAndClearCarry) {
  const std::uint64_t a = 0xF0F0F0F0F0F0F0F0ull, b = 0xFF00FF00FF00FF00ull;
  EXPECT_EQ(binop(a, b, MiMathAlu::kAnd, MiMathAlu::kAccu), 0xF000F000F000F000ull);
  EXPECT_FALSE(alu_.zf());
  EXPECT_EQ(binop(a, b, MiMathAlu::kOr, MiMathAlu::kAccu), 0xFFF0FFF0FFF0FFF0ull);
  EXPECT_FALSE(alu_.zf());
  EXPECT_EQ(binop(a, b, MiMathAlu::kXor, MiMathAlu::kAccu), 0x0FF00FF00FF00FF0ull);
  EXPECT_FALSE(alu_.zf());
  EXPECT_EQ(binop(a, ~a, MiMathAlu::kAnd, MiMathAlu::kAccu), 0u);
  EXPECT_TRUE(alu_.zf());
  EXPECT_EQ(binop(a, a, MiMathAlu::kXor, MiMathAlu::kAccu), 0u);
  EXPECT_TRUE(alu_.zf());
  EXPECT_EQ(binop(0, 0, MiMathAlu::kOr, MiMathAlu::kAccu), 0u);
  EXPECT_TRUE(alu_.zf());

  // CF left set by an ADD is cleared by a following logic op (model choice, see mi_math.cpp [F9]).
  alu_.reset();
  run(MiMathAlu::encode(MiMathAlu::kLoad1, MiMathAlu::kSrcA, 0));
  run(MiMathAlu::encode(MiMathAlu::kLoad1, MiMathAlu::kSrcB, 0));
  run(op(MiMathAlu::kAdd));
  EXPECT_TRUE(alu_.cf());
  run(op(MiMathAlu::kOr));
  expect_alu(kOnes, kOnes, kOnes, false, false);
}

TEST_F(MiMathTest, StoreWritesFlagsAsAllOnesOrZero) {
  binop(7, 7, MiMathAlu::kSub, MiMathAlu::kZf);  // equal: ZF
  EXPECT_EQ(gprs_[2], kOnes);
  binop(7, 8, MiMathAlu::kSub, MiMathAlu::kZf);
  EXPECT_EQ(gprs_[2], 0u);
  binop(7, 8, MiMathAlu::kSub, MiMathAlu::kCf);  // 7 < 8: borrow
  EXPECT_EQ(gprs_[2], kOnes);
  binop(8, 7, MiMathAlu::kSub, MiMathAlu::kCf);
  EXPECT_EQ(gprs_[2], 0u);
  // SRCA and SRCB can be stored too.
  gprs_[9] = 0xABCD;
  run(load(MiMathAlu::kSrcB, 9));
  run(store(10, MiMathAlu::kSrcB));
  EXPECT_EQ(gprs_[10], 0xABCDu);
  run(store(11, MiMathAlu::kSrcA));
  EXPECT_EQ(gprs_[11], alu_.srca());
}

TEST_F(MiMathTest, StoreInvWritesTheInverse) {
  EXPECT_EQ(binop(0x0123456789ABCDEFull, 0, MiMathAlu::kAdd, MiMathAlu::kAccu, MiMathAlu::kStoreInv),
            0xFEDCBA9876543210ull);
  EXPECT_EQ(binop(7, 7, MiMathAlu::kSub, MiMathAlu::kZf, MiMathAlu::kStoreInv), 0u);     // mi_ine(7, 7)
  EXPECT_EQ(binop(7, 8, MiMathAlu::kSub, MiMathAlu::kZf, MiMathAlu::kStoreInv), kOnes);  // mi_ine(7, 8)
  EXPECT_EQ(binop(7, 8, MiMathAlu::kSub, MiMathAlu::kCf, MiMathAlu::kStoreInv), 0u);     // mi_uge(7, 8)
  EXPECT_EQ(binop(8, 7, MiMathAlu::kSub, MiMathAlu::kCf, MiMathAlu::kStoreInv), kOnes);  // mi_uge(8, 7)
  EXPECT_EQ(binop(8, 8, MiMathAlu::kSub, MiMathAlu::kCf, MiMathAlu::kStoreInv), kOnes);  // mi_uge(8, 8)
}

TEST_F(MiMathTest, MesaComparisonsMatchTheirImmediateFolds) {
  // mi_ult = SUB + STORE CF, mi_uge = SUB + STOREINV CF, mi_ieq = SUB + STORE ZF, mi_ine = SUB + STOREINV ZF, each
  // folded by Mesa as "? ~0ull : 0" (values from Mesa's mi_builder_test ult_uge_ieq_ine).
  const std::uint64_t values[] = {0x0123456789abcdefull,
                                  0xdeadbeefac0ffee2ull,
                                  kOnes,
                                  1,
                                  0,
                                  1049571,
                                  static_cast<std::uint64_t>(-240058),
                                  20204184};
  for (std::uint64_t x : values) {
    for (std::uint64_t y : values) {
      EXPECT_EQ(binop(x, y, MiMathAlu::kSub, MiMathAlu::kCf), x < y ? kOnes : 0);
      EXPECT_EQ(binop(x, y, MiMathAlu::kSub, MiMathAlu::kCf, MiMathAlu::kStoreInv), x >= y ? kOnes : 0);
      EXPECT_EQ(binop(x, y, MiMathAlu::kSub, MiMathAlu::kZf), x == y ? kOnes : 0);
      EXPECT_EQ(binop(x, y, MiMathAlu::kSub, MiMathAlu::kZf, MiMathAlu::kStoreInv), x != y ? kOnes : 0);
    }
  }
}

TEST_F(MiMathTest, I915NoaWaitCarryTest) {
  // i915_perf.c alloc_noa_wait: ADD delta + (~0 - delay), STOREINV CF: CF set once delta > delay.
  const std::uint64_t delay = 1000;
  EXPECT_EQ(binop(999, kOnes - delay, MiMathAlu::kAdd, MiMathAlu::kCf, MiMathAlu::kStoreInv), kOnes);
  EXPECT_EQ(binop(1000, kOnes - delay, MiMathAlu::kAdd, MiMathAlu::kCf, MiMathAlu::kStoreInv), kOnes);
  EXPECT_EQ(binop(1001, kOnes - delay, MiMathAlu::kAdd, MiMathAlu::kCf, MiMathAlu::kStoreInv), 0u);
}

TEST_F(MiMathTest, LoadOfAccuAndFlagsChainsResults) {
  // (3 + 4) + 5 using ACCU as a LOAD source (accepted by this model, see mi_math.cpp [F10]).
  gprs_[0] = 3;
  gprs_[1] = 4;
  gprs_[2] = 5;
  run(load(MiMathAlu::kSrcA, 0));
  run(load(MiMathAlu::kSrcB, 1));
  run(op(MiMathAlu::kAdd));
  run(load(MiMathAlu::kSrcA, MiMathAlu::kAccu));
  run(load(MiMathAlu::kSrcB, 2));
  run(op(MiMathAlu::kAdd));
  EXPECT_EQ(alu_.accu(), 12u);
  run(op(MiMathAlu::kSub));  // 7 - 5 = 2: no borrow, not zero
  run(load(MiMathAlu::kSrcA, MiMathAlu::kZf));
  run(load(MiMathAlu::kSrcB, MiMathAlu::kCf));
  expect_alu(0, 0, 2, false, false);
  run(MiMathAlu::encode(MiMathAlu::kLoadInv, MiMathAlu::kSrcA, MiMathAlu::kZf));
  EXPECT_EQ(alu_.srca(), kOnes);
}

TEST_F(MiMathTest, StoreReachesEveryGprAndOnlyThatGpr) {
  for (std::uint32_t r = 0; r < 16; ++r) {
    SCOPED_TRACE(r);
    gprs_.fill(0x5555555555555555ull);
    alu_.reset();
    run(MiMathAlu::encode(MiMathAlu::kLoad1, MiMathAlu::kSrcA, 0));
    run(op(MiMathAlu::kXor));  // ACCU = ~0 ^ 0 = ~0
    run(store(r, MiMathAlu::kAccu));
    for (std::uint32_t i = 0; i < 16; ++i) EXPECT_EQ(gprs_[i], i == r ? kOnes : 0x5555555555555555ull);
    run(load(MiMathAlu::kSrcB, r));
    EXPECT_EQ(alu_.srcb(), kOnes);
  }
}

TEST_F(MiMathTest, DontCareOperandFieldsAreIgnored) {
  gprs_[0] = 2;
  gprs_[1] = 3;
  run(load(MiMathAlu::kSrcA, 0));
  run(load(MiMathAlu::kSrcB, 1));
  run(MiMathAlu::encode(MiMathAlu::kAdd, 0x3FF, 0x3FF));
  EXPECT_EQ(alu_.accu(), 5u);
  run(MiMathAlu::encode(MiMathAlu::kLoad1, MiMathAlu::kSrcA, 0x3FF));
  EXPECT_EQ(alu_.srca(), kOnes);
  run(MiMathAlu::encode(MiMathAlu::kNoop, 0x123, 0x321));
  EXPECT_EQ(alu_.accu(), 5u);
}

struct InvalidCase {
  const char* name;
  std::uint32_t instruction;
  const char* expected_words;
};
// The case name in test listings, not its bytes.
void PrintTo(const InvalidCase& c, std::ostream* os) { *os << c.name; }

class InvalidInstructions : public MiMathTest, public ::testing::WithParamInterface<InvalidCase> {};

TEST_P(InvalidInstructions, AnswerWithAReasonAndChangeNothing) {
  gprs_[0] = 11;
  gprs_[1] = 22;
  run(load(MiMathAlu::kSrcA, 0));
  run(load(MiMathAlu::kSrcB, 1));
  run(op(MiMathAlu::kSub));  // ACCU = -11, CF set
  const MiMathAlu::Gprs gprs_before = gprs_;
  const MiMathAlu before = alu_;
  const std::string reason = alu_.execute(GetParam().instruction, gprs_);
  EXPECT_NE(reason.find(GetParam().expected_words), std::string::npos) << reason;
  EXPECT_EQ(gprs_, gprs_before);
  expect_alu(before.srca(), before.srcb(), before.accu(), before.zf(), before.cf());
}

INSTANTIATE_TEST_SUITE_P(
    MiMath, InvalidInstructions,
    ::testing::Values(
        InvalidCase{"Shl", MiMathAlu::encode(0x105, 0, 0), "opcode"},                     // SHL: gen12.5+, not gen8/9
        InvalidCase{"LoadInd", MiMathAlu::encode(0x082, 0, MiMathAlu::kAccu), "opcode"},  // LOADIND: gen12.5+
        InvalidCase{"FenceRd", MiMathAlu::encode(0x001, 0, 0), "opcode"},                 // FENCE_RD: gen12.5+
        InvalidCase{"AllOnesOpcode", 0xFFF00000u, "opcode"},
        InvalidCase{"Opcode181", MiMathAlu::encode(0x181, 0, MiMathAlu::kAccu), "opcode"},
        // R0 is not SRCA/SRCB.
        InvalidCase{"LoadIntoAGpr", MiMathAlu::encode(MiMathAlu::kLoad, 0, 1), "LOAD destination"},
        InvalidCase{"LoadIntoAccu", MiMathAlu::encode(MiMathAlu::kLoad, MiMathAlu::kAccu, 1), "LOAD destination"},
        // There is no R16.
        InvalidCase{"LoadFromR16", MiMathAlu::encode(MiMathAlu::kLoad, MiMathAlu::kSrcA, 16), "LOAD source"},
        InvalidCase{"LoadFromSrcB", MiMathAlu::encode(MiMathAlu::kLoad, MiMathAlu::kSrcA, MiMathAlu::kSrcB),
                    "LOAD source"},
        InvalidCase{"LoadInvFrom0x30", MiMathAlu::encode(MiMathAlu::kLoadInv, MiMathAlu::kSrcB, 0x30), "LOAD source"},
        InvalidCase{"Load0IntoAccu", MiMathAlu::encode(MiMathAlu::kLoad0, MiMathAlu::kAccu, 0),
                    "LOAD0/LOAD1 destination"},
        InvalidCase{"Load1IntoR3", MiMathAlu::encode(MiMathAlu::kLoad1, 3, 0), "LOAD0/LOAD1 destination"},
        InvalidCase{"StoreIntoSrcA", MiMathAlu::encode(MiMathAlu::kStore, MiMathAlu::kSrcA, MiMathAlu::kAccu),
                    "STORE destination"},
        InvalidCase{"StoreIntoR16", MiMathAlu::encode(MiMathAlu::kStore, 16, MiMathAlu::kAccu), "STORE destination"},
        InvalidCase{"StoreInvInto0x3ff", MiMathAlu::encode(MiMathAlu::kStoreInv, 0x3FF, MiMathAlu::kZf),
                    "STORE destination"},
        // GPR to GPR.
        InvalidCase{"StoreFromAGpr", MiMathAlu::encode(MiMathAlu::kStore, 2, 1), "STORE source"},
        InvalidCase{"StoreInvFrom0x34", MiMathAlu::encode(MiMathAlu::kStoreInv, 2, 0x34), "STORE source"}),
    [](const ::testing::TestParamInfo<InvalidCase>& info) { return info.param.name; });

TEST_F(MiMathTest, TheReasonNamesTheOffendingFieldValue) {
  EXPECT_EQ(alu_.execute(MiMathAlu::encode(0x105, 0, 0), gprs_),
            "unknown ALU opcode 0x105 in ALU instruction 0x10500000");
  EXPECT_EQ(alu_.execute(MiMathAlu::encode(MiMathAlu::kLoad, MiMathAlu::kSrcA, 16), gprs_),
            "LOAD source operand 0x10 is not R0..R15/ACCU/ZF/CF in ALU instruction 0x8008010");
}
