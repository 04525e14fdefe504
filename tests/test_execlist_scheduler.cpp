// The host driver model's execlists back end (tb/host/execlist_scheduler): a priority queue per engine feeding the two
// ELSP ports, CSB processing from the context-switch interrupt, preemption, coalescing and lite restores, checked
// against what the engine wrote (breadcrumbs, stores) and the CSB entries the handler consumed.
#include <gtest/gtest.h>

#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "tb/host/execlist_scheduler.h"
#include "tb/host/i915_driver.h"
#include "tests/support/driver_test.h"
#include "tests/support/model_footprint.h"
#include "tests/support/sc_test.h"
#include "tlm/gen/execlists.h"

using namespace gpuvp;
namespace mi = gen::mi;
using gen::Execlists;

namespace {

class SchedulerTest : public test::DriverTest {
 protected:
  // The (status, context ID) pairs the handler processed.
  static std::vector<std::pair<std::uint32_t, std::uint32_t>> log(const host::ExeclistScheduler& s) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    for (const auto& e : s.csb_log()) out.emplace_back(e.status, e.context_id);
    return out;
  }
};

using Entries = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

}  // namespace

TEST_F(SchedulerTest, HigherPriorityPreemptsAndTheRunningContextNeverBecomesElementOne) {
  std::uint32_t s_low1 = 0, s_low2 = 0, s_high = 0, low_id = 0, high_id = 0;
  host::I915Driver::Buffer out;
  std::vector<std::uint32_t> retired;
  test::run_thread([&] {
    host::ExeclistScheduler sched(driver_, gen::Engine::kRcs);
    const auto sem = driver_.alloc(4096);
    out = driver_.alloc(4096);
    driver_.upload(sem, 0, {0});
    auto& low = driver_.create_context(gen::Engine::kRcs);
    auto& high = driver_.create_context(gen::Engine::kRcs);
    low_id = low.id;
    high_id = high.id;
    driver_.emit(low, mi::arb_on_off(true));
    driver_.emit(low, mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual));
    driver_.emit(low, mi::store_data_imm(out.gfx + 0, 0x10, true));
    s_low1 = sched.add_request(low, 0);  // submitted at once: the engine is idle
    driver_.emit(low, mi::store_data_imm(out.gfx + 4, 0x11, true));
    s_low2 = sched.add_request(low, 0);  // queued: the first submission is not acknowledged yet
    driver_.emit(high, mi::store_data_imm(out.gfx + 8, 0x20, true));
    s_high = sched.add_request(high, 10);
    // The handler sees low running and high queued: it preempts with [high, -], not [high, low].
    while (sched.retired_seqnos().empty()) ASSERT_TRUE(sched.handle_interrupt(100'000));
    EXPECT_EQ(dram32(out.phys + 8), 0x20u);
    EXPECT_EQ(dram32(out.phys + 0), 0u);  // low still waits on its semaphore
    driver_.upload(sem, 0, {1});
    ASSERT_TRUE(sched.run_until_idle(100'000));
    retired = sched.retired_seqnos();
    EXPECT_EQ(log(sched), (Entries{{Execlists::kIdleToActive, 0},
                                   {Execlists::kPreempted, low_id},
                                   {Execlists::kComplete | Execlists::kActiveToIdle, high_id},
                                   {Execlists::kIdleToActive, 0},
                                   {Execlists::kComplete | Execlists::kActiveToIdle, low_id}}));
    EXPECT_EQ(sched.counts().elsp_writes, 3u);
    EXPECT_EQ(sched.counts().preemptions, 1u);
    EXPECT_TRUE(sched.idle());
  });
  EXPECT_EQ(retired, (std::vector<std::uint32_t>{s_high, s_low1, s_low2}));
  EXPECT_EQ(dram32(out.phys + 0), 0x10u);
  EXPECT_EQ(dram32(out.phys + 4), 0x11u);
}

TEST_F(SchedulerTest, EqualPrioritiesRunInOrderWithRequestsOfOneContextCoalescedIntoOnePort) {
  std::vector<std::uint32_t> retired, expected;
  host::I915Driver::Buffer out;
  test::run_thread([&] {
    host::ExeclistScheduler sched(driver_, gen::Engine::kVcs0);
    out = driver_.alloc(4096);
    host::I915Driver::Context* ctx[3];
    for (auto& c : ctx) c = &driver_.create_context(gen::Engine::kVcs0);
    std::uint32_t seqnos[2][3];
    for (int round = 0; round < 2; ++round) {
      for (int c = 0; c < 3; ++c) {
        driver_.emit(*ctx[c], mi::store_data_imm(out.gfx + 4 * (3 * round + c), 0x100 + 3 * round + c, true));
        seqnos[round][c] = sched.add_request(*ctx[c], 0);
      }
    }
    ASSERT_TRUE(sched.run_until_idle(100'000));
    retired = sched.retired_seqnos();
    // A first alone (engine idle), then [B, C] with both of their requests, then A's second request.
    expected = {seqnos[0][0], seqnos[0][1], seqnos[1][1], seqnos[0][2], seqnos[1][2], seqnos[1][0]};
    EXPECT_EQ(sched.counts().elsp_writes, 3u);
    EXPECT_EQ(sched.counts().preemptions, 0u);
    bool element_switch = false;
    for (const auto& e : sched.csb_log()) {
      if (e.status == (Execlists::kComplete | Execlists::kElementSwitch) && e.context_id == ctx[1]->id) {
        element_switch = true;
      }
    }
    EXPECT_TRUE(element_switch) << "B completed and the engine switched to C in port 1";
  });
  EXPECT_EQ(retired, expected);
  for (std::uint32_t i = 0; i < 6; ++i) EXPECT_EQ(dram32(out.phys + 4 * i), 0x100 + i) << i;
}

TEST_F(SchedulerTest, WorkForTheRunningContextIsAppendedByALiteRestore) {
  std::uint32_t s1 = 0, s2 = 0, id = 0;
  std::vector<std::uint32_t> retired;
  test::run_thread([&] {
    host::ExeclistScheduler sched(driver_, gen::Engine::kRcs);
    const auto sem = driver_.alloc(4096);
    driver_.upload(sem, 0, {0});
    auto& c = driver_.create_context(gen::Engine::kRcs);
    id = c.id;
    driver_.emit(c, mi::arb_on_off(true));
    driver_.emit(c, mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual));
    s1 = sched.add_request(c, 0);
    ASSERT_TRUE(sched.handle_interrupt(100'000));  // idle-to-active: c runs (and waits)
    s2 = sched.add_request(c, 0);                  // same context, port 1 free: resubmit it with the new tail
    driver_.upload(sem, 0, {1});
    ASSERT_TRUE(sched.run_until_idle(100'000));
    retired = sched.retired_seqnos();
    EXPECT_EQ(log(sched), (Entries{{Execlists::kIdleToActive, 0},
                                   {Execlists::kPreempted | Execlists::kLiteRestore, id},
                                   {Execlists::kComplete | Execlists::kActiveToIdle, id}}));
    EXPECT_EQ(sched.counts().lite_restores, 1u);
  });
  EXPECT_EQ(retired, (std::vector<std::uint32_t>{s1, s2}));
}

TEST_F(SchedulerTest, AContextOfAnotherEngineIsRefused) {
  test::run_thread([&] {
    host::ExeclistScheduler sched(driver_, gen::Engine::kRcs);
    auto& other = driver_.create_context(gen::Engine::kBcs);
    EXPECT_THROW(sched.add_request(other, 0), std::invalid_argument);
  });
}

// The soak's fact at small scale (issue 23; tb/bench/bench_soak runs 10^6): requests alternating between two contexts
// with 4 KiB rings, so every ring has wrapped by request 200; after 2000 the model holds no more than after 200.
TEST_F(SchedulerTest, TwoThousandRequestsLeaveTheModelNoLargerThanTwoHundred) {
  constexpr std::uint32_t kWarm = 200, kTotal = 2000;
  test::ModelFootprint warm, end;
  test::run_thread([&] {
    host::ExeclistScheduler sched(driver_, gen::Engine::kRcs);
    const auto out = driver_.alloc(4096);
    host::I915Driver::Context* ctx[2] = {&driver_.create_context(gen::Engine::kRcs, 4096),
                                         &driver_.create_context(gen::Engine::kRcs, 4096)};
    for (std::uint32_t i = 0; i < kTotal; ++i) {
      const std::uint32_t slot = 4 * (i % 1024);
      driver_.emit(*ctx[i & 1], mi::store_data_imm(out.gfx + slot, 0xC0DE0000 + i));
      const std::uint32_t seqno = sched.add_request(*ctx[i & 1], 0);
      ASSERT_TRUE(sched.run_until_idle(100'000)) << i;
      ASSERT_EQ(sched.retired_seqnos(), std::vector<std::uint32_t>{seqno}) << i;
      ASSERT_EQ(dram32(out.phys + slot), 0xC0DE0000 + i) << i;
      sched.clear_history();
      if (i + 1 == kWarm) warm = test::footprint(soc_);
    }
    end = test::footprint(soc_);
    EXPECT_EQ(sched.counts().retired, kTotal);
    EXPECT_EQ(sched.counts().elsp_writes, kTotal);  // one submission per request: each a context switch
  });
  EXPECT_GT(warm.dram_pages, 0u);
  EXPECT_EQ(end, warm);
}
