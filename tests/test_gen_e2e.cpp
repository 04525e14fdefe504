// End to end, driven as a driver drives it: the i915-like host driver model runs one workload live against the model
// (BusHostPort) and records the same workload as a host script that `gpuvp run --script` replays (ScriptHostPort).
#include <array>
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "tb/host/i915_driver.h"
#include "tests/support/run_gpuvp.h"
#include "tests/support/sc_test.h"

using namespace gpuvp;
namespace mi = gen::mi;

namespace {

// Two engines: RCS stores a pattern and releases a semaphore; BCS waits for it, then copies a value with LRM/SRM.
// Returns false if any wait or check failed.
bool workload(host::I915Driver& driver) {
  auto& port = driver.port();
  const auto data = driver.alloc(4096);
  const auto sem = driver.alloc(4096);
  driver.upload(sem, 0, {0});
  driver.enable_interrupts(gen::Engine::kRcs);
  driver.enable_interrupts(gen::Engine::kBcs);
  auto& rcs = driver.create_ring(gen::Engine::kRcs, 4096);
  auto& bcs = driver.create_ring(gen::Engine::kBcs, 4096);

  driver.emit(bcs, mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual));
  // BCS CS_GPR0 <- data[0], data[1] <- CS_GPR0
  driver.emit(bcs, mi::load_register_mem(0x22000 + 0x600, data.gfx));
  driver.emit(bcs, mi::store_register_mem(0x22000 + 0x600, data.gfx + 4));
  const std::uint32_t bcs_seqno = driver.emit_breadcrumb(bcs);

  driver.emit(rcs, mi::store_data_imm(data.gfx, 0xFEEDBEEF));
  driver.emit(rcs, mi::store_qword_imm(data.gfx + 8, 0x1122334455667788ull));
  driver.emit(rcs, mi::store_data_imm(sem.gfx, 1));
  const std::uint32_t rcs_seqno = driver.emit_breadcrumb(rcs);

  driver.submit(bcs);  // waits on the semaphore first
  driver.submit(rcs);
  bool ok = driver.wait_seqno(rcs, rcs_seqno, 50'000);
  ok = driver.wait_seqno(bcs, bcs_seqno, 50'000) && ok;
  ok = port.expect32(data.phys, 0xFEEDBEEF) && ok;
  ok = port.expect32(data.phys + 4, 0xFEEDBEEF) && ok;
  ok = port.expect32(data.phys + 8, 0x55667788) && ok;
  ok = port.expect32(data.phys + 12, 0x11223344) && ok;
  // Both engines raise their user interrupt (RCS bit 0 and BCS bit 16 of GEN8_GT_IIR(0)) a few cycles after their
  // breadcrumb store: a driver that saw the seqno waits for it.
  ok = port.wait_for32(driver.layout().bar + 0x44308, 0x00010001, 0x00010001, 1'000) && ok;
  return ok;
}

using Result = test::ProcessResult;
Result run(const std::string& args) { return test::run_gpuvp(args); }

}  // namespace

TEST(GenEndToEnd, DriverModelRunsTwoEnginesLive) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  host::BusHostPort port(soc.host());
  host::I915Driver driver(port);
  bool ok = false;
  test::run_thread([&] {
    ok = workload(driver);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));  // the ring's padding NOOPs run after the interrupt
  });
  EXPECT_TRUE(ok);
  for (const auto& f : port.failures()) ADD_FAILURE() << f;
  EXPECT_EQ(soc.gen()->engine(gen::Engine::kBcs)->commands_executed(), 8u);  // SEM, LRM, SRM, SDI, USER_INT, 3 NOOP
  EXPECT_GE(core::stats().counter_value("gpuvp.gen.bcs.semaphore_polls"), 1u);
}

TEST(GenEndToEnd, SameWorkloadAsAHostScriptThroughTheExecutable) {
  host::ScriptHostPort port;
  host::I915Driver driver(port);
  workload(driver);
  EXPECT_EQ(port.unknown_reads(), 0u);  // every value the driver needed is a poll or a check
  const std::string path = ::testing::TempDir() + "gen_e2e.gpuvp";
  std::ofstream(path) << port.script();
  Result r = run("run --script " + path);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("outcome:        completed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("ERR"), std::string::npos) << r.out;
}

TEST(GenEndToEnd, AScriptThatExpectsTheWrongValueFails) {
  host::ScriptHostPort port;
  host::I915Driver driver(port);
  const auto data = driver.alloc(4096);
  auto& ring = driver.create_ring(gen::Engine::kVecs);
  driver.emit(ring, mi::store_data_imm(data.gfx, 7));
  const std::uint32_t seqno = driver.emit_breadcrumb(ring);
  driver.submit(ring);
  driver.wait_seqno(ring, seqno, 10'000);
  port.expect32(data.phys, 8);
  const std::string path = ::testing::TempDir() + "gen_e2e_bad.gpuvp";
  std::ofstream(path) << port.script();
  Result r = run("run --quiet --script " + path);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("expected 0x8, actual 0x7"), std::string::npos) << r.out;
}
