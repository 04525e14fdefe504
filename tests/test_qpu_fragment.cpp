// A QPU running a fragment shader (Qpu::start_fragment) through a FragmentPort of the test's own: the payload in
// ra15/rb15, varyings (partial value read, C into r5 for the next instruction), pixel coordinates and flags, tile
// buffer writes with discard by condition, tile buffer loads into r4, the scoreboard (implicit and explicit waits, the
// unlock, the release at the end), thread switches (reported to the scheduler after their two delay slots; their
// misuse and a threaded shader's registers 16-31 are errors); and the errors a user program meets when it reaches for
// what only fragment shaders have. Programs in the assembler's syntax (Mesa's disassembler's), results by hand.
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hw/vc4/qpu_isa.h"
#include "tests/support/qpu_test_environment.h"
#include "tlm/vc4/qpu/qpu_assembler.h"
#include "tlm/vc4/qpu/qpu_core.h"

namespace gpuvp::vc4::qpu {
namespace {

class TestFragments : public FragmentPort {
 public:
  struct Write {
    std::uint32_t address;
    Vector value;
    std::array<bool, 16> enabled;
  };

  bool next_varying(Vector& partial, Vector& c, std::string& error) override {
    if (next == varyings.size()) {
      error = "a varying read with all " + std::to_string(varyings.size()) + " read";
      return false;
    }
    partial = varyings[next].first;
    c = varyings[next].second;
    ++next;
    return true;
  }
  Vector pixel_coordinate(bool y) const override { return y ? pixel_y : pixel_x; }
  Vector ms_or_reverse(bool reverse) const override { return reverse ? reverse_flags : ms_mask; }
  bool scoreboard_acquire() override {
    events.emplace_back(scoreboard_free ? "acquire" : "wait");
    return scoreboard_free;
  }
  void scoreboard_release() override { events.emplace_back("release"); }
  bool tlb_write(std::uint32_t address, const Vector& value, const std::array<bool, 16>& enabled,
                 std::string&) override {
    events.push_back("write " + std::to_string(address));
    writes.push_back({address, value, enabled});
    return true;
  }
  bool tlb_load(std::uint32_t signal, Vector& value, std::string&) override {
    events.push_back("load " + std::to_string(signal));
    value = colour;
    return true;
  }

