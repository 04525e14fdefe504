// EU executor (issue 17): kernels written in IGA syntax (tests/eu/exec/*.asm), assembled by Intel's iga64 at build
// time, run on one thread's state; every expected value is computed by hand (or, for plain IEEE arithmetic on
// ordinary numbers, by the host in the test) and written next to its check.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tlm/gen/eu/disassembler.h"
#include "tlm/gen/eu/executor.h"
#include "tlm/gen/eu/float_convert.h"
#include "tlm/gen/eu/ieee_macro.h"

namespace eu = gpuvp::gen::eu;

namespace {

constexpr std::uint64_t kKernelBase = 0x10000;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<std::uint8_t> kernel_bytes(const std::string& name) {
  const std::string path = std::string(GPUVP_EU_KERNEL_DIR) + "/" + name + ".bin";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "kernel " << path << " (built by iga64 from tests/eu/exec/" << name << ".asm)";
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Shared functions of the tests: records every message; accepts the thread spawner's end of thread (SFID 7) and
// answers SFID 12 messages (a stand-in data port) by writing `response` into the response registers.
class Recorder : public eu::SharedFunctions {
 public:
  eu::MessageResult send(const eu::Message& m, eu::ThreadState& t) override {
    messages.push_back(m);
    if (m.sfid == 7 && m.eot) return {};
    if (m.sfid == 12) {
      for (unsigned r = 0; r < m.response_length(); ++r) {
        for (unsigned k = 0; k < 8; ++k) t.grf_write<std::uint32_t>((m.dst_reg + r) * 32 + 4 * k, response + 8 * r + k);
      }
      return suspend ? eu::MessageResult{eu::MessageStatus::kSuspend, ""} : eu::MessageResult{};
    }
    return {eu::MessageStatus::kError, "unexpected message"};
  }
  std::vector<eu::Message> messages;
  std::uint32_t response = 0x100;
  bool suspend = false;
};

struct Thread {
  eu::ThreadState state;
  Recorder shared;
  eu::RunResult result;

  template <typename T>
  void set(unsigned reg, const std::vector<T>& values, unsigned byte = 0) {
    for (std::size_t i = 0; i < values.size(); ++i) state.grf_write<T>(reg * 32 + byte + i * sizeof(T), values[i]);
  }
  template <typename T>
  T get(unsigned reg, unsigned index) const {
    return state.grf_read<T>(reg * 32 + index * sizeof(T));
  }
  float f(unsigned reg, unsigned index) const { return get<float>(reg, index); }
  std::int32_t d(unsigned reg, unsigned index) const { return get<std::int32_t>(reg, index); }
  std::uint32_t ud(unsigned reg, unsigned index) const { return get<std::uint32_t>(reg, index); }

  // Runs the kernel from offset 0 with `mask` channels dispatched; expects it to end with EOT.
  void run(const std::string& kernel, std::uint32_t mask = 0xFF, bool expect_eot = true) {
    eu::BufferInstructionMemory memory(kKernelBase, kernel_bytes(kernel));
    eu::Program program(memory, kKernelBase, eu::Generation::kGen9);
    eu::Executor executor(program, shared);
    state.reset_control_flow(0, mask);
    result = executor.run(state, 100000);
    if (expect_eot) {
      EXPECT_EQ(result.reason, eu::StopReason::kEndOfThread) << result.fault;
    }
  }
};

std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Integer division inputs (r4 / r5) and hand-computed results, truncating: INT_MIN / -1 wraps; division by zero gives
// a quotient of all ones and the dividend as remainder (the hardware's value is not documented publicly; a choice).
const std::vector<std::int32_t> kDividends{7, -7, 7, -7, 100, 0, INT32_MIN, 5};
const std::vector<std::int32_t> kDivisors{2, 2, -2, -2, 7, 3, -1, 0};
constexpr std::array<std::int32_t, 8> kQuotients{3, -3, -3, 3, 14, 0, INT32_MIN, -1};
constexpr std::array<std::int32_t, 8> kRemainders{1, -1, 1, -1, 2, 0, 0, 5};
// Unsigned: 0xFFFFFFF9 / 2 = 0x7FFFFFFC rem 1; 7 / 0xFFFFFFFE = 0 rem 7; 0xFFFFFFF9 / 0xFFFFFFFE = 0 rem 0xFFFFFFF9;
// 0x80000000 / 0xFFFFFFFF = 0 rem 0x80000000.
constexpr std::array<std::uint32_t, 8> kUnsignedQuotients{3, 0x7FFFFFFC, 0, 0, 14, 0, 0, 0xFFFFFFFF};
constexpr std::array<std::uint32_t, 8> kUnsignedRemainders{1, 1, 7, 0xFFFFFFF9, 2, 0, 0x80000000, 5};

}  // namespace

TEST(EuExec, SinglePrecisionArithmetic) {
  Thread t;
  t.set<float>(2, {1.5F, -2.25F, 3.0F, 0.5F, -0.5F, 2.5F, 1e30F, -7.75F});
  t.set<float>(3, {2.0F, 4.0F, -1.0F, 0.25F, -0.5F, kNaN, 1e30F, 3.5F});
  t.set<float>(4, {0.5F, 0.25F, 1.0F, 0.0F, 2.0F, 1.0F, -1.0F, 0.75F});
  t.run("alu_float");
  const std::array<float, 8> r2{1.5F, -2.25F, 3.0F, 0.5F, -0.5F, 2.5F, 1e30F, -7.75F};
  const std::array<float, 8> r3{2.0F, 4.0F, -1.0F, 0.25F, -0.5F, kNaN, 1e30F, 3.5F};
  const std::array<float, 8> r4{0.5F, 0.25F, 1.0F, 0.0F, 2.0F, 1.0F, -1.0F, 0.75F};
  for (unsigned c = 0; c < 8; ++c) {
    if (c == 5) continue;  // NaN lane checked below
    EXPECT_EQ(t.f(10, c), r2[c] + r3[c]) << c;
    EXPECT_EQ(t.f(11, c), r2[c] * r3[c]) << c;
    EXPECT_EQ(t.f(12, c), std::fma(r2[c], r3[c], r4[c])) << c;  // mad: src0 + src1 * src2, one rounding
  }
  EXPECT_TRUE(std::isnan(t.f(10, 5)));
  // (sat): clamped to [0, 1], NaN to 0.
  const std::array<float, 8> sat{1.0F, 1.0F, 1.0F, 0.75F, 0.0F, 0.0F, 1.0F, 0.0F};
  // sel (lt) / (ge): the smaller / larger source; a NaN source loses (IEEE minNum/maxNum).
  const std::array<float, 8> min{1.5F, -2.25F, -1.0F, 0.25F, -0.5F, 2.5F, 1e30F, -7.75F};
  const std::array<float, 8> max{2.0F, 4.0F, 3.0F, 0.5F, -0.5F, 2.5F, 1e30F, 3.5F};
  // frc, rndd, rndu, rnde (ties to even), rndz of r2.
  const std::array<float, 8> frc{0.5F, 0.75F, 0.0F, 0.5F, 0.5F, 0.5F, 0.0F, 0.25F};
  const std::array<float, 8> rndd{1.0F, -3.0F, 3.0F, 0.0F, -1.0F, 2.0F, 1e30F, -8.0F};
  const std::array<float, 8> rndu{2.0F, -2.0F, 3.0F, 1.0F, -0.0F, 3.0F, 1e30F, -7.0F};
  const std::array<float, 8> rnde{2.0F, -2.0F, 3.0F, 0.0F, -0.0F, 2.0F, 1e30F, -8.0F};
  const std::array<float, 8> rndz{1.0F, -2.0F, 3.0F, 0.0F, -0.0F, 2.0F, 1e30F, -7.0F};
  // -r2 + |r3|.
  const std::array<float, 8> negabs{0.5F, 6.25F, -2.0F, -0.25F, 1.0F, kNaN, 0.0F, 11.25F};
  // float -> d / ud: toward zero, clamped, NaN -> 0 (1e30 clamps to INT_MAX / UINT_MAX, negatives to 0 for ud).
  const std::array<std::int32_t, 8> to_d{1, -2, 3, 0, 0, 2, 2147483647, -7};
  const std::array<std::uint32_t, 8> to_ud{1, 0, 3, 0, 0, 2, 4294967295U, 0};
  // 0x48:vf is (3.0, 0, 0, 0) repeated; 0x3C38302C:vf is (0.875, 1.0, 1.5, 1.75) repeated.
  const std::array<float, 4> vf{0.875F, 1.0F, 1.5F, 1.75F};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.f(13, c), sat[c]) << c;
    EXPECT_EQ(t.f(14, c), min[c]) << c;
    EXPECT_EQ(t.f(15, c), max[c]) << c;
    EXPECT_EQ(bits(t.f(16, c)), bits(frc[c])) << c;
    EXPECT_EQ(bits(t.f(17, c)), bits(rndd[c])) << c;
    EXPECT_EQ(bits(t.f(18, c)), bits(rndu[c])) << c;
    EXPECT_EQ(bits(t.f(19, c)), bits(rnde[c])) << c;
    EXPECT_EQ(bits(t.f(20, c)), bits(rndz[c])) << c;
    if (c != 5) {
      EXPECT_EQ(t.f(21, c), negabs[c]) << c;
    }
    EXPECT_EQ(t.d(22, c), to_d[c]) << c;
    EXPECT_EQ(t.ud(23, c), to_ud[c]) << c;
    EXPECT_EQ(t.f(24, c), r2[c] * 0.5F) << c;
    EXPECT_EQ(t.f(25, c), r2[c] + (c % 4 == 0 ? 3.0F : 0.0F)) << c;
    EXPECT_EQ(t.f(26, c), vf[c % 4]) << c;
    // lrp: src0 * src1 + (1 - src0) * src2.
    if (c != 5) {
      EXPECT_FLOAT_EQ(t.f(27, c), r4[c] * r2[c] + (1.0F - r4[c]) * r3[c]) << c;
    }
  }
  ASSERT_EQ(t.shared.messages.size(), 1U);
  EXPECT_TRUE(t.shared.messages[0].eot);
  EXPECT_EQ(t.shared.messages[0].sfid, 7);
  EXPECT_EQ(t.shared.messages[0].payload_reg, 127U);
  EXPECT_EQ(t.result.instructions, 19U);
}

