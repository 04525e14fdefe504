// EngineKit, FetchLine and Initiator: the machinery active blocks share (local time, states and busy time, the
// progress watchdog, errors and hangs, timed accesses, the fetch line) and the one bus initiator with its DMI path.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "tests/support/sc_test.h"
#include "tlm/core/bus.h"
#include "tlm/core/engine_kit.h"
#include "tlm/core/initiator.h"
#include "tlm/core/memory.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"
#include "tlm/core/timeline.h"

namespace core = gpuvp::core;
namespace test = gpuvp::test;
using core::EngineState;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

constexpr core::Picoseconds kNs = core::kPsPerNs;

// 1 GHz: one cycle is 1 ns.
const core::ClockDomain& gigahertz() {
  static const core::ClockDomain clock("test", 1'000'000'000ULL);
  return clock;
}

core::MemoryParams memory_params() {
  core::MemoryParams p;
  p.size = 1 << 20;
  p.read_latency_cycles = 10;
  p.write_latency_cycles = 5;
  p.bytes_per_cycle = 8;
  p.clock_hz = 1'000'000'000;
  return p;
}

std::string temp_path(const std::string& tag) {
  return ::testing::TempDir() + "gpuvp_test_engine_kit_" + tag + "_" + std::to_string(::getpid()) + ".json";
}

nlohmann::json read_trace(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  std::remove(path.c_str());
  return nlohmann::json::parse(buf.str());
}

}  // namespace

TEST(EngineKit, StatesHaveNamesAndOnlyErrorAndHungHalt) {
  EXPECT_STREQ(core::to_string(EngineState::kIdle), "idle");
  EXPECT_STREQ(core::to_string(EngineState::kRunning), "running");
  EXPECT_STREQ(core::to_string(EngineState::kStopped), "stopped");
  EXPECT_STREQ(core::to_string(EngineState::kError), "error");
  EXPECT_STREQ(core::to_string(EngineState::kHung), "hung");
  core::EngineKit kit("soc.block", gigahertz(), 1000 * kNs, EngineState::kStopped);
  EXPECT_EQ(kit.state(), EngineState::kStopped);
  for (EngineState s : {EngineState::kIdle, EngineState::kRunning, EngineState::kStopped}) {
    kit.set_state(s);
    EXPECT_FALSE(kit.halted()) << core::to_string(s);
  }
  for (EngineState s : {EngineState::kError, EngineState::kHung}) {
    kit.set_state(s);
    EXPECT_TRUE(kit.halted()) << core::to_string(s);
  }
}

TEST(EngineKit, BusyTimeAndBusySpansFollowTheRunningStateAtTheLocalTime) {
  const std::string path = temp_path("busy");
  core::timeline().open(path);
  core::EngineKit kit("soc.block", gigahertz(), 1000 * kNs, EngineState::kIdle);
  test::run_thread([&] {
    sc_core::wait(100, SC_NS);
    kit.cycles(20);  // local time 120 ns
    kit.set_state(EngineState::kRunning);
    kit.cycles(30);                      // 150 ns
    kit.set_state(EngineState::kError);  // not running any more: the span ends
    kit.set_state(EngineState::kIdle);   // no second span
    kit.time().sync();
    EXPECT_EQ(core::now_ps(), 150 * kNs);
  });
  const core::BusyTime& busy = core::stats().busy_time("soc.block.busy");
  EXPECT_EQ(busy.at(1000 * kNs), 30 * kNs);
  core::timeline().close();
  const nlohmann::json doc = read_trace(path);
  int spans = 0;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    ++spans;
    EXPECT_EQ(e.at("name"), "busy");
    EXPECT_DOUBLE_EQ(e.at("ts").get<double>(), 0.120);   // microseconds
    EXPECT_DOUBLE_EQ(e.at("dur").get<double>(), 0.030);  // microseconds
  }
  EXPECT_EQ(spans, 1);
  const nlohmann::json metrics = core::stats().metrics_json();
  EXPECT_EQ(metrics.at("soc.block.busy").at("kind"), "busy_time");
  EXPECT_FALSE(metrics.at("soc.block.errors").at("description").get<std::string>().empty());
}

TEST(EngineKit, WatchdogExpiresOnlyAfterTheHangTimeoutWithoutProgress) {
  core::EngineKit kit("soc.block", gigahertz(), 100 * kNs, EngineState::kIdle);
  test::run_thread([&] {
    kit.set_state(EngineState::kRunning);
    kit.progress();  // at 0
    EXPECT_EQ(kit.watchdog_deadline(), 100 * kNs + 1);
    kit.cycles(100);
    EXPECT_FALSE(kit.watchdog_expired());  // exactly the timeout: not yet
    kit.cycles(1);
    EXPECT_TRUE(kit.watchdog_expired());
    kit.progress();
    EXPECT_FALSE(kit.watchdog_expired());
    EXPECT_EQ(kit.watchdog_deadline(), 201 * kNs + 1);
  });
}

