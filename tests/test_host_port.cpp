// HostPort: the live port waits by polling exactly as the script protocol's poll commands do and for interrupts as its
// irq_wait does, and the recording port turns waits into polls and irq_waits, branch reads into checks and counts the
// reads whose value it cannot know.
#include <cstring>

#include <gtest/gtest.h>

#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "tb/host/guc_driver.h"
#include "tb/host/host_port.h"
#include "tb/host/i915_driver.h"
#include "tests/support/sc_test.h"
#include "tests/support/timed_store.h"

using namespace gpuvp;

using test::kDramReadNs;
using test::TimedStore;

TEST(BusHostPort, WaitPollsEveryIntervalAndReturnsAtTheMatchingRead) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  TimedStore store("store", soc, 0x1000, 0xAB, sc_core::sc_time(1234, sc_core::SC_NS));
  host::BusHostPort port(soc.host(), 250);
  test::run_thread([&] {
    std::uint32_t last = 1;
    // Reads at 0, 250, ..., 1000 miss; the one at 1250 sees the store of 1234.
    EXPECT_TRUE(port.wait_for32(0x1000, 0xAB, 0xFF, 10'000, &last));
    EXPECT_EQ(last, 0xABu);
    EXPECT_EQ(core::now_ps(), (1250 + kDramReadNs) * core::kPsPerNs);
    // Time-out: reads at t, t + 250, t + 500 (the deadline), false with the last value read.
    const core::Picoseconds t = core::now_ps();
    EXPECT_FALSE(port.wait_for32(0x1000, 0xAC, ~0u, 500, &last));
    EXPECT_EQ(last, 0xABu);
    EXPECT_EQ(core::now_ps(), t + (500 + kDramReadNs) * core::kPsPerNs);
  });
  EXPECT_TRUE(port.failures().empty());
}

TEST(BusHostPort, ChecksAreReadsWithoutFailuresAndBlocksAndQwordsRead) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  test::run_thread([&] {
    std::vector<std::uint8_t> bytes(200);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7);
    port.write_block(0x2010, bytes.data(), bytes.size());
    std::vector<std::uint8_t> back(200);
    port.read_block(0x2010, back.data(), back.size());
    EXPECT_EQ(back, bytes);
    EXPECT_EQ(port.read64(0x2010), 0x312A'231C'150E'0700ull);  // bytes 0, 7, 14, ... little-endian
    std::uint32_t actual = 0;
    EXPECT_TRUE(port.check32(0x2010, 0x0E0700, 0xFFFFFF, &actual));
    EXPECT_FALSE(port.check32(0x2010, 0x0E0701, 0xFFFFFF, &actual));
    EXPECT_EQ(actual, 0x150E0700u);
  });
  EXPECT_TRUE(port.failures().empty());  // a check that does not match is the driver's business, not a failure
}

// Raises (and at once lowers again: a pulse) a host interrupt line at an exact simulated time.
struct TimedPulse : sc_core::sc_module {
  core::InterruptLine& line;
  sc_core::sc_time at;
  TimedPulse(sc_core::sc_module_name n, core::InterruptLine& l, sc_core::sc_time t) : sc_module(n), line(l), at(t) {
    SC_HAS_PROCESS(TimedPulse);
    SC_THREAD(run);
  }
  void run() {
    sc_core::wait(at);
    line.raise();
    line.lower();
  }
};

