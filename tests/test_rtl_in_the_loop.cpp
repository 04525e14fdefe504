// RTL in the loop: gen.ring_model=rtl puts the verilated rtl/ring_ptr.sv behind every engine's ring registers. A
// live workload that wraps a 4 KiB ring many times gives the values the commands wrote and the HEAD/TAIL/wrap count
// registers the ring arithmetic predicts; gen.ring_model=rtl_lockstep clocks the block on every engine clock cycle;
// the demo gives bit-identical statistics in every mode. (The command
// streamer, execlist and end-to-end suites also run in rtl mode: the rtl.* tests of tests/CMakeLists.txt.)
#include <algorithm>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "rtl/rtl_ring_pointer.h"
#include "tb/host/i915_driver.h"
#include "tests/support/run_gpuvp.h"
#include "tests/support/sc_test.h"

using namespace gpuvp;
namespace mi = gen::mi;

namespace {
std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
}  // namespace

TEST(RtlInTheLoop, EveryEngineRunsOnTheVerilatedBlockAndWrapsItsRing) {
  platform::PlatformParams params;
  params.gen.gpu.ring_model = "rtl";
  platform::Platform soc("gpuvp", params);
  for (int e = 0; e < gen::kEngineCount; ++e) {
    ASSERT_TRUE(soc.gen()->engine(static_cast<gen::Engine>(e))->ring().external()) << "engine " << e;
  }
  host::BusHostPort port(soc.host());
  host::I915Driver driver(port);
  bool ok = true;
  test::run_thread([&] {
    const auto data = driver.alloc(4096);
    auto& ring = driver.create_ring(gen::Engine::kVcs1, 4096);
    // 16 bytes per store: 400 stores are 6400 bytes of commands plus breadcrumbs, more than one lap of 4 KiB.
    for (std::uint32_t batch = 0; batch < 20; ++batch) {
      for (std::uint32_t i = 0; i < 20; ++i) {
        const std::uint32_t n = batch * 20 + i;
        driver.emit(ring, mi::store_data_imm(data.gfx + 4 * (n % 1024), 0x5000 + n));
      }
      const std::uint32_t seqno = driver.emit_breadcrumb(ring);
      driver.submit(ring);
      ok = driver.wait_seqno(ring, seqno, 100'000) && ok;
    }
    for (std::uint32_t n = 0; n < 400; ++n) ok = port.expect32(data.phys + 4 * n, 0x5000 + n) && ok;
    const std::uint32_t base = gen::engine_info(gen::Engine::kVcs1).mmio_base;
    const std::uint32_t head = driver.mmio_read(base + gen::engine_reg::kHead);
    const std::uint32_t tail = driver.mmio_read(base + gen::engine_reg::kTail);
    // Idle: HEAD caught up with TAIL; the ring wrapped at least once, and the wrap count agrees with the bytes.
    EXPECT_EQ(head & 0x1FFFFC, tail);
    EXPECT_GE(head >> 21, 1u);
    EXPECT_EQ(driver.mmio_read(base + gen::engine_reg::kCtl) & 0x1FF001, 0x1u);  // 4 KiB, enabled
  });
  EXPECT_TRUE(ok);
  for (const auto& f : port.failures()) ADD_FAILURE() << f;
}

TEST(RtlInTheLoop, LockstepBlockSeesEveryEngineClockCycle) {
  platform::PlatformParams params;
  params.gen.gpu.ring_model = "rtl_lockstep";
  platform::Platform soc("gpuvp", params);
  gen::CommandStreamer& engine = *soc.gen()->engine(gen::Engine::kBcs);
  auto* block = dynamic_cast<rtl::RtlRingPointer*>(engine.ring().model());
  ASSERT_NE(block, nullptr);
  host::BusHostPort port(soc.host());
  host::I915Driver driver(port);
  bool ok = true;
  std::uint64_t cycle_at_last_submit = 0, cycle_at_end = 0;
  test::run_thread([&] {
    const auto data = driver.alloc(4096);
    auto& ring = driver.create_ring(gen::Engine::kBcs, 4096);
    for (std::uint32_t batch = 0; batch < 5; ++batch) {
      for (std::uint32_t i = 0; i < 8; ++i)
        driver.emit(ring, mi::store_data_imm(data.gfx + 4 * (8 * batch + i), batch));
      const std::uint32_t seqno = driver.emit_breadcrumb(ring);
      driver.submit(ring);
      cycle_at_last_submit = soc.gen()->clock().cycles_in(core::now_ps());
      ok = driver.wait_seqno(ring, seqno, 100'000) && ok;
    }
    for (std::uint32_t n = 0; n < 40; ++n) ok = port.expect32(data.phys + 4 * n, n / 8) && ok;
    cycle_at_end = soc.gen()->clock().cycles_in(core::now_ps());
  });
  EXPECT_TRUE(ok);
  for (const auto& f : port.failures()) ADD_FAILURE() << f;
  // Every cycle from power-on to the last ring operation was clocked: at least up to the last TAIL write, never
  // beyond the end of the run; the operations themselves (register writes, one consume per command) are the rest.
  EXPECT_GE(block->cycles(), cycle_at_last_submit);
  EXPECT_LE(block->cycles(), cycle_at_end);
  EXPECT_GT(block->idle_cycles(), 10 * (block->cycles() - block->idle_cycles()));
  EXPECT_GE(block->cycles() - block->idle_cycles(), engine.commands_executed());
}

TEST(RtlInTheLoop, DemoGivesIdenticalStatisticsInEveryMode) {
  const std::string a = ::testing::TempDir() + "tlm.json", b = ::testing::TempDir() + "rtl.json";
  const auto tlm = test::run_gpuvp("run --stats " + a + " --set gen.ring_model=tlm");
  const auto rtl = test::run_gpuvp("run --stats " + b + " --set gen.ring_model=rtl");
  ASSERT_EQ(tlm.exit_code, 0) << tlm.out;
  ASSERT_EQ(rtl.exit_code, 0) << rtl.out;
  auto ja = nlohmann::json::parse(slurp(a));
  auto jb = nlohmann::json::parse(slurp(b));
  EXPECT_EQ(ja["config"]["gen"]["ring_model"], "tlm");
  EXPECT_EQ(jb["config"]["gen"]["ring_model"], "rtl");
  EXPECT_GT(ja["stats"]["gpuvp"]["gen"]["rcs"]["commands"].get<int>(), 0);
  EXPECT_EQ(ja["stats"], jb["stats"]);
  jb["config"]["gen"]["ring_model"] = "tlm";
  EXPECT_EQ(ja["config"], jb["config"]);
  const std::string c = ::testing::TempDir() + "rtl_lockstep.json";
  const auto lockstep = test::run_gpuvp("run --stats " + c + " --set gen.ring_model=rtl_lockstep");
  ASSERT_EQ(lockstep.exit_code, 0) << lockstep.out;
  EXPECT_EQ(nlohmann::json::parse(slurp(c))["stats"], ja["stats"]);
  // The run summaries match line by line, except the host's wall time / speed and the statistics file name.
  auto strip = [](const std::string& out) {
    std::istringstream in(out);
    std::string line, kept;
    while (std::getline(in, line)) {
      const bool host_figure = line.find("wall time:") != std::string::npos ||
                               line.find("speed:") != std::string::npos ||
                               line.find("statistics:") != std::string::npos;
      if (!host_figure) kept += line + "\n";
    }
    return kept;
  };
  EXPECT_EQ(strip(tlm.out), strip(rtl.out));
}

TEST(RtlInTheLoop, UnknownRingModelIsAOneLineConfigError) {
  const auto r = test::run_gpuvp("run --quiet --set gen.ring_model=verilog");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("gen.ring_model"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}
