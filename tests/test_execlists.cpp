// Execlists: context descriptors, the LRC image layout (a Kaby Lake render context dumped by i915 debugfs
// i915_dump_lrc; docs/gen-execlists.md), ELSP submission and the context status buffer sequences i915 and GVT-g
// expect, preemption, lite restore, per-context PPGTT and timestamps, and bad submissions.
#include <gtest/gtest.h>

#include "hw/gen/context_image_layout.h"
#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "tb/host/i915_driver.h"
#include "tests/support/driver_test.h"
#include "tests/support/sc_test.h"
#include "tlm/gen/context_image.h"
#include "tlm/gen/execlists.h"
#include "tlm/gen/mi_atomic.h"

using namespace gpuvp;
namespace mi = gen::mi;
using gen::Execlists;
using CsbEntry = host::I915Driver::CsbEntry;

namespace gpuvp::host {
// Found by argument-dependent lookup from gtest's comparisons.
bool operator==(const I915Driver::CsbEntry& a, const I915Driver::CsbEntry& b) {
  return a.status == b.status && a.context_id == b.context_id;
}
std::ostream& operator<<(std::ostream& o, const I915Driver::CsbEntry& e) {
  return o << "{status " << core::format_hex(e.status) << ", id " << e.context_id << "}";
}
}  // namespace gpuvp::host

namespace {

// A Kaby Lake render context saved by the hardware (i915 debugfs i915_dump_lrc, Linux 4.13; layout as i915 v4.x
// populate_lr_context; docs/gen-execlists.md), first 0xD0 bytes.
const std::uint32_t kListing[] = {
    0x00000000, 0x1100101b, 0x00002244, 0xffff000a, 0x00002034, 0x00000448, 0x00002030, 0x00000448, 0x00002038,
    0x00001000, 0x0000203c, 0x00003001, 0x00002168, 0x00000000, 0x00002140, 0xfffdddd8, 0x00002110, 0x00000000,
    0x0000211c, 0x00000000, 0x00002114, 0x00000000, 0x00002118, 0x00000000, 0x000021c0, 0xffffe081, 0x000021c4,
    0xffffe002, 0x000021c8, 0x00000980, 0x00000000, 0x00000000, 0x00000000, 0x11001011, 0x000023a8, 0x00000293,
    0x0000228c, 0x00000000, 0x00002288, 0x00000000, 0x00002284, 0x00000000, 0x00002280, 0x00000000, 0x0000227c,
    0x00000000, 0x00002278, 0x00000000, 0x00002274, 0x00000002, 0x00002270, 0x22844000, 0x00000000, 0x00000000};

using ExeclistTest = test::DriverTest;

}  // namespace

TEST(ContextDescriptor, FieldsDecodeAsI915EncodesThem) {
  // VALID | LEGACY_32B << 3 | PRIVILEGE | LRCA 0xfffe7000, context ID 0x1234.
  const gen::ContextDescriptor d{0x0000123400000000ULL | 0xFFFE7000 | (1u << 8) | (1u << 3) | 1u};
  EXPECT_TRUE(d.valid());
  EXPECT_FALSE(d.force_pd_restore());
  EXPECT_EQ(d.addressing_mode(), 1u);
  EXPECT_TRUE(d.privilege());
  EXPECT_EQ(d.lrca(), 0xFFFE7000u);
  EXPECT_EQ(d.context_id(), 0x1234u);
}

TEST(ContextImage, ListingParsesIntoItsRegisterPairs) {
  const auto image = gen::parse_context_image(kListing, std::size(kListing));
  ASSERT_TRUE(image.error.empty()) << image.error;
  ASSERT_EQ(image.slots.size(), 14u + 9u);
  EXPECT_EQ(image.slots[0].offset, 0x2244u);  // CTX_CTRL
  EXPECT_EQ(image.slots[0].dword, 3u);
  EXPECT_EQ(image.slots[1].offset, 0x2034u);  // RING_HEAD at dword 5 = 0x448
  EXPECT_EQ(kListing[image.slots[1].dword], 0x448u);
  EXPECT_EQ(image.slots[4].offset, 0x203Cu);  // RING_CTL 0x3001: 16 KiB, valid
  EXPECT_EQ(kListing[image.slots[4].dword], 0x3001u);
  EXPECT_EQ(image.slots[14].offset, 0x23A8u);  // CTX_TIMESTAMP
  EXPECT_EQ(image.slots[21].offset, 0x2274u);  // PDP0 upper
  EXPECT_EQ(image.slots[22].offset, 0x2270u);  // PDP0 lower = 0x22844000
  EXPECT_EQ(kListing[image.slots[22].dword], 0x22844000u);
}

