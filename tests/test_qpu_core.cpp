// The QPU interpreter core (vc4::qpu::Qpu) on programs of the tests' own, encoded with hw/vc4/qpu_isa.h: each
// instruction class with results computed by hand (ops, carries and flags, conditions, small immediates and
// rotations, packs and unpacks, load immediates, register file latency, branches and their delay slots and links,
// uniforms, the SFU's r4 latency, r5 writes, semaphores, the mutex, the host interrupt) and every modelled error.
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "hw/vc4/qpu_isa.h"
#include "tests/support/qpu_test_environment.h"
#include "tlm/vc4/qpu/qpu_alu.h"
#include "tlm/vc4/qpu/qpu_core.h"

namespace gpuvp::vc4::qpu {
namespace {

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float as_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::uint64_t nop() { return AluInstruction{}.encode(); }
// add op `op` into `dest` (file A for 0-31) from muxes a and b.
AluInstruction add_op(std::uint32_t op, std::uint32_t dest, std::uint32_t a, std::uint32_t b) {
  AluInstruction i;
  i.op_add = op;
  i.waddr_add = dest;
  i.add_a = a;
  i.add_b = b;
  return i;
}
AluInstruction mul_op(std::uint32_t op, std::uint32_t dest, std::uint32_t a, std::uint32_t b) {
  AluInstruction i;
  i.op_mul = op;
  i.waddr_mul = dest;
  i.mul_a = a;
  i.mul_b = b;
  return i;
}
std::uint64_t ldi(std::uint32_t dest, std::uint32_t value) {
  LoadImmediateInstruction i;
  i.waddr_add = dest;
  i.value = value;
  return i.encode();
}
AluInstruction with_small(AluInstruction i, std::uint32_t code) {
  i.sig = kSigSmallImmediate;
  i.raddr_b = code;
  return i;
}
// rN as a write address.
constexpr std::uint32_t acc(unsigned n) { return kWriteAcc0 + n; }

// The program end: thrend and its two delay slots.
void end(std::vector<std::uint64_t>& code) {
  AluInstruction thrend;
  thrend.sig = kSigProgramEnd;
  code.push_back(thrend.encode());
  code.push_back(nop());
  code.push_back(nop());
}

struct Machine {
  TestEnvironment env;
  Qpu qpu{3, env};
  Qpu::Step last = Qpu::Step::kIssued;
  unsigned steps = 0;
};

// Runs `code` (the program end appended) to its end or an error, at most 1000 issues.
void run(Machine& r, std::vector<std::uint64_t> code, bool append_end = true) {
  if (append_end) end(code);
  r.env.code = std::move(code);
  r.qpu.start(kCode, kUniforms);
  while (r.steps < 1000) {
    r.last = r.qpu.step();
    ++r.steps;
    if (r.last == Qpu::Step::kEnded || r.last == Qpu::Step::kError) break;
  }
}

// ---- integer ops ----

struct IntCase {
  std::uint32_t op, a, b, value;
  bool carry;
};

TEST(QpuAlu, IntegerOpsGiveTheirResultsAndCarries) {
  const IntCase cases[] = {
      {kAdd, 0xFFFFFFFFU, 2, 1, true},
      {kAdd, 5, 7, 12, false},
      {kSub, 3, 5, 0xFFFFFFFEU, true},
      {kSub, 5, 3, 2, false},
      {kShr, 0x80000003U, 1, 0x40000001U, true},
      {kAsr, 0x80000002U, 1, 0xC0000001U, false},
      {kShl, 0x80000001U, 1, 2, true},
      {kShl, 1, 33, 2, false},  // count = b & 31
      {kRor, 0x00000003U, 1, 0x80000001U, false},
      {kMin, 0xFFFFFFFFU, 1, 0xFFFFFFFFU, false},
      {kMax, 0xFFFFFFFFU, 1, 1, false},
      {kMax, 7, 1, 7, true},
      {kAnd, 0xF0F0U, 0xFF00U, 0xF000U, false},
      {kOr, 0xF0F0U, 0xFF00U, 0xFFF0U, false},
      {kXor, 0xF0F0U, 0xFF00U, 0x0FF0U, false},
      {kNot, 0xF0F0U, 0, 0xFFFF0F0FU, false},
      {kClz, 0x00010000U, 0, 15, false},
      {kClz, 0, 0, 32, false},
      {kAddV8adds, 0x80FF0102U, 0x80010203U, 0xFFFF0305U, false},
      {kAddV8subs, 0x80010305U, 0x81020102U, 0x00000203U, false},
  };
  for (const IntCase& c : cases) {
    SCOPED_TRACE(c.op);
    const AluResult r = add_alu(c.op, c.a, c.b);
    EXPECT_EQ(r.value, c.value);
    EXPECT_EQ(r.carry, c.carry);
  }
  const AluResult product = mul_alu(kMul24, 0xFF001000U, 0x00001000U);  // the top bytes are ignored
  EXPECT_EQ(product.value, 0x01000000U);
  EXPECT_TRUE(product.carry);                                                // product > 0xFFFFFF
  EXPECT_EQ(mul_alu(kV8muld, 0xFF80FF00U, 0xFF80800FU).value, 0xFF408000U);  // (a * b + 127) / 255 per byte
  EXPECT_EQ(mul_alu(kV8min, 0x10203040U, 0x40302010U).value, 0x10202010U);
  EXPECT_EQ(mul_alu(kV8max, 0x10203040U, 0x40302010U).value, 0x40303040U);
  EXPECT_EQ(mul_alu(kMulV8adds, 0xF0000001U, 0x20000001U).value, 0xFF000002U);
  EXPECT_EQ(mul_alu(kMulV8subs, 0x10000005U, 0x20000001U).value, 0x00000004U);
}

TEST(QpuAlu, FloatOpsFlushDenormalsAndConvert) {
  EXPECT_EQ(add_alu(kFadd, bits(1.5f), bits(2.25f)).value, bits(3.75f));
  EXPECT_TRUE(add_alu(kFadd, bits(1.5f), bits(2.25f)).carry);  // result > 0
  EXPECT_FALSE(add_alu(kFsub, bits(1.0f), bits(2.0f)).carry);
  EXPECT_EQ(add_alu(kFsub, bits(1.0f), bits(2.0f)).value, bits(-1.0f));
  EXPECT_EQ(add_alu(kFmin, bits(-1.0f), bits(2.0f)).value, bits(-1.0f));
  EXPECT_EQ(add_alu(kFmax, bits(-1.0f), bits(2.0f)).value, bits(2.0f));
  EXPECT_EQ(add_alu(kFminabs, bits(-1.0f), bits(2.0f)).value, bits(1.0f));
  EXPECT_EQ(add_alu(kFmaxabs, bits(-3.0f), bits(2.0f)).value, bits(3.0f));
  EXPECT_TRUE(add_alu(kFmaxabs, bits(-3.0f), bits(2.0f)).carry);                     // |a| > |b|
  EXPECT_EQ(add_alu(kFtoi, bits(-2.75f), 0).value, static_cast<std::uint32_t>(-2));  // toward zero
  EXPECT_EQ(add_alu(kFtoi, bits(3e9f), 0).value, 0x7FFFFFFFU);
  EXPECT_EQ(add_alu(kItof, static_cast<std::uint32_t>(-7), 0).value, bits(-7.0f));
  EXPECT_EQ(mul_alu(kFmul, bits(1.5f), bits(-4.0f)).value, bits(-6.0f));
  // A denormal input is zero; a product below the normal range is zero.
  EXPECT_EQ(add_alu(kFadd, 0x00000001U, bits(0.0f)).value, 0u);
  EXPECT_EQ(mul_alu(kFmul, bits(1e-20f), bits(1e-20f)).value, 0u);
}

TEST(QpuAlu, HalfConversionsRoundToNearestEven) {
  EXPECT_EQ(float_to_half(bits(1.0f)), 0x3C00u);
  EXPECT_EQ(float_to_half(bits(-2.5f)), 0xC100u);
  EXPECT_EQ(float_to_half(bits(65520.0f)), 0x7C00u);            // rounds to infinity
  EXPECT_EQ(float_to_half(bits(1.0f + 1.0f / 2048)), 0x3C00u);  // a tie: to even
  EXPECT_EQ(float_to_half(bits(5.9604645e-8f)), 0x0001u);       // the smallest half denormal
  EXPECT_EQ(half_to_float(0x3C00), bits(1.0f));
  EXPECT_EQ(half_to_float(0x0001), bits(5.9604645e-8f));
  EXPECT_EQ(half_to_float(0xFC00), bits(-INFINITY));
}

// ---- the core ----

// ldi into r0 and r1, add them into ra1 (file A), then copy ra1 to r2 two instructions later.
TEST(QpuCore, ALoadImmediateAndAnAddRunToTheProgramEnd) {
  Machine r;
  run(r, {ldi(acc(0), 40), ldi(acc(1), 2), add_op(kAdd, 1, kR0, kR1).encode(), nop(),
          add_op(kOr, acc(2), kMuxA, kMuxA).encode() /* raddr_a 39 reads 0 */});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  EXPECT_EQ(r.qpu.ra(1)[7], 42u);
  EXPECT_EQ(r.qpu.acc(2)[0], 0u);
  EXPECT_EQ(r.qpu.instructions(), 8u);  // 5 and the end's 3
  EXPECT_FALSE(r.qpu.running());
}

// Register files have no bypass: the next instruction reads the old value, the one after it the new one.
TEST(QpuCore, ARegisterFileWriteIsSeenFromTheSecondInstructionOn) {
  Machine r;
  AluInstruction read_ra0 = add_op(kOr, acc(0), kMuxA, kMuxA);
  read_ra0.raddr_a = 0;
  AluInstruction read_ra0_to_r1 = read_ra0;
  read_ra0_to_r1.waddr_add = acc(1);
  AluInstruction read_rb0 = add_op(kOr, acc(2), kMuxB, kMuxB);
  read_rb0.raddr_b = 0;
  AluInstruction mul_to_rb0 = mul_op(kV8min, 0, kR3, kR3);  // mul writes file B
  run(r, {ldi(acc(3), 9), ldi(0, 5), read_ra0.encode(), read_ra0_to_r1.encode(), mul_to_rb0.encode(), nop(),
          read_rb0.encode()});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  EXPECT_EQ(r.qpu.acc(0)[0], 0u);  // stale
  EXPECT_EQ(r.qpu.acc(1)[0], 5u);
  EXPECT_EQ(r.qpu.rb(0)[0], 9u);
  EXPECT_EQ(r.qpu.acc(2)[15], 9u);
}

// ws = 1: the add ALU writes file B and the mul ALU file A.
TEST(QpuCore, WriteSwapExchangesTheFilesOfTheTwoResults) {
  Machine r;
  AluInstruction both = add_op(kAdd, 4, kR0, kR0);
  both.op_mul = kV8min;
  both.waddr_mul = 5;
  both.mul_a = kR1;
  both.mul_b = kR1;
  both.ws = 1;
  run(r, {ldi(acc(0), 10), ldi(acc(1), 7), both.encode()});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  EXPECT_EQ(r.qpu.rb(4)[0], 20u);
  EXPECT_EQ(r.qpu.ra(5)[0], 7u);
  EXPECT_EQ(r.qpu.ra(4)[0], 0u);
  EXPECT_EQ(r.qpu.rb(5)[0], 0u);
}

// sub.setf of the element number and 8: N in elements 0-7, Z in 8, C where elem < 8 (unsigned borrow). Then
// conditional moves write only where their condition holds, and flags change only where the setting op's does.
TEST(QpuCore, FlagsAndConditionsArePerElement) {
  Machine r;
  AluInstruction compare = with_small(add_op(kSub, kWriteNop, kMuxA, kMuxB), 8);
  compare.raddr_a = kReadElementOrQpu;
  compare.sf = 1;
  AluInstruction if_n = add_op(kOr, acc(1), kR0, kR0);
  if_n.cond_add = kNs;
  AluInstruction if_z = add_op(kOr, acc(2), kR0, kR0);
  if_z.cond_add = kZs;
  AluInstruction if_cc = add_op(kOr, acc(3), kR0, kR0);
  if_cc.cond_add = kCc;
  // A conditional setf: only elements with N set (0-7) take flags from 0 (Z set, N clear).
  AluInstruction partial = add_op(kOr, kWriteNop, kMuxA, kMuxA);
  partial.cond_add = kNs;
  partial.sf = 1;
  run(r, {ldi(acc(0), 0xAB), compare.encode(), if_n.encode(), if_z.encode(), if_cc.encode(), partial.encode()});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  for (unsigned e = 0; e < 16; ++e) {
    SCOPED_TRACE(e);
    EXPECT_EQ(r.qpu.acc(1)[e], e < 8 ? 0xABu : 0u);
    EXPECT_EQ(r.qpu.acc(2)[e], e == 8 ? 0xABu : 0u);
    EXPECT_EQ(r.qpu.acc(3)[e], e >= 8 ? 0xABu : 0u);
    EXPECT_EQ(r.qpu.z(e), e <= 8);  // 0-7 from the partial setf, 8 from the compare
    EXPECT_EQ(r.qpu.n(e), false);   // 0-7 cleared, 8-15 never set
    EXPECT_EQ(r.qpu.c(e), false);   // the or clears C where it set flags, 8-15 had none
  }
}

// The add op nop: .sf takes the flags from the mul result.
TEST(QpuCore, WithoutAnAddOpTheFlagsComeFromTheMulResult) {
  Machine r;
  AluInstruction m = mul_op(kV8min, kWriteNop, kR0, kR0);
  m.sf = 1;
  run(r, {ldi(acc(0), 0x80000000U), m.encode()});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  EXPECT_TRUE(r.qpu.n(3));
  EXPECT_FALSE(r.qpu.z(3));
}

TEST(QpuCore, SmallImmediatesReadTheirTableValues) {
  const std::pair<std::uint32_t, std::uint32_t> table[] = {{0, 0},
                                                           {15, 15},
                                                           {16, 0xFFFFFFF0U},
                                                           {31, 0xFFFFFFFFU},
                                                           {32, bits(1.0f)},
                                                           {39, bits(128.0f)},
                                                           {40, bits(1.0f / 256)},
                                                           {47, bits(0.5f)},
                                                           {48, 0xFFFFFFF0U},
                                                           {63, 0xFFFFFFFFU}};
  for (const auto& [code, value] : table) {
    SCOPED_TRACE(code);
    Machine r;
    run(r, {with_small(add_op(kOr, acc(0), kMuxB, kMuxB), code).encode()});
    ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
    EXPECT_EQ(r.qpu.acc(0)[5], value);
  }
}

// Small immediates 49-63 rotate the mul inputs: result[j] = input[j - n] over all 16 elements when both inputs are
// accumulators (gpu_fft's `mov r2, r0 << 1` is code 63, `mov r3, r0 >> 1` 49), by quad otherwise; 48 rotates by r5.
TEST(QpuCore, SmallImmediateRotationsRotateTheMulInputs) {
  Machine r;
  AluInstruction elem = add_op(kOr, acc(0), kMuxA, kMuxA);
  elem.raddr_a = kReadElementOrQpu;
  AluInstruction elem_to_ra1 = elem;
  elem_to_ra1.waddr_add = 1;
  const AluInstruction right1 = with_small(mul_op(kV8min, acc(1), kR0, kR0), 49);
  const AluInstruction left1 = with_small(mul_op(kV8min, acc(2), kR0, kR0), 63);
  AluInstruction by_quad = with_small(mul_op(kV8min, acc(3), kMuxA, kMuxA), 49);
  by_quad.raddr_a = 1;
  AluInstruction by_r5 = with_small(mul_op(kV8min, 10, kR0, kR0), 48);       // into rb10
  AluInstruction set_r5 = with_small(add_op(kOr, acc(5), kMuxB, kMuxB), 5);  // r5 (A: quad) = 5
  run(r, {elem.encode(), elem_to_ra1.encode(), set_r5.encode(), right1.encode(), left1.encode(), by_quad.encode(),
          by_r5.encode()});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  for (unsigned j = 0; j < 16; ++j) {
    SCOPED_TRACE(j);
    EXPECT_EQ(r.qpu.acc(1)[j], (j - 1) & 15U);
    EXPECT_EQ(r.qpu.acc(2)[j], (j + 1) & 15U);
    EXPECT_EQ(r.qpu.acc(3)[j], (j & ~3U) | ((j - 1) & 3U));
    EXPECT_EQ(r.qpu.rb(10)[j], (j - 5) & 15U);
  }
}

// Per-element load immediates: element i gets {imm[16 + i], imm[i]}, signed in mode 1, unsigned in mode 3.
TEST(QpuCore, PerElementLoadImmediatesGiveEachElementTwoBits) {
  Machine r;
  LoadImmediateInstruction s;
  s.mode = kLoadPerElementSigned;
  s.waddr_add = acc(0);
  s.value = 0x000A000CU;  // elements 2, 3: lo 1; elements 1, 3: hi 1 -> 0, 2, 1, 3 -> signed 0, -2, 1, -1
  LoadImmediateInstruction u = s;
  u.mode = kLoadPerElementUnsigned;
  u.waddr_add = acc(1);
  run(r, {s.encode(), u.encode()});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  const std::uint32_t signed_values[4] = {0, 0xFFFFFFFEU, 1, 0xFFFFFFFFU};
  const std::uint32_t unsigned_values[4] = {0, 2, 1, 3};
  for (unsigned e = 0; e < 4; ++e) {
    EXPECT_EQ(r.qpu.acc(0)[e], signed_values[e]) << e;
    EXPECT_EQ(r.qpu.acc(1)[e], unsigned_values[e]) << e;
  }
  EXPECT_EQ(r.qpu.acc(0)[4], 0u);
}

// pm = 0: a pack to file A writes half or a byte of the register (two halves written by consecutive instructions
// both land), a float result packs to half; unpack converts regfile-A reads for the op's input type.
// pm = 1: the mul result packs [0, 1] to colour bytes.
TEST(QpuCore, PacksWritePartsOfARegisterAndUnpacksConvert) {
  Machine r;
  AluInstruction half_a = add_op(kFadd, 2, kR0, kR1);  // 1.5 + 1.0 -> 2.5 as half into ra2.16a
  half_a.pack = kPack16a;
  AluInstruction half_b = add_op(kOr, 2, kR2, kR2);  // 0x1234 into ra2.16b
  half_b.pack = kPack16b;
  AluInstruction unpack_16a = add_op(kFadd, acc(3), kMuxA, kMuxA);  // ra2.16a as float, doubled
  unpack_16a.raddr_a = 2;
  unpack_16a.unpack = kUnpack16a;
  AluInstruction unpack_16b = add_op(kAdd, 6, kMuxA, kMuxA);  // ra2.16b as a signed int, doubled: into ra6
  unpack_16b.raddr_a = 2;
  unpack_16b.unpack = kUnpack16b;
  AluInstruction colour = mul_op(kFmul, acc(0), kR1, kR1);  // 1.0 * 1.0 -> 8888: 0xFFFFFFFF
  colour.pm = 1;
  colour.pack = kPack8888;
  AluInstruction byte_c = mul_op(kFmul, acc(1), kR1, kR2);  // r1 = 1.0 * r2 (0.5 by now) -> 128 into r1.8c
  byte_c.pm = 1;
  byte_c.pack = kPack8a + 2;
  AluInstruction sat = add_op(kSub, 7, kR2, kR3);  // ra7.8a sat of a negative number (0x3F000000 - 0x40A00000): 0
  sat.pack = kPack8aSat;
  run(r, {ldi(acc(0), bits(1.5f)), ldi(acc(1), bits(1.0f)), half_a.encode(), ldi(acc(2), 0x1234), half_b.encode(),
          nop(), unpack_16a.encode(), unpack_16b.encode(), colour.encode(), ldi(acc(2), bits(0.5f)), byte_c.encode(),
          sat.encode()});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  EXPECT_EQ(r.qpu.ra(2)[0], 0x12344100u);  // 2.5 is half 0x4100
  EXPECT_EQ(as_float(r.qpu.acc(3)[0]), 5.0f);
  EXPECT_EQ(r.qpu.ra(6)[0], 0x2468u);
  EXPECT_EQ(r.qpu.acc(0)[0], 0xFFFFFFFFu);
  EXPECT_EQ(r.qpu.acc(1)[0], (bits(1.0f) & 0xFF00FFFFU) | 0x00800000U);
  EXPECT_EQ(r.qpu.ra(7)[0], 0u);
}

// A relative branch: its three delay slots run, then the target (offset from the branch + 32); the link holds the
// address after the slots. A register branch adds element 15 of regfile A. A branch not taken falls through.
TEST(QpuCore, BranchesRunTheirDelaySlotsAndWriteTheirLinks) {
  Machine r;
  const auto add_one = [](unsigned accn) { return with_small(add_op(kAdd, acc(accn), accn, kMuxB), 1).encode(); };
  BranchInstruction forward;  // at 0x1000: skips two instructions after its slots
  forward.offset = 16;
  forward.waddr_add = 0;  // link into ra0
  BranchInstruction never;
  never.cond = kAllZs;     // Z is clear everywhere: not taken
  BranchInstruction back;  // a register branch to ra0's link value - 0x1020 + 0x1040 ... see below
  back.rel = 0;
  back.reg = 1;
  back.raddr_a = 0;
  back.offset = 0x60;  // link 0x1020 + 0x60 = 0x1080
  std::vector<std::uint64_t> code = {
      forward.encode(),  // 0x1000
      add_one(0),
      add_one(0),
      add_one(0),  // delay slots: r0 = 3
      add_one(1),
      add_one(1),      // 0x1020, 0x1028: skipped
      never.encode(),  // 0x1030: target (0x1020 + 16)
      add_one(2),
      nop(),
      nop(),          // its slots
      back.encode(),  // 0x1050
      nop(),
      nop(),
      nop(),       // 0x1058 - 0x1068
      add_one(3),  // 0x1070: skipped
      add_one(3),
      add_one(3),  // skipped
  };
  while (code.size() < 16) code.push_back(nop());
  code.resize(16);
  code.push_back(nop());  // 0x1080
  run(r, code);
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  EXPECT_EQ(r.qpu.acc(0)[0], 3u);
  EXPECT_EQ(r.qpu.acc(1)[0], 0u);
  EXPECT_EQ(r.qpu.acc(2)[0], 1u);
  EXPECT_EQ(r.qpu.acc(3)[0], 0u);
  EXPECT_EQ(r.qpu.ra(0)[15], 0x1020u);
  EXPECT_EQ(r.qpu.instructions(), 4u + 4 + 4 + 1 + 3);
}

// The register target comes from element 15 (vc4asm's measurements).
TEST(QpuCore, ARegisterBranchTakesElement15) {
  Machine r;
  LoadImmediateInstruction per_element;  // element 15: 1 (lo bit 15), others 0
  per_element.mode = kLoadPerElementUnsigned;
  per_element.waddr_add = 1;
  per_element.value = 1U << 15;
  AluInstruction scale = with_small(add_op(kShl, 2, kMuxA, kMuxB), 5);  // ra2 = ra1 << 5: 32 in element 15
  scale.raddr_a = 1;
  BranchInstruction b;
  b.rel = 1;
  b.reg = 1;
  b.raddr_a = 2;
  b.offset = 0;  // 0x1020 + 8 + 32: skips four instructions after the slots
  std::vector<std::uint64_t> code = {
      per_element.encode(), nop(),          scale.encode(), nop(),          b.encode(),    nop(), nop(), nop(),
      ldi(acc(0), 1),       ldi(acc(0), 2), ldi(acc(0), 3), ldi(acc(0), 4), ldi(acc(1), 7)};
  (void)code;
  // The branch is at 0x1020: link 0x1040, target 0x1040 + 32 = 0x1060 (index 12).
  run(r, code);
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  EXPECT_EQ(r.qpu.acc(0)[0], 0u);
  EXPECT_EQ(r.qpu.acc(1)[0], 7u);
}

// Uniforms pop one per read address 32 (either file), and a write of address 40 on file A restarts the stream.
TEST(QpuCore, UniformsPopInOrderAndTheirAddressCanBeReset) {
  Machine r;
  r.env.uniforms = {11, 22, 33, 44};
  AluInstruction both = add_op(kAdd, acc(0), kMuxA, kMuxB);  // 11 + 22
  both.raddr_a = kReadUniform;
  both.raddr_b = kReadUniform;
  AluInstruction one = add_op(kOr, acc(1), kMuxA, kMuxA);
  one.raddr_a = kReadUniform;
  AluInstruction again = one;
  again.waddr_add = acc(2);
  run(r, {both.encode(), one.encode(), ldi(kWriteUniformsAddress, kUniforms + 4), nop(), nop(), again.encode()});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  EXPECT_EQ(r.qpu.acc(0)[0], 33u);
  EXPECT_EQ(r.qpu.acc(1)[9], 33u);
  EXPECT_EQ(r.qpu.acc(2)[0], 22u);
  EXPECT_EQ(r.qpu.uniform_address(), kUniforms + 8);
}

// The SFU's result reaches r4 for the third instruction after the write; the two before read the old r4.
TEST(QpuCore, SfuResultsArriveInR4AfterTwoInstructions) {
  const std::pair<std::uint32_t, float> cases[] = {
      {kWriteSfuRecip, 0.25f}, {kWriteSfuRecipSqrt, 0.5f}, {kWriteSfuExp, 16.0f}, {kWriteSfuLog, 2.0f}};
  for (const auto& [address, expected] : cases) {
    SCOPED_TRACE(address);
    Machine r;
    const auto read_r4 = [](unsigned accn) { return add_op(kOr, acc(accn), kR4, kR4).encode(); };
    run(r, {ldi(acc(0), bits(4.0f)), add_op(kOr, address, kR0, kR0).encode(), read_r4(1), read_r4(2), read_r4(3)});
    ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
    EXPECT_EQ(r.qpu.acc(1)[0], 0u);
    EXPECT_EQ(r.qpu.acc(2)[0], 0u);
    EXPECT_EQ(as_float(r.qpu.acc(3)[0]), expected);
  }
  EXPECT_EQ(as_float(sfu(kWriteSfuRecip, 0)), INFINITY);
  EXPECT_EQ(as_float(sfu(kWriteSfuLog, bits(-8.0f))), 3.0f);  // log2 |x|
}

// r5 written through file A replicates elements 0, 4, 8, 12 within their quads; through file B element 0 to all.
TEST(QpuCore, R5WritesReplicateByQuadOrFromElementZero) {
  Machine quad;
  AluInstruction e = add_op(kOr, kWriteR5, kMuxA, kMuxA);
  e.raddr_a = kReadElementOrQpu;
  run(quad, {e.encode()});
  ASSERT_EQ(quad.last, Qpu::Step::kEnded) << quad.qpu.error();
  Machine rep;
  e.ws = 1;  // the add writes file B
  run(rep, {with_small(add_op(kOr, acc(0), kMuxB, kMuxB), 7).encode(), add_op(kOr, kWriteR5, kR0, kR0).encode(),
            e.encode()});
  ASSERT_EQ(rep.last, Qpu::Step::kEnded) << rep.qpu.error();
  for (unsigned j = 0; j < 16; ++j) {
    EXPECT_EQ(quad.qpu.acc(5)[j], j & ~3U) << j;
    EXPECT_EQ(rep.qpu.acc(5)[j], 0u) << j;  // element 0 of elem_num
  }
}

// A semaphore acquire at 0 stalls and changes nothing; once released it goes on. A release counts up.
TEST(QpuCore, SemaphoreAcquireStallsAtZeroUntilReleased) {
  Machine r;
  r.env.code = {encode_semaphore(4, false), encode_semaphore(4, true), encode_semaphore(4, true), ldi(acc(0), 1)};
  end(r.env.code);
  r.qpu.start(kCode, kUniforms);
  EXPECT_EQ(r.qpu.step(), Qpu::Step::kIssued);
  EXPECT_EQ(r.env.semaphores[4], 1u);
  EXPECT_EQ(r.qpu.step(), Qpu::Step::kIssued);
  EXPECT_EQ(r.env.semaphores[4], 0u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r.qpu.step(), Qpu::Step::kStalled);
    EXPECT_EQ(r.qpu.stall(), Qpu::Stall::kSemaphore);
    EXPECT_EQ(r.qpu.pc(), kCode + 16);
  }
  EXPECT_EQ(r.qpu.instructions(), 2u);
  r.env.semaphores[4] = 1;  // another QPU releases
  EXPECT_EQ(r.qpu.step(), Qpu::Step::kIssued);
  EXPECT_EQ(r.env.semaphores[4], 0u);
  r.env.semaphores[5] = 15;
  r.env.code[3] = encode_semaphore(5, false);  // a release at 15 waits too
  EXPECT_EQ(r.qpu.step(), Qpu::Step::kStalled);
}

// Reading address 51 acquires the mutex (stalling while another QPU holds it); writing 51 releases it.
TEST(QpuCore, TheMutexStallsWhileHeldElsewhere) {
  Machine r;
  AluInstruction acquire = add_op(kOr, kWriteNop, kMuxA, kMuxA);
  acquire.raddr_a = kReadMutexAcquire;
  r.env.code = {acquire.encode(), add_op(kOr, kWriteMutexRelease, kR0, kR0).encode()};
  end(r.env.code);
  r.env.mutex_owner = 7;
  r.qpu.start(kCode, kUniforms);
  EXPECT_EQ(r.qpu.step(), Qpu::Step::kStalled);
  EXPECT_EQ(r.qpu.stall(), Qpu::Stall::kMutex);
  r.env.mutex_owner = -1;
  EXPECT_EQ(r.qpu.step(), Qpu::Step::kIssued);
  EXPECT_EQ(r.env.mutex_owner, 3);
  EXPECT_EQ(r.qpu.step(), Qpu::Step::kIssued);
  EXPECT_EQ(r.env.mutex_owner, -1);
}

// A non-zero write of element 0 to host_int raises the QPU's interrupt; zero does not.
TEST(QpuCore, HostInterruptWritesRaiseTheQpusInterrupt) {
  Machine r;
  run(r, {ldi(kWriteHostInt, 0), ldi(kWriteHostInt, 1)});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  ASSERT_EQ(r.env.interrupts.size(), 1u);
  EXPECT_EQ(r.env.interrupts[0], 3u);
}

// ---- modelled errors ----

void expect_error(std::vector<std::uint64_t> code, const std::string& text, bool append_end = true) {
  Machine r;
  run(r, std::move(code), append_end);
  EXPECT_EQ(r.last, Qpu::Step::kError);
  EXPECT_NE(r.qpu.error().find(text), std::string::npos) << r.qpu.error();
  EXPECT_NE(r.qpu.error().find("QPU 3 at 0x0000"), std::string::npos) << r.qpu.error();
  EXPECT_FALSE(r.qpu.running());
  EXPECT_EQ(r.qpu.step(), Qpu::Step::kError);  // it stays stopped
}

// The error names the QPU, the address, the instruction and its disassembly.
TEST(QpuCore, AnErrorNamesTheInstructionAndItsDisassembly) {
  Machine r;
  AluInstruction bad = add_op(kOr, acc(0), kMuxA, kMuxA);
  bad.raddr_a = kReadVpm;
  run(r, {nop(), bad.encode()});
  EXPECT_EQ(r.qpu.error(),
            "QPU 3 at 0x00001008 (0x1002482715c27d80 'mov r0, vpm_read ; nop nop, r0, r0'): VPM read with nothing "
            "left to read (no read setup, or its count is used up): the QPU would wait forever");
}

TEST(QpuCore, UndefinedEncodingsEndTheProgramWithAnErrorNamingThem) {
  expect_error({add_op(9, acc(0), kR0, kR0).encode()}, "add op 9 is undefined");
  LoadImmediateInstruction bad;
  bad.mode = 2;
  expect_error({bad.encode()}, "load immediate mode 2 is undefined");
  BranchInstruction b;
  b.cond = 13;
  expect_error({b.encode()}, "branch condition 13 is undefined");
  AluInstruction read = add_op(kOr, acc(0), kMuxA, kMuxA);
  read.raddr_a = 33;
  expect_error({read.encode()}, "read address 33 (file A) is undefined");
  AluInstruction mul_pack = mul_op(kFmul, acc(0), kR0, kR0);
  mul_pack.pm = 1;
  mul_pack.pack = 9;
  expect_error({mul_pack.encode()}, "mul pack 9 is undefined");
  AluInstruction breakpoint;
  breakpoint.sig = kSigBreakpoint;
  expect_error({breakpoint.encode()}, "software breakpoint");
}

TEST(QpuCore, BranchesInDelaySlotsAndRunawayProgramsAreErrors) {
  expect_error({BranchInstruction{}.encode(), BranchInstruction{}.encode()},
               "branch in the delay slots of the branch at 0x00001000");
  // Falling off the end of the code: the fetch finds nothing.
  expect_error({nop()}, "instruction fetch outside memory", false);
  AluInstruction read = add_op(kOr, acc(0), kMuxA, kMuxA);
  read.raddr_a = kReadUniform;
  expect_error({read.encode()}, "uniform read at 0x00008000 outside memory");
}

TEST(QpuCore, UnmodelledUnitsAreNamedInTheError) {
  expect_error({ldi(kWriteTmu0S + 1, 0)}, "the texture parameter uniform at 0x00008000 is outside memory");
  AluInstruction thrsw;
  thrsw.sig = kSigThreadSwitch;
  expect_error({thrsw.encode()}, "thread switch");
  expect_error({ldi(kWriteTlbZ, 0)}, "is the tile buffer, and a user program has no fragments");
  AluInstruction vary = add_op(kOr, acc(0), kMuxA, kMuxA);
  vary.raddr_a = kReadVarying;
  expect_error({vary.encode()}, "fragment shader input");
}

// ---- VPM, DMA and TMU ----

// The element number into r0 (file A address 38).
std::uint64_t elem_to_r0() {
  AluInstruction i = add_op(kOr, acc(0), kMuxA, kMuxA);
  i.raddr_a = kReadElementOrQpu;
  return i.encode();
}
// `op` with r0 and small immediate `value` into `dest`.
std::uint64_t op_r0_imm(std::uint32_t op, std::uint32_t dest, std::uint32_t value) {
  return with_small(add_op(op, dest, kR0, kMuxB), value).encode();
}
std::uint64_t vpm_read_to(std::uint32_t dest) {
  AluInstruction i = add_op(kOr, dest, kMuxA, kMuxA);
  i.raddr_a = kReadVpm;
  return i.encode();
}
// vw_setup (file B address 49) / vr_setup (file A): a load immediate writes file B through its mul side.
std::uint64_t vw_setup(std::uint32_t value) {
  LoadImmediateInstruction i;
  i.waddr_mul = kWriteVpmSetup;
  i.value = value;
  return i.encode();
}
std::uint64_t vw_addr(std::uint32_t value) {
  LoadImmediateInstruction i;
  i.waddr_mul = kWriteVpmAddr;
  i.value = value;
  return i.encode();
}

// Generic 32-bit writes: horizontal (0x1a00 | y: a row, stride 1) and vertical (0x0200 | y | x: column x from row
// y); a horizontal read setup of two vectors (NUM 2) reads the rows back in order.
TEST(QpuVpm, GenericWritesAndReadsPlaceVectorsInRowsAndColumns) {
  Machine r;
  run(r, {elem_to_r0(), vw_setup(0x00001a00 | 5), add_op(kOr, kWriteVpm, kR0, kR0).encode(),
          op_r0_imm(kAdd, kWriteVpm, 15),       // row 6: elem + 15
          vw_setup(0x00000200 | 16 | 3),        // vertical: column 3, rows 16-31
          op_r0_imm(kShl, kWriteVpm, 1),        // elem * 2
          ldi(kWriteVpmSetup, 0x00201a00 | 5),  // read 2 rows from row 5
          vpm_read_to(acc(1)), vpm_read_to(acc(2))});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  for (unsigned i = 0; i < 16; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.env.vpm_storage.at(5, i), i);
    EXPECT_EQ(r.env.vpm_storage.at(6, i), i + 15);
    EXPECT_EQ(r.env.vpm_storage.at(16 + i, 3), 2 * i);
    EXPECT_EQ(r.qpu.acc(1)[i], i);
    EXPECT_EQ(r.qpu.acc(2)[i], i + 15);
  }
  EXPECT_EQ(r.env.vpm_storage.at(16, 4), 0u);  // the next column is untouched
}

