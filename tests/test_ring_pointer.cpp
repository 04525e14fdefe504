// RingPointer: RING_START/CTL/HEAD/TAIL register semantics (docs/gen-command-streamer.md; i915
// gt/intel_engine_regs.h, gt/intel_ring.h). Every expected value is computed by hand from the bit layout:
// CTL 20:12 = pages - 1, HEAD 20:2 offset + 31:21 wrap count, TAIL 20:3, space = (head - tail - 64) & (size - 1).
#include <cstdint>

#include <gtest/gtest.h>

#include "tlm/gen/ring_pointer.h"

using gpuvp::gen::RingPointer;

namespace {

constexpr std::uint32_t k4K = 0x1000;
constexpr std::uint32_t k2M = 0x200000;

// i915 RING_CTL_SIZE(size) = size - PAGE_SIZE, plus RING_VALID.
constexpr std::uint32_t ctl_for(std::uint32_t size) { return (size - k4K) | RingPointer::kCtlEnable; }

RingPointer ring_of(std::uint32_t size, std::uint32_t head, std::uint32_t tail) {
  RingPointer r;
  r.write_ctl(ctl_for(size));
  r.write_head(head);
  r.write_tail(tail);
  return r;
}

}  // namespace

TEST(RingPointer, ResetValuesAreAllZero) {
  RingPointer r;
  EXPECT_EQ(r.start_reg(), 0u);
  EXPECT_EQ(r.ctl_reg(), 0u);
  EXPECT_EQ(r.head_reg(), 0u);
  EXPECT_EQ(r.tail_reg(), 0u);
  EXPECT_FALSE(r.enabled());
  EXPECT_EQ(r.size_bytes(), k4K);  // size field 0 = one page
  EXPECT_EQ(r.wrap_count(), 0u);
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.bytes_available(), 0u);
  EXPECT_EQ(r.driver_space(), k4K - 64);
  EXPECT_EQ(r.head_address(), 0u);

  r.write_start(0x00345000);
  r.write_ctl(ctl_for(0x8000));
  r.write_head(0x00600040);
  r.write_tail(0x80);
  r.reset();
  EXPECT_EQ(r.start_reg(), 0u);
  EXPECT_EQ(r.ctl_reg(), 0u);
  EXPECT_EQ(r.head_reg(), 0u);
  EXPECT_EQ(r.tail_reg(), 0u);
}

TEST(RingPointer, CtlSizeFieldIsPagesMinusOneFrom4KTo2M) {
  RingPointer r;
  r.write_ctl(0x00000001);  // RING_CTL_SIZE(4 KiB) = 0 | RING_VALID
  EXPECT_TRUE(r.enabled());
  EXPECT_EQ(r.size_bytes(), 0x1000u);
  r.write_ctl(0x001FF001);  // RING_CTL_SIZE(2 MiB) = 0x1FF000: 512 pages
  EXPECT_EQ(r.size_bytes(), 0x200000u);
  EXPECT_EQ(r.ctl_reg(), 0x001FF001u);
  r.write_ctl(0x00007000);  // 8 pages, disabled
  EXPECT_FALSE(r.enabled());
  EXPECT_EQ(r.size_bytes(), 0x8000u);
  r.write_ctl(0x00002001);  // 3 pages: hardware accepts any page count (i915 uses powers of two only)
  EXPECT_EQ(r.size_bytes(), 0x3000u);
}

TEST(RingPointer, WriteMasksDropBitsOutsideEachRegistersFields) {
  RingPointer r;
  r.write_start(0xFFFFFFFF);
  EXPECT_EQ(r.start_reg(), 0xFFFFF000u);
  r.write_start(0x00000FFF);
  EXPECT_EQ(r.start_reg(), 0u);

  r.write_ctl(0xFFFFFFFF);  // report (2:1) and wait (10, 11) bits are not kept, nor 31:21
  EXPECT_EQ(r.ctl_reg(), 0x001FF001u);
  r.write_ctl(0xFFE00FFE);
  EXPECT_EQ(r.ctl_reg(), 0u);

  r.write_head(0xFFFFFFFF);  // offset 20:2 and wrap count 31:21 both kept
  EXPECT_EQ(r.head_reg(), 0xFFFFFFFCu);
  EXPECT_EQ(r.wrap_count(), 0x7FFu);
  EXPECT_EQ(r.head_offset(), 0x1FFFFCu);
  r.write_head(0x00000003);
  EXPECT_EQ(r.head_reg(), 0u);
  r.write_head(0x00A00040);  // wrap count 5, offset 0x40
  EXPECT_EQ(r.wrap_count(), 5u);
  EXPECT_EQ(r.head_offset(), 0x40u);

  r.write_tail(0xFFFFFFFF);
  EXPECT_EQ(r.tail_reg(), 0x001FFFF8u);
  r.write_tail(0xFFE00007);
  EXPECT_EQ(r.tail_reg(), 0u);
}