TEST(EngineKit, ProgressByMarkCountsOnlyBeyondTheFurthestMarkReached) {
  core::EngineKit kit("soc.block", gigahertz(), 100 * kNs, EngineState::kIdle);
  test::run_thread([&] {
    kit.set_high_water(0x1000);
    kit.progress();
    kit.cycles(60);
    kit.progress_to(0x1010);  // new ground: progress at 60 ns
    kit.cycles(60);           // 120 ns
    EXPECT_FALSE(kit.watchdog_expired());
    kit.progress_to(0x1008);  // a loop re-executing bytes below the mark: no progress
    kit.progress_to(0x1010);
    kit.cycles(50);  // 170 ns: 110 ns since the last progress
    EXPECT_TRUE(kit.watchdog_expired());
    kit.set_high_water(0x2000);  // a new stream
    kit.progress_to(0x1FFF);
    EXPECT_TRUE(kit.watchdog_expired());
    kit.progress_to(0x2004);
    EXPECT_FALSE(kit.watchdog_expired());
  });
}

TEST(EngineKit, ErrorsAndHangsAreCountedKeptAndReportedAsGuestErrors) {
  core::EngineKit kit("soc.block", gigahertz(), 100 * kNs, EngineState::kIdle);
  kit.record_error("bad command at 0x40");
  kit.record_hang("block hung: no progress");
  EXPECT_EQ(kit.errors(), 1u);
  EXPECT_EQ(kit.hangs(), 1u);
  EXPECT_EQ(core::stats().counter_value("soc.block.errors"), 1u);
  EXPECT_EQ(core::stats().counter_value("soc.block.hangs"), 1u);
  ASSERT_EQ(kit.incidents().size(), 2u);
  EXPECT_EQ(kit.incidents()[0], "error: bad command at 0x40");
  EXPECT_EQ(kit.incidents()[1], "hang: block hung: no progress");
  const auto reports = test::take_reports(sc_core::SC_ERROR);
  ASSERT_EQ(reports.size(), 2u);
  for (const auto& r : reports) {
    EXPECT_TRUE(r.guest());
    EXPECT_EQ(r.source, "soc.block");
  }
  EXPECT_EQ(reports[0].message, "bad command at 0x40");
  EXPECT_EQ(sc_core::sc_report_handler::get_count(core::kGuestMsgType, sc_core::SC_ERROR), 2);
}

// A guest that fails and is reset forever: every error is counted, the incident list and the shown reports stay
// bounded (the first kMaxIncidents incidents, the first 10 reports of the kind and a notice).
TEST(EngineKit, ErrorsWithoutEndKeepABoundedIncidentListAndAreAllCounted) {
  core::EngineKit kit("soc.block", gigahertz(), 100 * kNs, EngineState::kIdle);
  for (int i = 0; i < 1000; ++i) kit.record_error("bad command at " + core::format_hex(i));
  EXPECT_EQ(kit.errors(), 1000u);
  ASSERT_EQ(kit.incidents().size(), core::kMaxIncidents + 1);
  EXPECT_EQ(kit.incidents()[63], "error: bad command at 0x3f");
  EXPECT_EQ(kit.incidents()[64], "(further incidents not listed: the statistics count them)");
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR).size(), core::kDefaultGuestReportLimit + 1);
  EXPECT_EQ(core::suppressed_guest_reports(sc_core::SC_ERROR), 1000u - core::kDefaultGuestReportLimit - 1);
}