// VDW stores: horizontal units are rows of DEPTH words, each unit `stride` bytes after the previous one's end;
// vertical units are columns (0x88010000: 16 units of depth 1 = one row, py-videocore's and EL's helloworld). The
// stride is a setup of its own and stays until written again (the stated choice: no source says a store setup
// resets it).
TEST(QpuVpm, DmaStoresWriteRowsOrColumnsWithTheirStride) {
  Machine r;
  run(r, {elem_to_r0(), vw_setup(0x00001a00), add_op(kOr, kWriteVpm, kR0, kR0).encode(),
          op_r0_imm(kAdd, kWriteVpm, 8),                                  // row 1: elem + 8
          vw_setup(0x80000000U | (2U << 23) | (16U << 16) | (1U << 14)),  // 2 rows of 16 words from (0, 0)
          vw_setup(0xC0000000U | 64),                                     // then 64 bytes to the next row
          vw_addr(kMemory + 0x1000),
          vw_setup(0x88010000U),  // vertical, 16 units of depth 1 from (0, 0): row 0
          vw_setup(0xC0000000U),  // the stride stays until set again
          vw_addr(kMemory + 0x2000)});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  for (unsigned i = 0; i < 16; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.env.word(kMemory + 0x1000 + 4 * i), i);
    EXPECT_EQ(r.env.word(kMemory + 0x1080 + 4 * i), i + 8);  // 64 bytes of row, 64 of stride
    EXPECT_EQ(r.env.word(kMemory + 0x1040 + 4 * i), 0u);
    EXPECT_EQ(r.env.word(kMemory + 0x2000 + 4 * i), i);
  }
  EXPECT_EQ(r.qpu.dma_store_words(), 32u + 16);
}

