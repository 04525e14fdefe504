// Interrupt lines: level, rising-edge counting, change listeners and the raised event.
#include <cstdint>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/sc_test.h"
#include "tlm/core/interrupt_line.h"

using namespace gpuvp;
using sc_core::SC_NS;
using sc_core::sc_time;

TEST(InterruptLine, LevelFollowsSetRaiseAndLower) {
  core::InterruptLine line("gen");
  EXPECT_EQ(line.name(), "gen");
  EXPECT_FALSE(line.level());  // starts low
  line.raise();
  EXPECT_TRUE(line.level());
  line.raise();  // already high
  EXPECT_TRUE(line.level());
  line.lower();
  EXPECT_FALSE(line.level());
  line.set(true);
  EXPECT_TRUE(line.level());
  line.set(false);
  EXPECT_FALSE(line.level());
}

TEST(InterruptLine, RaiseCountCountsRisingEdgesOnly) {
  core::InterruptLine line("vc4");
  EXPECT_EQ(line.raise_count(), 0u);
  line.lower();  // low -> low: nothing
  EXPECT_EQ(line.raise_count(), 0u);
  line.raise();  // edge 1
  line.raise();  // high -> high: not an edge
  line.set(true);
  EXPECT_EQ(line.raise_count(), 1u);
  line.lower();  // falling edges are not counted
  EXPECT_EQ(line.raise_count(), 1u);
  line.lower();
  line.set(true);  // edge 2
  line.set(false);
  line.raise();  // edge 3
  EXPECT_EQ(line.raise_count(), 3u);
}

TEST(InterruptLine, ListenersAreCalledOnChangesOnlyWithTheNewLevel) {
  core::InterruptLine line("irq");
  std::vector<bool> first, second;
  line.on_change([&](bool level) { first.push_back(level); });
  line.lower();  // no change: no call
  EXPECT_TRUE(first.empty());
  line.raise();                                                  // change -> true
  line.raise();                                                  // no change
  line.on_change([&](bool level) { second.push_back(level); });  // sees only later changes
  line.lower();                                                  // change -> false
  line.lower();                                                  // no change
  line.raise();                                                  // change -> true
  EXPECT_EQ(first, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(second, (std::vector<bool>{false, true}));
}

TEST(InterruptLine, ListenerSeesTheNewLevelAndCountAlreadyApplied) {
  core::InterruptLine line("irq");
  std::vector<std::pair<bool, std::uint64_t>> seen;
  line.on_change([&](bool level) {
    EXPECT_EQ(line.level(), level);
    seen.emplace_back(line.level(), line.raise_count());
  });
  line.raise();
  line.lower();
  line.raise();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], std::make_pair(true, std::uint64_t{1}));
  EXPECT_EQ(seen[1], std::make_pair(false, std::uint64_t{1}));
  EXPECT_EQ(seen[2], std::make_pair(true, std::uint64_t{2}));
}

namespace {
// Waits for rising edges of a line and records when each one woke it.
struct Waiter : sc_core::sc_module {
  core::InterruptLine& line;
  std::vector<sc_time> woken;
  std::vector<bool> level_seen;
  Waiter(sc_core::sc_module_name n, core::InterruptLine& l) : sc_module(n), line(l) {
    SC_HAS_PROCESS(Waiter);
    SC_THREAD(run);
  }
  void run() {
    for (;;) {
      sc_core::wait(line.raised_event());
      woken.push_back(sc_core::sc_time_stamp());
      level_seen.push_back(line.level());
    }
  }
};
}  // namespace

TEST(InterruptLine, RaisedEventWakesAWaitingThreadOnRisingEdgesOnly) {
  core::InterruptLine line("gen");
  Waiter waiter("waiter", line);
  test::run_thread([&] {
    sc_core::wait(10, SC_NS);
    line.raise();                       // wakes the waiter at 10 ns (one delta later)
    EXPECT_TRUE(waiter.woken.empty());  // not within the raising process's own evaluation
    sc_core::wait(10, SC_NS);
    ASSERT_EQ(waiter.woken.size(), 1u);
    EXPECT_EQ(waiter.woken[0], sc_time(10, SC_NS));
    line.raise();  // 20 ns: already high, no edge, no wake-up
    sc_core::wait(5, SC_NS);
    line.lower();  // 25 ns: falling edge, no wake-up
    sc_core::wait(5, SC_NS);
    EXPECT_EQ(waiter.woken.size(), 1u);
    line.raise();  // 30 ns: second rising edge
    sc_core::wait(1, SC_NS);
    ASSERT_EQ(waiter.woken.size(), 2u);
    EXPECT_EQ(waiter.woken[1], sc_time(30, SC_NS));
    line.lower();  // 31 ns: back low, no wake-up
    sc_core::wait(1, SC_NS);
    EXPECT_EQ(waiter.woken.size(), 2u);
    // 32 ns: raise and lower within one evaluation. The edge is counted and the event still fires, but the waiter
    // then sees the line low again.
    line.raise();
    line.lower();
    sc_core::wait(1, SC_NS);
    ASSERT_EQ(waiter.woken.size(), 3u);
    EXPECT_EQ(waiter.woken[2], sc_time(32, SC_NS));
  });
  EXPECT_EQ(line.raise_count(), 3u);
  ASSERT_EQ(waiter.level_seen.size(), 3u);
  EXPECT_TRUE(waiter.level_seen[0]);
  EXPECT_TRUE(waiter.level_seen[1]);
  EXPECT_FALSE(waiter.level_seen[2]);
}