TEST(EuExec, IntegerArithmetic) {
  Thread t;
  const std::vector<std::int32_t> a{5, -7, 0x7FFFFFF0, -0x7FFFFFF0, 100, -1, 0x12345678, 0};
  const std::vector<std::int32_t> b{3, 2, 0x20, -0x20, -100, -1, 0x0F0F0F0F, 7};
  const std::vector<std::uint32_t> n{1, 4, 31, 0, 33, 8, 16, 2};
  t.set<std::int32_t>(2, a);
  t.set<std::int32_t>(3, b);
  t.set<std::uint32_t>(4, n);
  t.run("alu_int");
  const auto u = [](std::int32_t v) { return static_cast<std::uint32_t>(v); };
  const auto s = [](std::uint32_t v) { return static_cast<std::int32_t>(v); };
  const std::array<std::int16_t, 8> v_imm{-4, -3, -2, -1, 4, 3, 2, 1};    // 0x1234FEDC:v, low nibble first
  const std::array<std::uint16_t, 8> uv_imm{12, 13, 14, 15, 4, 3, 2, 1};  // 0x1234FEDC:uv
  for (unsigned c = 0; c < 8; ++c) {
    const std::int64_t wide = std::int64_t{a[c]} + b[c];
    EXPECT_EQ(t.d(10, c), s(u(a[c]) + u(b[c]))) << c;  // wraps
    EXPECT_EQ(t.d(11, c), s(u(a[c]) * u(b[c]))) << c;  // low 32 bits
    EXPECT_EQ(t.d(12, c), static_cast<std::int32_t>(std::clamp<std::int64_t>(wide, INT32_MIN, INT32_MAX))) << c;
    EXPECT_EQ(t.d(13, c), a[c] & b[c]) << c;
    EXPECT_EQ(t.d(14, c), a[c] | ~b[c]) << c;  // ~ on a logic source is a bitwise not
    EXPECT_EQ(t.d(15, c), a[c] ^ 0xFF) << c;
    EXPECT_EQ(t.d(16, c), ~a[c]) << c;
    EXPECT_EQ(t.ud(17, c), u(a[c]) << (n[c] & 31)) << c;  // the count's low 5 bits: 33 shifts by 1
    EXPECT_EQ(t.ud(18, c), u(a[c]) >> (n[c] & 31)) << c;
    EXPECT_EQ(t.d(19, c), a[c] >> (n[c] & 31)) << c;
    EXPECT_EQ(t.d(20, c), static_cast<std::int32_t>((wide + 1) >> 1)) << c;
    EXPECT_EQ(t.d(21, c), std::min(a[c], b[c])) << c;
    EXPECT_EQ(t.get<std::uint8_t>(22, c), static_cast<std::uint8_t>(std::clamp(a[c], 0, 255))) << c;
    EXPECT_EQ(t.get<std::int16_t>(23, c), static_cast<std::int16_t>(u(a[c]) & 0xFFFF)) << c;
    EXPECT_EQ(t.f(24, c), static_cast<float>(a[c])) << c;  // round to nearest even: 0x7FFFFFF0 -> 2^31
    EXPECT_EQ(t.d(25, c), s(u(std::abs(b[c])) - u(a[c]))) << c;
    EXPECT_EQ(t.get<std::int16_t>(26, c), v_imm[c]) << c;
    EXPECT_EQ(t.get<std::uint16_t>(27, c), uv_imm[c]) << c;
    EXPECT_EQ(t.d(28, c), s(u(a[c]) + u(b[c]) * n[c])) << c;  // mad: src0 + src1 * src2
  }
  EXPECT_EQ(t.f(24, 2), 2147483648.0F);
}

TEST(EuExec, BitInstructionsCarryBorrowAndHighMultiply) {
  Thread t;
  const std::vector<std::uint32_t> v{0x00000001, 0x80000000, 0x0000FF00, 0xFFFFFFFF,
                                     0,          0x12345678, 0xF0000000, 0x00010000};
  const std::vector<std::uint32_t> width{4, 8, 0, 12, 32, 5, 16, 31};
  const std::vector<std::uint32_t> offset{0, 4, 8, 28, 3, 31, 8, 1};
  const std::vector<std::uint32_t> base(8, 0xAAAAAAAA);
  const std::vector<std::uint32_t> m{3, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 7, 0x10000, 0x12345678, 0xDEADBEEF};
  t.set<std::uint32_t>(2, v);
  t.set<std::uint32_t>(3, width);
  t.set<std::uint32_t>(4, offset);
  t.set<std::uint32_t>(5, base);
  t.set<std::uint32_t>(6, m);
  t.run("bits");
  // Hand-computed per lane.
  const std::array<std::uint32_t, 8> bfrev{0x80000000, 0x00000001, 0x00FF0000, 0xFFFFFFFF,
                                           0,          0x1E6A2C48, 0x0000000F, 0x00008000};
  const std::array<std::uint32_t, 8> cbit{1, 1, 8, 32, 0, 13, 4, 1};
  const std::array<std::uint32_t, 8> fbh_ud{31, 0, 16, 0, 0xFFFFFFFF, 3, 0, 15};
  const std::array<std::uint32_t, 8> fbh_d{31, 1, 16, 0xFFFFFFFF, 0xFFFFFFFF, 3, 4, 15};  // first bit != sign
  const std::array<std::uint32_t, 8> fbl{0, 31, 8, 0, 0xFFFFFFFF, 3, 28, 16};
  const std::array<std::uint32_t, 8> lzd{31, 0, 16, 0, 32, 3, 0, 15};
  // bfe width offset value: width 0 gives 0; width + offset >= 32 shifts right only.
  const std::array<std::uint32_t, 8> bfe_ud{0x1, 0x0, 0, 0xF, 0, 0x0, 0x0, 0x8000};
  const std::array<std::int32_t, 8> bfe_d{1, 0, 0, -1, 0, 0, 0, 0x8000};
  const std::array<std::uint32_t, 8> bfi1{0xF, 0xFF0, 0, 0xF0000000, 0, 0x80000000, 0xFFFF00, 0xFFFFFFFE};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.ud(10, c), bfrev[c]) << c;
    EXPECT_EQ(t.ud(11, c), cbit[c]) << c;
    EXPECT_EQ(t.ud(12, c), fbh_ud[c]) << c;
    EXPECT_EQ(t.ud(13, c), fbh_d[c]) << c;
    EXPECT_EQ(t.ud(14, c), fbl[c]) << c;
    EXPECT_EQ(t.ud(15, c), lzd[c]) << c;
    EXPECT_EQ(t.ud(16, c), bfe_ud[c]) << c;
    EXPECT_EQ(t.d(17, c), bfe_d[c]) << c;
    EXPECT_EQ(t.ud(18, c), bfi1[c]) << c;
    EXPECT_EQ(t.ud(19, c), (bfi1[c] & base[c]) | (~bfi1[c] & v[c])) << c;  // bfi2
    const std::uint64_t sum = std::uint64_t{v[c]} + width[c];
    EXPECT_EQ(t.ud(20, c), static_cast<std::uint32_t>(sum)) << c;
    EXPECT_EQ(t.ud(21, c), static_cast<std::uint32_t>(sum >> 32)) << c;  // addc's carry in acc0
    EXPECT_EQ(t.ud(22, c), width[c] - v[c]) << c;
    EXPECT_EQ(t.ud(23, c), width[c] < v[c] ? 1U : 0U) << c;  // subb's borrow in acc0
    const std::int64_t sproduct = std::int64_t{static_cast<std::int32_t>(v[c])} * static_cast<std::int32_t>(m[c]);
    EXPECT_EQ(t.d(24, c), static_cast<std::int32_t>(sproduct >> 32)) << c;
    EXPECT_EQ(t.ud(25, c), static_cast<std::uint32_t>((std::uint64_t{v[c]} * m[c]) >> 32)) << c;
  }
}