// VCD loads: NROWS rows of ROWLEN words, the memory pitch 8 << MPITCH (or the extended pitch when MPITCH is 0), into
// VPM rows VPITCH apart from row Y (horizontal) or columns from X (vertical).
TEST(QpuVpm, DmaLoadsFillRowsOrColumnsFromPitchedMemory) {
  Machine r;
  for (unsigned i = 0; i < 64; ++i) r.env.set_word(kMemory + 0x3000 + 4 * i, 100 + i);
  const std::uint32_t horizontal = 0x80000000U | (3U << 24) | (2U << 16) | (1U << 12) | (4U << 4);  // 64-byte pitch
  const std::uint32_t vertical = 0x80000000U | (4U << 20) | (2U << 16) | (1U << 12) | (1U << 11) | (32U << 4) | 5;
  run(r, {ldi(kWriteVpmSetup, horizontal), ldi(kWriteVpmAddr, kMemory + 0x3000),
          ldi(kWriteVpmSetup, 0x90000000U | 8),  // extended pitch: 8 bytes
          ldi(kWriteVpmSetup, vertical),         // MPITCH 0: the extended pitch; 2 columns of 4 words at (32, 5)
          ldi(kWriteVpmAddr, kMemory + 0x3000)});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  for (unsigned i = 0; i < 16; ++i) {
    EXPECT_EQ(r.env.vpm_storage.at(4, i), 100 + i) << i;
    EXPECT_EQ(r.env.vpm_storage.at(5, i), 116 + i) << i;  // the second row, 64 bytes on
  }
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(r.env.vpm_storage.at(32 + i, 5), 100 + i) << i;
    EXPECT_EQ(r.env.vpm_storage.at(32 + i, 6), 102 + i) << i;  // 8 bytes on
  }
  EXPECT_EQ(r.qpu.dma_load_words(), 32u + 8);
}