TEST(BusHostPort, WaitsForAnInterruptLineAsIrqWaitDoes) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  std::vector<const core::InterruptLine*> lines;
  for (const auto& [name, line] : soc.host_irqs()) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u);  // 0 gen, 1 vc4
  TimedPulse pulse("pulse", *soc.find_irq("vc4"), sc_core::sc_time(1234, sc_core::SC_NS));
  host::BusHostPort port(soc.host(), core::kDefaultPollIntervalNs, lines);
  test::run_thread([&] {
    // The pulse at 1234 ns ends the wait then, although the line is low again when the host resumes.
    EXPECT_TRUE(port.wait_irq(1, 10'000));
    EXPECT_EQ(core::now_ps(), 1234 * core::kPsPerNs);
    // Nothing raises the gen line: the wait ends at its time-out, false.
    EXPECT_FALSE(port.wait_irq(0, 500));
    EXPECT_EQ(core::now_ps(), (1234 + 500) * core::kPsPerNs);
    EXPECT_TRUE(port.failures().empty());
    // A line the port was not given is a failure, not a wait.
    EXPECT_FALSE(port.wait_irq(2, 500));
    EXPECT_EQ(core::now_ps(), (1234 + 500) * core::kPsPerNs);
  });
  ASSERT_EQ(port.failures().size(), 1u);
  EXPECT_EQ(port.failures()[0], "irq_wait: no interrupt line 2");
}

TEST(ScriptHostPort, InterruptWaitsAreIrqWaits) {
  host::ScriptHostPort port;
  EXPECT_TRUE(port.wait_irq(1, 20'000));
  EXPECT_EQ(port.unknown_reads(), 0u);
  EXPECT_EQ(port.script(), "irq_wait 1 20000\n");
}

TEST(ScriptHostPort, WaitsArePollsAndBranchReadsAreChecks) {
  host::ScriptHostPort port;
  std::uint32_t last = 0, actual = 0;
  EXPECT_TRUE(port.wait_for32(0x1000, 5, ~0u, 20'000, &last));
  EXPECT_EQ(last, 5u);  // a recording knows only the value it polled for
  EXPECT_TRUE(port.wait_for32(0xE000C314, 0, 0x10, 2'000'000));
  EXPECT_TRUE(port.check32(0xE000C000, 0x76 << 1, 0xFE, &actual));
  EXPECT_EQ(actual, 0xECu);
  EXPECT_EQ(port.unknown_reads(), 0u);
  EXPECT_EQ(port.script(),
            "polll 0x1000 0x5 20000\n"
            "polll 0xe000c314 0x0 0x10 2000000\n"
            "expectl 0xe000c000 0xec 0xfe\n");
}

TEST(ScriptHostPort, ReadsWhoseValueTheRecordingCannotKnowAreCounted) {
  host::ScriptHostPort port;
  std::uint8_t block[80];
  std::memset(block, 0xEE, sizeof block);
  EXPECT_EQ(port.read32(0x10), 0u);
  EXPECT_EQ(port.read64(0x20), 0u);
  port.read_block(0x40, block, sizeof block);
  EXPECT_EQ(block[0], 0);
  EXPECT_EQ(block[79], 0);
  EXPECT_EQ(port.unknown_reads(), 3u);
  EXPECT_EQ(port.script(),
            "readl 0x10  # value unknown to the recording\n"
            "readq 0x20  # value unknown to the recording\n"
            "read 0x40 64  # value unknown to the recording\n"
            "read 0x80 16  # value unknown to the recording\n");
}

TEST(ScriptHostPort, DriverWaitsAreRecordedAsPollsAndChecks) {
  // The i915 and GuC driver models as the demo records them: every wait a poll, every branch read a check.
  host::ScriptHostPort port;
  host::I915Driver i915(port);
  auto& ring = i915.create_ring(gen::Engine::kBcs);
  const std::uint32_t seqno = i915.emit_breadcrumb(ring);
  i915.submit(ring);
  EXPECT_TRUE(i915.wait_seqno(ring, seqno, 30'000));
  host::GucDriver guc(i915);
  EXPECT_EQ(guc.send({GUC_ACTION_SAMPLE_FORCEWAKE, 0}), GUC_REPLY_SUCCESS);
  EXPECT_TRUE(guc.reset());
  EXPECT_EQ(port.unknown_reads(), 0u);
  const std::string s = port.script();
  EXPECT_NE(s.find("polll " + core::format_hex(i915.seqno_address(ring)) + " 0x1 30000\n"), std::string::npos) << s;
  // The mailbox reply: a poll for the response bits (GUC_REPLY_SUCCESS is all of them).
  EXPECT_NE(s.find("polll 0xe000c180 0xf0000000 0xf0000000 200000\n"), std::string::npos) << s;
  // The reset: a poll for GDRST's GuC bit to clear, then a check that the GuC is in reset.
  EXPECT_NE(s.find("polll 0xe000941c 0x0 0x20 100000\nexpectl 0xe000c000 0x1 0x1\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("clock_step"), std::string::npos) << s;
}