TEST(EuExec, RegionsIndirectAddressingAndTypes) {
  Thread t;
  t.set<float>(2, {0.5F, 1.5F, 2.5F, 3.5F, 4.5F, 5.5F, 6.5F, 7.5F});
  t.set<float>(3, {10, 11, 12, 13, 14, 15, 16, 17});
  t.set<float>(4, {1.0F, 0.1F, 65504.0F, 70000.0F, 1e-5F, -2.5F, 6.103515625e-05F, 3.14159F});
  t.set<std::int64_t>(5, {0x100000000LL, -1, INT64_MAX, 5});
  t.set<std::int64_t>(6, {0xFFFFFFFFLL, 1, 1, -10});
  t.set<double>(7, {1.5, -2.0, 1e300, 0.1});
  t.set<double>(8, {2.0, 0.25, 1e10, 3.0});
  std::vector<std::uint8_t> bytes(32);
  for (unsigned i = 0; i < 32; ++i) bytes[i] = static_cast<std::uint8_t>(i * 7 + 1);
  t.set<std::uint8_t>(9, bytes);
  t.run("regions");
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.f(10, c), 3.5F) << c;                          // <0;1,0>: r2.3 to every channel
    EXPECT_EQ(t.f(11, c), c < 4 ? 0.5F : 1.5F) << c;           // <1;4,0>: rows of one element repeated 4 times
    EXPECT_EQ(t.f(12, c), c % 2 == 0 ? 0.5F + c : 0.0F) << c;  // <8;4,2> into a <2> destination
  }
  // <32;8,4>:ub takes bytes 0, 4, ..., 28; then :b sign-extends to :d.
  const std::array<std::uint8_t, 8> every_fourth{1, 29, 57, 85, 113, 141, 169, 197};
  const std::array<std::int32_t, 8> as_signed{1, 29, 57, 85, 113, -115, -87, -59};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.get<std::uint8_t>(14, c), every_fourth[c]) << c;
    EXPECT_EQ(t.d(27, c), as_signed[c]) << c;
  }
  // Subregisters: r16.4..7 = r2.2..5 + r3.4..7; r16.0..3 untouched.
  const std::array<float, 8> r16{0, 0, 0, 0, 16.5F, 18.5F, 20.5F, 22.5F};
  // r[a0.0, 8] with a0.0 = 0x60 (r3.0): r3.2 .. r4.1, across the register boundary.
  const std::array<float, 8> r17{12, 13, 14, 15, 16, 17, 1.0F, 0.1F};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.f(16, c), r16[c]) << c;
    EXPECT_EQ(t.f(17, c), r17[c]) << c;
  }
  // VxH <1,0>: a0.0..3 = 0x40 (r2.0), 0x58 (r2.6), 0x64 (r3.1), 0x7C (r3.7), one per channel.
  EXPECT_EQ(t.f(18, 0), 0.5F);
  EXPECT_EQ(t.f(18, 1), 6.5F);
  EXPECT_EQ(t.f(18, 2), 11.0F);
  EXPECT_EQ(t.f(18, 3), 17.0F);
  // Indirect destination r[a0.4, 4] with a0.4 = 0x260: r19.1..4.
  EXPECT_EQ(t.f(19, 0), 0.0F);
  for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(t.f(19, c + 1), 0.5F + c) << c;
  EXPECT_EQ(t.f(19, 5), 0.0F);
  // :q wraps at 64 bits.
  EXPECT_EQ(t.get<std::int64_t>(20, 0), 0x1FFFFFFFFLL);
  EXPECT_EQ(t.get<std::int64_t>(20, 1), 0);
  EXPECT_EQ(t.get<std::int64_t>(20, 2), INT64_MIN);
  EXPECT_EQ(t.get<std::int64_t>(20, 3), -5);
  // :df arithmetic; 1e300 * 1e10 overflows to infinity.
  EXPECT_EQ(t.get<double>(21, 0), 3.0);
  EXPECT_EQ(t.get<double>(21, 1), -0.5);
  EXPECT_TRUE(std::isinf(t.get<double>(21, 2)));
  EXPECT_EQ(t.get<double>(21, 3), 0.1 * 3.0);
  // F -> HF (round to nearest even; 70000 overflows to infinity; 1e-5 is a half denormal, flushed because cr0 does
  // not preserve HF denormals) and back.
  const std::array<std::uint16_t, 8> halves{0x3C00, 0x2E66, 0x7BFF, 0x7C00, 0x0000, 0xC100, 0x0400, 0x4248};
  const std::array<float, 8> back{1.0F, 0.0999755859375F, 65504.0F, INFINITY, 0.0F, -2.5F, 6.103515625e-05F, 3.140625F};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.get<std::uint16_t>(23, c), halves[c]) << c;
    EXPECT_EQ(t.f(24, c), back[c]) << c;
  }
  // F -> DF exactly; DF -> F rounds (1e300 overflows to infinity).
  for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(t.get<double>(25, c), 0.5 + c) << c;
  EXPECT_EQ(t.f(26, 0), 1.5F);
  EXPECT_EQ(t.f(26, 1), -2.0F);
  EXPECT_TRUE(std::isinf(t.f(26, 2)));
  EXPECT_EQ(t.f(26, 3), 0.1F);
}

TEST(EuExec, DivergentControlFlowSimd16WithPartialDispatch) {
  Thread t;
  std::vector<std::int32_t> x(16);
  std::vector<std::int32_t> n(16);
  std::vector<std::int32_t> cont_mask(16);
  for (int c = 0; c < 16; ++c) {
    x[c] = c;
    n[c] = c % 6;
    cont_mask[c] = c % 2 == 1 ? 1 : 2;
  }
  t.set<std::int32_t>(2, x);
  t.set<std::int32_t>(4, n);
  t.set<std::int32_t>(6, cont_mask);
  for (unsigned reg = 10; reg < 28; ++reg) t.set<std::uint32_t>(reg, std::vector<std::uint32_t>(8, 0xDEAD));
  t.run("control_flow", 0x0FFF);  // channels 12..15 not dispatched (a partial SIMD16 thread)
  const auto lane = [&](unsigned reg, unsigned c) { return t.d(reg + c / 8, c % 8); };
  for (unsigned c = 0; c < 16; ++c) {
    if (c >= 12) {
      for (unsigned reg : {10U, 12U, 14U, 22U, 24U, 26U}) EXPECT_EQ(lane(reg, c), 0xDEAD) << reg << " " << c;
      continue;
    }
    EXPECT_EQ(lane(10, c), c < 8 ? 1 : 2) << c;                                        // if / else / endif
    EXPECT_EQ(lane(12, c), n[c]) << c;                                                 // while / break: the trip count
    EXPECT_EQ(lane(14, c), n[c] * (n[c] - 1) / 2) << c;                                // 0 + 1 + ... + (n - 1)
    EXPECT_EQ(lane(22, c), c % 2 == 1 ? 2 + 4 + 6 + 8 + 10 : 1 + 4 + 5 + 8 + 9) << c;  // cont
    EXPECT_EQ(lane(24, c), c < 4 ? 0xDEAD : 5) << c;                                   // goto / join
    EXPECT_EQ(lane(26, c), c == 3 ? 0xDEAD : 7) << c;                                  // halt
  }
  EXPECT_EQ(t.ud(28, 0), 0x0FFFU);  // ce after the final halt: every dispatched channel joined again
}

TEST(EuExec, ChannelsThatSkippedAThenBlockJoinAtItsEndifWhenTheBlockFallsThrough) {
  Thread t;
  t.set<std::int32_t>(2, {0, 5, 2, 7, 3, 9, 1, 4});
  t.run("endif_join");
  for (unsigned c = 0; c < 8; ++c) {
    const std::int32_t x = t.d(2, c);
    EXPECT_EQ(t.d(10, c), x < 4 ? 100 : 0) << c;
    EXPECT_EQ(t.d(11, c), 1) << c;  // every channel ran the code after the endif
  }
  EXPECT_EQ(t.d(12, 0), 1);  // once: the skipped channels did not run it again later
  EXPECT_EQ(t.state.active, 0xFFu);
}

// Forms IGC emits for 64-bit integers, doubles and switch-like control flow (each was wrong before the OpenCL corpus
// ran IGC's code: tests/eu/exec/igc_idioms.asm says what each line checks).
TEST(EuExec, IgcSixtyFourBitIntegerDoubleAndGotoIdioms) {
  Thread t;
  const std::vector<std::int64_t> q{0x0123456789ABCDEF, -5, -0x7000000000000000, 42};
  const std::vector<std::uint64_t> uq{0x8000000000000001ULL, 3, 0xFFFFFFFFFFFFFFFFULL, 41};
  const std::vector<std::int32_t> d{1, -2, 0x7FFFFFFF, std::numeric_limits<std::int32_t>::min()};
  float snan;
  const std::uint32_t snan_bits = 0x7FA00000U;  // a signalling NaN
  std::memcpy(&snan, &snan_bits, 4);
  const std::vector<float> f{snan, kNaN, -3.0F, 2.0F};
  t.set<std::int64_t>(2, q);
  t.set<std::uint64_t>(3, uq);
  t.set<std::int32_t>(4, d);
  t.set<float>(5, f);
  t.run("igc_idioms");
  std::uint16_t less = 0;
  for (unsigned c = 0; c < 4; ++c) {
    EXPECT_EQ(t.get<std::int64_t>(10, c),
              static_cast<std::int64_t>(static_cast<std::uint64_t>(std::int64_t{d[c]}) << 32))
        << c;
    EXPECT_EQ(t.get<std::uint64_t>(11, c), static_cast<std::uint64_t>(q[c]) & 0xFFFFFFFFE0000000ULL) << c;
    if (uq[c] < static_cast<std::uint64_t>(q[c])) less |= static_cast<std::uint16_t>(1U << c);
    EXPECT_EQ(t.get<double>(13, c), static_cast<double>(uq[c])) << c;
    // 2q wraps as the hardware's 64-bit add does (computed unsigned: no signed overflow in the reference).
    EXPECT_EQ(t.get<std::int64_t>(14, c),
              q[c] < 0 ? static_cast<std::int64_t>(static_cast<std::uint64_t>(q[c]) * 2) : 0)
        << c;
  }
  EXPECT_EQ(less, 0xA);  // 3 is below -5 seen unsigned, 41 below 42; 2^63 + 1 and all ones are below nothing here
  EXPECT_EQ(t.get<std::uint16_t>(12, 0), less);
  const std::array<float, 4> min{1.5F, 1.5F, -3.0F, 1.5F}, max{1.5F, 1.5F, 1.5F, 2.0F};
  for (unsigned c = 0; c < 4; ++c) {
    EXPECT_EQ(t.f(15, c), min[c]) << c;
    EXPECT_EQ(t.f(16, c), max[c]) << c;
  }
  for (unsigned c = 0; c < 8; ++c) {
    // r4 as :d over 8 channels: channels 4..7 read r4's upper half (zero: r4 holds four dwords).
    const std::int32_t x = c < 4 ? d[c] : 0;
    EXPECT_EQ(t.d(17, c), x > 0 ? 7 : 0) << c;  // the predicate-true channels stayed and ran the block
    EXPECT_EQ(t.d(18, c), 0) << c;              // the all-zero flag sent every channel past the block
  }
  EXPECT_EQ(t.state.active, 0xFFu);
}