// Direct TMU lookups: each element's word at its address, in r4 after load_tmu0, whose own read of r4 sees the
// previous result (gpu_fft's `mov r0, r4; ldtmu0`).
TEST(QpuTmu, DirectLookupsLoadEachElementsWordIntoR4InRequestOrder) {
  Machine r;
  for (unsigned i = 0; i < 32; ++i) r.env.set_word(kMemory + 0x400 + 4 * i, 0xA000 + i);
  AluInstruction address = with_small(add_op(kShl, acc(1), kR0, kMuxB), 2);  // elem * 4
  AluInstruction load_a = add_op(kOr, acc(2), kR4, kR4);
  load_a.sig = kSigLoadTmu0;
  AluInstruction load_b = add_op(kOr, acc(3), kR4, kR4);
  load_b.sig = kSigLoadTmu1;
  run(r, {elem_to_r0(), address.encode(), ldi(acc(0), kMemory + 0x400), add_op(kAdd, kWriteTmu0S, kR0, kR1).encode(),
          ldi(acc(0), kMemory + 0x440 + 2),  // bits 1:0 are ignored
          add_op(kAdd, kWriteTmu1S, kR0, kR1).encode(), load_a.encode(), load_b.encode(),
          add_op(kOr, 7, kR4, kR4).encode()});
  ASSERT_EQ(r.last, Qpu::Step::kEnded) << r.qpu.error();
  for (unsigned i = 0; i < 16; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.qpu.acc(2)[i], 0u);          // r4 before the first load
    EXPECT_EQ(r.qpu.acc(3)[i], 0xA000 + i);  // the TMU0 result
    EXPECT_EQ(r.qpu.ra(7)[i], 0xA010 + i);   // the TMU1 result
  }
  EXPECT_EQ(r.qpu.tmu_requests(), 2u);
  EXPECT_EQ(r.qpu.tmu_outstanding(), 0u);
}

