// Timing helpers: the integer <-> sc_time conversions every hot path relies on, clock domains and local time.
#include <systemc>

#include <gtest/gtest.h>

#include "tlm/core/timing.h"

namespace gpuvp::core {
namespace {

TEST(Timing, ConversionToScTimeIsExactAcrossTheDoublePrecisionBoundary) {
  // Below 2^52 the inline path scales 1 ps by a double; above it the library's from_value(). Both must be exact
  // (at 2^53 - 1 sc_time's rounding of value + 0.5 would be off by one).
  const Picoseconds values[] = {0,
                                1,
                                999,
                                1'000'000,
                                (Picoseconds{1} << 52) - 1,
                                Picoseconds{1} << 52,
                                (Picoseconds{1} << 53) - 1,
                                Picoseconds{1} << 53,
                                (Picoseconds{1} << 53) + 1,
                                (Picoseconds{1} << 62) + 12345,
                                ~Picoseconds{0}};
  for (Picoseconds ps : values) {
    EXPECT_EQ(to_sc_time(ps).value(), ps) << ps;
    EXPECT_EQ(to_ps(to_sc_time(ps)), ps) << ps;
  }
  EXPECT_EQ(to_sc_time(1500), sc_core::sc_time(1.5, sc_core::SC_NS));
}

TEST(Timing, ClockDomainConvertsCyclesToPicoseconds) {
  ClockDomain gpu("gpu", 1'000'000'000);
  EXPECT_EQ(gpu.period_ps(), 1000u);
  EXPECT_EQ(gpu.cycles(60), 60'000u);
  ClockDomain vc4("vc4", 250'000'000);
  EXPECT_EQ(vc4.period_ps(), 4000u);
  EXPECT_THROW(ClockDomain("bad", 0), std::invalid_argument);
}

}  // namespace
}  // namespace gpuvp::core