TEST(EngineKit, TimedAccessesAddTheBusAndTargetTimeToTheLocalTime) {
  core::Bus bus("bus");
  core::Memory mem("mem", memory_params());
  core::Initiator port("port", core::Initiator::Counting::kReadsAndWrites);
  bus.attach_initiator(port.socket, "port");
  bus.attach_target(mem.socket, "mem", 0x4000'0000, 1 << 20, {2, 0});
  core::EngineKit kit("soc.block", gigahertz(), 100'000 * kNs, EngineState::kIdle);
  test::run_thread([&] {
    const std::uint32_t v = 0x12345678;
    ASSERT_EQ(kit.write(port, 0x4000'0010, &v, 4), tlm::TLM_OK_RESPONSE);
    const core::Picoseconds after_write = kit.time().offset_ps();
    std::uint32_t r = 0;
    ASSERT_EQ(kit.read(port, 0x4000'0010, &r, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(r, v);
    const core::Picoseconds after_read = kit.time().offset_ps();
    // Nothing synchronised: the time is all local, and it is what the same accesses cost with a delay of their own.
    EXPECT_EQ(core::now_ps(), 0u);
    sc_time delay = sc_core::SC_ZERO_TIME;
    ASSERT_EQ(port.write(0x4000'0020, &v, 4, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(core::to_ps(delay), after_write);
    ASSERT_EQ(port.read(0x4000'0020, &r, 4, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(core::to_ps(delay), after_read);
    EXPECT_GT(after_write, 0u);
    EXPECT_GT(after_read, after_write);
    EXPECT_EQ(kit.read(port, 0x1000, &r, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);  // no target there
  });
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "no target at 0x1000").size(), 1u);
  EXPECT_EQ(port.reads(), 3u);
  EXPECT_EQ(port.writes(), 2u);
  EXPECT_EQ(core::stats().counter_value("port.errors"), 1u);
}

TEST(EngineKit, CatchUpWaitsOutTheOffsetOrWakesEarlyKeepingTheRest) {
  core::EngineKit kit("soc.block", gigahertz(), 100'000 * kNs, EngineState::kIdle);
  sc_core::sc_event kick;
  test::run_thread([&] {
    kit.cycles(50);
    EXPECT_FALSE(kit.catch_up_or(kick));  // nothing else happens: the whole offset
    EXPECT_EQ(core::now_ps(), 50 * kNs);
    EXPECT_EQ(kit.time().offset_ps(), 0u);
    EXPECT_FALSE(kit.catch_up_or(kick));  // no offset: no wait
    EXPECT_EQ(core::now_ps(), 50 * kNs);
    kit.cycles(100);
    kick.notify(30, SC_NS);
    EXPECT_TRUE(kit.catch_up_or(kick));
    EXPECT_EQ(core::now_ps(), 80 * kNs);
    EXPECT_EQ(kit.time().offset_ps(), 70 * kNs);  // the local time is unchanged: 150 ns
    EXPECT_EQ(kit.now(), 150 * kNs);
  });
}

TEST(FetchLine, HoldsOneTaggedLineAndDropsItOnWritesToItsPhysicalLine) {
  core::FetchLine line(64);
  EXPECT_EQ(line.size(), 64u);
  EXPECT_EQ(line.line_of(0x1234), 0x1200u);
  EXPECT_FALSE(line.holds(0));  // empty
  for (unsigned i = 0; i < 64; ++i) line.buffer()[i] = static_cast<std::uint8_t>(i);
  line.filled(0x1200, 1, 0x8000'0200);
  EXPECT_TRUE(line.holds(0x1200, 1));
  EXPECT_TRUE(line.holds(0x123F, 1));
  EXPECT_FALSE(line.holds(0x1240, 1));  // the next line
  EXPECT_FALSE(line.holds(0x1200, 0));  // same address, other address space
  EXPECT_EQ(line.dword(0x1208), 0x0B0A0908u);
  EXPECT_EQ(*line.at(0x123F), 0x3F);
  // A window starting inside the line may read past its end into the padding.
  std::uint8_t window[60];
  std::memcpy(window, line.at(0x123C) + 4, sizeof window);
  line.written(0x8000'0100);  // another physical line
  EXPECT_TRUE(line.holds(0x1200, 1));
  line.written(0x8000'023C);
  EXPECT_FALSE(line.holds(0x1200, 1));
  line.filled(0x1200, 1, 0x8000'0200);
  line.invalidate();
  EXPECT_FALSE(line.holds(0x1200, 1));
}

TEST(FetchLine, SizeMustBeAPowerOfTwo) {
  for (unsigned bytes : {0u, 3u, 48u, 100u}) {
    EXPECT_THROW(core::FetchLine{bytes}, std::invalid_argument) << bytes;
  }
  EXPECT_EQ(core::FetchLine(4096).size(), 4096u);
}

TEST(Initiator, ReportsTransactionsOrReadsAndWritesAsItsOwnerChooses) {
  core::Bus bus("bus");
  core::Memory mem("mem", memory_params());
  core::Initiator cpu("cpu");  // a CPU: bus transactions
  core::Initiator port("port", core::Initiator::Counting::kReadsAndWrites);
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_initiator(port.socket, "port");
  bus.attach_target(mem.socket, "mem", 0, 1 << 20, {2, 0});
  test::run_thread([&] {
    std::uint32_t v = 7;
    ASSERT_EQ(cpu.write_value<std::uint32_t>(0x100, 7), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(cpu.read_value<std::uint32_t>(0x100), 7u);
    sc_time delay = sc_core::SC_ZERO_TIME;
    ASSERT_EQ(port.write(0x200, &v, 4, delay), tlm::TLM_OK_RESPONSE);
  });
  EXPECT_TRUE(core::stats().has("cpu.transactions"));
  EXPECT_FALSE(core::stats().has("cpu.reads"));
  EXPECT_EQ(core::stats().counter_value("cpu.transactions"), 2u);
  EXPECT_TRUE(core::stats().has("port.reads"));
  EXPECT_TRUE(core::stats().has("port.writes"));
  EXPECT_FALSE(core::stats().has("port.transactions"));
  EXPECT_EQ(core::stats().counter_value("port.writes"), 1u);
  for (const char* name : {"cpu", "port"}) {
    EXPECT_TRUE(core::stats().has(std::string(name) + ".dmi_accesses"));
    EXPECT_TRUE(core::stats().has(std::string(name) + ".errors"));
  }
  // Counters not reported still count (the accessors).
  EXPECT_EQ(cpu.reads(), 1u);
  EXPECT_EQ(cpu.writes(), 1u);
  EXPECT_EQ(port.transactions(), 1u);
}