TEST(RingPointer, HeadAddressIsStartPlusHeadOffset) {
  RingPointer r;
  r.write_start(0x12345ABC);  // low 12 bits dropped
  r.write_ctl(ctl_for(0x4000));
  r.write_head(0x00200040);  // wrap count 1 does not take part in the address
  EXPECT_EQ(r.head_address(), 0x12345040u);
}

TEST(RingPointer, WrapAtEveryPowerOfTwoSizeIncrementsWrapCountOnce) {
  for (std::uint32_t size = k4K; size <= k2M; size <<= 1) {
    SCOPED_TRACE(testing::Message() << "size 0x" << std::hex << size);
    RingPointer r = ring_of(size, 0, size - 64);
    EXPECT_EQ(r.bytes_available(), size - 64);
    EXPECT_FALSE(r.consume(size - 64));  // up to, not across, the end
    EXPECT_EQ(r.head_reg(), size - 64);
    EXPECT_EQ(r.wrap_count(), 0u);
    EXPECT_TRUE(r.empty());

    r.write_tail(64);  // the driver wrapped its tail
    EXPECT_EQ(r.bytes_available(), 128u);
    EXPECT_TRUE(r.consume(64));  // reaches the end exactly: HEAD wraps to 0
    EXPECT_EQ(r.head_reg(), RingPointer::kHeadWrapOne);
    EXPECT_EQ(r.head_offset(), 0u);
    EXPECT_EQ(r.wrap_count(), 1u);
    EXPECT_FALSE(r.consume(64));
    EXPECT_EQ(r.head_reg(), RingPointer::kHeadWrapOne | 64);
    EXPECT_TRUE(r.empty());

    // A command straddling the end: HEAD at size - 8, 16 bytes -> offset 8, one more wrap.
    r.write_head(RingPointer::kHeadWrapOne | (size - 8));
    r.write_tail(8);
    EXPECT_EQ(r.bytes_available(), 16u);
    EXPECT_TRUE(r.consume(16));
    EXPECT_EQ(r.head_reg(), 2 * RingPointer::kHeadWrapOne | 8);

    // Laps in quarter-ring steps: exactly one true return and one increment per lap.
    r.write_head(0);
    unsigned wraps_seen = 0;
    for (unsigned step = 0; step < 4 * 3; ++step) {
      r.write_tail((r.head_offset() + size / 4) & (size - 1));
      EXPECT_EQ(r.bytes_available(), size / 4);
      if (r.consume(size / 4)) ++wraps_seen;
    }
    EXPECT_EQ(wraps_seen, 3u);
    EXPECT_EQ(r.wrap_count(), 3u);
    EXPECT_EQ(r.head_offset(), 0u);

    // The 11-bit wrap count itself wraps: 2047 -> 0.
    r.write_head(RingPointer::kHeadWrapMask | (size - 8));
    EXPECT_EQ(r.wrap_count(), 2047u);
    r.write_tail(8);
    EXPECT_TRUE(r.consume(16));
    EXPECT_EQ(r.wrap_count(), 0u);
    EXPECT_EQ(r.head_reg(), 8u);
  }
}

TEST(RingPointer, WrapCountCountsEveryLapModulo2048) {
  RingPointer r = ring_of(k4K, 0, 0);
  unsigned wraps_seen = 0;
  for (unsigned lap = 0; lap < 2048 + 5; ++lap) {
    for (unsigned step = 0; step < 2; ++step) {
      r.write_tail((r.head_offset() + 0x800) & 0xFFF);
      if (r.consume(0x800)) ++wraps_seen;
    }
  }
  EXPECT_EQ(wraps_seen, 2048u + 5);
  EXPECT_EQ(r.wrap_count(), 5u);
  EXPECT_EQ(r.head_reg(), 5 * RingPointer::kHeadWrapOne);
}

