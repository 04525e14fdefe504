// GT interrupt banks and GEN8_MASTER_IRQ: where each engine's events land, IMR/IER/master gating, the i915 gen8
// interrupt handler's sequence, counters, every source through every gate (the host line is the banks' alone).
// Register values are computed by hand from the bit layout (i915 i915_reg.h, gt/intel_gt_irq.c, GVT-g gvt/interrupt.c;
// docs/gen-interrupts.md and the top of tlm/gen/gt_interrupts.cpp).
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/sc_test.h"
#include "tlm/core/interrupt_line.h"
#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/gen/gt_interrupts.h"

using namespace gpuvp;
using gen::Engine;
using gen::GtInterrupts;

namespace {

constexpr std::uint32_t kMaster = 0x44200;
constexpr std::uint32_t isr(int n) { return 0x44300 + 0x10 * n; }
constexpr std::uint32_t imr(int n) { return 0x44304 + 0x10 * n; }
constexpr std::uint32_t iir(int n) { return 0x44308 + 0x10 * n; }
constexpr std::uint32_t ier(int n) { return 0x4430C + 0x10 * n; }

// The four bits gen8_gt_irq_postinstall enables per engine: CS master error | user | context switch | semaphore.
constexpr std::uint32_t kIrqs = 0x0000'0909;

class GtInterruptsTest : public ::testing::Test {
 protected:
  GtInterruptsTest() : bar_("gen.bar"), line_("gen.irq"), gt_(bar_, line_, "gen.gt_irq") {
    line_.on_change([this](bool level) { changes_.push_back(level); });
  }