  std::vector<std::pair<Vector, Vector>> varyings;
  unsigned next = 0;
  Vector pixel_x{}, pixel_y{}, ms_mask{}, reverse_flags{};
  Vector colour{};
  bool scoreboard_free = true;
  std::vector<std::string> events;
  std::vector<Write> writes;
};

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

Vector each(std::uint32_t (*f)(unsigned)) {
  Vector v{};
  for (unsigned i = 0; i < 16; ++i) v[i] = f(i);
  return v;
}

struct Shader {
  explicit Shader(const std::string& source) : qpu(3, env) {
    AssembledProgram program;
    std::string error;
    EXPECT_TRUE(assemble(source, program, error)) << error;
    env.code = program.code;
  }
  void start(const Vector& w = {}, const Vector& z = {}, bool threaded = false) {
    qpu.start_fragment(kCode, kUniforms, fragments, w, z, threaded);
  }
  // Steps to the end; the number of issued instructions, or -1 on an error or a stall.
  int run() {
    for (int issued = 0; issued < 1000; ++issued) {
      const Qpu::Step s = qpu.step(static_cast<std::uint64_t>(issued) * 4);
      if (s == Qpu::Step::kEnded) return issued + 1;
      if (s != Qpu::Step::kIssued) return -1;
    }
    return -1;
  }
  TestEnvironment env;
  TestFragments fragments;
  Qpu qpu;
};

// Broadcom's simplest fragment shader shape (a constant colour to every sample, then the thread end and its two delay
// slots with the scoreboard unlock on the last): the colour write waits for the scoreboard first.
TEST(QpuFragment, AConstantColourGoesToEveryFragmentUnderTheScoreboard) {
  Shader s(R"(
      load_imm tlb_color_all, 0xff00ff80
      sig_end nop
      nop
      sig_unlock_score nop
  )");
  s.start();
  EXPECT_TRUE(s.qpu.shading());
  EXPECT_EQ(s.run(), 4);
  ASSERT_EQ(s.fragments.writes.size(), 1u);
  EXPECT_EQ(s.fragments.writes[0].address, kWriteTlbColorAll);
  for (unsigned i = 0; i < 16; ++i) {
    EXPECT_EQ(s.fragments.writes[0].value[i], 0xff00ff80u);
    EXPECT_TRUE(s.fragments.writes[0].enabled[i]);
  }
  EXPECT_EQ(s.fragments.events, (std::vector<std::string>{"acquire", "write 46", "release"}));
}

// While the scoreboard is held by an earlier primitive's shader, the instruction reaching the tile buffer stalls and
// changes nothing; the explicit wait (sig 4) waits the same way; a shader that never unlocks releases at its end.
TEST(QpuFragment, TileBufferAccessesWaitForTheScoreboardAndTheEndReleasesIt) {
  Shader s(R"(
      load_imm r0, 7
      sig_wait_score nop
      mov tlb_z, r0
      sig_end nop
      nop
      nop
  )");
  s.fragments.scoreboard_free = false;
  s.start();
  EXPECT_EQ(s.qpu.step(0), Qpu::Step::kIssued);
  EXPECT_EQ(s.qpu.step(4), Qpu::Step::kStalled);
  EXPECT_EQ(s.qpu.stall(), Qpu::Stall::kScoreboard);
  EXPECT_EQ(s.qpu.step(8), Qpu::Step::kStalled);
  s.fragments.scoreboard_free = true;
  EXPECT_EQ(s.run(), 5);
  EXPECT_EQ(s.fragments.events, (std::vector<std::string>{"wait", "wait", "acquire", "write 44", "release"}));
  EXPECT_EQ(s.fragments.writes[0].value[9], 7u);
}

// value = partial x W + C: the varying read gives the partial value and puts C in r5 for the next instruction (its own
// read of r5 sees the old value); ra15 holds W and rb15 Z from the payload.
TEST(QpuFragment, VaryingsInterpolateWithThePayloadsW) {
  Shader s(R"(
      load_imm r5rep, 9
      mov ra1, r5 ; fmul r0, vary, ra15
      fadd r1, r0, r5
      fmul r0, vary, ra15
      fadd r2, r0, r5
      mov r3, rb15
      sig_end nop
      nop
      nop
  )");
  Vector w{}, z{}, partial0{}, c0{}, partial1{}, c1{};
  for (unsigned i = 0; i < 16; ++i) {
    w[i] = bits(0.5F * static_cast<float>(i + 1));
    z[i] = 0x123456U + i;
    partial0[i] = bits(static_cast<float>(i));
    c0[i] = bits(100.0F);
    partial1[i] = bits(-2.0F);
    c1[i] = bits(static_cast<float>(i) * 0.25F);
  }
  s.fragments.varyings = {{partial0, c0}, {partial1, c1}};
  s.start(w, z);
  EXPECT_EQ(s.run(), 9);
  for (unsigned i = 0; i < 16; ++i) {
    const float wi = 0.5F * static_cast<float>(i + 1);
    EXPECT_EQ(s.qpu.acc(1)[i], bits(static_cast<float>(i) * wi + 100.0F)) << i;
    EXPECT_EQ(s.qpu.acc(2)[i], bits(-2.0F * wi + static_cast<float>(i) * 0.25F)) << i;
    EXPECT_EQ(s.qpu.acc(3)[i], 0x123456U + i) << i;
  }
  EXPECT_EQ(s.qpu.ra(1)[0], 9u);  // the varying's own instruction read the old r5
  EXPECT_EQ(s.fragments.next, 2u);
  // No tile buffer access: the scoreboard is only released, once, at the end.
  EXPECT_EQ(s.fragments.events, (std::vector<std::string>{"release"}));
}

TEST(QpuFragment, PixelCoordinatesAndFlagsAreInputs) {
  Shader s(R"(
      mov r0, x_pix
      mov r1, y_pix
      mov r2, ms_flags
      mov r3, rev_flag
      sig_end nop
      nop
      nop
  )");
  s.fragments.pixel_x = each([](unsigned i) { return 32 + (i & 1U) + 2 * ((i >> 2) & 1U); });
  s.fragments.pixel_y = each([](unsigned i) { return 64 + ((i >> 1) & 1U) + 2 * ((i >> 3) & 1U); });
  s.fragments.ms_mask = each([](unsigned i) { return i % 3 == 0 ? 0xFU : 0x1U; });
  s.fragments.reverse_flags = each([](unsigned) { return 1U; });
  s.start();
  EXPECT_EQ(s.run(), 7);
  EXPECT_EQ(s.qpu.acc(0), s.fragments.pixel_x);
  EXPECT_EQ(s.qpu.acc(1), s.fragments.pixel_y);
  EXPECT_EQ(s.qpu.acc(2), s.fragments.ms_mask);
  EXPECT_EQ(s.qpu.acc(3), s.fragments.reverse_flags);
}

// A conditional colour write is a discard of the disabled elements: here the fragments whose x is odd.
TEST(QpuFragment, AConditionalColourWriteDiscardsTheDisabledFragments) {
  Shader s(R"(
      and.sf nop, x_pix, 1
      load_imm r0, 0x11223344
      mov.zs tlb_color_all, r0
      sig_end nop
      nop
      sig_unlock_score nop
  )");
  s.fragments.pixel_x = each([](unsigned i) { return i; });
  s.start();
  EXPECT_EQ(s.run(), 6);
  ASSERT_EQ(s.fragments.writes.size(), 1u);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(s.fragments.writes[0].enabled[i], i % 2 == 0) << i;
}

// A colour load puts the tile buffer's colour in r4 at the end of its instruction (blending is the shader's on vc4);
// the stencil setup and alpha mask writes reach the port with their addresses; thread switches change nothing.
TEST(QpuFragment, ColourLoadsFillR4AndOtherTileBufferWritesPassThrough) {
  Shader s(R"(
      nop
      sig_thread_switch nop
      sig_color_load mov r0, r4
      mov r1, r4
      sig_switch nop
      load_imm tlb_stencil_setup, 0x00ff0000
      load_imm tlb_alpha_mask, 0xf
      sig_end nop
      nop
      sig_unlock_score nop
  )");
  s.fragments.colour = each([](unsigned i) { return 0xAA000000U | i; });
  s.start();
  EXPECT_EQ(s.run(), 10);
  EXPECT_EQ(s.qpu.acc(0)[3], 0u);  // the loading instruction's own read of r4 (a fresh QPU's)
  EXPECT_EQ(s.qpu.acc(1), s.fragments.colour);
  EXPECT_EQ(s.fragments.events, (std::vector<std::string>{"acquire", "load 8", "write 43", "write 47", "release"}));
}

// A thread switch takes effect after its two delay slots: the QPU reports it (take_thread_switch) once the second
// slot has issued, as kSwitch for sig 2 and kLast for sig 6, and only then; the program itself goes on unchanged.
TEST(QpuFragment, AThreadSwitchIsReportedAfterItsTwoDelaySlots) {
  // Mesa's disassembler names sig 2 "sig_switch" and sig 6 (the last switch) "sig_thread_switch".
  Shader s(R"(
      sig_switch nop
      nop
      nop
      nop
      sig_thread_switch nop
      nop
      nop
      load_imm tlb_color_all, 7
      sig_end nop
      nop
      sig_unlock_score nop
  )");
  s.start({}, {}, true);
  std::vector<int> reported;  // per issued instruction: 0 none, 1 switch, 2 last switch
  for (int i = 0; i < 11; ++i) {
    ASSERT_NE(s.qpu.step(static_cast<std::uint64_t>(i) * 4), Qpu::Step::kError) << s.qpu.error();
    const Qpu::ThreadSwitch t = s.qpu.take_thread_switch();
    reported.push_back(t == Qpu::ThreadSwitch::kSwitch ? 1 : t == Qpu::ThreadSwitch::kLast ? 2 : 0);
  }
  EXPECT_EQ(reported, (std::vector<int>{0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0}));
  EXPECT_FALSE(s.qpu.running());
  ASSERT_EQ(s.fragments.writes.size(), 1u);
}

// What the Linux validator refuses (vc4_validate_shaders.c) is a modelled error here: a thread switch or a branch in
// a thread switch's delay slots, and a threaded shader writing the other thread's half of a register file.
TEST(QpuFragment, ThreadSwitchMisuseAndTheOtherThreadsRegistersAreErrors) {
  const auto error_of = [](const std::string& source, bool threaded) {
    Shader s(source);
    s.start({}, {}, threaded);
    EXPECT_EQ(s.run(), -1);
    return s.qpu.error();
  };
  EXPECT_NE(error_of("sig_switch nop\nnop\nsig_thread_switch nop\nnop\nsig_end nop\nnop\nnop\n", true)
                .find("thread switch in the delay slots of a thread switch"),
            std::string::npos);
  EXPECT_NE(error_of("sig_switch nop\nbranch.rel 0\nnop\nnop\nnop\nsig_end nop\nnop\nnop\n", true)
                .find("branch in the delay slots of a thread switch"),
            std::string::npos);
  EXPECT_NE(error_of("mov ra16, 1\nsig_end nop\nnop\nnop\n", true)
                .find("a threaded fragment shader writes ra16: each of a QPU's two threads has registers 0-15"),
            std::string::npos);
  EXPECT_NE(error_of("mov rb31, 1\nsig_end nop\nnop\nnop\n", true).find("writes rb31"), std::string::npos);
  // The TMU FIFOs are the QPU's: a threaded shader may use half of each, 4 lookups received and 4 request slots.
  std::string eight = "load_imm r0, 0x10000\n";
  for (int i = 0; i < 8; ++i) eight += "mov tmu0_s, r0\n";
  const std::string tail = "sig_end nop\nnop\nnop\n";
  EXPECT_NE(error_of(eight + "mov tmu0_s, r0\n" + tail, true)
                .find("a TMU0 S write with its request FIFO's 4 slots (half of 8: a threaded program) in use"),
            std::string::npos);
  Shader half(eight + "sig_end nop\nnop\nsig_unlock_score nop\n");
  half.start({}, {}, true);
  EXPECT_EQ(half.run(), 12);
  EXPECT_EQ(half.qpu.tmu_outstanding(), 8u);
  // Single-threaded, the whole register files are the shader's.
  Shader single("mov ra16, 1\nmov rb31, 2\nsig_end nop\nnop\nsig_unlock_score nop\n");
  single.start();
  EXPECT_EQ(single.run(), 5);
  EXPECT_EQ(single.qpu.ra(16)[0], 1u);
}

// After its unlock a shader has handed the tile buffer on: a later access is an error, not an unordered write.
TEST(QpuFragment, ATileBufferAccessAfterTheUnlockIsAnError) {
  Shader s(R"(
      sig_unlock_score nop
      load_imm tlb_color_all, 1
      sig_end nop
      nop
      nop
  )");
  s.start();
  EXPECT_EQ(s.run(), -1);
  EXPECT_NE(s.qpu.error().find("a tile buffer access after the scoreboard unlock"), std::string::npos) << s.qpu.error();
  EXPECT_EQ(s.fragments.events, (std::vector<std::string>{"release"}));
  EXPECT_TRUE(s.fragments.writes.empty());
}

// A taken branch's link written to the tile buffer is a tile buffer write like any other: it waits for the
// scoreboard (fuzz_qpu found it reaching the port unguarded).
TEST(QpuFragment, ABranchLinkIntoTheTileBufferWaitsForTheScoreboard) {
  Shader s("sig_end nop\nnop\nnop\n");
  BranchInstruction branch;  // always, relative, to the instruction after its delay slots
  branch.waddr_add = kWriteTlbZ;
  s.env.code.insert(s.env.code.begin(),
                    {branch.encode(), AluInstruction{}.encode(), AluInstruction{}.encode(), AluInstruction{}.encode()});
  s.fragments.scoreboard_free = false;
  s.start();
  EXPECT_EQ(s.qpu.step(0), Qpu::Step::kStalled);
  EXPECT_EQ(s.qpu.stall(), Qpu::Stall::kScoreboard);
  EXPECT_TRUE(s.fragments.writes.empty());
  s.fragments.scoreboard_free = true;
  EXPECT_EQ(s.run(), 7);
  ASSERT_EQ(s.fragments.writes.size(), 1u);
  EXPECT_EQ(s.fragments.writes[0].address, kWriteTlbZ);
  EXPECT_EQ(s.fragments.writes[0].value[0], kCode + 32);  // the link: the address after the delay slots
}

TEST(QpuFragment, TooManyVaryingReadsEndTheShaderWithTheReason) {
  Shader s(R"(
      mov r0, vary
      sig_end nop
      nop
      nop
  )");
  s.start();
  EXPECT_EQ(s.run(), -1);
  EXPECT_NE(s.qpu.error().find("a varying read with all 0 read"), std::string::npos) << s.qpu.error();
  EXPECT_EQ(s.fragments.events, (std::vector<std::string>{"release"}));  // a stopped shader lets the others on
}

// A user program (Qpu::start) has no fragments: each fragment-only register and signal ends it with the reason.
TEST(QpuFragment, AUserProgramReachingForFragmentsIsAnError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"mov r0, vary", "is a fragment shader input, and a user program has no fragments"},
      {"mov r0, x_pix", "is a fragment shader input, and a user program has no fragments"},
      {"load_imm tlb_color_all, 1", "is the tile buffer, and a user program has no fragments"},
      {"sig_wait_score nop", "in a user program: only fragment shaders have a scoreboard"},
      {"sig_color_load nop", "in a user program: only fragment shaders reach the tile buffer"},
      {"sig_switch nop", "in a user program: only threaded fragment shaders switch threads"},
  };
  for (const auto& [line, reason] : cases) {
    Shader s(line + "\nsig_end nop\nnop\nnop\n");
    s.qpu.start(kCode, kUniforms);
    EXPECT_FALSE(s.qpu.shading());
    EXPECT_EQ(s.qpu.step(0), Qpu::Step::kError) << line;
    EXPECT_NE(s.qpu.error().find(reason), std::string::npos) << s.qpu.error();
  }
}

}  // namespace
}  // namespace gpuvp::vc4::qpu