// Per TMU, the receive FIFO holds 8 lookups and the request FIFO 8 more direct ones (a slot each): 16 direct lookups
// on each TMU are outstanding without a load; a 17th would wait for a slot only this QPU's loads free.
TEST(QpuTmu, AFullRequestFifoAnEmptyLoadAndUnmappedAddressesAreErrors) {
  std::vector<std::uint64_t> both;
  for (int i = 0; i < 32; ++i) both.push_back(ldi(i % 2 == 0 ? kWriteTmu0S : kWriteTmu1S, kMemory));
  Machine ok;
  run(ok, both);
  EXPECT_EQ(ok.last, Qpu::Step::kEnded) << ok.qpu.error();
  EXPECT_EQ(ok.qpu.tmu_outstanding(), 32u);
  std::vector<std::uint64_t> seventeen(17, ldi(kWriteTmu1S, kMemory));
  expect_error(seventeen, "a TMU1 S write with its request FIFO's 8 slots in use");
  AluInstruction load;
  load.sig = kSigLoadTmu1;
  expect_error({ldi(kWriteTmu0S, kMemory), load.encode()}, "load_tmu1 with no request of that TMU outstanding");
  expect_error({ldi(kWriteTmu0S, 0x100)}, "TMU0 direct lookup of element 0 at 0x00000100: no memory there");
}