TEST(EuExec, FlagsPredicationAndMasks) {
  Thread t;
  t.set<float>(2, {2.0F, 0.5F, 3.0F, 1.0F, kNaN, 5.0F, 0.0F, 1.5F});
  t.set<std::int32_t>(3, {-1, 0, 1, 5, -7, 0, 2, 3});
  t.run("predication");  // channels 0..7 dispatched
  // add (gt)f0.0: x - 1 > 0 -> channels 0, 2, 5, 7 (NaN compares false).
  EXPECT_EQ(t.get<std::uint16_t>(13, 0), 0xA5);
  const std::array<float, 8> r11{1, -1, 1, -1, -1, 1, -1, 1};
  const std::array<float, 8> r12{2.0F, 0, 3.0F, 0, 0, 5.0F, 0, 1.5F};  // (f0.0) sel: x where set, else 0
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.f(11, c), r11[c]) << c;
    EXPECT_EQ(t.f(12, c), r12[c]) << c;
    EXPECT_EQ(t.f(14, c), 1.0F) << c;  // any4h: both groups of four have a set bit
    EXPECT_EQ(t.f(15, c), 0.0F) << c;  // all4h: neither group is all set
    EXPECT_EQ(t.d(18, c), 0) << c;     // (8|M8): channels 8..15 are not dispatched
    EXPECT_EQ(t.d(20, c), c == 0 || c == 1 || c == 4 || c == 5 ? -1 : 0) << c;  // cmp writes all ones or zero
  }
  for (unsigned c = 0; c < 16; ++c) EXPECT_EQ(t.d(16 + c / 8, c % 8), 9) << c;  // (W): all 16 channels
  EXPECT_EQ(t.get<std::uint16_t>(19, 0), 0x10);                                 // (ne) x x: only the NaN channel
  EXPECT_EQ(t.get<std::uint16_t>(21, 0), 0x33);                                 // (le) 0
}

TEST(EuExec, Simd32HalvesUseTheirFlagBits) {
  Thread t;
  std::vector<float> x(32);
  for (unsigned c = 0; c < 32; ++c) x[c] = static_cast<float>(c);
  t.set<float>(2, x);
  t.run("simd32", 0xFFFFFFFF);
  for (unsigned c = 0; c < 16; ++c) {
    EXPECT_EQ(t.f(10 + c / 8, c % 8), c + 1.0F) << c;
    EXPECT_EQ(t.f(12 + c / 8, c % 8), c + 16 + 2.0F) << c;
  }
  // (16|M16) with f0.0 sets bits 16..31 (channels 16..19 are below 20).
  EXPECT_EQ(t.ud(14, 0), 0x000F00FFU);
  for (unsigned c = 0; c < 32; ++c) {
    EXPECT_EQ(t.get<std::int16_t>(16, c), c < 8 || (c >= 16 && c < 20) ? 1 : 0) << c;
  }
}

TEST(EuExec, MathFunctions) {
  Thread t;
  t.set<float>(2, {1.0F, 4.0F, 0.25F, 2.0F, 0.5F, 16.0F, -1.0F, 0.0F});
  t.set<float>(3, {2.0F, 0.5F, 3.0F, 10.0F, -1.0F, 0.25F, 2.0F, 1.0F});
  t.set<std::int32_t>(4, kDividends);
  t.set<std::int32_t>(5, kDivisors);
  t.run("math");
  constexpr float kInf = std::numeric_limits<float>::infinity();
  // Correctly rounded: inv, sqrt, rsq of exact squares, fdiv.
  const std::array<float, 8> inv{1.0F, 0.25F, 4.0F, 0.5F, 2.0F, 0.0625F, -1.0F, kInf};
  const std::array<float, 8> sqrt{1.0F, 2.0F, 0.5F, 1.41421356F, 0.707106781F, 4.0F, kNaN, 0.0F};
  const std::array<float, 8> rsq{1.0F, 0.5F, 2.0F, 0.707106781F, 1.41421356F, 0.25F, kNaN, kInf};
  const std::array<float, 8> fdiv{0.5F, 8.0F, 0.0833333358F, 0.2F, -0.5F, 64.0F, -0.5F, 0.0F};
  // Transcendentals: within a few ulps of the true values (the hardware documents larger bounds).
  const std::array<float, 8> log{0.0F, 2.0F, -2.0F, 1.0F, -1.0F, 4.0F, kNaN, -kInf};
  const std::array<float, 8> exp{2.0F, 16.0F, 1.18920712F, 4.0F, 1.41421356F, 65536.0F, 0.5F, 1.0F};
  const std::array<float, 8> sin{0.841470985F, -0.756802495F, 0.247403959F,  0.909297427F,
                                 0.479425539F, -0.287903317F, -0.841470985F, 0.0F};
  const std::array<float, 8> cos{0.540302306F, -0.653643621F, 0.968912422F, -0.416146837F,
                                 0.877582562F, -0.957659480F, 0.540302306F, 1.0F};
  const std::array<float, 8> pow{1.0F, 2.0F, 0.015625F, 1024.0F, 2.0F, 2.0F, 1.0F, 0.0F};
  const auto same = [](float got, float want) { return (std::isnan(got) && std::isnan(want)) || got == want; };
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_TRUE(same(t.f(10, c), inv[c])) << c << " inv " << t.f(10, c);
    EXPECT_TRUE(same(t.f(13, c), sqrt[c])) << c << " sqrt " << t.f(13, c);
    EXPECT_TRUE(same(t.f(14, c), rsq[c])) << c << " rsq " << t.f(14, c);
    EXPECT_TRUE(same(t.f(17, c), fdiv[c])) << c << " fdiv " << t.f(17, c);
    EXPECT_TRUE(same(t.f(11, c), log[c])) << c << " log " << t.f(11, c);
    if (std::isfinite(exp[c])) {
      EXPECT_FLOAT_EQ(t.f(12, c), exp[c]) << c;
    }
    EXPECT_FLOAT_EQ(t.f(15, c), sin[c]) << c;
    EXPECT_FLOAT_EQ(t.f(16, c), cos[c]) << c;
    if (c != 6) {  // a negative base is not a case the tests pin down
      EXPECT_FLOAT_EQ(t.f(18, c), pow[c]) << c;
    }
  }
  // Integer quotient and remainder (kQuotients says how they were computed).
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.d(19, c), kQuotients[c]) << c;
    EXPECT_EQ(t.d(20, c), kRemainders[c]) << c;
    EXPECT_EQ(t.ud(21, c), kUnsignedQuotients[c]) << c;
  }
}

