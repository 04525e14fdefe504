// rtl/ring_ptr.sv (verilated): the RING_START/CTL/HEAD/TAIL facts of i915 gt/intel_engine_regs.h and
// gt/intel_ring.h checked on the RTL outputs directly, the cycle semantics of simultaneous inputs, and the
// cycle-by-cycle cross-check against gen::RingPointer (directed cases and a shorter constrained-random run than the
// ring_crosscheck tool's). Expected values are computed by hand from the bit layout.
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "rtl/rtl_ring_pointer.h"
#include "tb/crosscheck/crosscheck.h"

using gpuvp::gen::RingPointer;
using gpuvp::rtl::RingInputs;
using gpuvp::rtl::RingOutputs;
using gpuvp::rtl::RtlRingPointer;

namespace {
constexpr std::uint32_t k8K = 0x2000;
constexpr std::uint32_t ctl_for(std::uint32_t size) { return (size - 0x1000) | RingPointer::kCtlEnable; }
}  // namespace

TEST(RtlRingPtr, PowerOnAndResetValuesAreZeroWithA4KiBSizeField) {
  RtlRingPointer r;
  RingOutputs o = r.outputs();
  EXPECT_EQ(o.start, 0u);
  EXPECT_EQ(o.ctl, 0u);
  EXPECT_EQ(o.head, 0u);
  EXPECT_EQ(o.tail, 0u);
  EXPECT_FALSE(o.enabled);
  EXPECT_EQ(o.size_bytes, 0x1000u);
  EXPECT_TRUE(o.empty);
  EXPECT_EQ(o.driver_space, 0xFC0u);  // (0 - 0 - 64) & 0xFFF
  r.write_ctl(0xFFFFFFFF);
  r.write_head(0xFFFFFFFF);
  r.reset();
  o = r.outputs();
  EXPECT_EQ(o.ctl, 0u);
  EXPECT_EQ(o.head, 0u);
}

TEST(RtlRingPtr, WriteMasksKeepOnlyEachRegistersFields) {
  RtlRingPointer r;
  r.write_start(0x12345ABC);
  r.write_ctl(0xFFFFFFFF);
  r.write_head(0xFFFFFFFF);
  r.write_tail(0xFFFFFFFF);
  EXPECT_EQ(r.start_reg(), 0x12345000u);  // 4 KiB aligned
  EXPECT_EQ(r.ctl_reg(), 0x001FF001u);    // VALID + 20:12
  EXPECT_EQ(r.head_reg(), 0xFFFFFFFCu);   // 31:21 wrap count + 20:2
  EXPECT_EQ(r.tail_reg(), 0x001FFFF8u);   // 20:3
  EXPECT_EQ(r.outputs().size_bytes, 0x200000u);
  EXPECT_EQ(r.outputs().wrap_count, 0x7FFu);
}

TEST(RtlRingPtr, ConsumeWrapsAtTheEndAndPulsesWrapForOneCycle) {
  RtlRingPointer r;
  r.write_ctl(ctl_for(k8K));
  r.write_start(0x40000000);
  r.write_head(0x1FC0);
  r.write_tail(0x40);
  EXPECT_EQ(r.bytes_available(), 0x80u);  // 0x40 + 0x2000 - 0x1FC0
  EXPECT_EQ(r.driver_space(), 0x1F40u);   // (0x1FC0 - 0x40 - 0x40) & 0x1FFF
  EXPECT_EQ(r.head_address(), 0x40001FC0u);
  EXPECT_FALSE(r.consume(0x20));
  EXPECT_EQ(r.head_reg(), 0x1FE0u);
  EXPECT_TRUE(r.consume(0x20));  // exactly to the end: offset 0, wrap count 1
  EXPECT_EQ(r.head_reg(), RingPointer::kHeadWrapOne);
  EXPECT_TRUE(r.outputs().wrap);
  r.cycle(RingInputs{});  // an idle cycle ends the pulse
  EXPECT_FALSE(r.outputs().wrap);
  EXPECT_FALSE(r.consume(0x40));
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.head_address(), 0x40000040u);
  // Three laps and 8 bytes past TAIL in one event (a buggy guest): one wrap count per lap.
  EXPECT_TRUE(r.consume(3 * k8K + 8));
  EXPECT_EQ(r.head_reg(), 4 * RingPointer::kHeadWrapOne | 0x48);
}