// With timing: a TMU lookup's data is back tmu_latency_cycles after the request, and load_tmu before that stalls
// (changing nothing); a DMA store is busy for its setup plus a cycle per word, vpm_st_busy reads 1 meanwhile and
// vpm_st_wait stalls until it ends.
TEST(QpuTiming, TmuDataAndDmaTransfersTakeTheirTime) {
  TestEnvironment env;
  Qpu qpu(3, env, QpuTiming{9, 12, 1.0});
  AluInstruction load = add_op(kOr, acc(1), kR4, kR4);
  load.sig = kSigLoadTmu0;
  AluInstruction busy = add_op(kOr, acc(2), kMuxB, kMuxB);
  busy.raddr_b = kReadVpmBusy;
  AluInstruction wait = add_op(kOr, kWriteNop, kMuxB, kMuxB);
  wait.raddr_b = kReadDmaWait;
  env.code = {ldi(kWriteTmu0S, kMemory),
              load.encode(),
              vw_setup(0x80000000U | (1U << 23) | (16U << 16) | (1U << 14)),
              vw_addr(kMemory + 0x100),
              busy.encode(),
              wait.encode(),
              add_op(kOr, acc(3), kMuxB, kMuxB).encode()};
  env.code.back() = [] {
    AluInstruction after = add_op(kOr, acc(3), kMuxB, kMuxB);
    after.raddr_b = kReadVpmBusy;
    return after.encode();
  }();
  end(env.code);
  env.set_word(kMemory, 0x5EED);
  qpu.start(kCode, kUniforms);
  EXPECT_EQ(qpu.step(0), Qpu::Step::kIssued);  // the request: data at 9
  EXPECT_EQ(qpu.step(4), Qpu::Step::kStalled);
  EXPECT_EQ(qpu.stall(), Qpu::Stall::kTmu);
  EXPECT_EQ(qpu.step(8), Qpu::Step::kStalled);
  EXPECT_EQ(qpu.pc(), kCode + 8);
  EXPECT_EQ(qpu.step(12), Qpu::Step::kIssued);
  EXPECT_EQ(qpu.step(16), Qpu::Step::kIssued);  // vw_setup
  EXPECT_EQ(qpu.step(20), Qpu::Step::kIssued);  // vw_addr: busy until 20 + 12 + 16 = 48
  EXPECT_EQ(qpu.step(24), Qpu::Step::kIssued);  // vpm_st_busy: 1
  for (std::uint64_t now = 28; now < 48; now += 4) {
    EXPECT_EQ(qpu.step(now), Qpu::Step::kStalled) << now;
    EXPECT_EQ(qpu.stall(), Qpu::Stall::kDma);
  }
  EXPECT_EQ(qpu.step(48), Qpu::Step::kIssued);  // vpm_st_wait goes on
  EXPECT_EQ(qpu.step(52), Qpu::Step::kIssued);  // vpm_st_busy: 0
  EXPECT_EQ(qpu.acc(1)[0], 0u);                 // the load's own read of r4 sees the value before it
  EXPECT_EQ(qpu.acc(4)[0], 0x5EEDu);
  EXPECT_EQ(qpu.acc(2)[0], 1u);
  EXPECT_EQ(qpu.acc(3)[0], 0u);
  EXPECT_EQ(env.word(kMemory + 0x100), 0u);  // row 0 of the VPM, stored when the transfer started
  EXPECT_EQ(qpu.instructions(), 7u);
}