std::uint64_t bits64(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// Equal bits, or both NaN (the payload of a produced NaN is not pinned down).
bool same_double(double got, double want) {
  return (std::isnan(got) && std::isnan(want)) || bits64(got) == bits64(want);
}

TEST(EuExec, IeeeMacroApproximationsAreCorrectlyRounded) {
  // 1/3 = 0x1.5555555555555p-2 (the ...5 tail rounds down); 1/sqrt(2) = 0x1.6a09e667f3bcdp-1, 1/sqrt(0.5) =
  // 0x1.6a09e667f3bcdp+0; exact cases stay exact.
  EXPECT_EQ(eu::correctly_rounded_reciprocal(3.0), 0x1.5555555555555p-2);
  EXPECT_EQ(eu::correctly_rounded_reciprocal(0.5), 2.0);
  EXPECT_EQ(eu::correctly_rounded_reciprocal_sqrt(2.0), 0x1.6a09e667f3bcdp-1);
  EXPECT_EQ(eu::correctly_rounded_reciprocal_sqrt(0.5), 0x1.6a09e667f3bcdp+0);
  EXPECT_EQ(eu::correctly_rounded_reciprocal_sqrt(16.0), 0.25);
  // 1 / RN(sqrt(0x1.fffffffffffffp-1)) is 1 + 2^-52, but 1/sqrt(1 - 2^-53) = 1 + 2^-54 + ... rounds to 1: the
  // approximation IGC's square-root sequence needs (with 1 + 2^-52 it ends one ulp high).
  EXPECT_EQ(eu::correctly_rounded_reciprocal_sqrt(0x1.fffffffffffffp-1), 1.0);
  // Under another host rounding mode the result is still the nearest.
  {
    eu::HostFloatMode up(eu::Rounding::kUp, false);
    EXPECT_EQ(eu::correctly_rounded_reciprocal(3.0), 0x1.5555555555555p-2);
    EXPECT_EQ(eu::correctly_rounded_reciprocal_sqrt(2.0), 0x1.6a09e667f3bcdp-1);
  }
  // Early exits: special operands and the ends of the exponent range give the result itself.
  EXPECT_FALSE(eu::divide_macro_start(1.0, 3.0).early_out);
  EXPECT_EQ(eu::divide_macro_start(1.0, -3.0).value, -0x1.5555555555555p-2);
  EXPECT_TRUE(eu::divide_macro_start(1.0, 0.0).early_out);
  EXPECT_EQ(eu::divide_macro_start(1.0, 0.0).value, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(eu::divide_macro_start(0x1p-950, 3.0).early_out);       // residuals would be denormal
  EXPECT_TRUE(eu::divide_macro_start(0x1p+1000, 0x1p-30).early_out);  // the quotient is near overflow
  EXPECT_EQ(eu::divide_macro_start(0x1p+1000, 0x1p-30).value, 0x1p+1023 * 0x1p+7);
  EXPECT_TRUE(eu::sqrt_macro_start(-4.0).early_out);
  EXPECT_TRUE(std::isnan(eu::sqrt_macro_start(-4.0).value));
  EXPECT_FALSE(eu::sqrt_macro_start(2.0).early_out);
}

TEST(EuExec, IeeeDivideAndSquareRootMacroSequences) {
  // IGC's Gen9 sequences (tests/eu/exec/ieee_macros.asm) over edge cases and random operands must give exactly the
  // host's IEEE a / b and sqrt(a), for every channel whether it exits early or runs the madm steps.
  constexpr double kMax = std::numeric_limits<double>::max();
  constexpr double kMinNormal = std::numeric_limits<double>::min();
  constexpr double kDenormal = std::numeric_limits<double>::denorm_min() * 12345;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> edges{1.0,
                                  3.0,
                                  -3.0,
                                  0.1,
                                  kMax,
                                  -kMax,
                                  kMinNormal,
                                  -kMinNormal,
                                  kDenormal,
                                  -kDenormal,
                                  0.0,
                                  -0.0,
                                  kInf,
                                  -kInf,
                                  nan,
                                  0x1p-900,
                                  0x1p-901,
                                  0x1p+900,
                                  0x1.fffffffffffffp-1,
                                  0x1.fffffffffffffp+0,
                                  1.5e308,
                                  0.7,
                                  0x1p-1022 * 3,
                                  1e-300};
  std::vector<std::pair<double, double>> pairs;
  for (double a : edges) {
    for (double b : edges) pairs.emplace_back(a, b);
  }
  // Quotients near overflow and underflow.
  pairs.emplace_back(1.5e308, 0.9);
  pairs.emplace_back(1e308, 0.6);
  pairs.emplace_back(0x1p+900, 0x1p-123);
  pairs.emplace_back(0x1p-900, 0x1p+123);
  pairs.emplace_back(1e-300, 1e10);
  std::mt19937_64 random(17);
  const auto with_exponent = [&](int low, int high) {
    const std::uint64_t exponent = static_cast<std::uint64_t>(1023 + low + static_cast<int>(random() % (high - low)));
    const std::uint64_t b = (random() & 0x800FFFFFFFFFFFFFULL) | exponent << 52;
    double d;
    std::memcpy(&d, &b, 8);
    return d;
  };
  for (int i = 0; i < 3000; ++i) {
    // Mostly moderate exponents, some over the whole range; every third mantissa ends in ones (hard cases).
    double a = i % 4 == 0 ? with_exponent(-1022, 1023) : with_exponent(-60, 60);
    double b = i % 4 == 1 ? with_exponent(-1022, 1023) : with_exponent(-60, 60);
    if (i % 3 == 0) a = std::nextafter(std::ldexp(1.0, static_cast<int>(random() % 200) - 100), 0.0);
    pairs.emplace_back(a, b);
  }
  Thread t;
  unsigned refined = 0;
  for (std::size_t first = 0; first < pairs.size(); first += 4) {
    std::vector<double> a(4, 1.0);
    std::vector<double> b(4, 1.0);
    for (std::size_t k = 0; k < 4 && first + k < pairs.size(); ++k) {
      a[k] = pairs[first + k].first;
      b[k] = pairs[first + k].second;
    }
    t.set<double>(2, a);
    t.set<double>(3, b);
    t.set<double>(4, a);
    t.run("ieee_macros");
    ASSERT_EQ(t.result.reason, eu::StopReason::kEndOfThread) << t.result.fault;
    for (unsigned c = 0; c < 4; ++c) {
      const double quotient = a[c] / b[c];
      const double root = std::sqrt(a[c]);
      EXPECT_TRUE(same_double(t.get<double>(10, c), quotient))
          << std::hexfloat << a[c] << " / " << b[c] << " gave " << t.get<double>(10, c) << ", not " << quotient;
      EXPECT_TRUE(same_double(t.get<double>(50, c), quotient))
          << std::hexfloat << a[c] << " / " << b[c] << " (if form)";
      EXPECT_TRUE(same_double(t.get<double>(20, c), root))
          << std::hexfloat << "sqrt " << a[c] << " gave " << t.get<double>(20, c) << ", not " << root;
      refined += (t.get<std::uint16_t>(30, 0) >> c & 1U) == 0 ? 1 : 0;
    }
  }
  EXPECT_GT(refined, 2000U) << "most random quotients go through the madm steps";
}

TEST(EuExec, IeeeMacroEarlyOutFlags) {
  // eo sets the flag of the channels whose result the macro instruction already wrote: 1 / 3 and sqrt(2) are refined
  // (flag clear), 1 / 0, inf / 2, sqrt(-1) and sqrt(0) exit early.
  Thread t;
  t.set<double>(2, {1.0, 1.0, std::numeric_limits<double>::infinity(), 6.0});
  t.set<double>(3, {3.0, 0.0, 2.0, -4.0});
  t.set<double>(4, {2.0, -1.0, 0.0, 6.25});
  t.run("ieee_macros");
  EXPECT_EQ(t.get<std::uint16_t>(30, 0), 0b0110);
  EXPECT_EQ(t.get<std::uint16_t>(30, 1), 0b0110);
  EXPECT_EQ(t.get<double>(10, 0), 1.0 / 3.0);
  EXPECT_EQ(t.get<double>(10, 1), std::numeric_limits<double>::infinity());
  EXPECT_EQ(t.get<double>(10, 3), -1.5);
  EXPECT_EQ(t.get<double>(20, 0), 0x1.6a09e667f3bcdp+0);
  EXPECT_TRUE(std::isnan(t.get<double>(20, 1)));
  EXPECT_EQ(t.get<double>(20, 3), 2.5);
}

TEST(EuExec, IntegerDivideWithQuotientAndRemainder) {
  Thread t;
  t.set<std::int32_t>(4, kDividends);
  t.set<std::int32_t>(5, kDivisors);
  t.run("int_divide");
  // Quotient to the destination, remainder to the next register (the values: kQuotients).
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.d(10, c), kQuotients[c]) << c;
    EXPECT_EQ(t.d(11, c), kRemainders[c]) << c;
    EXPECT_EQ(t.ud(12, c), kUnsignedQuotients[c]) << c;
    EXPECT_EQ(t.ud(13, c), kUnsignedRemainders[c]) << c;
  }
  // SIMD4 into r14.4: the remainder in r15.4 onward.
  for (unsigned c = 0; c < 4; ++c) {
    EXPECT_EQ(t.d(14, 4 + c), kQuotients[c]) << c;
    EXPECT_EQ(t.d(15, 4 + c), kRemainders[c]) << c;
  }
}

TEST(EuExec, DenormalAndRoundingModesOfCr0) {
  Thread t;
  t.set<float>(2, {1e-39F, -1e-39F, 1e-38F, 2e-38F, 0.0F, 1e-45F, 1.0F, 5e-39F});
  t.set<float>(3, {0.0F, 0.0F, 0.0F, -1e-38F, 1e-39F, 0.0F, 0.0F, 5e-39F});
  const float q = 0x1p-25F;
  t.set<float>(4, std::vector<float>(8, 1.0F));
  t.set<float>(5, {q, 3 * q, -q, -3 * q, 2 * q, 0.0F, 1.0F, -2.0F});
  t.set<std::int32_t>(6, {16777217, -16777217, 0x7FFFFFFF, 33554435, 0, -1, 3, 16777219});
  const float h = 0x1p-10F;
  t.set<float>(7,
               {1.0F + 0.75F * h, 70000.0F, 0.1F, -1.0F - 0.75F * h, 1.0F + 0.25F * h, 65519.0F, 65520.0F, -70000.0F});
  t.run("float_modes");
  // cr0 = 0 (reset): single-precision denormal inputs and results are flushed to zero.
  const std::array<float, 8> flushed{0.0F, 0.0F, 0.0F, 2e-38F, 0.0F, 0.0F, 1.0F, 0.0F};
  for (unsigned c = 0; c < 8; ++c) EXPECT_EQ(t.f(10, c), flushed[c]) << c;
  // cr0 |= 0x4C0 (what IGC's kernels start with): denormals preserved.
  const std::array<float, 8> a{1e-39F, -1e-39F, 1e-38F, 2e-38F, 0.0F, 1e-45F, 1.0F, 5e-39F};
  const std::array<float, 8> b{0.0F, 0.0F, 0.0F, -1e-38F, 1e-39F, 0.0F, 0.0F, 5e-39F};
  for (unsigned c = 0; c < 8; ++c) EXPECT_EQ(t.f(11, c), a[c] + b[c]) << c;
  EXPECT_NE(t.f(11, 0), 0.0F);
  const float up = 1.0F + 0x1p-23F;
  const float below = 1.0F - 0x1p-24F;
  const float below2 = 1.0F - 0x1p-23F;
  const std::array<float, 8> nearest{1.0F, up, 1.0F, below2, 1.0F, 1.0F, 2.0F, -1.0F};
  const std::array<float, 8> toward_zero{1.0F, 1.0F, below, below2, 1.0F, 1.0F, 2.0F, -1.0F};
  const std::array<float, 8> toward_plus{up, up, 1.0F, below, up, 1.0F, 2.0F, -1.0F};
  const std::array<float, 8> int_nearest{16777216.0F, -16777216.0F, 2147483648.0F, 33554436.0F, 0, -1, 3, 16777220.0F};
  const std::array<float, 8> int_zero{16777216.0F, -16777216.0F, 2147483520.0F, 33554432.0F, 0, -1, 3, 16777218.0F};
  const std::array<std::uint16_t, 8> half_nearest{0x3C01, 0x7C00, 0x2E66, 0xBC01, 0x3C00, 0x7BFF, 0x7C00, 0xFC00};
  const std::array<std::uint16_t, 8> half_zero{0x3C00, 0x7BFF, 0x2E66, 0xBC00, 0x3C00, 0x7BFF, 0x7BFF, 0xFBFF};
  const std::array<std::uint16_t, 8> half_plus{0x3C01, 0x7C00, 0x2E67, 0xBC00, 0x3C01, 0x7C00, 0x7C00, 0xFBFF};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.f(12, c), nearest[c]) << c;
    EXPECT_EQ(t.f(13, c), int_nearest[c]) << c;
    EXPECT_EQ(t.get<std::uint16_t>(14, c), half_nearest[c]) << c;
    EXPECT_EQ(t.f(15, c), toward_zero[c]) << c;  // cr0 rounding 3
    EXPECT_EQ(t.f(16, c), int_zero[c]) << c;
    EXPECT_EQ(t.get<std::uint16_t>(17, c), half_zero[c]) << c;
    EXPECT_EQ(t.f(18, c), toward_plus[c]) << c;  // cr0 rounding 1
    EXPECT_EQ(t.get<std::uint16_t>(19, c), half_plus[c]) << c;
  }
  EXPECT_EQ(t.ud(20, 0), 0x4D0U);
  // The host's own rounding mode is back to normal after the run.
  volatile float one = 1.0F;
  volatile float tiny = q;
  EXPECT_EQ(one + tiny, 1.0F);
}