TEST(RtlRingPtr, SameCycleInputs) {
  RtlRingPointer r;
  r.write_ctl(ctl_for(k8K));
  r.write_tail(0x100);
  // TAIL written while consuming: the consume uses the old TAIL-independent HEAD arithmetic, TAIL takes the write.
  RingInputs in;
  in.consume = true;
  in.consume_bytes = 0x10;
  in.tail_we = true;
  in.tail = 0x180;
  RingOutputs o = r.cycle(in);
  EXPECT_EQ(o.head, 0x10u);
  EXPECT_EQ(o.tail, 0x180u);
  EXPECT_EQ(o.bytes_available, 0x170u);
  // HEAD written while consuming: the software write wins.
  in = RingInputs{};
  in.consume = true;
  in.consume_bytes = 0x10;
  in.head_we = true;
  in.head = 0x100;
  EXPECT_EQ(r.cycle(in).head, 0x100u);
  // A size change and a consume: the consume still wraps at the old size (registers before the edge).
  r.write_head(0x1FF8);
  in = RingInputs{};
  in.consume = true;
  in.consume_bytes = 0x10;
  in.ctl_we = true;
  in.ctl = ctl_for(0x4000);
  o = r.cycle(in);
  EXPECT_EQ(o.head, RingPointer::kHeadWrapOne | 0x8);
  EXPECT_TRUE(o.wrap);
  EXPECT_EQ(o.size_bytes, 0x4000u);
}

TEST(RtlRingPtr, NonPowerOfTwoSizeAndOffsetsBeyondTheSizeAreModuloTheSize) {
  RtlRingPointer r;
  r.write_ctl(ctl_for(0x3000));  // 3 pages
  r.write_head(0x2FF0);
  r.write_tail(0x10);
  EXPECT_EQ(r.bytes_available(), 0x20u);
  EXPECT_TRUE(r.consume(0x20));
  EXPECT_EQ(r.head_reg(), RingPointer::kHeadWrapOne | 0x10);
  r.write_ctl(ctl_for(0x1000));
  r.write_head(0x1800);  // beyond a 4 KiB ring: offset 0x800
  r.write_tail(0x100);
  EXPECT_EQ(r.head_reg(), 0x1800u);
  EXPECT_EQ(r.bytes_available(), 0x900u);  // 0x100 + 0x1000 - 0x800
  EXPECT_FALSE(r.consume(4));
  EXPECT_EQ(r.head_reg(), 0x804u);
}

TEST(RtlRingCrossCheck, DirectedCasesMatchTheCxxModelEveryCycle) {
  gpuvp::crosscheck::RingCrossCheck check(1);
  EXPECT_TRUE(check.run_directed()) << check.failure();
  EXPECT_GT(check.cycles(), 512u * 10);  // every page count 1..512
  EXPECT_GE(check.wraps(), 512u * 3);
}

TEST(RtlRingCrossCheck, ConstrainedRandomMatchesTheCxxModelEveryCycle) {
  for (std::uint64_t seed : {1ull, 2ull, 0xC0FFEEull}) {
    gpuvp::crosscheck::RingCrossCheck check(seed);
    EXPECT_TRUE(check.run_random(300'000)) << check.failure();
    EXPECT_GT(check.wraps(), 1000u) << "seed " << seed;
  }
}

TEST(RtlRingCrossCheck, AMismatchNamesSeedCycleInputsAndBothOutputs) {
  gpuvp::crosscheck::RingCrossCheck check(42);
  RingInputs in;
  in.ctl_we = true;
  in.ctl = ctl_for(k8K);
  ASSERT_TRUE(check.step(in));
  check.reference().write_tail(0x100);  // the C++ side diverges behind the checker's back
  EXPECT_FALSE(check.step(RingInputs{}));
  const std::string& f = check.failure();
  EXPECT_NE(f.find("MISMATCH ring_ptr seed=42 cycle=2"), std::string::npos) << f;
  EXPECT_NE(f.find("inputs: idle"), std::string::npos) << f;
  EXPECT_NE(f.find("rtl:    start=0x00000000 ctl=0x00001001 head=0x00000000 tail=0x00000000"), std::string::npos) << f;
  EXPECT_NE(f.find("c++:    start=0x00000000 ctl=0x00001001 head=0x00000000 tail=0x00000100"), std::string::npos) << f;
}

TEST(RtlRingCrossCheck, WaveformOnRequest) {
  const std::string path = ::testing::TempDir() + "ring_ptr.vcd";
  {
    gpuvp::crosscheck::RingCrossCheck check(3);
    ASSERT_TRUE(check.trace_to(path));
    EXPECT_TRUE(check.run_random(100)) << check.failure();
  }
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("$enddefinitions"), std::string::npos);
  EXPECT_NE(text.str().find("head_o"), std::string::npos);
  EXPECT_NE(text.str().find("#200"), std::string::npos);  // two time steps per cycle
  RtlRingPointer r;
  EXPECT_FALSE(r.trace_to("/nonexistent/dir/x.vcd"));
}

TEST(RingModelRegistry, TlmIsBuiltInRtlIsRegisteredUnknownNamesAreRejected) {
  EXPECT_EQ(gpuvp::gen::make_ring_pointer_model("tlm"), nullptr);
  EXPECT_THROW(gpuvp::gen::make_ring_pointer_model("verilog"), std::invalid_argument);
  gpuvp::rtl::register_ring_model();
  auto m = gpuvp::gen::make_ring_pointer_model("rtl");
  ASSERT_NE(m, nullptr);
  m->write_ctl(0xFFFFFFFF);
  EXPECT_EQ(m->ctl_reg(), 0x001FF001u);
}