// A lookup its TMU's receive FIFO has no room for waits in the request FIFO, and its data is back the TMU's latency
// after a load frees a slot. Nine TMU0 lookups at cycles 0-32 (latency 100: data at 100-132); the first load waits
// until 100 and frees a slot, so the ninth lookup starts then and is back at 200, not 132: the loads of the second
// to eighth go at 104-128 and the ninth's waits until 200.
TEST(QpuTiming, ALookupWaitingForTheReceiveFifoStartsWhenALoadFreesASlot) {
  TestEnvironment env;
  Qpu qpu(3, env, QpuTiming{100, 12, 1.0});
  AluInstruction load;
  load.sig = kSigLoadTmu0;
  for (int i = 0; i < 9; ++i) env.code.push_back(ldi(kWriteTmu0S, kMemory + 4 * i));
  for (int i = 0; i < 9; ++i) env.code.push_back(load.encode());
  end(env.code);
  for (unsigned i = 0; i < 9; ++i) env.set_word(kMemory + 4 * i, 0xF1F0 + i);
  qpu.start(kCode, kUniforms);
  std::vector<std::uint64_t> load_cycles;
  for (std::uint64_t now = 0; now < 400 && load_cycles.size() < 9; now += 4) {
    const std::uint32_t pc = qpu.pc();
    ASSERT_NE(qpu.step(now), Qpu::Step::kError) << qpu.error();
    if (pc >= kCode + 9 * 8 && qpu.pc() != pc) load_cycles.push_back(now);
  }
  EXPECT_EQ(load_cycles, (std::vector<std::uint64_t>{100, 104, 108, 112, 116, 120, 124, 128, 200}));
  EXPECT_EQ(qpu.acc(4)[0], 0xF1F8u);
}

