// EU executor (issue 17): kernels written in IGA syntax (tests/eu/exec/*.asm), assembled by Intel's iga64 at build
// time, run on one thread's state; every expected value is computed by hand (or, for plain IEEE arithmetic on
// ordinary numbers, by the host in the test) and written next to its check.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tlm/gen/eu/executor.h"
#include "tlm/gen/eu/float_convert.h"

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