TEST(RingPointer, EmptyAvailableAndDriverSpaceByHand) {
  // 8 KiB ring: size - 1 = 0x1FFF.
  const std::uint32_t s = 0x2000;
  {
    RingPointer r = ring_of(s, 0, 0);  // idle
    EXPECT_TRUE(r.empty());
    EXPECT_EQ(r.bytes_available(), 0u);
    EXPECT_EQ(r.driver_space(), 0x1FC0u);  // (0 - 0 - 0x40) & 0x1FFF
  }
  {
    RingPointer r = ring_of(s, 0x100, 0x180);  // 0x80 bytes queued
    EXPECT_FALSE(r.empty());
    EXPECT_EQ(r.bytes_available(), 0x80u);
    EXPECT_EQ(r.driver_space(), 0x1F40u);  // (0x100 - 0x180 - 0x40) & 0x1FFF = 0x2000 - 0xC0
  }
  {
    RingPointer r = ring_of(s, 0x1F00, 0x0100);  // tail wrapped past the end
    EXPECT_EQ(r.bytes_available(), 0x200u);      // 0x100 + 0x2000 - 0x1F00
    EXPECT_EQ(r.driver_space(), 0x1DC0u);        // (0x1F00 - 0x100 - 0x40) & 0x1FFF
  }
  {
    // Full: tail one cacheline behind head. The driver has 0 bytes and must not advance tail to head (which would
    // make the ring look empty to the hardware).
    RingPointer r = ring_of(s, 0x1000, 0x0FC0);
    EXPECT_EQ(r.driver_space(), 0u);          // (0x1000 - 0xFC0 - 0x40) & 0x1FFF
    EXPECT_EQ(r.bytes_available(), 0x1FC0u);  // 0xFC0 + 0x2000 - 0x1000
    EXPECT_FALSE(r.empty());
    RingPointer wrapped_full = ring_of(s, 0, 0x1FC0);
    EXPECT_EQ(wrapped_full.driver_space(), 0u);
    EXPECT_EQ(wrapped_full.bytes_available(), 0x1FC0u);
    // Had the driver written tail == head, the hardware would see an empty ring: the 64-byte slack prevents that.
    RingPointer overrun = ring_of(s, 0x1000, 0x1000);
    EXPECT_TRUE(overrun.empty());
    EXPECT_EQ(overrun.bytes_available(), 0u);
  }
  {
    RingPointer r = ring_of(s, 0x1000, 0x0F80);  // one more cacheline of room
    EXPECT_EQ(r.driver_space(), 0x40u);
  }
  {
    // Head and tail in the same cacheline with head > tail (forbidden for the driver): the formula's answer.
    RingPointer r = ring_of(s, 0x108, 0x100);
    EXPECT_EQ(r.driver_space(), 0x1FC8u);     // (0x108 - 0x100 - 0x40) & 0x1FFF
    EXPECT_EQ(r.bytes_available(), 0x1FF8u);  // 0x100 + 0x2000 - 0x108
  }
}

TEST(RingPointer, OffsetsAtOrBeyondTheSizeAreTakenModuloTheSize) {
  RingPointer r = ring_of(k4K, 0x1800, 0x100);  // HEAD offset 0x1800 in a 4 KiB ring
  EXPECT_EQ(r.head_offset(), 0x1800u);          // the register keeps what software wrote
  EXPECT_EQ(r.bytes_available(), 0x900u);       // 0x100 + 0x1000 - 0x800
  r.write_start(0x40000000);
  EXPECT_EQ(r.head_address(), 0x40000800u);
  EXPECT_FALSE(r.consume(4));  // reduction modulo the size is not a wrap
  EXPECT_EQ(r.head_reg(), 0x804u);

  RingPointer t = ring_of(k4K, 0, k4K);  // TAIL == size is TAIL == 0 modulo the size: empty, nothing available
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.bytes_available(), 0u);
  EXPECT_EQ(t.driver_space(), 0xFC0u);  // (0 - 0x1000 - 0x40) & 0xFFF

  // Shrinking the ring under a live HEAD: HEAD 0x7000 of 32 KiB, ring becomes 16 KiB.
  RingPointer s = ring_of(0x8000, 0x7000, 0x7100);
  s.write_ctl(ctl_for(0x4000));
  EXPECT_EQ(s.bytes_available(), 0x100u);  // 0x3100 - 0x3000
  EXPECT_FALSE(s.consume(0x100));
  EXPECT_EQ(s.head_reg(), 0x3100u);
}

TEST(RingPointer, ConsumeCornerCases) {
  {
    RingPointer r = ring_of(k4K, 0x40, 0x80);
    EXPECT_FALSE(r.consume(0));
    EXPECT_EQ(r.head_reg(), 0x40u);
    EXPECT_FALSE(r.consume(7));  // low two bits dropped: advances 4
    EXPECT_EQ(r.head_reg(), 0x44u);
  }
  {
    // Beyond available: HEAD moves past TAIL (no check), modulo the size.
    RingPointer r = ring_of(k4K, 0, 0x10);
    EXPECT_FALSE(r.consume(0x20));
    EXPECT_EQ(r.head_reg(), 0x20u);
    EXPECT_EQ(r.bytes_available(), 0xFF0u);  // 0x10 + 0x1000 - 0x20
    // Several laps in one call: one wrap count per crossing of the end.
    EXPECT_TRUE(r.consume(0x3000));
    EXPECT_EQ(r.head_reg(), 3 * RingPointer::kHeadWrapOne | 0x20);
    // Largest argument: 0x20 + 0xFFFFFFFC = 0x1_0000_001C -> 0x100000 wraps (mod 2048 = 0), offset 0x1C.
    EXPECT_TRUE(r.consume(0xFFFFFFFF));
    EXPECT_EQ(r.wrap_count(), (3u + 0x100000u) & 0x7FF);
    EXPECT_EQ(r.head_offset(), 0x1Cu);
  }
  {
    // Non-power-of-two ring (3 pages): wraps at 0x3000.
    RingPointer r = ring_of(0x3000, 0x2FF0, 0x10);
    EXPECT_EQ(r.bytes_available(), 0x20u);
    EXPECT_TRUE(r.consume(0x20));
    EXPECT_EQ(r.head_reg(), RingPointer::kHeadWrapOne | 0x10);
  }
}