// A second store started while the first is busy waits for it: one transfer per direction at a time.
TEST(QpuTiming, ADmaTransferStartsWhenTheOneBeforeItEnds) {
  TestEnvironment env;
  Qpu qpu(3, env, QpuTiming{9, 12, 1.0});
  env.code = {vw_setup(0x80000000U | (1U << 23) | (16U << 16) | (1U << 14)), vw_addr(kMemory + 0x100),
              vw_addr(kMemory + 0x200), ldi(acc(0), 1)};
  end(env.code);
  qpu.start(kCode, kUniforms);
  EXPECT_EQ(qpu.step(0), Qpu::Step::kIssued);
  EXPECT_EQ(qpu.step(4), Qpu::Step::kIssued);  // busy until 4 + 12 + 16 = 32
  for (std::uint64_t now = 8; now < 32; now += 4) {
    EXPECT_EQ(qpu.step(now), Qpu::Step::kStalled) << now;
    EXPECT_EQ(qpu.stall(), Qpu::Stall::kDma);
  }
  EXPECT_EQ(qpu.dma_store_words(), 16u);
  EXPECT_EQ(qpu.step(32), Qpu::Step::kIssued);
  EXPECT_EQ(qpu.dma_store_words(), 32u);
  EXPECT_EQ(qpu.step(36), Qpu::Step::kIssued);  // an instruction that starts no transfer does not wait
}

TEST(QpuVpm, BadSetupsAndDmaOutsideMemoryAreErrors) {
  expect_error({vw_setup(0x80000000U | (1U << 23) | (1U << 16)), vw_addr(0x100)},
               "VDW DMA store unit 0 to 0x00000100: no memory there");
  expect_error({vw_addr(kMemory)}, "VDW DMA store to 0x00010000 without a store setup");
  expect_error({ldi(kWriteVpmSetup, 0x80000000U | (1U << 16)), ldi(kWriteVpmAddr, 0x40)},
               "VCD DMA load row 0 from 0x00000040: no memory there");
  expect_error({vw_setup(0x00001b00)}, "VPM generic setup 0x00001b00 with SIZE 3");
  expect_error({ldi(kWriteVpmSetup, 0x40000000)}, "vr_setup 0x40000000: bits 31:30 = 01 is no setup");
  expect_error({add_op(kOr, kWriteVpm, kR0, kR0).encode()}, "VPM write without a write setup");
  expect_error({ldi(kWriteVpmSetup, 0x00101a00), vpm_read_to(acc(0)), vpm_read_to(acc(0))},
               "VPM read with nothing left to read");
}

}  // namespace
}  // namespace gpuvp::vc4::qpu
