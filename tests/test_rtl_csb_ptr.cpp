// rtl/csb_ptr.sv (verilated): the context status buffer pointer facts of i915 (GEN8_CSB_ENTRIES 6, read pointer
// 10:8, write pointer 2:0, masked register) and GVT-g (reset write pointer 7 = "next is 0", 7 -> 0, (wp + 1) % 6),
// checked on the RTL outputs, and the cycle-by-cycle cross-check against gen::CsbPointer.
#include <gtest/gtest.h>

#include "rtl/rtl_csb_pointer.h"
#include "tb/crosscheck/crosscheck.h"

using gpuvp::rtl::CsbInputs;
using gpuvp::rtl::RtlCsbPointer;

namespace {
CsbInputs advance() {
  CsbInputs in;
  in.advance = true;
  return in;
}
CsbInputs write(std::uint32_t data) {
  CsbInputs in;
  in.sw_write = true;
  in.data = data;
  return in;
}
}  // namespace

TEST(RtlCsbPtr, ResetWritePointerIs7AndTheEntriesGo0To5ThenWrap) {
  RtlCsbPointer r;
  EXPECT_EQ(r.outputs().value, 0x7u);
  EXPECT_EQ(r.outputs().next_entry, 0u);
  for (std::uint32_t expected : {0u, 1u, 2u, 3u, 4u, 5u, 0u, 1u}) {
    EXPECT_EQ(r.cycle(advance()).write_pointer, expected);
  }
  CsbInputs reset;
  reset.reset = true;
  EXPECT_EQ(r.cycle(reset).value, 0x7u);
}

TEST(RtlCsbPtr, MaskedSoftwareWrites) {
  RtlCsbPointer r;
  EXPECT_EQ(r.cycle(write(0x07000300)).value, 0x307u);  // read pointer 3 (i915 process_csb)
  EXPECT_EQ(r.cycle(write(0x00000505)).value, 0x307u);  // no enables: nothing changes
  EXPECT_EQ(r.cycle(write(0xFFFF0505)).value, 0x505u);  // i915 reset_csb_pointers: both fields to 5
  EXPECT_EQ(r.outputs().next_entry, 0u);
  EXPECT_EQ(r.cycle(write(0xFFFFFFFF)).value, 0x707u);  // only the two fields exist
  EXPECT_EQ(r.cycle(write(0x00070006)).write_pointer, 6u);
  EXPECT_EQ(r.outputs().next_entry, 0u);  // no entry 6: the next is 0
  // An advance and a software write in one cycle: the advance, then the write's enabled fields.
  CsbInputs both = write(0x07000100);
  both.advance = true;
  const auto o = r.cycle(both);
  EXPECT_EQ(o.write_pointer, 0u);
  EXPECT_EQ(o.read_pointer, 1u);
}

TEST(RtlCsbCrossCheck, DirectedAndRandomMatchTheCxxModelEveryCycle) {
  gpuvp::crosscheck::CsbCrossCheck check(5);
  EXPECT_TRUE(check.run_directed()) << check.failure();
  EXPECT_TRUE(check.run_random(300'000)) << check.failure();
  EXPECT_GT(check.cycles(), 300'000u);
}

TEST(RtlCsbCrossCheck, AMismatchNamesSeedCycleInputsAndBothOutputs) {
  gpuvp::crosscheck::CsbCrossCheck check(9);
  ASSERT_TRUE(check.step(advance()));
  check.reference().advance();  // the C++ side diverges
  EXPECT_FALSE(check.step(CsbInputs{}));
  EXPECT_EQ(check.failure(),
            "MISMATCH csb_ptr seed=9 cycle=2\n  inputs: idle\n"
            "  rtl:    value=0x00000000 write_pointer=0 read_pointer=0 next_entry=1\n"
            "  c++:    value=0x00000001 write_pointer=1 read_pointer=0 next_entry=2");
}