TEST(ContextImage, GarbageIsRejectedNamingTheDword) {
  std::uint32_t page[8] = {0, 0x11000001, 0x2034, 0, 0xDEADBEEF, 0, 0, 0};
  const auto image = gen::parse_context_image(page, 8);
  EXPECT_EQ(image.error, "not MI_NOOP or MI_LOAD_REGISTER_IMM at register-state dword 0x4 (0xdeadbeef)");
  std::uint32_t runs_off[4] = {0, 0x11000003, 0x2034, 0};
  EXPECT_EQ(gen::parse_context_image(runs_off, 4).error,
            "MI_LOAD_REGISTER_IMM running past the page at register-state dword 0x1 (0x11000003)");
}

TEST(ContextImage, NoopsWithAnIdentificationNumberAreNoops) {
  // NEO's image: unused dwords hold 0x00000001 (an MI_NOOP with identification number 1), the first one included.
  std::uint32_t page[8] = {0x00000001, 0x11001001, 0x2244, 0x00010001, 0x00000001, 0x00400001, 0x00000001, 0x1};
  const auto image = gen::parse_context_image(page, 8);
  ASSERT_TRUE(image.error.empty()) << image.error;
  ASSERT_EQ(image.slots.size(), 1u);
  EXPECT_EQ(image.slots[0].offset, 0x2244u);
  EXPECT_EQ(image.slots[0].dword, 3u);
}

TEST_F(ExeclistTest, DriverImageMatchesTheListingLayout) {
  test::run_thread([&] {
    auto& ctx = driver_.create_context(gen::Engine::kRcs, 16 * 1024, 3, {0x2'2284'4000ULL, 0, 0, 0});
    ctx.tail = 0x448;
    const auto page = driver_.context_image(ctx);
    for (unsigned i :
         {0u,  1u,  2u,  3u,    4u,    6u,    7u,    8u,    10u,   11u,   12u,   14u,   16u,   18u,   20u,  22u,
          24u, 26u, 28u, 0x21u, 0x22u, 0x24u, 0x26u, 0x28u, 0x2Au, 0x2Cu, 0x2Eu, 0x30u, 0x31u, 0x32u, 0x33u}) {
      EXPECT_EQ(page[i], kListing[i]) << "dword " << i;
    }
    EXPECT_EQ(page[9], static_cast<std::uint32_t>(ctx.ring.gfx));  // RING_START: our ring's GGTT address
    const auto bcs = driver_.create_context(gen::Engine::kBcs);
    EXPECT_EQ(driver_.context_image(bcs)[1], 0x11001015u);  // LRI(11) for the other engines
  });
}

