// GuC submission: clients with a doorbell cacheline, process descriptor and work queue (i915 v4.x
// intel_guc_submission.c, intel_guc_fwif.h struct guc_process_desc / guc_wq_item); the firmware consumes work items
// on the doorbell interrupt, writes the ring tail into the context image and submits through the render engine's
// ELSP; the same workload gives the same memory as execlist submission; malformed work items stop the client's queue
// with the i915 WQ_STATUS codes and an error offset, never the host.
#include <gtest/gtest.h>

#include <cstdio>

#include "firmware/guc/guc_abi.h"
#include "firmware/tools/guc_image.h"
#include "platform/platform.h"
#include "tb/host/guc_driver.h"
#include "tb/host/i915_driver.h"
#include "tests/support/sc_test.h"
#include "tlm/gen/mi_commands.h"

using namespace gpuvp;
namespace mi = gen::mi;

namespace {

class GucSubmissionTest : public ::testing::Test {
 protected:
  GucSubmissionTest() : soc_("gpuvp", platform::PlatformParams{}), port_(soc_.host()), i915_(port_), guc_(i915_) {}
  void TearDown() override {
    for (const auto& f : port_.failures()) ADD_FAILURE() << f;
  }
  void boot() {
    const auto r = guc_.load(firmware::read_file(firmware::default_firmware_path()));
    ASSERT_TRUE(r.ok) << r.error;
    i915_.enable_interrupts(gen::Engine::kRcs);
    i915_.enable_execlists(gen::Engine::kRcs);
  }
  std::uint32_t read32(std::uint64_t phys) { return port_.read32(phys); }
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
    auto hex8 = [](std::uint32_t v) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%08x", v);
      return std::string(buf);
    };
    auto at = [&](std::uint32_t stage, std::uint32_t fence) {
      return log.find("stage " + hex8(stage) + " fence " + hex8(fence) + " -> rcs");
    };
    ASSERT_NE(at(7, sa1), std::string::npos) << log;
    ASSERT_NE(at(8, sb2), std::string::npos) << log;
    EXPECT_LT(at(7, sa1), at(8, sb1)) << log;
    EXPECT_LT(at(8, sb1), at(7, sa2)) << log;
    EXPECT_LT(at(7, sa2), at(8, sb2)) << log;
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
    EXPECT_NE(guc_.read_log().find("work queue error: engine not scheduled by this firmware"), std::string::npos)
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