TEST(EuExec, SendHandsMessagesToSharedFunctions) {
  Thread t;
  t.state.flags[0] = 0x0F;  // the send is predicated on f0.0: channels 0..3
  t.run("send");
  ASSERT_EQ(t.shared.messages.size(), 2U);
  const eu::Message& m = t.shared.messages[0];
  EXPECT_EQ(m.pc, 32U);
  EXPECT_EQ(m.sfid, 12);
  EXPECT_EQ(m.desc, 0x04281234U);
  EXPECT_EQ(m.message_length(), 2U);
  EXPECT_EQ(m.response_length(), 2U);
  EXPECT_TRUE(m.header_present());
  EXPECT_EQ(m.payload_reg, 30U);
  EXPECT_FALSE(m.dst_null);
  EXPECT_EQ(m.dst_reg, 40U);
  EXPECT_EQ(m.exec_size, 8U);
  EXPECT_EQ(m.channel_mask, 0x0FU);
  EXPECT_FALSE(m.eot);
  EXPECT_FALSE(m.split);
  EXPECT_EQ(t.ud(30, 7), 0x11U);
  // The response registers as the shared function wrote them, read by the next instruction.
  for (unsigned k = 0; k < 8; ++k) EXPECT_EQ(t.ud(50, k), (0x100U + k) + (0x108U + k)) << k;
  EXPECT_TRUE(t.shared.messages[1].eot);
  EXPECT_TRUE(t.shared.messages[1].dst_null);
}

TEST(EuExec, SuspendedThreadResumesAfterTheSend) {
  Thread t;
  t.shared.suspend = true;
  t.state.flags[0] = 0xFF;
  t.run("send", 0xFF, false);
  EXPECT_EQ(t.result.reason, eu::StopReason::kSuspended);
  EXPECT_EQ(t.result.instructions, 3U);
  EXPECT_EQ(t.state.ip, 48U);  // the add after the send
  eu::BufferInstructionMemory memory(kKernelBase, kernel_bytes("send"));
  eu::Program program(memory, kKernelBase, eu::Generation::kGen9);
  eu::Executor executor(program, t.shared);
  const eu::RunResult r = executor.run(t.state, 100);
  EXPECT_EQ(r.reason, eu::StopReason::kEndOfThread);
  EXPECT_EQ(r.instructions, 2U);
  EXPECT_EQ(t.ud(50, 0), 0x208U);
  EXPECT_TRUE(t.state.ended);
  EXPECT_EQ(executor.run(t.state, 100).reason, eu::StopReason::kEndOfThread);  // an ended thread stays ended
}

TEST(EuExec, UnmodelledInstructionIsAModelledFault) {
  Thread t;
  t.set<std::uint32_t>(2, {0});
  t.run("faults", 0xFF, false);
  EXPECT_EQ(t.result.reason, eu::StopReason::kFault);
  EXPECT_EQ(t.result.fault_pc, 0x20U);
  EXPECT_EQ(t.result.fault,
            "EU fault at 0x10020 (kernel offset 0x20): dp4 is not modelled (a graphics/media instruction OpenCL "
            "kernels do not use) (dp4 (8|M0) r10.0<1>:f r3.0<8;8,1>:f r4.0<8;8,1>:f)");
}

TEST(EuExec, RegionOutsideTheRegisterFileFaults) {
  Thread t;
  t.set<std::uint32_t>(2, {1});
  t.run("faults", 0xFF, false);
  EXPECT_EQ(t.result.reason, eu::StopReason::kFault);
  EXPECT_NE(t.result.fault.find("source region runs outside the register file (byte 4096)"), std::string::npos)
      << t.result.fault;
  EXPECT_EQ(t.f(10, 0), 0.0F);  // nothing written
}

TEST(EuExec, BudgetStopsAnEndlessLoopAndRunContinues) {
  Thread t;
  t.set<std::uint32_t>(2, {2});
  t.run("faults", 0xFF, false);
  // 100,000 instructions: cmp/if/endif twice (the skipped blocks never run), then add/while pairs.
  EXPECT_EQ(t.result.reason, eu::StopReason::kBudget);
  EXPECT_EQ(t.result.instructions, 100000U);
  const std::uint32_t count = t.ud(11, 0);
  EXPECT_EQ(count, (100000U - 6U) / 2U);
  eu::BufferInstructionMemory memory(kKernelBase, kernel_bytes("faults"));
  eu::Program program(memory, kKernelBase, eu::Generation::kGen9);
  eu::Executor executor(program, t.shared);
  EXPECT_EQ(executor.run(t.state, 10).reason, eu::StopReason::kBudget);
  EXPECT_EQ(t.ud(11, 0), count + 5);
}

TEST(EuExec, DecodeAndFetchErrorsFaultWithTheirAddress) {
  // Opcode 127 is not a Gen9 opcode.
  std::vector<std::uint8_t> bytes(16, 0);
  bytes[0] = 0x7F;
  eu::BufferInstructionMemory bad(kKernelBase, bytes);
  eu::Program program(bad, kKernelBase, eu::Generation::kGen9);
  Recorder shared;
  eu::Executor executor(program, shared);
  eu::ThreadState state;
  state.reset_control_flow(0, 0xFF);
  eu::RunResult r = executor.run(state, 10);
  EXPECT_EQ(r.reason, eu::StopReason::kFault);
  EXPECT_EQ(r.fault, "EU fault at 0x10000 (kernel offset 0x0): decode error at 0x0: unknown opcode 127");
  // A kernel without EOT runs off the end of instruction memory.
  std::vector<std::uint8_t> kernel = kernel_bytes("alu_float");
  kernel.resize(16);  // only its first instruction
  eu::BufferInstructionMemory short_memory(kKernelBase, kernel);
  eu::Program short_program(short_memory, kKernelBase, eu::Generation::kGen9);
  eu::Executor short_executor(short_program, shared);
  state.reset_control_flow(0, 0xFF);
  r = short_executor.run(state, 10);
  EXPECT_EQ(r.reason, eu::StopReason::kFault);
  EXPECT_EQ(r.instructions, 2U);
  EXPECT_EQ(r.fault, "EU fault at 0x10010 (kernel offset 0x10): instruction fetch fault at 0x00010010");
}

namespace {
class MutableMemory : public eu::InstructionMemory {
 public:
  bool read(std::uint64_t address, std::uint8_t* out, std::size_t n) override {
    ++reads;
    if (address < kKernelBase || address + n > kKernelBase + bytes.size()) return false;
    std::memcpy(out, bytes.data() + (address - kKernelBase), n);
    return true;
  }
  std::vector<std::uint8_t> bytes;
  unsigned reads = 0;
};
}  // namespace

TEST(EuExec, DecodeCacheDecodesOncePerKernelUntilInvalidated) {
  MutableMemory memory;
  memory.bytes = kernel_bytes("send");
  eu::DecodeCache cache(memory);
  Recorder shared;
  auto run_once = [&](std::uint32_t expected_sum) {
    auto program = cache.program(kKernelBase, eu::Generation::kGen9);
    eu::Executor executor(*program, shared);
    eu::ThreadState state;
    state.flags[0] = 0xFF;
    state.reset_control_flow(0, 0xFF);
    EXPECT_EQ(executor.run(state, 100).reason, eu::StopReason::kEndOfThread);
    EXPECT_EQ(state.grf_read<std::uint32_t>(50 * 32), expected_sum);
    return program;
  };
  const auto first = run_once(0x208);
  EXPECT_EQ(first->decoded_instructions(), 5U);
  const unsigned reads = memory.reads;
  EXPECT_EQ(run_once(0x208), first);  // the same pre-decoded program: no fetch, no decode
  EXPECT_EQ(memory.reads, reads);
  EXPECT_EQ(cache.hits(), 1U);
  EXPECT_EQ(cache.misses(), 1U);
  // Software rewrites the kernel (the add becomes a subtract: opcode 64 -> 0x40 | ... use xor) and invalidates the
  // instruction cache, as PIPE_CONTROL with Instruction Cache Invalidate does: the new code runs.
  ASSERT_EQ(memory.bytes[48], 0x40);  // add
  memory.bytes[48] = 0x07;            // xor
  EXPECT_EQ(run_once(0x208), first);  // not invalidated yet: still the decoded add (a stale cache, as hardware's)
  cache.invalidate();
  run_once(0x100 ^ 0x108);
  EXPECT_EQ(cache.invalidations(), 1U);
  EXPECT_EQ(cache.misses(), 2U);
}

TEST(EuExec, ChannelsOutsideANarrowBranchFollowTheThread) {
  Thread t;
  t.run("uniform_loop");
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.d(10, c), 5) << c;  // every channel went round the (1|M0) loop five times
    // (1|M0) if with channel 0's predicate false: the thread jumps and takes channels 1..7 along.
    EXPECT_EQ(t.d(12, c), 0) << c;
  }
  EXPECT_EQ(t.d(11, 0), 5);
}

// Regions starting inside a register, through the fast forms: exact results (each lane computed here).
TEST(EuExec, RegionsStartingInsideARegisterComputeEveryLane) {
  Thread t;
  // r2..r4 as one array of 24 dwords: a region starting at r2.1 runs on into r3.
  std::vector<std::uint32_t> in(24);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = 1000 + 7 * i;
  t.set<std::uint32_t>(2, in);
  t.run("unaligned");
  for (unsigned i = 0; i < 8; ++i) {
    // Destinations from r10.1, r12.3 and r14.2 (index 8 and up: the next register).
    EXPECT_EQ(t.ud(10, 1 + i), in[i] + in[8 + i]) << i;
    EXPECT_EQ(t.ud(12, 3 + i), in[1 + i]) << i;
    EXPECT_EQ(t.ud(14, 2 + i), in[3 + i] * in[9 + i]) << i;  // the low 32 bits
  }
  EXPECT_EQ(t.ud(10, 0), 0u);  // untouched around the regions
  EXPECT_EQ(t.ud(12, 2), 0u);
  EXPECT_EQ(t.ud(14, 10), 0u);
}