TEST_F(ExeclistTest, OneContextOnAnIdleEngineGivesIdleToActiveThenCompleteActiveToIdle) {
  test::run_thread([&] {
    driver_.enable_interrupts(gen::Engine::kRcs);
    driver_.enable_execlists(gen::Engine::kRcs);
    auto& ctx = driver_.create_context(gen::Engine::kRcs);
    const auto data = driver_.alloc(4096);
    driver_.emit(ctx, mi::store_data_imm(data.gfx, 0xC0FFEE));
    const auto seqno = driver_.emit_breadcrumb(ctx);
    driver_.submit(ctx);
    EXPECT_TRUE(driver_.wait_seqno(ctx, seqno, 50'000));
    settle();
    EXPECT_EQ(dram32(data.phys), 0xC0FFEEu);
    const auto csb = driver_.process_csb(gen::Engine::kRcs);
    ASSERT_EQ(csb.size(), 2u);
    EXPECT_EQ(csb[0], (CsbEntry{Execlists::kIdleToActive, 0}));
    EXPECT_EQ(csb[1], (CsbEntry{Execlists::kComplete | Execlists::kActiveToIdle, ctx.id}));
    // Both raised the context-switch interrupt: GEN8_GT_IIR(0) bit 8 (it is latched even though IER has only user
    // and CS error: IMR masks latching, and the driver unmasked 0 and 3 only) -- so check the registers directly.
    EXPECT_EQ(driver_.mmio_read(0x2000 + Execlists::kCsbPointer) & 7, 1u);  // write pointer: entries 0 and 1
    // EXECLIST_STATUS 13:5, the last switch's reason: complete | active-to-idle (GVT-g execlist_status_format; NEO's
    // AUB completion poll waits for bit 8).
    EXPECT_EQ(driver_.mmio_read(0x2234) >> 5 & 0x1FF, 0x18u);
    // The engine saved HEAD into the image: it equals TAIL.
    EXPECT_EQ(dram32(ctx.state.phys + 4096 + gen::lrc::value(gen::lrc::kRingHead) * 4), ctx.tail);
  });
}

TEST_F(ExeclistTest, TwoElementsGiveElementSwitchThenActiveToIdle) {
  test::run_thread([&] {
    driver_.enable_execlists(gen::Engine::kBcs);
    auto& a = driver_.create_context(gen::Engine::kBcs);
    auto& b = driver_.create_context(gen::Engine::kBcs);
    const auto sa = driver_.emit_breadcrumb(a);
    const auto sb = driver_.emit_breadcrumb(b);
    driver_.submit(a, &b);
    EXPECT_TRUE(driver_.wait_seqno(b, sb, 50'000));
    EXPECT_TRUE(driver_.wait_seqno(a, sa, 1'000));
    settle();
    const auto csb = driver_.process_csb(gen::Engine::kBcs);
    ASSERT_EQ(csb.size(), 3u);
    EXPECT_EQ(csb[0], (CsbEntry{Execlists::kIdleToActive, 0}));
    EXPECT_EQ(csb[1], (CsbEntry{Execlists::kComplete | Execlists::kElementSwitch, a.id}));
    EXPECT_EQ(csb[2], (CsbEntry{Execlists::kComplete | Execlists::kActiveToIdle, b.id}));
  });
}

TEST_F(ExeclistTest, CsbWrapsAfterSixEntriesAndIsMirroredInTheStatusPage) {
  test::run_thread([&] {
    driver_.enable_execlists(gen::Engine::kVecs);
    auto& c = driver_.create_context(gen::Engine::kVecs);
    std::vector<CsbEntry> all;
    for (int round = 0; round < 4; ++round) {  // 2 entries per round: 8 entries, the pointer wraps once
      const auto s = driver_.emit_breadcrumb(c);
      driver_.submit(c);
      EXPECT_TRUE(driver_.wait_seqno(c, s, 50'000));
      settle(2'000);
      for (const auto& e : driver_.process_csb(gen::Engine::kVecs)) all.push_back(e);
    }
    ASSERT_EQ(all.size(), 8u);
    for (int round = 0; round < 4; ++round) {
      EXPECT_EQ(all[2 * round], (CsbEntry{Execlists::kIdleToActive, 0}));
      EXPECT_EQ(all[2 * round + 1], (CsbEntry{Execlists::kComplete | Execlists::kActiveToIdle, c.id}));
    }
    // 8 entries from reset: written at 0..5 then 0, 1: the write pointer is 1, in the register and the mirror.
    const std::uint32_t base = 0x1A000;
    EXPECT_EQ(driver_.mmio_read(base + Execlists::kCsbPointer) & 7, 1u);
    const auto& hwsp = driver_.engine_status_page(gen::Engine::kVecs);
    EXPECT_EQ(dram32(hwsp.phys + Execlists::kHwspCsbWriteDword * 4), 1u);
    // Entry 1 in registers and mirror: the last COMPLETE | ACTIVE_TO_IDLE.
    EXPECT_EQ(driver_.mmio_read(base + Execlists::kCsbBase + 8), Execlists::kComplete | Execlists::kActiveToIdle);
    EXPECT_EQ(dram32(hwsp.phys + (Execlists::kHwspCsbDword + 2) * 4), Execlists::kComplete | Execlists::kActiveToIdle);
    EXPECT_EQ(dram32(hwsp.phys + (Execlists::kHwspCsbDword + 3) * 4), c.id);
  });
}

TEST_F(ExeclistTest, HigherPrioritySubmissionPreemptsAtASemaphoreWithArbitrationOn) {
  test::run_thread([&] {
    driver_.enable_execlists(gen::Engine::kRcs);
    const auto sem = driver_.alloc(4096);
    driver_.upload(sem, 0, {0});
    auto& low = driver_.create_context(gen::Engine::kRcs);
    auto& high = driver_.create_context(gen::Engine::kRcs);
    driver_.emit(low, mi::arb_on_off(true));
    driver_.emit(low, mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual));
    const auto s_low = driver_.emit_breadcrumb(low);
    const auto s_high = driver_.emit_breadcrumb(high);
    driver_.submit(low);
    settle(2'000);  // low is waiting on the semaphore
    driver_.submit(high);
    EXPECT_TRUE(driver_.wait_seqno(high, s_high, 50'000));
    settle(2'000);
    auto csb = driver_.process_csb(gen::Engine::kRcs);
    ASSERT_EQ(csb.size(), 3u);
    EXPECT_EQ(csb[0], (CsbEntry{Execlists::kIdleToActive, 0}));
    EXPECT_EQ(csb[1], (CsbEntry{Execlists::kPreempted, low.id}));
    EXPECT_EQ(csb[2], (CsbEntry{Execlists::kComplete | Execlists::kActiveToIdle, high.id}));
    // low resumes at its saved HEAD (the semaphore) once resubmitted and released.
    driver_.upload(sem, 0, {1});
    driver_.submit(low);
    EXPECT_TRUE(driver_.wait_seqno(low, s_low, 50'000));
  });
}

TEST_F(ExeclistTest, ResubmittingTheRunningContextWithANewTailIsALiteRestore) {
  test::run_thread([&] {
    driver_.enable_execlists(gen::Engine::kRcs);
    const auto sem = driver_.alloc(4096);
    driver_.upload(sem, 0, {0});
    auto& c = driver_.create_context(gen::Engine::kRcs);
    driver_.emit(c, mi::arb_on_off(true));
    driver_.emit(c, mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual));
    driver_.submit(c);
    settle(2'000);
    const auto seqno = driver_.emit_breadcrumb(c);  // more work in the same ring
    driver_.submit(c);
    settle(2'000);
    driver_.upload(sem, 0, {1});
    EXPECT_TRUE(driver_.wait_seqno(c, seqno, 50'000));
    settle(2'000);
    const auto csb = driver_.process_csb(gen::Engine::kRcs);
    ASSERT_EQ(csb.size(), 3u);
    EXPECT_EQ(csb[0], (CsbEntry{Execlists::kIdleToActive, 0}));
    EXPECT_EQ(csb[1], (CsbEntry{Execlists::kPreempted | Execlists::kLiteRestore, c.id}));
    EXPECT_EQ(csb[2], (CsbEntry{Execlists::kComplete | Execlists::kActiveToIdle, c.id}));
  });
}

TEST_F(ExeclistTest, ForceRestoreReloadsTheWholeImageOfTheRunningContext) {
  // i915 rewrites an image (here: HEAD moved past a semaphore that will never be signalled, as after a hang) and
  // resubmits the running context with FORCE_RESTORE: no lite restore, the engine reloads HEAD from the image.
  test::run_thread([&] {
    driver_.enable_execlists(gen::Engine::kRcs);
    const auto sem = driver_.alloc(4096);
    driver_.upload(sem, 0, {0});
    auto& c = driver_.create_context(gen::Engine::kRcs);
    driver_.emit(c, mi::arb_on_off(true));
    driver_.emit(c, mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual));
    const std::uint32_t after_semaphore = c.tail;
    const auto seqno = driver_.emit_breadcrumb(c);
    driver_.submit(c);
    settle(2'000);
    EXPECT_NE(dram32(driver_.seqno_address(c)), seqno);  // stuck on the semaphore
    port_.write32(c.state.phys + 4096 + gen::lrc::value(gen::lrc::kRingHead) * 4, after_semaphore);
    c.next_submit_flags = gen::ContextDescriptor::kForceRestore;
    driver_.submit(c);
    EXPECT_TRUE(driver_.wait_seqno(c, seqno, 50'000));
    settle(2'000);
    const auto csb = driver_.process_csb(gen::Engine::kRcs);
    ASSERT_EQ(csb.size(), 3u);
    EXPECT_EQ(csb[0], (CsbEntry{Execlists::kIdleToActive, 0}));
    EXPECT_EQ(csb[1], (CsbEntry{Execlists::kPreempted, c.id}));  // a full restore, not a lite one
    EXPECT_EQ(csb[2], (CsbEntry{Execlists::kComplete | Execlists::kActiveToIdle, c.id}));
    EXPECT_EQ(c.next_submit_flags, 0u);  // one submission only
  });
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.forced_restores"), 1u);
}

TEST_F(ExeclistTest, LiteRestoreKeepsThePageDirectoriesUnlessForcePdRestoreIsSet) {
  // A running 48-bit context whose image gets a new PML4: a plain lite restore keeps translating through the old one,
  // FORCE_PD_RESTORE switches to the new one without a full context restore.
  const std::uint64_t tables[2] = {0x0800'0000, 0x0810'0000};
  const std::uint64_t pages[2] = {0x0820'0000, 0x0830'0000};
  for (int i = 0; i < 2; ++i) map_48bit_ppgtt(tables[i], pages[i]);
  test::run_thread([&] {
    driver_.enable_execlists(gen::Engine::kRcs);
    const auto sem = driver_.alloc(4096);
    driver_.upload(sem, 0, {0});
    auto& c = driver_.create_context(gen::Engine::kRcs, 16 * 1024, 3, {tables[0], 0, 0, 0});
    driver_.emit(c, mi::arb_on_off(true));
    driver_.emit(c, mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual));
    driver_.emit(c, mi::store_data_imm(0x10000, 0x1111, false));  // PPGTT
    driver_.emit(c, mi::semaphore_wait(sem.gfx, 2, mi::Compare::kEqual));
    driver_.emit(c, mi::store_data_imm(0x10004, 0x2222, false));
    const auto seqno = driver_.emit_breadcrumb(c);
    driver_.submit(c);
    settle(2'000);  // waiting for 1
    // The image's PDP0 (GVT-g struct execlist_ring_context order: PDP3 first, PDP0 last; the value dwords of
    // 0x2274/0x2270).
    const auto image = driver_.context_image(c);
    std::uint32_t pdp0_ldw = 0, pdp0_udw = 0;
    for (std::uint32_t i = 0; i + 1 < image.size(); ++i) {
      if (image[i] == 0x2270) pdp0_ldw = i + 1;
      if (image[i] == 0x2274) pdp0_udw = i + 1;
    }
    ASSERT_NE(pdp0_ldw, 0u);
    ASSERT_NE(pdp0_udw, 0u);
    port_.write32(c.state.phys + 4096 + pdp0_ldw * 4, static_cast<std::uint32_t>(tables[1]));
    port_.write32(c.state.phys + 4096 + pdp0_udw * 4, static_cast<std::uint32_t>(tables[1] >> 32));
    driver_.submit(c);  // plain lite restore: the old tables stay
    settle(2'000);
    driver_.upload(sem, 0, {1});
    settle(2'000);  // first store done, waiting for 2
    c.next_submit_flags = gen::ContextDescriptor::kForcePdRestore;
    driver_.submit(c);
    settle(2'000);
    driver_.upload(sem, 0, {2});
    EXPECT_TRUE(driver_.wait_seqno(c, seqno, 50'000));
    settle(2'000);
    const auto csb = driver_.process_csb(gen::Engine::kRcs);
    ASSERT_EQ(csb.size(), 4u);
    EXPECT_EQ(csb[1], (CsbEntry{Execlists::kPreempted | Execlists::kLiteRestore, c.id}));
    EXPECT_EQ(csb[2], (CsbEntry{Execlists::kPreempted | Execlists::kLiteRestore, c.id}));
    EXPECT_EQ(csb[3], (CsbEntry{Execlists::kComplete | Execlists::kActiveToIdle, c.id}));
  });
  // The first store ran after the plain lite restore (old tables), the second after FORCE_PD_RESTORE (new tables).
  EXPECT_EQ(dram32(pages[0]), 0x1111u);
  EXPECT_EQ(dram32(pages[1]), 0u);
  EXPECT_EQ(dram32(pages[1] + 4), 0x2222u);
  EXPECT_EQ(dram32(pages[0] + 4), 0u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.forced_pd_restores"), 1u);
}

TEST_F(ExeclistTest, PreemptionInsideABatchSavesTheBatchHeadAndResumesThere) {
  // low's batch: increment a counter, wait on a semaphore (arbitration on), store, end. high preempts at the wait;
  // low resumes at the semaphore inside its batch: the counter is incremented once, not twice.
  std::uint32_t bb_state = 0, bb_head = 0, ring_head = 0;
  host::I915Driver::Buffer batch, out;
  std::uint32_t ring_after_bb_start = 0;
  test::run_thread([&] {
    driver_.enable_execlists(gen::Engine::kRcs);
    const auto sem = driver_.alloc(4096);
    out = driver_.alloc(4096);
    batch = driver_.alloc(4096);
    driver_.upload(sem, 0, {0});
    std::vector<std::uint32_t> bb;
    mi::emit(bb, mi::atomic(gen::atomic_op::kInc, out.gfx, true, false));
    mi::emit(bb, mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual));
    mi::emit(bb, mi::store_data_imm(out.gfx + 4, 0x22));
    mi::emit(bb, mi::batch_buffer_end());
    driver_.upload(batch, 0, bb);
    auto& low = driver_.create_context(gen::Engine::kRcs);
    auto& high = driver_.create_context(gen::Engine::kRcs);
    driver_.emit(low, mi::arb_on_off(true));
    driver_.emit(low, mi::batch_buffer_start(batch.gfx, false));
    ring_after_bb_start = low.tail;
    const auto s_low = driver_.emit_breadcrumb(low);
    driver_.emit(high, mi::store_data_imm(out.gfx + 8, 0x33));
    const auto s_high = driver_.emit_breadcrumb(high);
    driver_.submit(low);
    settle(2'000);
    driver_.submit(high);
    EXPECT_TRUE(driver_.wait_seqno(high, s_high, 50'000));
    settle(2'000);
    // What low's image holds now.
    const auto image = driver_.context_image(low);
    for (std::uint32_t i = 0; i + 1 < image.size(); ++i) {
      const std::uint32_t value = dram32(low.state.phys + 4096 + 4 * (i + 1));
      if (image[i] == 0x2110) bb_state = value;
      if (image[i] == 0x2140) bb_head = value;
      if (image[i] == 0x2034) ring_head = value;
    }
    EXPECT_EQ(dram32(out.phys + 4), 0u);
    driver_.upload(sem, 0, {1});
    driver_.submit(low);
    EXPECT_TRUE(driver_.wait_seqno(low, s_low, 50'000));
    settle(2'000);
    const auto csb = driver_.process_csb(gen::Engine::kRcs);
    ASSERT_EQ(csb.size(), 5u);
    EXPECT_EQ(csb[1], (CsbEntry{Execlists::kPreempted, low.id}));
    EXPECT_EQ(csb[4], (CsbEntry{Execlists::kComplete | Execlists::kActiveToIdle, low.id}));
  });
  // Saved inside the batch: GGTT batch level 0 active, its head at the semaphore (after the 3-dword MI_ATOMIC), and
  // the ring's HEAD already past the MI_BATCH_BUFFER_START.
  EXPECT_EQ(bb_state, gen::engine_reg::kBbStateActive);
  EXPECT_EQ(bb_head, static_cast<std::uint32_t>(batch.gfx + 12));
  EXPECT_EQ(ring_head & 0x1FFFFC, ring_after_bb_start);
  EXPECT_EQ(dram32(out.phys + 0), 1u);  // incremented once
  EXPECT_EQ(dram32(out.phys + 4), 0x22u);
  EXPECT_EQ(dram32(out.phys + 8), 0x33u);
}

TEST_F(ExeclistTest, TwoContextsSeeDifferentMemoryAtTheSameVirtualAddress) {
  // Each context has its own 48-bit PPGTT: VA 0x10000 maps to a different physical page.
  const std::uint64_t tables[2] = {0x0800'0000, 0x0810'0000};
  const std::uint64_t pages[2] = {0x0820'0000, 0x0830'0000};
  for (int i = 0; i < 2; ++i) map_48bit_ppgtt(tables[i], pages[i]);
  test::run_thread([&] {
    driver_.enable_execlists(gen::Engine::kVcs0);
    auto& a = driver_.create_context(gen::Engine::kVcs0, 16 * 1024, 3, {tables[0], 0, 0, 0});
    auto& b = driver_.create_context(gen::Engine::kVcs0, 16 * 1024, 3, {tables[1], 0, 0, 0});
    driver_.emit(a, mi::store_data_imm(0x10000, 0xAAAA, false));  // PPGTT
    driver_.emit(b, mi::store_data_imm(0x10000, 0xBBBB, false));
    const auto sa = driver_.emit_breadcrumb(a);
    const auto sb = driver_.emit_breadcrumb(b);
    driver_.submit(a, &b);
    EXPECT_TRUE(driver_.wait_seqno(b, sb, 50'000));
    EXPECT_TRUE(driver_.wait_seqno(a, sa, 1'000));
  });
  EXPECT_EQ(dram32(pages[0]), 0xAAAAu);
  EXPECT_EQ(dram32(pages[1]), 0xBBBBu);
}

TEST_F(ExeclistTest, ContextTimestampAdvancesOnlyWhileTheContextRuns) {
  test::run_thread([&] {
    driver_.enable_execlists(gen::Engine::kRcs);
    const auto sem = driver_.alloc(4096);
    driver_.upload(sem, 0, {0});
    auto& c = driver_.create_context(gen::Engine::kRcs);
    // Runs ~10 us waiting on a semaphore the host releases.
    driver_.emit(c, mi::semaphore_wait(sem.gfx, 1, mi::Compare::kEqual));
    const auto s = driver_.emit_breadcrumb(c);
    driver_.submit(c);
    settle(10'000);
    driver_.upload(sem, 0, {1});
    EXPECT_TRUE(driver_.wait_seqno(c, s, 50'000));
    settle(100);
    const std::uint32_t ts1 = dram32(c.state.phys + 4096 + gen::lrc::value(gen::lrc::kCtxTimestamp) * 4);
    // 12 MHz on Gen9: ~10 us is ~120 ticks, less the ELSP write and context load before the context runs.
    EXPECT_GE(ts1, 110u);
    EXPECT_LE(ts1, 140u);
    settle(50'000);  // idle: the saved value does not move
    EXPECT_EQ(dram32(c.state.phys + 4096 + gen::lrc::value(gen::lrc::kCtxTimestamp) * 4), ts1);
  });
}

TEST_F(ExeclistTest, BadSubmissionsStopTheEngineWithAnErrorTheDriverCanSee) {
  test::run_thread([&] {
    driver_.enable_interrupts(gen::Engine::kRcs);
    driver_.enable_execlists(gen::Engine::kRcs);
    auto& c = driver_.create_context(gen::Engine::kRcs);
    // Element 0 without VALID.
    const std::uint32_t elsp = 0x2000 + Execlists::kElsp;
    for (std::uint32_t v : {0u, 0u, c.id, static_cast<std::uint32_t>(c.descriptor() & ~1ull)})
      driver_.mmio_write(elsp, v);
    settle(1'000);
    EXPECT_EQ(driver_.mmio_read(0x2000 + 0xB0) & 1, 1u);         // EIR instruction error
    EXPECT_EQ(driver_.mmio_read(0x44308) & (1u << 3), 1u << 3);  // CS error in GT IIR bank 0
    driver_.mmio_write(0x941C, 1u << 1);                         // GDRST render
    driver_.enable_execlists(gen::Engine::kRcs);
    // Garbage register state: the engine stops naming the context.
    driver_.upload(c.state, 4096 + 0x100, {0xDEADBEEF});
    const auto s = driver_.emit_breadcrumb(c);
    driver_.submit(c);
    EXPECT_FALSE(driver_.wait_seqno(c, s, 5'000));
  });
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "ELSP submission with element 0 not valid").size(), 1u);
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "(0xdeadbeef)").size(), 1u);
}

// A context image is the hardware's own save format: its restore loads registers MMIO cannot write, such as NOP ID,
// which NEO's images list (compute-runtime aub_mem_dump.cpp), without the warning an LRI to them gets.
TEST_F(ExeclistTest, ContextRestoreLoadsAReadOnlyRegisterFromTheImage) {
  test::run_thread([&] {
    driver_.enable_execlists(gen::Engine::kRcs);
    auto& ctx = driver_.create_context(gen::Engine::kRcs);
    // The three MI_NOOPs before the image's second register list become LRI(1) NOPID = 0x1234.
    ASSERT_EQ(dram32(ctx.state.phys + 4096 + 0x1E * 4), 0u);
    driver_.upload(ctx.state, 4096 + 0x1E * 4, {0x11001001, 0x2094, 0x1234});
    const auto seqno = driver_.emit_breadcrumb(ctx);
    driver_.submit(ctx);
    EXPECT_TRUE(driver_.wait_seqno(ctx, seqno, 50'000));
    EXPECT_EQ(driver_.mmio_read(0x2094), 0x1234u);
  });
}