  std::uint32_t rd(std::uint32_t offset) {
    unsigned char b[4] = {};
    EXPECT_TRUE(bar_.read(offset, b, 4));
    std::uint32_t v;
    std::memcpy(&v, b, 4);
    return v;
  }
  void wr(std::uint32_t offset, std::uint32_t v) {
    unsigned char b[4];
    std::memcpy(b, &v, 4);
    EXPECT_TRUE(bar_.write(offset, b, 4));
  }
  // gen8_gt_irq_postinstall (LNX gt/intel_gt_irq.c) through GEN8_IRQ_INIT_NDX: IER then IMR, bank 2 left masked.
  void i915_postinstall() {
    const std::uint32_t gt[4] = {kIrqs << 0 | kIrqs << 16, kIrqs << 0 | kIrqs << 16, 0, kIrqs << 0};
    for (int n = 0; n < 4; ++n) {
      wr(ier(n), gt[n]);
      wr(imr(n), ~gt[n]);
    }
  }
  // gen8_master_intr_enable.
  void enable_master() { wr(kMaster, 0x8000'0000); }

  core::RegisterBank bar_;
  core::InterruptLine line_;
  GtInterrupts gt_;
  std::vector<bool> changes_;
};

}  // namespace

TEST_F(GtInterruptsTest, LayoutNamesAndResetValues) {
  EXPECT_EQ(GtInterrupts::bank_of(Engine::kRcs), 0);
  EXPECT_EQ(GtInterrupts::bank_of(Engine::kBcs), 0);
  EXPECT_EQ(GtInterrupts::bank_of(Engine::kVcs0), 1);
  EXPECT_EQ(GtInterrupts::bank_of(Engine::kVcs1), 1);
  EXPECT_EQ(GtInterrupts::bank_of(Engine::kVecs), 3);
  EXPECT_EQ(GtInterrupts::shift_of(Engine::kRcs), 0);
  EXPECT_EQ(GtInterrupts::shift_of(Engine::kBcs), 16);
  EXPECT_EQ(GtInterrupts::shift_of(Engine::kVcs0), 0);
  EXPECT_EQ(GtInterrupts::shift_of(Engine::kVcs1), 16);
  EXPECT_EQ(GtInterrupts::shift_of(Engine::kVecs), 0);
  EXPECT_STREQ(gen::to_string(Engine::kVcs1), "vcs1");
  EXPECT_STREQ(gen::to_string(Engine::kVecs), "vecs");

  EXPECT_EQ(bar_.by_name("GEN8_MASTER_IRQ").offset(), 0x44200u);
  EXPECT_EQ(bar_.by_name("GEN8_GT_IIR(2)").offset(), 0x44328u);
  EXPECT_EQ(bar_.by_name("GEN8_GT_IER(3)").offset(), 0x4433Cu);
  EXPECT_EQ(rd(kMaster), 0u);
  for (int n = 0; n < 4; ++n) {
    EXPECT_EQ(rd(isr(n)), 0u) << n;
    EXPECT_EQ(rd(imr(n)), 0xFFFF'FFFFu) << n;  // everything masked until the driver unmasks
    EXPECT_EQ(rd(iir(n)), 0u) << n;
    EXPECT_EQ(rd(ier(n)), 0u) << n;
  }
  EXPECT_FALSE(line_.level());
}

TEST_F(GtInterruptsTest, EachEngineEventLandsInItsBankAndBitsAndMasterBit) {
  i915_postinstall();
  EXPECT_EQ(rd(imr(0)), 0xF6F6'F6F6u);
  EXPECT_EQ(rd(ier(0)), 0x0909'0909u);
  EXPECT_EQ(rd(imr(3)), 0xFFFF'F6F6u);
  enable_master();
  struct Case {
    Engine engine;
    std::uint32_t bits;
    int bank;
    std::uint32_t iir;
    std::uint32_t master;
  };
  const Case cases[] = {
      {Engine::kRcs, GtInterrupts::kUserInterrupt, 0, 0x0000'0001, 0x8000'0001},
      {Engine::kRcs, GtInterrupts::kContextSwitch, 0, 0x0000'0100, 0x8000'0001},
      {Engine::kBcs, GtInterrupts::kUserInterrupt, 0, 0x0001'0000, 0x8000'0002},
      {Engine::kBcs, GtInterrupts::kContextSwitch, 0, 0x0100'0000, 0x8000'0002},
      {Engine::kVcs0, GtInterrupts::kWaitOnSemaphore, 1, 0x0000'0800, 0x8000'0004},
      {Engine::kVcs0, GtInterrupts::kCsError, 1, 0x0000'0008, 0x8000'0004},
      {Engine::kVcs1, GtInterrupts::kCsError, 1, 0x0008'0000, 0x8000'0008},
      {Engine::kVcs1, GtInterrupts::kUserInterrupt | GtInterrupts::kContextSwitch, 1, 0x0101'0000, 0x8000'0008},
      {Engine::kVecs, GtInterrupts::kContextSwitch, 3, 0x0000'0100, 0x8000'0040},
      {Engine::kVecs, GtInterrupts::kWaitOnSemaphore | GtInterrupts::kCsError, 3, 0x0000'0808, 0x8000'0040},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(gen::to_string(c.engine)) + " bits " + std::to_string(c.bits));
    ASSERT_FALSE(line_.level());
    gt_.raise(c.engine, c.bits);
    for (int n = 0; n < 4; ++n) {
      EXPECT_EQ(rd(iir(n)), n == c.bank ? c.iir : 0u) << "bank " << n;
      EXPECT_EQ(gt_.iir(n), n == c.bank ? c.iir : 0u) << "bank " << n;
    }
    EXPECT_EQ(rd(kMaster), c.master);
    EXPECT_TRUE(line_.level());
    wr(iir(c.bank), c.iir);  // ack
    EXPECT_EQ(rd(iir(c.bank)), 0u);
    EXPECT_EQ(rd(kMaster), 0x8000'0000u);
    EXPECT_FALSE(line_.level());
  }
  EXPECT_EQ(line_.raise_count(), 10u);
}

TEST_F(GtInterruptsTest, AllEnginesTogetherSetEveryGtMasterBit) {
  i915_postinstall();
  enable_master();
  gt_.raise(Engine::kRcs, GtInterrupts::kUserInterrupt);
  gt_.raise(Engine::kBcs, GtInterrupts::kContextSwitch);
  gt_.raise(Engine::kVcs0, GtInterrupts::kContextSwitch);
  gt_.raise(Engine::kVcs1, GtInterrupts::kUserInterrupt);
  gt_.raise(Engine::kVecs, GtInterrupts::kUserInterrupt);
  EXPECT_EQ(rd(iir(0)), 0x0100'0001u);
  EXPECT_EQ(rd(iir(1)), 0x0001'0100u);
  EXPECT_EQ(rd(iir(2)), 0u);
  EXPECT_EQ(rd(iir(3)), 0x0000'0001u);
  EXPECT_EQ(rd(kMaster), 0x8000'004Fu);  // 31 | VECS 6 | VCS1 3 | VCS0 2 | BCS 1 | RCS 0
  EXPECT_EQ(line_.raise_count(), 1u);    // one level, raised by the first event
  // Bits outside the engine's 16-bit field are ignored (RCS cannot set BCS's half).
  gt_.raise(Engine::kRcs, 1u << 16);
  EXPECT_EQ(rd(iir(0)), 0x0100'0001u);
}

TEST_F(GtInterruptsTest, ImrKeepsEventsOutOfIirButDoesNotClearLatchedBits) {
  wr(ier(0), 0xFFFF'FFFF);
  wr(imr(0), 0xFFFF'FFFE);  // only RCS user interrupt unmasked
  enable_master();
  gt_.raise(Engine::kRcs, GtInterrupts::kUserInterrupt | GtInterrupts::kContextSwitch);
  EXPECT_EQ(rd(iir(0)), 0x0000'0001u);  // context switch (bit 8) masked
  gt_.raise(Engine::kBcs, GtInterrupts::kUserInterrupt);
  EXPECT_EQ(rd(iir(0)), 0x0000'0001u);  // BCS half fully masked
  EXPECT_EQ(rd(kMaster), 0x8000'0001u);
  // Unmasking later does not bring back an event that was masked when it happened.
  wr(imr(0), 0xFFFF'FEFE);
  EXPECT_EQ(rd(iir(0)), 0x0000'0001u);
  gt_.raise(Engine::kRcs, GtInterrupts::kContextSwitch);
  EXPECT_EQ(rd(iir(0)), 0x0000'0101u);
  // Masking after the event leaves the latched bits and the line alone.
  wr(imr(0), 0xFFFF'FFFF);
  EXPECT_EQ(rd(iir(0)), 0x0000'0101u);
  EXPECT_TRUE(line_.level());
  EXPECT_EQ(rd(imr(0)), 0xFFFF'FFFFu);
}

TEST_F(GtInterruptsTest, IerGatesLineAndMasterPendingBitsButNotIir) {
  wr(imr(0), 0);
  wr(ier(0), 0);
  enable_master();
  gt_.raise(Engine::kRcs, GtInterrupts::kUserInterrupt);
  EXPECT_EQ(rd(iir(0)), 0x0000'0001u);  // latched although not enabled
  EXPECT_EQ(rd(kMaster), 0x8000'0000u);
  EXPECT_FALSE(line_.level());
  wr(ier(0), 0x0000'0001);  // enabling a latched bit raises the line at once
  EXPECT_EQ(rd(kMaster), 0x8000'0001u);
  EXPECT_TRUE(line_.level());
  wr(ier(0), 0x0001'0000);  // only BCS user interrupt enabled
  EXPECT_EQ(rd(kMaster), 0x8000'0000u);
  EXPECT_FALSE(line_.level());
  EXPECT_EQ(rd(iir(0)), 0x0000'0001u);
  gt_.raise(Engine::kBcs, GtInterrupts::kUserInterrupt);
  EXPECT_EQ(rd(iir(0)), 0x0001'0001u);
  EXPECT_EQ(rd(kMaster), 0x8000'0002u);  // BCS pending; RCS latched but not enabled
  EXPECT_TRUE(line_.level());
  EXPECT_EQ(changes_, (std::vector<bool>{true, false, true}));
}

TEST_F(GtInterruptsTest, MasterEnableGatesLineAndOnlyBit31IsWritable) {
  wr(imr(1), 0);
  wr(ier(1), 0xFFFF'FFFF);
  gt_.raise(Engine::kVcs1, GtInterrupts::kUserInterrupt);
  EXPECT_EQ(rd(iir(1)), 0x0001'0000u);
  EXPECT_EQ(rd(kMaster), 0x0000'0008u);  // pending shows with the master disabled
  EXPECT_FALSE(line_.level());
  enable_master();
  EXPECT_TRUE(line_.level());
  EXPECT_EQ(rd(kMaster), 0x8000'0008u);
  wr(kMaster, 0);
  EXPECT_FALSE(line_.level());
  EXPECT_EQ(rd(kMaster), 0x0000'0008u);
  // Hardware bits ignore writes: only the enable is stored.
  wr(kMaster, 0xFFFF'FFFF);
  EXPECT_EQ(bar_.at(kMaster).value(), 0x8000'0000u);
  EXPECT_EQ(rd(kMaster), 0x8000'0008u);
  wr(kMaster, 0x7FFF'FFFF);
  EXPECT_EQ(bar_.at(kMaster).value(), 0u);
  EXPECT_FALSE(line_.level());
  EXPECT_EQ(line_.raise_count(), 2u);
}

TEST_F(GtInterruptsTest, I915Gen8HandlerSequenceAcksEverythingAndEndsWithTheLineLow) {
  // gen8_gt_irq_reset: IMR all ones, IER 0, IIR all ones twice, for each bank; then postinstall and enable.
  for (int n = 0; n < 4; ++n) {
    wr(imr(n), 0xFFFF'FFFF);
    wr(ier(n), 0);
    wr(iir(n), 0xFFFF'FFFF);
    wr(iir(n), 0xFFFF'FFFF);
  }
  i915_postinstall();
  enable_master();
  EXPECT_FALSE(line_.level());

  gt_.raise(Engine::kRcs, GtInterrupts::kContextSwitch);
  gt_.raise(Engine::kBcs, GtInterrupts::kUserInterrupt);
  gt_.raise(Engine::kVecs, GtInterrupts::kUserInterrupt);
  ASSERT_TRUE(line_.level());
  EXPECT_EQ(line_.raise_count(), 1u);

  // gen8_irq_handler: gen8_master_intr_disable = write 0, then read the sample.
  wr(kMaster, 0);
  EXPECT_FALSE(line_.level());
  const std::uint32_t master_ctl = rd(kMaster);
  EXPECT_EQ(master_ctl, 0x0000'0043u);  // RCS 0 | BCS 1 | VECS 6, enable clear
  // gen8_gt_irq_handler: RCS|BCS -> bank 0.
  ASSERT_TRUE(master_ctl & 0x3);
  const std::uint32_t iir0 = rd(iir(0));
  EXPECT_EQ(iir0, 0x0001'0100u);
  wr(iir(0), iir0);
  EXPECT_EQ(rd(iir(0)), 0u);
  EXPECT_EQ(rd(kMaster), 0x0000'0040u);  // the ack clears the indication
  // VCS0|VCS1 and PM|GUC not set: banks 1 and 2 untouched.
  EXPECT_FALSE(master_ctl & 0xC);
  EXPECT_FALSE(master_ctl & 0x30);
  // VECS -> bank 3.
  ASSERT_TRUE(master_ctl & 0x40);
  const std::uint32_t iir3 = rd(iir(3));
  EXPECT_EQ(iir3, 0x0000'0001u);
  wr(iir(3), iir3);
  EXPECT_EQ(rd(iir(3)), 0u);
  // gen8_master_intr_enable.
  wr(kMaster, 0x8000'0000);
  EXPECT_FALSE(line_.level());
  EXPECT_EQ(rd(kMaster), 0x8000'0000u);
  EXPECT_EQ(changes_, (std::vector<bool>{true, false}));
  EXPECT_EQ(line_.raise_count(), 1u);

  // An event arriving while the handler runs with the master off interrupts again once it is re-enabled.
  wr(kMaster, 0);
  gt_.raise(Engine::kVcs0, GtInterrupts::kUserInterrupt);
  EXPECT_FALSE(line_.level());
  EXPECT_EQ(rd(kMaster), 0x0000'0004u);
  wr(kMaster, 0x8000'0000);
  EXPECT_TRUE(line_.level());
  EXPECT_EQ(line_.raise_count(), 2u);
  wr(kMaster, 0);
  wr(iir(1), rd(iir(1)));
  wr(kMaster, 0x8000'0000);
  EXPECT_FALSE(line_.level());
  EXPECT_EQ(rd(iir(1)), 0u);
}

TEST_F(GtInterruptsTest, IirIsWriteOneToClearBitByBit) {
  wr(imr(0), 0);
  wr(ier(0), 0xFFFF'FFFF);
  enable_master();
  gt_.raise(Engine::kRcs, GtInterrupts::kUserInterrupt | GtInterrupts::kContextSwitch);
  gt_.raise(Engine::kBcs, GtInterrupts::kUserInterrupt);
  EXPECT_EQ(rd(iir(0)), 0x0001'0101u);
  wr(iir(0), 0);  // writing zeros clears nothing
  EXPECT_EQ(rd(iir(0)), 0x0001'0101u);
  wr(iir(0), 0x0000'0001);
  EXPECT_EQ(rd(iir(0)), 0x0001'0100u);
  EXPECT_EQ(rd(kMaster), 0x8000'0003u);
  wr(iir(0), 0x0000'0100);
  EXPECT_EQ(rd(iir(0)), 0x0001'0000u);
  EXPECT_EQ(rd(kMaster), 0x8000'0002u);
  EXPECT_TRUE(line_.level());
  // A one-byte write to byte 2 clears bit 16 only.
  const unsigned char one = 0x01;
  EXPECT_TRUE(bar_.write(iir(0) + 2, &one, 1));
  EXPECT_EQ(rd(iir(0)), 0u);
  EXPECT_EQ(rd(kMaster), 0x8000'0000u);
  EXPECT_FALSE(line_.level());
}

TEST_F(GtInterruptsTest, IsrIsReadOnlyAndReadsZeroForEngineEvents) {
  wr(imr(0), 0);
  wr(ier(0), 0xFFFF'FFFF);
  gt_.raise(Engine::kRcs, GtInterrupts::kUserInterrupt);
  EXPECT_EQ(rd(isr(0)), 0u);
  wr(isr(0), 0xFFFF'FFFF);  // the register kit reports the write to a read-only register
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "read-only register GEN8_GT_ISR(0)").size(), 1u);
  EXPECT_EQ(rd(isr(0)), 0u);
  EXPECT_EQ(rd(iir(0)), 0x0000'0001u);
}

TEST_F(GtInterruptsTest, Bank2HalvesFeedPmAndGucMasterBits) {
  // No engine reports into bank 2; put bits into its IIR the debugger's way, then an IER write re-evaluates.
  const std::uint32_t bits = 0x0001'0010;  // one PM bit (4), one GuC bit (16)
  unsigned char b[4];
  std::memcpy(b, &bits, 4);
  ASSERT_TRUE(bar_.debug_write(iir(2), b, 4));
  enable_master();
  EXPECT_FALSE(line_.level());
  wr(ier(2), 0x0000'FFFF);
  EXPECT_EQ(rd(kMaster), 0x8000'0010u);  // GEN8_GT_PM_IRQ
  EXPECT_TRUE(line_.level());
  wr(ier(2), 0xFFFF'0000);
  EXPECT_EQ(rd(kMaster), 0x8000'0020u);  // GEN8_GT_GUC_IRQ
  wr(iir(2), 0x0001'0000);
  EXPECT_EQ(rd(kMaster), 0x8000'0000u);
  EXPECT_FALSE(line_.level());
  EXPECT_EQ(rd(iir(2)), 0x0000'0010u);
}

TEST_F(GtInterruptsTest, CountersCountEveryEventPerEngineMaskedOrNot) {
  wr(imr(0), 0);
  gt_.raise(Engine::kRcs, GtInterrupts::kUserInterrupt);
  gt_.raise(Engine::kRcs, GtInterrupts::kContextSwitch);
  gt_.raise(Engine::kBcs, GtInterrupts::kUserInterrupt);
  gt_.raise(Engine::kVecs, GtInterrupts::kUserInterrupt);  // masked (IMR 3 at reset): still counted
  gt_.raise(Engine::kVecs, GtInterrupts::kUserInterrupt);
  gt_.raise(Engine::kVecs, GtInterrupts::kCsError);
  gt_.raise(Engine::kVcs0, 0);         // no bits: not an event
  gt_.raise(Engine::kVcs1, 1u << 16);  // outside the engine's field: not an event
  const auto& s = core::stats();
  EXPECT_EQ(s.counter_value("gen.gt_irq.rcs.events"), 2u);
  EXPECT_EQ(s.counter_value("gen.gt_irq.bcs.events"), 1u);
  EXPECT_EQ(s.counter_value("gen.gt_irq.vcs0.events"), 0u);
  EXPECT_EQ(s.counter_value("gen.gt_irq.vcs1.events"), 0u);
  EXPECT_EQ(s.counter_value("gen.gt_irq.vecs.events"), 3u);
  EXPECT_TRUE(s.has("gen.gt_irq.vcs0.events"));
  EXPECT_EQ(rd(iir(3)), 0u);
  EXPECT_EQ(rd(iir(1)), 0u);
  EXPECT_EQ(rd(iir(0)), 0x0001'0101u);
}

// ---- every source, every gate ----
//
// The host line is exactly GEN8_MASTER_IRQ bit 31 && any master bit, and a master bit is (IIR & IER) of its bank
// half; IMR decides whether the event is latched into IIR at all (i915 i915_irq.c gen8_irq_handler,
// gt/intel_gt_irq.c gen8_gt_irq_handler; GVT-g gvt/interrupt.c propagate_event, update_upstream_irq, gen8_irq_map).

namespace {

struct Source {
  const char* name;
  bool engine;           // an engine event (GtInterrupts::raise), else a bank event (raise_bank)
  Engine which;          // the engine
  std::uint32_t bits;    // the engine's event bits, or the bank's bits
  int bank;              // expected GT bank
  std::uint32_t iir;     // expected IIR bit of that bank
  std::uint32_t master;  // expected GEN8_MASTER_IRQ pending bit
};

std::ostream& operator<<(std::ostream& os, const Source& s) { return os << s.name; }

// Worked out by hand from i915_reg.h / gt/intel_gt_regs.h: GEN8_RCS_IRQ_SHIFT 0, GEN8_BCS_IRQ_SHIFT 16, GEN8_VCS0/1
// 0/16 in bank 1, GEN8_VECS_IRQ_SHIFT 0 in bank 3; GT_RENDER_USER_INTERRUPT 0, GT_CS_MASTER_ERROR_INTERRUPT 3,
// PIPE_CONTROL / MI_FLUSH_DW notify 4, GT_CONTEXT_SWITCH_INTERRUPT 8, GT_WAIT_SEMAPHORE_INTERRUPT 11; GUC_INTR_GUC2HOST
// (GuC bit 15) at IIR(2) bit 31; GEN8_GT_RCS_IRQ 0 .. GEN8_GT_VECS_IRQ 6, GEN8_GT_GUC_IRQ 5.
const Source kSources[] = {
    {"rcs_user", true, Engine::kRcs, GtInterrupts::kUserInterrupt, 0, 0x0000'0001, 1u << 0},
    {"rcs_cs_error", true, Engine::kRcs, GtInterrupts::kCsError, 0, 0x0000'0008, 1u << 0},
    {"rcs_pipe_control_notify", true, Engine::kRcs, GtInterrupts::kFlushNotify, 0, 0x0000'0010, 1u << 0},
    {"rcs_context_switch", true, Engine::kRcs, GtInterrupts::kContextSwitch, 0, 0x0000'0100, 1u << 0},
    {"rcs_wait_semaphore", true, Engine::kRcs, GtInterrupts::kWaitOnSemaphore, 0, 0x0000'0800, 1u << 0},
    {"bcs_user", true, Engine::kBcs, GtInterrupts::kUserInterrupt, 0, 0x0001'0000, 1u << 1},
    {"bcs_cs_error", true, Engine::kBcs, GtInterrupts::kCsError, 0, 0x0008'0000, 1u << 1},
    {"bcs_flush_notify", true, Engine::kBcs, GtInterrupts::kFlushNotify, 0, 0x0010'0000, 1u << 1},
    {"bcs_context_switch", true, Engine::kBcs, GtInterrupts::kContextSwitch, 0, 0x0100'0000, 1u << 1},
    {"bcs_wait_semaphore", true, Engine::kBcs, GtInterrupts::kWaitOnSemaphore, 0, 0x0800'0000, 1u << 1},
    {"vcs0_user", true, Engine::kVcs0, GtInterrupts::kUserInterrupt, 1, 0x0000'0001, 1u << 2},
    {"vcs0_cs_error", true, Engine::kVcs0, GtInterrupts::kCsError, 1, 0x0000'0008, 1u << 2},
    {"vcs0_flush_notify", true, Engine::kVcs0, GtInterrupts::kFlushNotify, 1, 0x0000'0010, 1u << 2},
    {"vcs0_context_switch", true, Engine::kVcs0, GtInterrupts::kContextSwitch, 1, 0x0000'0100, 1u << 2},
    {"vcs0_wait_semaphore", true, Engine::kVcs0, GtInterrupts::kWaitOnSemaphore, 1, 0x0000'0800, 1u << 2},
    {"vcs1_user", true, Engine::kVcs1, GtInterrupts::kUserInterrupt, 1, 0x0001'0000, 1u << 3},
    {"vcs1_cs_error", true, Engine::kVcs1, GtInterrupts::kCsError, 1, 0x0008'0000, 1u << 3},
    {"vcs1_flush_notify", true, Engine::kVcs1, GtInterrupts::kFlushNotify, 1, 0x0010'0000, 1u << 3},
    {"vcs1_context_switch", true, Engine::kVcs1, GtInterrupts::kContextSwitch, 1, 0x0100'0000, 1u << 3},
    {"vcs1_wait_semaphore", true, Engine::kVcs1, GtInterrupts::kWaitOnSemaphore, 1, 0x0800'0000, 1u << 3},
    {"vecs_user", true, Engine::kVecs, GtInterrupts::kUserInterrupt, 3, 0x0000'0001, 1u << 6},
    {"vecs_cs_error", true, Engine::kVecs, GtInterrupts::kCsError, 3, 0x0000'0008, 1u << 6},
    {"vecs_flush_notify", true, Engine::kVecs, GtInterrupts::kFlushNotify, 3, 0x0000'0010, 1u << 6},
    {"vecs_context_switch", true, Engine::kVecs, GtInterrupts::kContextSwitch, 3, 0x0000'0100, 1u << 6},
    {"vecs_wait_semaphore", true, Engine::kVecs, GtInterrupts::kWaitOnSemaphore, 3, 0x0000'0800, 1u << 6},
    {"guc_to_host", false, Engine::kRcs, GtInterrupts::kGucToHost, 2, 0x8000'0000, 1u << 5},
};

class GtInterruptSourceTest : public GtInterruptsTest, public ::testing::WithParamInterface<Source> {
 protected:
  void raise(const Source& s) {
    if (s.engine) {
      gt_.raise(s.which, s.bits);
    } else {
      gt_.raise_bank(s.bank, s.bits);
    }
  }
};

}  // namespace

TEST_P(GtInterruptSourceTest, LatchesItsIirBitAndDrivesTheLineOnlyThroughItsMasterBit) {
  const Source& s = GetParam();
  // Every combination of the source's IMR bit, its IER bit and the master enable, from a clean state each time. The
  // other bits of every bank are left fully open, so any stray bit would show in IIR, the master and the line.
  for (int combo = 0; combo < 8; ++combo) {
    const bool unmasked = combo & 1, enabled = combo & 2, master_on = combo & 4;
    SCOPED_TRACE(std::string("IMR ") + (unmasked ? "clear" : "set") + ", IER " + (enabled ? "set" : "clear") +
                 ", master " + (master_on ? "on" : "off"));
    wr(kMaster, 0);
    for (int n = 0; n < 4; ++n) {
      wr(imr(n), n == s.bank && !unmasked ? s.iir : 0);
      wr(ier(n), n == s.bank && !enabled ? ~s.iir : 0xFFFF'FFFF);
      wr(iir(n), 0xFFFF'FFFF);
    }
    if (master_on) enable_master();
    ASSERT_FALSE(line_.level());
    raise(s);
    const std::uint32_t expected_iir = unmasked ? s.iir : 0;
    for (int n = 0; n < 4; ++n) EXPECT_EQ(rd(iir(n)), n == s.bank ? expected_iir : 0u) << "bank " << n;
    const bool pending = unmasked && enabled;
    EXPECT_EQ(rd(kMaster), (master_on ? GtInterrupts::kMasterEnable : 0u) | (pending ? s.master : 0u));
    EXPECT_EQ(line_.level(), master_on && pending);
    // The i915 handler's ack (IIR write-back) takes the line down again.
    wr(iir(s.bank), rd(iir(s.bank)));
    EXPECT_FALSE(line_.level());
    EXPECT_EQ(rd(kMaster) & 0x7F, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(EverySource, GtInterruptSourceTest, ::testing::ValuesIn(kSources),
                         [](const ::testing::TestParamInfo<Source>& info) { return std::string(info.param.name); });

TEST_F(GtInterruptsTest, EventsSteeredToTheGucNeverReachTheHostBanks) {
  i915_postinstall();
  enable_master();
  // The router takes the context switches of RCS (GFX_INTERRUPT_STEERING, i915 guc_interrupts_capture).
  gt_.set_router(
      [](Engine e, std::uint32_t bits) { return e == Engine::kRcs ? bits & GtInterrupts::kContextSwitch : 0u; });
  gt_.raise(Engine::kRcs, GtInterrupts::kContextSwitch);
  EXPECT_EQ(rd(iir(0)), 0u);
  EXPECT_EQ(rd(kMaster), 0x8000'0000u);
  EXPECT_FALSE(line_.level());
  gt_.raise(Engine::kRcs, GtInterrupts::kContextSwitch | GtInterrupts::kUserInterrupt);  // the user half stays
  EXPECT_EQ(rd(iir(0)), 0x0000'0001u);
  EXPECT_TRUE(line_.level());
  gt_.raise(Engine::kBcs, GtInterrupts::kContextSwitch);  // not steered
  EXPECT_EQ(rd(iir(0)), 0x0100'0001u);
}

TEST_F(GtInterruptsTest, BitsWithoutAMasterBitNeverRaiseTheLine) {
  // Bank 3 bits 31:16 feed no GEN8_MASTER_IRQ bit (GVT-g gen8_irq_map maps GT3 15:0 only): latched and enabled,
  // they still leave the line low.
  const std::uint32_t bits = 0xFFFF'0000;
  unsigned char b[4];
  std::memcpy(b, &bits, 4);
  ASSERT_TRUE(bar_.debug_write(iir(3), b, 4));
  wr(ier(3), 0xFFFF'FFFF);
  enable_master();
  EXPECT_EQ(rd(iir(3)), 0xFFFF'0000u);
  EXPECT_EQ(rd(kMaster), 0x8000'0000u);
  EXPECT_FALSE(line_.level());
  EXPECT_EQ(line_.raise_count(), 0u);
}