TEST(EuExec, FastFormsAgreeWithTheGenericInterpreter) {
  // Every kernel of the suite with inputs that mix ordinary values, denormals and NaNs, run with the fast forms and
  // with the generic interpreter only: the whole GRF, flags and accumulators must agree bit for bit.
  const std::vector<std::string> kernels{"alu_float",   "alu_int",     "bits",  "regions",   "control_flow",
                                         "predication", "float_modes", "math",  "simd32",    "uniform_loop",
                                         "ieee_macros", "int_divide",  "calls", "unaligned", "half_double"};
  eu::BufferInstructionMemory probe(kKernelBase, kernel_bytes("alu_float"));
  eu::Program planned(probe, kKernelBase, eu::Generation::kGen9);
  EXPECT_NE(planned.at(0).fast.fn, nullptr) << "add (8) :f has a fast form";
  // Every HF and DF instruction of half_double has one (16 bytes each, the cr0 writes at 160 and 240 apart).
  eu::BufferInstructionMemory probe_hd(kKernelBase, kernel_bytes("half_double"));
  eu::Program planned_hd(probe_hd, kKernelBase, eu::Generation::kGen9);
  for (std::uint32_t pc = 0; pc < 320; pc += 16) {
    if (pc == 160 || pc == 240) continue;
    EXPECT_NE(planned_hd.at(pc).fast.fn, nullptr) << "half_double at " << pc;
  }
  for (const std::string& name : kernels) {
    std::array<eu::ThreadState, 2> states;
    for (int generic = 0; generic < 2; ++generic) {
      eu::set_fast_paths_enabled(generic == 0);
      eu::ThreadState& s = states[generic];
      for (unsigned i = 0; i < eu::ThreadState::kGrfBytes / 4; ++i) {
        // Mostly ordinary floats, with denormals and NaNs sprinkled in.
        const std::uint32_t k = i * 2654435761U;
        const std::uint32_t word = i % 13 == 5 ? 0x00012345U : i % 17 == 3 ? 0x7FC00001U : 0x3F000000U + (k >> 9);
        s.grf_write<std::uint32_t>(4 * i, word);
      }
      // Inputs r2..r7 small integers (loop counts of the control-flow kernels; denormals as floats).
      for (unsigned i = 0; i < 48; ++i) s.grf_write<std::uint32_t>(2 * 32 + 4 * i, i % 7);
      eu::BufferInstructionMemory memory(kKernelBase, kernel_bytes(name));
      eu::Program program(memory, kKernelBase, eu::Generation::kGen9);
      Recorder shared;
      eu::Executor executor(program, shared);
      s.reset_control_flow(0, name == "simd32" || name == "half_double" ? 0xFFFFFFFF
                              : name == "control_flow"                  ? 0xFFFF
                                                                        : 0xFF);
      const eu::RunResult r = executor.run(s, 100000);
      EXPECT_EQ(r.reason, eu::StopReason::kEndOfThread) << name << ": " << r.fault;
      // Every HF and DF instruction of half_double ran in its fast form, in each of its cr0 modes.
      if (name == "half_double") {
        EXPECT_EQ(r.fast_instructions, generic == 0 ? 18u : 0u);
      }
    }
    eu::set_fast_paths_enabled(true);
    EXPECT_EQ(states[0].grf, states[1].grf) << name;
    EXPECT_EQ(states[0].flags, states[1].flags) << name;
    EXPECT_EQ(states[0].acc, states[1].acc) << name;
  }
}

// Where several sources are NaNs, the result is the first of them (src0, src1, src2) quieted, in the fast forms and
// in the generic interpreter alike (the host returns whichever its instruction names first). Every HF and DF source
// of half_double a NaN with a payload of its register and element.
TEST(EuExec, TheFirstNanSourceIsTheResultInBothForms) {
  std::array<eu::ThreadState, 2> states;
  for (int generic = 0; generic < 2; ++generic) {
    eu::set_fast_paths_enabled(generic == 0);
    eu::ThreadState& s = states[generic];
    for (unsigned reg = 2; reg < 10; ++reg) {
      for (unsigned e = 0; e < 16; ++e) s.grf_write<std::uint16_t>(reg * 32 + 2 * e, 0x7C01U | reg << 4 | e);
    }
    for (unsigned reg = 40; reg < 56; ++reg) {
      for (unsigned e = 0; e < 4; ++e)
        s.grf_write<std::uint64_t>(reg * 32 + 8 * e, 0x7FF0000000000001ULL | reg << 8 | e);
    }
    eu::BufferInstructionMemory memory(kKernelBase, kernel_bytes("half_double"));
    eu::Program program(memory, kKernelBase, eu::Generation::kGen9);
    Recorder shared;
    eu::Executor executor(program, shared);
    s.reset_control_flow(0, 0xFFFFFFFF);
    EXPECT_EQ(executor.run(s, 1000).reason, eu::StopReason::kEndOfThread);
  }
  eu::set_fast_paths_enabled(true);
  EXPECT_EQ(states[0].grf, states[1].grf);
  // By hand: add r10 = r2 + r3 gives r2's NaN, quieted (bit 9); mul r11 = r4 * r5 r4's; the DF add r20 = r40 + r42
  // r40's (bit 51).
  EXPECT_EQ(states[0].grf_read<std::uint16_t>(10 * 32 + 2 * 5), 0x7E01U | 2U << 4 | 5U);
  EXPECT_EQ(states[0].grf_read<std::uint16_t>(11 * 32 + 2 * 7), 0x7E01U | 4U << 4 | 7U);
  EXPECT_EQ(states[0].grf_read<std::uint64_t>(20 * 32 + 8 * 3), 0x7FF8000000000001ULL | 40U << 8 | 3U);
}

TEST(EuExec, CompactedKernelsRunAsTheirNativeForms) {
  // The same kernels assembled with iga64 -Xautocompact: 8-byte instructions where a compacted form exists (branch
  // offsets change accordingly); the final state must equal the native kernel's.
  const std::vector<std::string> kernels{"alu_float",    "alu_int",     "bits",        "regions",
                                         "control_flow", "predication", "float_modes", "math",
                                         "uniform_loop", "ieee_macros", "int_divide"};
  unsigned compacted_total = 0;
  for (const std::string& name : kernels) {
    std::array<eu::ThreadState, 2> states;
    for (int compacted = 0; compacted < 2; ++compacted) {
      eu::ThreadState& s = states[compacted];
      for (unsigned i = 0; i < eu::ThreadState::kGrfBytes / 4; ++i) {
        s.grf_write<std::uint32_t>(4 * i, 0x3F000000U + ((i * 2654435761U) >> 9));
      }
      // Inputs r2..r7 small integers (loop counts and selectors of the control-flow kernels).
      for (unsigned i = 0; i < 48; ++i) s.grf_write<std::uint32_t>(2 * 32 + 4 * i, i % 7);
      const std::vector<std::uint8_t> bytes = kernel_bytes(compacted != 0 ? name + "_compacted" : name);
      eu::BufferInstructionMemory memory(kKernelBase, bytes);
      eu::Program program(memory, kKernelBase, eu::Generation::kGen9);
      Recorder shared;
      eu::Executor executor(program, shared);
      s.reset_control_flow(0, name == "control_flow" ? 0xFFFF : 0xFF);
      const eu::RunResult r = executor.run(s, 100000);
      EXPECT_EQ(r.reason, eu::StopReason::kEndOfThread) << name << (compacted != 0 ? " compacted: " : ": ") << r.fault;
      if (compacted != 0) {
        for (std::uint32_t pc = 0; pc < bytes.size(); pc += program.at(pc).length) {
          if (program.at(pc).length == 8) ++compacted_total;
          if (!program.at(pc).ok()) break;
        }
      }
    }
    EXPECT_EQ(states[0].grf, states[1].grf) << name;
    EXPECT_EQ(states[0].flags, states[1].flags) << name;
  }
  EXPECT_GT(compacted_total, 20U) << "the compacted kernels do contain compacted instructions";
}

TEST(EuExec, AccumulatorCselDoublesAndSaturatingConversions) {
  Thread t;
  t.set<float>(2, {1.5F, -2.0F, 300.0F, 0.5F, -0.25F, 255.5F, kNaN, 2.0F});
  t.set<float>(3, {2.0F, 3.0F, -1.0F, 0.0F, 4.0F, -5.0F, 1.0F, -0.5F});
  t.set<double>(4, {0.25, 0.75, -1.0, 2.0});
  t.set<double>(5, {0.5, 0.5, 0.5, -3.0});
  t.set<std::int32_t>(6, {-3, 0, 1, 5, -3, 2, 7, -100});
  t.state.flags[0] = 0x12345678;
  t.run("misc");
  // mac: acc0 (= r2) + r2 * r3.
  const std::array<float, 8> mac{4.5F, -8.0F, 0.0F, 0.5F, -1.25F, -1022.0F, kNaN, 1.0F};
  // csel (lt): src2 < 0 ? src0 : src1.
  const std::array<float, 8> csel{2.0F, 3.0F, 300.0F, 0.0F, 4.0F, 255.5F, 1.0F, 2.0F};
  // mov (sat) :ub from :f: toward zero, clamped, NaN 0; (sat) :f from :d: clamped to [0, 1].
  const std::array<std::uint8_t, 8> ub{1, 0, 255, 0, 0, 255, 0, 2};
  const std::array<float, 8> sat_f{0, 0, 1, 1, 0, 1, 1, 0};
  for (unsigned c = 0; c < 8; ++c) {
    if (c != 6) {
      EXPECT_EQ(t.f(10, c), mac[c]) << c;
    }
    EXPECT_EQ(t.f(11, c), csel[c]) << c;
    EXPECT_EQ(t.get<std::uint8_t>(18, c), ub[c]) << c;
    EXPECT_EQ(t.f(19, c), sat_f[c]) << c;
  }
  EXPECT_TRUE(std::isnan(t.f(10, 6)));
  EXPECT_EQ(t.state.flags[0], 0x12345678U);  // csel and sel do not write their flag
  const std::array<double, 4> add_sat{0.75, 1.0, 0.0, 0.0};
  const std::array<double, 4> mad{0.5, 1.0, -0.75, 11.0};  // r4 + r5 * r5
  const std::array<double, 4> max{0.5, 0.75, 0.5, 2.0};
  for (unsigned c = 0; c < 4; ++c) {
    EXPECT_EQ(t.get<double>(12, c), add_sat[c]) << c;
    EXPECT_EQ(t.get<double>(14, c), mad[c]) << c;
    EXPECT_EQ(t.get<double>(16, c), max[c]) << c;
  }
  // Condition modifiers on the result: r6 + 3 == 0 in channels 0 and 4; r6 (as :w) < 0 in 0, 4 and 7.
  EXPECT_EQ(t.get<std::uint16_t>(21, 0), 0x11);
  EXPECT_EQ(t.get<std::uint16_t>(23, 0), 0x91);
  EXPECT_EQ(t.get<std::int16_t>(22, 7), -100);
}

