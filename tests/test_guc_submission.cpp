// GuC submission: clients with a doorbell cacheline, process descriptor and work queue (i915 v4.x
// intel_guc_submission.c, intel_guc_fwif.h struct guc_process_desc / guc_wq_item); the firmware consumes work items
// on the doorbell interrupt, writes the ring tail into the context image and submits through the engine's ELSP; it
// learns completions from the context status buffer when the context-switch interrupt, steered to the GuC as i915's
// guc_interrupts_capture does, arrives, and reports them to the host in the CT receive buffer; clients are served by
// priority, round robin within a priority; every engine is scheduled; the same workload gives the same memory as
// execlist submission; malformed work items stop the client's queue with the i915 WQ_STATUS codes and an error
// offset, never the host.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

#include <gtest/gtest.h>

#include "firmware/guc/guc_abi.h"
#include "firmware/tools/guc_image.h"
#include "hw/gen/gt_interrupt_regs.h"
#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "tb/host/guc_driver.h"
#include "tb/host/i915_driver.h"
#include "tests/support/model_footprint.h"
#include "tests/support/run_gpuvp.h"
#include "tests/support/sc_test.h"

using namespace gpuvp;
namespace mi = gen::mi;

namespace {

// The driver's whole GuC submission path on two engines, written against HostPort so that it runs live and as a
// host script: load, CT channel, execlists + interrupt capture on RCS and BCS, one client, one work item per engine,
// then the checks (memory, the work queue consumed, two completion events in the CT receive buffer). A script cannot
// read values back, so every check is a wait or an expect of the port.
void guc_workload(host::I915Driver& i915, host::GucDriver& guc) {
  host::HostPort& port = i915.port();
  guc.load(firmware::read_file(firmware::default_firmware_path()));
  port.wait_for32(i915.layout().bar + GUC_REG_STATUS, GUC_UKERNEL_READY << GUC_STATUS_UKERNEL_SHIFT,
                  GUC_STATUS_UKERNEL_MASK, 1'000'000);
  guc.ct_enable();
  guc.enable_submission({gen::Engine::kRcs, gen::Engine::kBcs});
  const auto data = i915.alloc(4096);
  i915.fill(data, 0);
  host::GucDriver::Client client;
  guc.create_client(client, 21, 12);
  port.expect32(i915.layout().bar + GUC_REG_SOFT_SCRATCH(0), GUC_REPLY_SUCCESS);
  auto& render = i915.create_context(gen::Engine::kRcs);
  auto& blit = i915.create_context(gen::Engine::kBcs);
  i915.emit(render, mi::store_data_imm(data.gfx, 0x600D));
  i915.emit(blit, mi::store_data_imm(data.gfx + 4, 0xB17));
  const std::uint32_t render_seqno = i915.emit_breadcrumb(render);
  const std::uint32_t blit_seqno = i915.emit_breadcrumb(blit);
  guc.submit(client, render, false);
  guc.submit_raw(
      client,
      {GUC_WQ_TYPE_INORDER | GUC_BLITTER_ENGINE << GUC_WQ_TARGET_SHIFT | 3u << GUC_WQ_LEN_SHIFT,
       static_cast<std::uint32_t>(blit.descriptor()), ((blit.tail + 7) / 8) << GUC_WQ_RING_TAIL_SHIFT, blit_seqno},
      false);
  guc.ring(client);
  i915.wait_seqno(render, render_seqno, 400'000);
  i915.wait_seqno(blit, blit_seqno, 400'000);
  port.expect32(data.phys, 0x600D);
  port.expect32(data.phys + 4, 0xB17);
  port.expect32(client.desc() + GUC_PD_HEAD, 2 * GUC_WQ_ITEM_BYTES);
  port.wait_for32(guc.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_TAIL, 2 * 16, ~0u, 100'000);
  port.expect32(guc.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_TAIL, 2 * 16);
  // GEN8_GT_IIR(2) bit 31: the completion events interrupted the host.
  port.expect32(i915.layout().bar + 0x44328, gen::GtInterruptRegs::kGucToHost, gen::GtInterruptRegs::kGucToHost);
}

class GucSubmissionTest : public ::testing::Test {
 protected:
  GucSubmissionTest() : soc_("gpuvp", platform::PlatformParams{}), port_(soc_.host()), i915_(port_), guc_(i915_) {}
  void TearDown() override {
    for (const auto& f : port_.failures()) ADD_FAILURE() << f;
  }
  void boot() {
    const auto r = guc_.load(firmware::read_file(firmware::default_firmware_path()));
    ASSERT_TRUE(r.ok) << r.error;
    guc_.enable_submission({gen::Engine::kRcs});
  }
  std::uint32_t read32(std::uint64_t phys) { return port_.read32(phys); }
  // A client and a render context whose ring stores `value` at the start of a fresh buffer, then a breadcrumb.
  struct SingleStore {
    host::I915Driver::Buffer data;
    host::GucDriver::Client client;
    host::I915Driver::Context* ctx = nullptr;
    std::uint32_t seqno = 0;
  };
  SingleStore single_store(std::uint32_t stage, std::uint32_t doorbell, std::uint32_t value) {
    SingleStore w;
    w.data = i915_.alloc(4096);
    i915_.fill(w.data, 0);
    EXPECT_EQ(guc_.create_client(w.client, stage, doorbell), GUC_REPLY_SUCCESS);
    w.ctx = &i915_.create_context(gen::Engine::kRcs);
    i915_.emit(*w.ctx, mi::store_data_imm(w.data.gfx, value));
    w.seqno = i915_.emit_breadcrumb(*w.ctx);
    return w;
  }
  // Work-done events waiting in the CT receive buffer, in the order the firmware posted them.
  std::vector<host::GucDriver::WorkDone> work_done() {
    std::vector<host::GucDriver::WorkDone> done;
    for (const auto& m : guc_.ct_receive()) {
      if (auto d = host::GucDriver::work_done(m)) done.push_back(*d);
    }
    return done;
  }
  // Position of the firmware's log line for a submission ("stage S fence F -> engine").
  static std::size_t submitted_at(const std::string& log, std::uint32_t stage, std::uint32_t fence,
                                  const char* engine = "rcs") {
    char line[64];
    std::snprintf(line, sizeof line, "stage 0x%08x fence 0x%08x -> %s\n", stage, fence, engine);
    return log.find(line);
  }
  // The workload: two render contexts, each storing four dwords (0xA000.., 0xB000..) into its half of the first 32
  // bytes of a fresh buffer and ending with a breadcrumb.
  struct Workload {
    host::I915Driver::Buffer data;
    host::I915Driver::Context* ctx[2];
    std::uint32_t seqno[2];
  };
  Workload prepare() {
    Workload w{i915_.alloc(4096), {}, {}};
    i915_.fill(w.data, 0);
    for (std::uint32_t c = 0; c < 2; ++c) {
      w.ctx[c] = &i915_.create_context(gen::Engine::kRcs);
      for (std::uint32_t i = 0; i < 4; ++i) {
        i915_.emit(*w.ctx[c], mi::store_data_imm(w.data.gfx + 16 * c + 4 * i, 0xA000 + 0x1000 * c + i));
      }
      w.seqno[c] = i915_.emit_breadcrumb(*w.ctx[c]);
    }
    return w;
  }

  platform::Platform soc_;
  host::BusHostPort port_;
  host::I915Driver i915_;
  host::GucDriver guc_;
};

}  // namespace

TEST_F(GucSubmissionTest, TwoClientsGiveTheSameMemoryAsExeclistSubmission) {
  test::run_thread([&] {
    boot();
    // Execlist submission of the workload.
    const Workload elsp = prepare();
    i915_.submit(*elsp.ctx[0], elsp.ctx[1]);
    ASSERT_TRUE(i915_.wait_seqno(*elsp.ctx[1], elsp.seqno[1], 100'000));
    ASSERT_TRUE(i915_.wait_seqno(*elsp.ctx[0], elsp.seqno[0], 1'000));

    // The same workload through two GuC clients.
    host::GucDriver::Client ca, cb;
    ASSERT_EQ(guc_.create_client(ca, 1, 1), GUC_REPLY_SUCCESS);
    ASSERT_EQ(guc_.create_client(cb, 2, 2), GUC_REPLY_SUCCESS);
    EXPECT_EQ(read32(ca.desc() + GUC_PD_WQ_STATUS), GUC_WQ_STATUS_ACTIVE);
    const Workload guc = prepare();
    auto& a = *guc.ctx[0];
    guc_.submit(ca, a);
    guc_.submit(cb, *guc.ctx[1]);
    ASSERT_TRUE(i915_.wait_seqno(a, guc.seqno[0], 200'000)) << guc_.read_log();
    ASSERT_TRUE(i915_.wait_seqno(*guc.ctx[1], guc.seqno[1], 200'000)) << guc_.read_log();

    for (std::uint32_t i = 0; i < 8; ++i) {
      EXPECT_EQ(read32(guc.data.phys + 4 * i), read32(elsp.data.phys + 4 * i)) << "dword " << i;
    }
    EXPECT_EQ(read32(guc.data.phys + 4), 0xA001u);
    EXPECT_EQ(read32(guc.data.phys + 16 + 12), 0xB003u);
    // The firmware consumed both items: head caught up with tail; the context image holds the submitted tail.
    EXPECT_EQ(read32(ca.desc() + GUC_PD_HEAD), read32(ca.desc() + GUC_PD_TAIL));
    EXPECT_EQ(read32(cb.desc() + GUC_PD_HEAD), GUC_WQ_ITEM_BYTES);
    EXPECT_EQ(read32(a.state.phys + GUC_LRC_RING_TAIL_OFFSET), a.tail);
    EXPECT_EQ(read32(ca.object.phys + 4), 1u) << "cookie in the doorbell cacheline";
  });
}

TEST_F(GucSubmissionTest, FirmwareServesClientsRoundRobin) {
  test::run_thread([&] {
    boot();
    const auto data = i915_.alloc(4096);
    i915_.fill(data, 0);
    host::GucDriver::Client ca, cb;
    ASSERT_EQ(guc_.create_client(ca, 7, 1), GUC_REPLY_SUCCESS);
    ASSERT_EQ(guc_.create_client(cb, 8, 2), GUC_REPLY_SUCCESS);
    auto& a = i915_.create_context(gen::Engine::kRcs);
    auto& b = i915_.create_context(gen::Engine::kRcs);
    // Two requests per client queued before either doorbell rings.
    i915_.emit(a, mi::store_data_imm(data.gfx, 1));
    const auto sa1 = i915_.emit_breadcrumb(a);
    guc_.submit(ca, a, false);
    i915_.emit(a, mi::store_data_imm(data.gfx + 4, 2));
    const auto sa2 = i915_.emit_breadcrumb(a);
    guc_.submit(ca, a, false);
    i915_.emit(b, mi::store_data_imm(data.gfx + 8, 3));
    const auto sb1 = i915_.emit_breadcrumb(b);
    guc_.submit(cb, b, false);
    i915_.emit(b, mi::store_data_imm(data.gfx + 12, 4));
    const auto sb2 = i915_.emit_breadcrumb(b);
    guc_.submit(cb, b, false);
    guc_.ring(ca);
    guc_.ring(cb);
    ASSERT_TRUE(i915_.wait_seqno(a, sa2, 400'000)) << guc_.read_log();
    ASSERT_TRUE(i915_.wait_seqno(b, sb2, 400'000)) << guc_.read_log();
    EXPECT_GT(sa2, sa1);
    EXPECT_GT(sb2, sb1);
    for (std::uint32_t i = 0; i < 4; ++i) EXPECT_EQ(read32(data.phys + 4 * i), i + 1);
    // Fences of the submissions in the firmware's order: a1, b1, a2, b2.
    const std::string log = guc_.read_log();
    ASSERT_NE(submitted_at(log, 7, sa1), std::string::npos) << log;
    ASSERT_NE(submitted_at(log, 8, sb2), std::string::npos) << log;
    EXPECT_LT(submitted_at(log, 7, sa1), submitted_at(log, 8, sb1)) << log;
    EXPECT_LT(submitted_at(log, 8, sb1), submitted_at(log, 7, sa2)) << log;
    EXPECT_LT(submitted_at(log, 7, sa2), submitted_at(log, 8, sb2)) << log;
  });
}

TEST_F(GucSubmissionTest, ContextSwitchInterruptsGoToTheGucUserInterruptsToTheHost) {
  test::run_thread([&] {
    boot();
    ASSERT_TRUE(guc_.ct_enable());
    i915_.enable_interrupts(gen::Engine::kRcs, gen::GtInterrupts::kContextSwitch);
    EXPECT_EQ(i915_.mmio_read(0x229C) & (1u << 14), 1u << 14) << "RING_MODE_GEN7 GFX_INTERRUPT_STEERING";
    EXPECT_EQ(i915_.mmio_read(GUC_REG_BCS_RCS_IER), 0xFFFEFFFEu) << "everything but the user interrupts";
    SingleStore w = single_store(5, 3, 0x1234);
    auto& [data, c, ctx_ptr, seqno] = w;
    auto& ctx = *ctx_ptr;
    const std::uint64_t events = core::stats().counter_value("gpuvp.gen.guc.engine_events");
    guc_.submit(c, ctx);
    ASSERT_TRUE(i915_.wait_seqno(ctx, seqno, 200'000)) << guc_.read_log();
    ASSERT_TRUE(port_.wait_for32(guc_.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_TAIL, 16, ~0u, 100'000))
        << guc_.read_log();
    EXPECT_EQ(read32(data.phys), 0x1234u);
    // GEN8_GT_IIR(0): the host saw the breadcrumb's user interrupt but none of the context switches.
    const std::uint32_t iir0 = i915_.mmio_read(0x44308);
    EXPECT_EQ(iir0 & gen::GtInterrupts::kUserInterrupt, gen::GtInterrupts::kUserInterrupt);
    EXPECT_EQ(iir0 & gen::GtInterrupts::kContextSwitch, 0u);
    // The completion event: {header: 3 dwords, WORK_ITEM_DONE}, stage, fence, GuC engine id, and the GuC-to-host
    // interrupt.
    EXPECT_TRUE(guc_.wait_for_interrupt(1'000));
    // The GuC got both CSB writes (idle-to-active, complete + active-to-idle) and consumed them: the read pointer
    // (10:8) catches up with the write pointer (2:0), entry 1 (the first two entries after reset), once the firmware
    // has reported the completion.
    EXPECT_EQ(core::stats().counter_value("gpuvp.gen.guc.engine_events"), events + 2);
    EXPECT_TRUE(port_.wait_for32(i915_.layout().bar + 0x23A0, 0x101, 0x707, 1'000))
        << core::format_hex(i915_.mmio_read(0x23A0));
    const auto messages = guc_.ct_receive();
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_EQ(messages[0].header, 3u | GUC_ACTION_WORK_ITEM_DONE << 16);
    EXPECT_EQ(messages[0].data, (std::vector<std::uint32_t>{5, seqno, GUC_RENDER_ENGINE}));

    // Released: the context switches go back to the host.
    guc_.release_interrupts({gen::Engine::kRcs});
    i915_.mmio_write(0x44308, iir0);
    const std::uint64_t events_before = core::stats().counter_value("gpuvp.gen.guc.engine_events");
    i915_.emit(ctx, mi::store_data_imm(data.gfx + 4, 0x5678));
    const auto seqno2 = i915_.emit_breadcrumb(ctx);
    i915_.submit(ctx);
    ASSERT_TRUE(i915_.wait_seqno(ctx, seqno2, 200'000));
    EXPECT_EQ(read32(data.phys + 4), 0x5678u);
    EXPECT_EQ(i915_.mmio_read(0x44308) & gen::GtInterrupts::kContextSwitch, gen::GtInterrupts::kContextSwitch);
    EXPECT_EQ(core::stats().counter_value("gpuvp.gen.guc.engine_events"), events_before);
  });
}

TEST_F(GucSubmissionTest, EveryEngineRunsWorkFromOneClient) {
  test::run_thread([&] {
    const auto r = guc_.load(firmware::read_file(firmware::default_firmware_path()));
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(guc_.ct_enable());
    const std::vector<gen::Engine> engines = {gen::Engine::kRcs, gen::Engine::kBcs, gen::Engine::kVcs0,
                                              gen::Engine::kVcs1, gen::Engine::kVecs};
    guc_.enable_submission(engines);
    const auto data = i915_.alloc(4096);
    i915_.fill(data, 0);
    host::GucDriver::Client c;
    ASSERT_EQ(guc_.create_client(c, 11, 5), GUC_REPLY_SUCCESS);
    std::vector<host::I915Driver::Context*> contexts;
    std::vector<std::uint32_t> seqnos;
    for (std::size_t i = 0; i < engines.size(); ++i) {
      auto& ctx = i915_.create_context(engines[i]);
      i915_.emit(ctx, mi::store_data_imm(data.gfx + 4 * i, 0xE0 + static_cast<std::uint32_t>(i)));
      seqnos.push_back(i915_.emit_breadcrumb(ctx));
      guc_.submit(c, ctx, false);
      contexts.push_back(&ctx);
    }
    guc_.ring(c);
    for (std::size_t i = 0; i < engines.size(); ++i) {
      ASSERT_TRUE(i915_.wait_seqno(*contexts[i], seqnos[i], 400'000)) << gen::to_string(engines[i]) << "\n"
                                                                      << guc_.read_log();
      EXPECT_EQ(read32(data.phys + 4 * i), 0xE0 + i) << gen::to_string(engines[i]);
    }
    ASSERT_TRUE(port_.wait_for32(guc_.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_TAIL, 5 * 16, ~0u, 100'000))
        << guc_.read_log();
    // One completion per engine, each naming the engine's GuC id (i915: render 0, video 1, blitter 2, vebox 3,
    // video2 4).
    auto done = work_done();
    ASSERT_EQ(done.size(), engines.size());
    const std::uint32_t guc_ids[] = {GUC_RENDER_ENGINE, GUC_BLITTER_ENGINE, GUC_VIDEO_ENGINE, GUC_VIDEO_ENGINE2,
                                     GUC_VIDEOENHANCE_ENGINE};
    for (std::size_t i = 0; i < engines.size(); ++i) {
      const host::GucDriver::WorkDone expected{11, seqnos[i], guc_ids[i]};
      EXPECT_NE(std::find(done.begin(), done.end(), expected), done.end()) << gen::to_string(engines[i]);
    }
    // The in-order queue does not serialise different engines: all five were submitted before the first completed.
    const std::string log = guc_.read_log();
    EXPECT_LT(submitted_at(log, 11, seqnos[4], "vecs"), log.find(" done on ")) << log;
  });
}

TEST_F(GucSubmissionTest, HigherPriorityClientIsServedFirst) {
  test::run_thread([&] {
    boot();
    const auto data = i915_.alloc(4096);
    i915_.fill(data, 0);
    // A normal-priority client occupies the render engine until the test writes the semaphore.
    host::GucDriver::Client blocker, a, b, urgent;
    ASSERT_EQ(guc_.create_client(blocker, 1, 1, GUC_CLIENT_PRIORITY_NORMAL), GUC_REPLY_SUCCESS);
    ASSERT_EQ(guc_.create_client(a, 2, 2, GUC_CLIENT_PRIORITY_NORMAL), GUC_REPLY_SUCCESS);
    ASSERT_EQ(guc_.create_client(b, 3, 3, GUC_CLIENT_PRIORITY_NORMAL), GUC_REPLY_SUCCESS);
    ASSERT_EQ(guc_.create_client(urgent, 4, 4, GUC_CLIENT_PRIORITY_KMD_HIGH), GUC_REPLY_SUCCESS);
    auto& blocking = i915_.create_context(gen::Engine::kRcs);
    i915_.emit(blocking, mi::semaphore_wait(data.gfx + 0x100, 1, mi::Compare::kEqual));
    const auto blocker_seqno = i915_.emit_breadcrumb(blocking);
    guc_.submit(blocker, blocking);
    ASSERT_TRUE(port_.wait_for32(blocker.desc() + GUC_PD_HEAD, GUC_WQ_ITEM_BYTES, ~0u, 100'000)) << guc_.read_log();

    // Two items each from the normal clients, one from the urgent client, all rung while the engine is busy.
    struct Job {
      host::GucDriver::Client* client;
      host::I915Driver::Context* ctx;
      std::uint32_t seqno;
    };
    std::vector<Job> jobs;
    // One context per client: a client's second item continues its ring (fences 1 and 2).
    auto& ctx_a = i915_.create_context(gen::Engine::kRcs);
    auto& ctx_b = i915_.create_context(gen::Engine::kRcs);
    auto& ctx_urgent = i915_.create_context(gen::Engine::kRcs);
    auto queue = [&](host::GucDriver::Client& client, std::uint32_t value) {
      auto& ctx = &client == &a ? ctx_a : &client == &b ? ctx_b : ctx_urgent;
      i915_.emit(ctx, mi::store_data_imm(data.gfx + 4 * value, value));
      jobs.push_back({&client, &ctx, i915_.emit_breadcrumb(ctx)});
      guc_.submit(client, ctx);
    };
    queue(a, 1);
    queue(a, 2);
    queue(b, 3);
    queue(b, 4);
    queue(urgent, 5);
    sc_core::wait(20, sc_core::SC_US);
    port_.write32(data.phys + 0x100, 1);  // releases the blocker
    ASSERT_TRUE(i915_.wait_seqno(blocking, blocker_seqno, 200'000)) << guc_.read_log();
    for (const Job& j : jobs) ASSERT_TRUE(i915_.wait_seqno(*j.ctx, j.seqno, 400'000)) << guc_.read_log();
    for (std::uint32_t v = 1; v <= 5; ++v) EXPECT_EQ(read32(data.phys + 4 * v), v);
    // The urgent client first, then the normal ones round robin from the client after the blocker: a1, b1, a2, b2.
    const std::string log = guc_.read_log();
    const std::size_t order[] = {submitted_at(log, 4, jobs[4].seqno), submitted_at(log, 2, jobs[0].seqno),
                                 submitted_at(log, 3, jobs[2].seqno), submitted_at(log, 2, jobs[1].seqno),
                                 submitted_at(log, 3, jobs[3].seqno)};
    for (std::size_t i = 0; i < 5; ++i) ASSERT_NE(order[i], std::string::npos) << i << "\n" << log;
    for (std::size_t i = 0; i + 1 < 5; ++i) EXPECT_LT(order[i], order[i + 1]) << i << "\n" << log;
  });
}

TEST_F(GucSubmissionTest, WorkIsHeldUntilTheEngineInterruptsAreSteeredToTheGuc) {
  test::run_thread([&] {
    const auto r = guc_.load(firmware::read_file(firmware::default_firmware_path()));
    ASSERT_TRUE(r.ok) << r.error;
    i915_.enable_interrupts(gen::Engine::kRcs);
    i915_.enable_execlists(gen::Engine::kRcs);
    SingleStore w = single_store(6, 6, 0x77);
    auto& [data, c, ctx_ptr, seqno] = w;
    auto& ctx = *ctx_ptr;
    guc_.submit(c, ctx);
    sc_core::wait(50, sc_core::SC_US);
    EXPECT_EQ(read32(data.phys), 0u);
    EXPECT_EQ(read32(c.desc() + GUC_PD_HEAD), 0u) << "the item stays queued";
    EXPECT_NE(guc_.read_log().find("rcs: context-switch interrupts not steered to the GuC: work held\n"),
              std::string::npos)
        << guc_.read_log();
    // Steering alone is not enough: the GuC's IER must take the context switch too.
    i915_.mmio_write(0x229C, 1u << 30 | 1u << 14);
    guc_.ring(c);
    sc_core::wait(50, sc_core::SC_US);
    EXPECT_EQ(read32(data.phys), 0u);
    guc_.capture_interrupts({gen::Engine::kRcs});
    guc_.ring(c);
    ASSERT_TRUE(i915_.wait_seqno(ctx, seqno, 200'000)) << guc_.read_log();
    EXPECT_EQ(read32(data.phys), 0x77u);
  });
}

TEST_F(GucSubmissionTest, DriverWorkloadOnTwoEngines) {
  test::run_thread([&] {
    guc_workload(i915_, guc_);
    // Both completions, render first or blitter first as the engines finish.
    auto done = work_done();
    ASSERT_EQ(done.size(), 2u);
    std::sort(done.begin(), done.end(), [](const auto& x, const auto& y) { return x.guc_engine < y.guc_engine; });
    EXPECT_EQ(done[0], (host::GucDriver::WorkDone{21, 1, GUC_RENDER_ENGINE}));
    EXPECT_EQ(done[1], (host::GucDriver::WorkDone{21, 1, GUC_BLITTER_ENGINE}));
  });
}

TEST(GucSubmissionScript, SameWorkloadAsAHostScriptThroughTheExecutable) {
  host::ScriptHostPort port;
  host::I915Driver i915(port);
  host::GucDriver guc(i915);
  guc_workload(i915, guc);
  EXPECT_EQ(port.unknown_reads(), 0u);  // every value the driver needed is a poll or a check
  const std::string path = ::testing::TempDir() + "guc_submission.gpuvp";
  std::ofstream(path) << port.script();
  test::ProcessResult r = test::run_gpuvp("run --script " + path);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("ERR"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("outcome:        completed"), std::string::npos) << r.out;
}

TEST_F(GucSubmissionTest, DescriptorTheEngineWouldRefuseIsACommandError) {
  test::run_thread([&] {
    boot();
    host::GucDriver::Client c;
    ASSERT_EQ(guc_.create_client(c, 3, 4), GUC_REPLY_SUCCESS);
    auto& ctx = i915_.create_context(gen::Engine::kRcs);
    const auto desc = static_cast<std::uint32_t>(ctx.descriptor());
    ASSERT_EQ(desc & (GUC_LRC_DESC_VALID | GUC_LRC_DESC_PRIVILEGE), GUC_LRC_DESC_VALID | GUC_LRC_DESC_PRIVILEGE);
    const std::uint32_t header = GUC_WQ_TYPE_INORDER | 3u << GUC_WQ_LEN_SHIFT;
    guc_.submit_raw(c, {header, desc & ~GUC_LRC_DESC_PRIVILEGE, 0, 1});
    EXPECT_TRUE(port_.wait_for32(c.desc() + GUC_PD_WQ_STATUS, GUC_WQ_STATUS_CMD_ERROR, ~0u, 200'000));
    host::GucDriver::Client d;
    ASSERT_EQ(guc_.create_client(d, 5, 6), GUC_REPLY_SUCCESS);
    guc_.submit_raw(d, {header, (desc & ~GUC_LRC_DESC_ADDRESSING_MASK) | 2u << GUC_LRC_DESC_ADDRESSING_SHIFT, 0, 1});
    EXPECT_TRUE(port_.wait_for32(d.desc() + GUC_PD_WQ_STATUS, GUC_WQ_STATUS_CMD_ERROR, ~0u, 200'000));
    EXPECT_NE(guc_.read_log().find("bad context descriptor 0x"), std::string::npos) << guc_.read_log();
  });
}

TEST_F(GucSubmissionTest, CommandStreamerErrorFailsTheItemAndHoldsTheEngineUntilReset) {
  test::run_thread([&] {
    boot();
    ASSERT_TRUE(guc_.ct_enable());
    const auto data = i915_.alloc(4096);
    i915_.fill(data, 0);
    host::GucDriver::Client c;
    ASSERT_EQ(guc_.create_client(c, 9, 7), GUC_REPLY_SUCCESS);
    auto& bad = i915_.create_context(gen::Engine::kRcs);
    i915_.emit(bad, {mi::instr(0x3E, 0), 0});  // an MI opcode the engine does not know
    i915_.emit_breadcrumb(bad);
    auto& good = i915_.create_context(gen::Engine::kRcs);
    i915_.emit(good, mi::store_data_imm(data.gfx, 0x0C0FFEE));
    const auto seqno = i915_.emit_breadcrumb(good);
    guc_.submit(c, bad);
    guc_.submit(c, good);
    ASSERT_TRUE(port_.wait_for32(guc_.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_TAIL, 16, ~0u, 200'000))
        << guc_.read_log();
    auto events = work_done();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0], (host::GucDriver::WorkDone{9, bad.seqno, GUC_RENDER_ENGINE, true}));
    EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "rcs").size(), 1u);
    // The engine stays stopped: the next item waits.
    sc_core::wait(30, sc_core::SC_US);
    EXPECT_EQ(read32(data.phys), 0u);
    EXPECT_EQ(read32(c.desc() + GUC_PD_HEAD), GUC_WQ_ITEM_BYTES);
    EXPECT_NE(guc_.read_log().find("rcs: command streamer error, work held until the engine is reset\n"),
              std::string::npos)
        << guc_.read_log();
    // GDRST render domain (i915 GEN6_GRDOM_RENDER), then a ring: the firmware sees the reset and goes on.
    i915_.mmio_write(0x941C, 1u << 1);
    guc_.ring(c);
    ASSERT_TRUE(i915_.wait_seqno(good, seqno, 200'000)) << guc_.read_log();
    EXPECT_EQ(read32(data.phys), 0x0C0FFEEu);
    ASSERT_TRUE(port_.wait_for32(guc_.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_TAIL, 32, ~0u, 100'000));
    events = work_done();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0], (host::GucDriver::WorkDone{9, seqno, GUC_RENDER_ENGINE, false}));
  });
}

TEST_F(GucSubmissionTest, RoundRobinCrossesTheDoorbellBitmapWords) {
  test::run_thread([&] {
    boot();
    const auto data = i915_.alloc(4096);
    i915_.fill(data, 0);
    // The blocker on doorbell 254 holds the engine; clients on doorbells 31, 32, 200 and 255 queue one item each.
    host::GucDriver::Client blocker;
    ASSERT_EQ(guc_.create_client(blocker, 100, 254), GUC_REPLY_SUCCESS);
    auto& blocking = i915_.create_context(gen::Engine::kRcs);
    i915_.emit(blocking, mi::semaphore_wait(data.gfx + 0x100, 1, mi::Compare::kEqual));
    const auto blocker_seqno = i915_.emit_breadcrumb(blocking);
    guc_.submit(blocker, blocking);
    ASSERT_TRUE(port_.wait_for32(blocker.desc() + GUC_PD_HEAD, GUC_WQ_ITEM_BYTES, ~0u, 100'000)) << guc_.read_log();
    const std::uint32_t doorbells[] = {200, 32, 255, 31};  // rung in this order
    std::vector<host::GucDriver::Client> clients(4);
    std::vector<host::I915Driver::Context*> contexts;
    for (std::size_t i = 0; i < 4; ++i) {
      ASSERT_EQ(guc_.create_client(clients[i], doorbells[i], doorbells[i]), GUC_REPLY_SUCCESS);
      auto& ctx = i915_.create_context(gen::Engine::kRcs);
      i915_.emit(ctx, mi::store_data_imm(data.gfx + 4 * i, doorbells[i]));
      i915_.emit_breadcrumb(ctx);
      guc_.submit(clients[i], ctx);
      contexts.push_back(&ctx);
    }
    sc_core::wait(20, sc_core::SC_US);
    port_.write32(data.phys + 0x100, 1);
    ASSERT_TRUE(i915_.wait_seqno(blocking, blocker_seqno, 200'000)) << guc_.read_log();
    for (std::size_t i = 0; i < 4; ++i) ASSERT_TRUE(i915_.wait_seqno(*contexts[i], 1, 200'000)) << guc_.read_log();
    // Round robin from the doorbell after the blocker's: 255, then wrapping to 31, 32, 200.
    const std::string log = guc_.read_log();
    const std::size_t order[] = {submitted_at(log, 255, 1), submitted_at(log, 31, 1), submitted_at(log, 32, 1),
                                 submitted_at(log, 200, 1)};
    for (std::size_t i = 0; i < 4; ++i) ASSERT_NE(order[i], std::string::npos) << i << "\n" << log;
    for (std::size_t i = 0; i + 1 < 4; ++i) EXPECT_LT(order[i], order[i + 1]) << i << "\n" << log;
  });
}

TEST_F(GucSubmissionTest, FullWorkQueueRefusesTheItem) {
  test::run_thread([&] {
    boot();
    host::GucDriver::Client c;
    ASSERT_EQ(guc_.create_client(c, 12, 12), GUC_REPLY_SUCCESS);
    // Without a ring, the firmware's head stays 0: the queue takes size / 16 - 1 items.
    const std::array<std::uint32_t, 4> item = {GUC_WQ_TYPE_INORDER | 3u << GUC_WQ_LEN_SHIFT, 0, 0, 0};
    for (std::uint32_t i = 0; i + 1 < host::GucDriver::kWqSize / GUC_WQ_ITEM_BYTES; ++i) {
      ASSERT_TRUE(guc_.submit_raw(c, item, false)) << i;
    }
    EXPECT_FALSE(guc_.submit_raw(c, item, false));
    EXPECT_EQ(read32(c.desc() + GUC_PD_TAIL), host::GucDriver::kWqSize - GUC_WQ_ITEM_BYTES);
  });
}

TEST_F(GucSubmissionTest, EventsWaitWhileTheReceiveBufferIsFull) {
  test::run_thread([&] {
    boot();
    ASSERT_TRUE(guc_.ct_enable());
    host::GucDriver::Client c;
    ASSERT_EQ(guc_.create_client(c, 13, 13), GUC_REPLY_SUCCESS);
    auto& ctx = i915_.create_context(gen::Engine::kRcs);
    // 70 completions, none drained: the 1 KiB receive buffer takes 63 four-dword events (one slot stays free).
    constexpr std::uint32_t kItems = 70;
    std::uint32_t last = 0;
    for (std::uint32_t i = 0; i < kItems; ++i) {
      last = i915_.emit_breadcrumb(ctx);
      ASSERT_TRUE(guc_.submit(c, ctx));
      ASSERT_TRUE(i915_.wait_seqno(ctx, last, 100'000)) << i << "\n" << guc_.read_log();
    }
    ASSERT_TRUE(port_.wait_for32(guc_.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_TAIL, 63 * 16, ~0u, 50'000));
    auto done = work_done();
    ASSERT_EQ(done.size(), 63u);
    EXPECT_NE(guc_.read_log().find("CT receive buffer full: events held\n"), std::string::npos) << guc_.read_log();
    // Drained; the next request to the GuC lets the held ones out, in order, none lost.
    EXPECT_EQ(guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 0}), GUC_REPLY_SUCCESS);
    auto rest = work_done();
    done.insert(done.end(), rest.begin(), rest.end());
    ASSERT_EQ(done.size(), kItems);
    for (std::uint32_t i = 0; i < kItems; ++i) {
      EXPECT_EQ(done[i], (host::GucDriver::WorkDone{13, last - kItems + 1 + i, GUC_RENDER_ENGINE, false})) << i;
    }
  });
}

TEST_F(GucSubmissionTest, WorkWaitsInsteadOfEventsBeingLostWhenTheHostNeverDrains) {
  // 140 items submitted at once, nothing drained: 63 events fill the 1 KiB receive buffer and 64 wait in the
  // firmware's queue; the firmware then starts no new item (its event could not be kept), so item 128 does not run.
  // Each drain and request lets the held events out and the work go on; every event arrives, in order.
  test::run_thread([&] {
    boot();
    ASSERT_TRUE(guc_.ct_enable());
    host::GucDriver::Client c;
    ASSERT_EQ(guc_.create_client(c, 14, 14), GUC_REPLY_SUCCESS);
    auto& ctx = i915_.create_context(gen::Engine::kRcs);
    constexpr std::uint32_t kItems = 140;
    constexpr std::uint32_t kRunBeforeHeld = 63 + 64;
    std::vector<std::uint32_t> seqnos;
    for (std::uint32_t i = 0; i < kItems; ++i) {
      seqnos.push_back(i915_.emit_breadcrumb(ctx));
      ASSERT_TRUE(guc_.submit(c, ctx)) << i;
    }
    // The firmware's scheduling, logging and CSB work takes about 17 us of GuC time per item.
    ASSERT_TRUE(i915_.wait_seqno(ctx, seqnos[kRunBeforeHeld - 1], 5'000'000)) << guc_.read_log();
    EXPECT_FALSE(i915_.wait_seqno(ctx, seqnos[kRunBeforeHeld], 500'000));
    EXPECT_NE(guc_.read_log().find("CT receive buffer and event queue full: work held until the host drains the "
                                   "buffer\n"),
              std::string::npos)
        << guc_.read_log();
    std::vector<host::GucDriver::WorkDone> done;
    for (int round = 0; round < 8 && done.size() < kItems; ++round) {
      auto some = work_done();
      done.insert(done.end(), some.begin(), some.end());
      EXPECT_EQ(guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 0}), GUC_REPLY_SUCCESS);
      sc_core::wait(2, sc_core::SC_MS);
    }
    auto rest = work_done();
    done.insert(done.end(), rest.begin(), rest.end());
    ASSERT_EQ(done.size(), kItems) << guc_.read_log();
    for (std::uint32_t i = 0; i < kItems; ++i) {
      EXPECT_EQ(done[i], (host::GucDriver::WorkDone{14, seqnos[i], GUC_RENDER_ENGINE, false})) << i;
    }
    EXPECT_EQ(guc_.read_log().find("event lost"), std::string::npos) << guc_.read_log();
  });
}

TEST_F(GucSubmissionTest, LogVerbosityFollowsGucCtlDebug) {
  // GUC_CTL_DEBUG = i915's guc_log_level: at LOW the firmware logs errors and refusals only, so a client's
  // allocation and a work item's doorbell, submission and completion write nothing (and cost the GuC no
  // graphics-memory writes) while a refused allocation is still reported; the work is done all the same.
  test::run_thread([&] {
    host::GucDriver::LoadOptions options;
    options.log_level = GUC_LOG_VERBOSITY_LOW;
    const auto r = guc_.load(firmware::read_file(firmware::default_firmware_path()), options);
    ASSERT_TRUE(r.ok) << r.error;
    guc_.enable_submission({gen::Engine::kRcs});
    ASSERT_TRUE(guc_.ct_enable());
    SingleStore w = single_store(15, 15, 0x1234);
    ASSERT_TRUE(guc_.submit(w.client, *w.ctx));
    ASSERT_TRUE(i915_.wait_seqno(*w.ctx, w.seqno, 200'000));
    ASSERT_TRUE(port_.wait_for32(guc_.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_TAIL, 16, ~0u, 100'000));
    ASSERT_EQ(work_done().size(), 1u);
    host::GucDriver::Client refused;
    EXPECT_EQ(guc_.create_client(refused, 9, 9, GUC_CLIENT_PRIORITY_NUM), GUC_REPLY_ALLOCATE_DOORBELL_FAIL);
    EXPECT_EQ(guc_.read_log(),
              "gpuvp GuC firmware 0x00090001 ready\n"
              "doorbell allocation refused: client priority 0x00000004\n");
  });
}

TEST_F(GucSubmissionTest, DisabledLogStaysEmpty) {
  test::run_thread([&] {
    host::GucDriver::LoadOptions options;
    options.log_level = -1;  // i915: GUC_LOG_DISABLED
    const auto r = guc_.load(firmware::read_file(firmware::default_firmware_path()), options);
    ASSERT_TRUE(r.ok) << r.error;
    guc_.enable_submission({gen::Engine::kRcs});
    SingleStore w = single_store(16, 16, 0x4321);
    ASSERT_TRUE(guc_.submit(w.client, *w.ctx));
    ASSERT_TRUE(i915_.wait_seqno(*w.ctx, w.seqno, 200'000));
    EXPECT_EQ(read32(w.data.phys), 0x4321u);
    EXPECT_EQ(guc_.read_log(), "");
  });
}

TEST_F(GucSubmissionTest, ClientWithAnUndefinedPriorityIsRefused) {
  test::run_thread([&] {
    boot();
    host::GucDriver::Client c;
    EXPECT_EQ(guc_.create_client(c, 9, 9, GUC_CLIENT_PRIORITY_NUM), GUC_REPLY_ALLOCATE_DOORBELL_FAIL);
    EXPECT_EQ(i915_.mmio_read(GUC_REG_DRBREGL(9)) & GUC_DRB_VALID, 0u);
    EXPECT_NE(guc_.read_log().find("doorbell allocation refused: client priority 0x00000004"), std::string::npos)
        << guc_.read_log();
    EXPECT_EQ(guc_.create_client(c, 9, 9, GUC_CLIENT_PRIORITY_HIGH), GUC_REPLY_SUCCESS);
  });
}

TEST_F(GucSubmissionTest, WorkItemForAnUnknownEngineStopsTheQueue) {
  test::run_thread([&] {
    boot();
    host::GucDriver::Client c;
    ASSERT_EQ(guc_.create_client(c, 3, 4), GUC_REPLY_SUCCESS);
    auto& ctx = i915_.create_context(gen::Engine::kRcs);
    const std::uint32_t bad_engine = GUC_WQ_TYPE_INORDER | 9u << GUC_WQ_TARGET_SHIFT | 3u << GUC_WQ_LEN_SHIFT;
    guc_.submit_raw(c, {bad_engine, static_cast<std::uint32_t>(ctx.descriptor()), 0, 1});
    EXPECT_TRUE(port_.wait_for32(c.desc() + GUC_PD_WQ_STATUS, GUC_WQ_STATUS_ENGINE_ID_NOT_USED, ~0u, 200'000));
    EXPECT_EQ(read32(c.desc() + GUC_PD_ERROR_OFFSET), 0u);
    EXPECT_EQ(read32(c.desc() + GUC_PD_HEAD), 0u) << "the bad item is not consumed";
    EXPECT_NE(guc_.read_log().find("work queue error: engine not present or not the client's"), std::string::npos)
        << guc_.read_log();
    // A valid item behind it does not run: the queue stays stopped.
    const auto data = i915_.alloc(4096);
    i915_.fill(data, 0);
    i915_.emit(ctx, mi::store_data_imm(data.gfx, 0x55));
    i915_.emit_breadcrumb(ctx);
    guc_.submit(c, ctx);
    sc_core::wait(50, sc_core::SC_US);
    EXPECT_EQ(read32(data.phys), 0u);
    EXPECT_EQ(soc_.gen()->guc()->running(), true);
  });
}

TEST_F(GucSubmissionTest, WorkItemWithABadLengthOrTypeIsACommandError) {
  test::run_thread([&] {
    boot();
    host::GucDriver::Client c, d;
    ASSERT_EQ(guc_.create_client(c, 3, 4), GUC_REPLY_SUCCESS);
    ASSERT_EQ(guc_.create_client(d, 5, 6), GUC_REPLY_SUCCESS);
    auto& ctx = i915_.create_context(gen::Engine::kRcs);
    const auto desc = static_cast<std::uint32_t>(ctx.descriptor());
    // A first good item, then one claiming 7 dwords.
    i915_.emit(ctx, mi::noop());
    const auto seqno = i915_.emit_breadcrumb(ctx);
    guc_.submit(c, ctx);
    ASSERT_TRUE(i915_.wait_seqno(ctx, seqno, 100'000)) << guc_.read_log();
    guc_.submit_raw(c, {GUC_WQ_TYPE_INORDER | 7u << GUC_WQ_LEN_SHIFT, desc, 0, 2});
    guc_.submit_raw(d, {0x1u | 3u << GUC_WQ_LEN_SHIFT, desc, 0, 3});  // WQ_TYPE_BATCH_BUF: not supported
    EXPECT_TRUE(port_.wait_for32(c.desc() + GUC_PD_WQ_STATUS, GUC_WQ_STATUS_CMD_ERROR, ~0u, 200'000));
    EXPECT_TRUE(port_.wait_for32(d.desc() + GUC_PD_WQ_STATUS, GUC_WQ_STATUS_CMD_ERROR, ~0u, 200'000));
    EXPECT_EQ(read32(c.desc() + GUC_PD_ERROR_OFFSET), GUC_WQ_ITEM_BYTES);
    EXPECT_EQ(read32(c.desc() + GUC_PD_HEAD), GUC_WQ_ITEM_BYTES);
    EXPECT_EQ(read32(d.desc() + GUC_PD_WQ_STATUS), GUC_WQ_STATUS_CMD_ERROR);
    const std::string log = guc_.read_log();
    EXPECT_NE(log.find("work queue error: bad item header 0x00070003 at offset 0x00000010"), std::string::npos) << log;
    EXPECT_NE(log.find("work queue error: bad item header 0x00030001 at offset 0x00000000"), std::string::npos) << log;
  });
}

TEST_F(GucSubmissionTest, ProcessDescriptorOutsideGraphicsMemoryIsRefused) {
  test::run_thread([&] {
    boot();
    EXPECT_EQ(guc_.send({GUC_ACTION_ALLOCATE_DOORBELL, 1, 1, 0xFFFFFFF0u}), GUC_REPLY_ALLOCATE_DOORBELL_FAIL);
    EXPECT_EQ(i915_.mmio_read(GUC_REG_DRBREGL(1)) & GUC_DRB_VALID, 0u);
  });
}

// The soak's fact at small scale (issue 23; tb/bench/bench_soak runs 10^6): one client, one render context with a
// 4 KiB ring, the firmware log at HIGH (a line per doorbell, submission and completion). By work item 600 the ring,
// the work queue (512 items), the log and the CT buffers have all wrapped; after 2400 the model holds no more than
// after 600, and every item completed, in order, with its store done.
TEST_F(GucSubmissionTest, ThousandsOfWorkItemsLeaveTheModelNoLargerThanAfterEveryBufferWrapped) {
  constexpr std::uint32_t kWarm = 600, kTotal = 2400;
  test::ModelFootprint warm, end;
  test::run_thread([&] {
    boot();
    ASSERT_TRUE(guc_.ct_enable());
    const auto out = i915_.alloc(4096);
    host::GucDriver::Client client;
    ASSERT_EQ(guc_.create_client(client, 1, 1), GUC_REPLY_SUCCESS);
    auto& ctx = i915_.create_context(gen::Engine::kRcs, 4096);
    std::uint32_t next_fence = ctx.seqno + 1;
    std::uint32_t log_offset = 0;
    bool log_wrapped_in_warm_up = false;
    const auto take_completions = [&] {
      for (const auto& done : work_done()) {
        EXPECT_FALSE(done.failed) << done.fence;
        EXPECT_EQ(done.fence, next_fence);
        next_fence = done.fence + 1;
      }
    };
    for (std::uint32_t i = 0; i < kTotal; ++i) {
      const std::uint32_t slot = 4 * (i % 1024);
      i915_.emit(ctx, mi::store_data_imm(out.gfx + slot, 0x6C0C0000 + i));
      const std::uint32_t seqno = i915_.emit_breadcrumb(ctx);
      ASSERT_TRUE(guc_.submit(client, ctx)) << i;
      ASSERT_TRUE(i915_.wait_seqno(ctx, seqno, 1'000'000)) << i;
      ASSERT_EQ(read32(out.phys + slot), 0x6C0C0000 + i) << i;
      take_completions();
      const std::uint32_t offset = read32(guc_.log_buffer().phys + 4);  // the log header's write offset
      if (i < kWarm && offset < log_offset) log_wrapped_in_warm_up = true;
      log_offset = offset;
      if (i + 1 == kWarm) warm = test::footprint(soc_);
    }
    EXPECT_TRUE(log_wrapped_in_warm_up);
    for (int polls = 0; next_fence != ctx.seqno + 1 && polls < 100; ++polls) {
      soc_.host().sync();
      sc_core::wait(1, sc_core::SC_US);
      take_completions();
    }
    EXPECT_EQ(next_fence, ctx.seqno + 1) << "a completion event is missing";
    end = test::footprint(soc_);
  });
  EXPECT_GT(warm.dram_pages, 0u);
  EXPECT_EQ(end, warm);
}