TEST(EuExec, JmpiCallRetWaitAndRegisterDescriptors) {
  Thread t;
  t.set<std::uint32_t>(30, {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11});
  t.run("flow", 0xFF, false);
  // wait n0.0 with a zero notification count: the thread waits at the wait (offset 0x50), after the call returned.
  EXPECT_EQ(t.result.reason, eu::StopReason::kSuspended);
  EXPECT_EQ(t.state.ip, 0x50U);
  EXPECT_EQ(t.d(10, 0), 1);       // the jmpi skipped the second mov
  EXPECT_EQ(t.d(12, 0), 4);       // the subroutine ran
  EXPECT_EQ(t.d(11, 0), 3);       // and returned after the call
  EXPECT_EQ(t.ud(20, 0), 0x40U);  // call's dst.0: the return address; dst.1: the calling channels
  EXPECT_EQ(t.ud(20, 1), 0xFFU);
  // The gateway's notification arrives: the wait takes it and the thread goes on to EOT.
  t.state.n0[0] = 1;
  eu::BufferInstructionMemory memory(kKernelBase, kernel_bytes("flow"));
  eu::Program program(memory, kKernelBase, eu::Generation::kGen9);
  eu::Executor executor(program, t.shared);
  EXPECT_EQ(executor.run(t.state, 100).reason, eu::StopReason::kEndOfThread);
  EXPECT_EQ(t.state.n0[0], 0U);
  ASSERT_EQ(t.shared.messages.size(), 3U);
  // send with its descriptor in a0.0; sends with the extended descriptor (and so the SFID) in a0.1.
  EXPECT_EQ(t.shared.messages[0].desc, 0x04281234U);
  EXPECT_EQ(t.shared.messages[0].sfid, 12);
  EXPECT_FALSE(t.shared.messages[0].split);
  EXPECT_EQ(t.shared.messages[1].desc, 0x04281234U);
  EXPECT_EQ(t.shared.messages[1].ex_desc, 0x4CU);
  EXPECT_EQ(t.shared.messages[1].sfid, 12);
  EXPECT_TRUE(t.shared.messages[1].split);
  EXPECT_EQ(t.shared.messages[1].payload_reg, 30U);
  EXPECT_EQ(t.shared.messages[1].payload1_reg, 31U);
  EXPECT_EQ(t.shared.messages[1].dst_reg, 42U);
  EXPECT_EQ(t.ud(43, 7), 0x100U + 15);  // the response's second register
}

TEST(EuExec, DivergentCallsWaitForEveryCallingChannelToReturn) {
  Thread t;
  t.set<std::int32_t>(2, {0, 1, 2, 3, 0, 1, 2, -1});
  t.run("calls");
  // Channels 1, 2, 3, 5, 6 (r2 > 0) call SUB and add 1; 2, 3, 6 (r2 > 1) return early, 1 and 5 add 10 first; then
  // all eight channels, together once, add 100.
  const std::array<std::int32_t, 8> r10{100, 111, 101, 101, 100, 111, 101, 100};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.d(10, c), r10[c]) << c;
    EXPECT_EQ(t.d(11, c), 7) << c;  // the register-target call (0x50 + 0x80 = SUB2) by every channel
    // calla 0xF0 (SUB3) by the r2 > 0 channels only.
    EXPECT_EQ(t.d(12, c), c == 1 || c == 2 || c == 3 || c == 5 || c == 6 ? 5 : 0) << c;
  }
  EXPECT_EQ(t.ud(20, 0), 0x30U);  // return address: after the call at 0x20
  EXPECT_EQ(t.ud(20, 1), 0x6EU);  // the calling channels
  EXPECT_EQ(t.ud(24, 0), 0x60U);
  EXPECT_EQ(t.ud(24, 1), 0xFFU);
  EXPECT_EQ(t.ud(26, 0), 0x70U);
  EXPECT_EQ(t.ud(26, 1), 0x6EU);
  EXPECT_EQ(t.state.call_depth, 0U);
  EXPECT_EQ(t.state.scope, 0xFFU);
  EXPECT_EQ(t.state.active, 0xFFU);

  // A partial dispatch (channels 0-5): channel 6 neither calls nor runs; no calling channel: no call.
  Thread partial;
  partial.set<std::int32_t>(2, {0, 1, 2, 3, 0, 1, 2, -1});
  partial.run("calls", 0x3F);
  EXPECT_EQ(partial.d(10, 5), 111);
  EXPECT_EQ(partial.d(10, 6), 0);
  Thread none;
  none.set<std::int32_t>(2, {0, 0, 0, 0, -1, -1, -1, -1});
  none.run("calls");
  for (unsigned c = 0; c < 8; ++c) EXPECT_EQ(none.d(10, c), 100) << c;
  EXPECT_EQ(none.ud(20, 0), 0U);  // a call no channel takes writes nothing
  EXPECT_EQ(none.d(12, 0), 0);
}

TEST(EuExec, CallaCountsFromTheInstructionBase) {
  // With the instruction base 0x10 after the kernel's address, calla 0xF0 lands at kernel offset 0x100: SUB3's ret,
  // so r12 stays unwritten while the return address is still recorded.
  Thread t;
  t.set<std::int32_t>(2, std::vector<std::int32_t>(8, 1));
  eu::BufferInstructionMemory memory(kKernelBase, kernel_bytes("calls"));
  eu::Program program(memory, kKernelBase, eu::Generation::kGen9);
  program.set_instruction_base(kKernelBase + 0x10);
  eu::Executor executor(program, t.shared);
  t.state.reset_control_flow(0, 0xFF);
  EXPECT_EQ(executor.run(t.state, 1000).reason, eu::StopReason::kEndOfThread);
  EXPECT_EQ(t.d(12, 0), 0);
  EXPECT_EQ(t.ud(26, 0), 0x70U);
  EXPECT_EQ(t.d(11, 0), 7);
}

TEST(EuExec, Align16SwizzlesWriteMasksAndPredicates) {
  // Hand-encoded Align16 instructions (iga64 assembles none of these forms), from "add (8) r2.xyzw:f r3.xyzw:f
  // r4.xyzw:f" (tests/test_eu_disasm.cpp): byte 6 bits 3:0 the write mask, bytes 8/10 (src0) and 12/14 (src1) bits 3:0
  // the swizzle's x,y / z,w selects, byte 2 bits 3:0 the predicate control. Then the EOT send of int_divide.
  using Bytes = std::array<std::uint8_t, 16>;
  const Bytes add{0x40, 0x01, 0x60, 0x00, 0xe8, 0x3a, 0x4f, 0x20, 0x64, 0x00, 0x6e, 0x3a, 0x84, 0x00, 0x6e, 0x00};
  Bytes masked_add = add;  // add (8) r2.xz r3.wzyx r4.xxxx
  masked_add[6] = 0x45;
  masked_add[8] = 0x60 | 3 | 2 << 2;
  masked_add[10] = 0x60 | 1 | 0 << 2;
  masked_add[12] = 0x80;
  masked_add[14] = 0x60;
  Bytes mov = add;  // mov (8) r5.xyzw r3.yyyy
  mov[0] = 0x01;
  mov[6] = 0xAF;
  mov[8] = 0x60 | 1 | 1 << 2;
  mov[10] = 0x60 | 1 | 1 << 2;
  Bytes predicated = add;  // (f0.0.x) mov (8) r6.xyzw r3.xyzw
  predicated[0] = 0x01;
  predicated[2] = 0x62;
  predicated[6] = 0xCF;
  std::vector<std::uint8_t> kernel;
  for (const Bytes& b : {masked_add, mov, predicated}) kernel.insert(kernel.end(), b.begin(), b.end());
  const std::vector<std::uint8_t> eot = kernel_bytes("int_divide");
  kernel.insert(kernel.end(), eot.end() - 16, eot.end());

  Thread t;
  t.set<float>(3, {1, 2, 3, 4, 5, 6, 7, 8});
  t.set<float>(4, {10, 20, 30, 40, 50, 60, 70, 80});
  t.set<float>(2, std::vector<float>(8, -1.0F));
  t.set<float>(6, std::vector<float>(8, -1.0F));
  t.state.flags[0] = 0x10;  // f0.0: x of the second group of four only
  eu::BufferInstructionMemory memory(kKernelBase, kernel);
  eu::Program program(memory, kKernelBase, eu::Generation::kGen9);
  eu::Executor executor(program, t.shared);
  t.state.reset_control_flow(0, 0xFF);
  const eu::RunResult r = executor.run(t.state, 100);
  ASSERT_EQ(r.reason, eu::StopReason::kEndOfThread) << r.fault;
  // Channel c adds r3[group + wzyx[c % 4]] and r4[group + 0]; only x and z are written.
  const std::array<float, 8> sum{4 + 10, -1, 2 + 10, -1, 8 + 50, -1, 6 + 50, -1};
  const std::array<float, 8> yyyy{2, 2, 2, 2, 6, 6, 6, 6};
  // .x replication: each group of four takes its x channel's flag bit (bits 0 and 4).
  const std::array<float, 8> predicated_mov{-1, -1, -1, -1, 5, 6, 7, 8};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(t.f(2, c), sum[c]) << c;
    EXPECT_EQ(t.f(5, c), yyyy[c]) << c;
    EXPECT_EQ(t.f(6, c), predicated_mov[c]) << c;
  }
  // IGA has no Align1 form for these: the disassembler says so rather than print a wrong region.
  EXPECT_FALSE(eu::disassemble(masked_add.data(), eu::Generation::kGen9, 0).ok());
  EXPECT_TRUE(eu::disassemble(mov.data(), eu::Generation::kGen9, 0).ok());
}

TEST(EuExec, SplitSendSecondPayloadPastTheRegisterFileFaults) {
  Thread t;
  t.run("sends_bounds", 0xFF, false);
  EXPECT_EQ(t.result.reason, eu::StopReason::kFault);
  EXPECT_NE(t.result.fault.find("sends second payload runs past r127"), std::string::npos) << t.result.fault;
  EXPECT_TRUE(t.shared.messages.empty());  // nothing reached the shared function
}
