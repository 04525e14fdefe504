// GTT MMU: GGTT programmed through the BAR as i915 does, PPGTT walks at every level and page size, TLB behaviour,
// faults and their registers (and that they raise no interrupt of their own), bad page tables. Expected physical
// addresses are computed by hand from the bit layout (i915 gt/intel_gtt.h, gt/intel_ggtt.c; docs/gen-gtt.md).
#include <ostream>

#include <gtest/gtest.h>

#include "hw/gen/gtt_regs.h"
#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "tb/host/host_port.h"
#include "tb/host/i915_driver.h"
#include "tests/support/sc_test.h"
#include "tlm/core/bus.h"
#include "tlm/core/initiator.h"
#include "tlm/core/memory.h"
#include "tlm/gen/gen_gpu.h"

using namespace gpuvp;
using gen::AddressSpace;
using gen::FaultType;
using gen::PpgttMode;
using sc_core::sc_time;

namespace {

constexpr std::uint64_t kBar = 0xE000'0000;
constexpr std::uint64_t kDramSize = 1ULL << 30;           // 1 GiB
constexpr std::uint64_t kGsm = kDramSize - (8ULL << 20);  // top 8 MiB: 4 GiB of GGTT
constexpr std::uint64_t kPresent = 1, kRw = 2;

// The GPU without command streamers: the tests are the GTT's only clients.
gen::GenGpuParams no_engines() {
  gen::GenGpuParams p;
  p.engines = {false, false, false, false, false};
  return p;
}

// A small SoC: host CPU and GPU on one bus with DRAM and the Gen BAR.
class GttTest : public ::testing::Test {
 protected:
  explicit GttTest(gen::GenGpuParams params = no_engines())
      : bus_("bus"), dram_("dram", dram_params()), host_("host"), gpu_("gen", params, kGsm) {
    bus_.attach_initiator(host_.socket, "host");
    bus_.attach_initiator(gpu_.memory.socket, "gen");
    bus_.attach_target(dram_.socket, "dram", 0, kDramSize, {2, 32});
    bus_.attach_target(gpu_.socket, "bar", kBar, gen::kBarSize, {2, 4});
    rcs_ = &gpu_.gtt().add_client("rcs", 0x11, 0);
    vcs_ = &gpu_.gtt().add_client("vcs0", 0x22, 1);
  }
  static core::MemoryParams dram_params() {
    core::MemoryParams p;
    p.size = kDramSize;
    return p;
  }

  // The driver's way: a 64-bit MMIO write into the GGTT window (i915 gen8_set_pte is a writeq).
  void set_ggtt_pte(std::uint64_t gfx_page, std::uint64_t pte) {
    ASSERT_EQ(host_.write_value<std::uint64_t>(kBar + gen::kGgttPteWindowOffset + gfx_page * 8, pte),
              tlm::TLM_OK_RESPONSE);
  }
  std::uint32_t mmio_read(std::uint32_t offset) {
    tlm::tlm_response_status s;
    std::uint32_t v = host_.read_value<std::uint32_t>(kBar + offset, &s);
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
    return v;
  }
  void mmio_write(std::uint32_t offset, std::uint32_t v) {
    ASSERT_EQ(host_.write_value<std::uint32_t>(kBar + offset, v), tlm::TLM_OK_RESPONSE);
  }
  // Page tables are ordinary memory the driver fills; set them up directly in DRAM.
  void put_entry(std::uint64_t table, unsigned index, std::uint64_t entry) {
    dram_.store().write(table + index * 8, reinterpret_cast<const unsigned char*>(&entry), 8);
  }
  gen::Translation translate(gen::GttClient& c, std::uint64_t va, AddressSpace space, bool write = false) {
    sc_time delay = sc_core::SC_ZERO_TIME;
    return c.translate(va, space, write, delay);
  }
  std::size_t take_fault_warnings(const std::string& text = "translation fault") {
    return test::take_reports(sc_core::SC_WARNING, text).size();
  }

  core::Bus bus_;
  core::Memory dram_;
  core::Initiator host_;
  gen::GenGpu gpu_;
  gen::GttClient* rcs_;
  gen::GttClient* vcs_;
};

}  // namespace

TEST_F(GttTest, GgttEntriesWrittenThroughTheBarLandInStolenMemoryAndTranslate) {
  test::run_thread([&] {
    set_ggtt_pte(5, 0x1234'5000 | kPresent);
    // Read back through the BAR as a driver's debugfs would.
    tlm::tlm_response_status s;
    EXPECT_EQ(host_.read_value<std::uint64_t>(kBar + gen::kGgttPteWindowOffset + 40, &s), 0x1234'5001u);
    const auto t = translate(*rcs_, 5 * 4096 + 0x123, AddressSpace::kGgtt);
    ASSERT_TRUE(t.ok);
    EXPECT_EQ(t.pa, 0x1234'5123u);
    EXPECT_TRUE(t.writable);  // Gen8 GGTT entries have no RW bit
    EXPECT_EQ(t.page_size, 4096u);
  });
  // The entry is in DRAM at GSM + 5 * 8.
  std::uint64_t in_dram = 0;
  dram_.store().read(kGsm + 40, reinterpret_cast<unsigned char*>(&in_dram), 8);
  EXPECT_EQ(in_dram, 0x1234'5001u);
  EXPECT_EQ(rcs_->walk_reads(), 1u);
  EXPECT_EQ(rcs_->misses(), 1u);
}

TEST_F(GttTest, TlbHitCostsHitCyclesAndNoMemoryRead) {
  test::run_thread([&] {
    set_ggtt_pte(1, 0x8000 | kPresent);
    sc_time miss = sc_core::SC_ZERO_TIME, hit = sc_core::SC_ZERO_TIME;
    ASSERT_TRUE(rcs_->translate(0x1000, AddressSpace::kGgtt, false, miss).ok);
    ASSERT_TRUE(rcs_->translate(0x1FF8, AddressSpace::kGgtt, false, hit).ok);
    // Hit: tlb_hit_cycles = 1 at 1 GHz.
    EXPECT_EQ(hit, sc_time(1, sc_core::SC_NS));
    // Miss: 1 hit cycle + 2 walk cycles + bus hop 2 + port 1 (8 B / 32 B per cycle) + DRAM 60 + 1 transfer = 67 ns.
    EXPECT_EQ(miss, sc_time(67, sc_core::SC_NS));
  });
  EXPECT_EQ(rcs_->hits(), 1u);
  EXPECT_EQ(rcs_->walk_reads(), 1u);
}

TEST_F(GttTest, WalkReadsShowUpInBusStatistics) {
  test::run_thread([&] {
    set_ggtt_pte(7, 0x7000 | kPresent);
    const auto before = core::stats().counter_value("bus.dram.transactions");
    ASSERT_TRUE(translate(*rcs_, 7 * 4096, AddressSpace::kGgtt).ok);
    EXPECT_EQ(core::stats().counter_value("bus.dram.transactions"), before + 1);
  });
  EXPECT_EQ(core::stats().counter_value("gen.memory.reads"), 1u);
}

TEST_F(GttTest, GgttTlbKeepsAStaleEntryUntilGfxFlushControlInvalidatesIt) {
  test::run_thread([&] {
    set_ggtt_pte(3, 0xA000 | kPresent);
    EXPECT_EQ(translate(*rcs_, 0x3010, AddressSpace::kGgtt).pa, 0xA010u);
    set_ggtt_pte(3, 0xB000 | kPresent);
    // No invalidation yet: the TLB still holds the old translation, as on hardware.
    EXPECT_EQ(translate(*rcs_, 0x3010, AddressSpace::kGgtt).pa, 0xA010u);
    mmio_write(gen::kGfxFlushControl, 1);  // i915 gen8_ggtt_invalidate: GFX_FLSH_CNTL_EN
    EXPECT_EQ(translate(*rcs_, 0x3010, AddressSpace::kGgtt).pa, 0xB010u);
    EXPECT_EQ(mmio_read(gen::kGfxFlushControl), 0u);
  });
  EXPECT_EQ(rcs_->walk_reads(), 2u);
  EXPECT_EQ(core::stats().counter_value("gen.gtt.ggtt_tlb_flushes"), 1u);
}

TEST_F(GttTest, GtcrInvalidatesOnlyTheGucsTlb) {
  // The GPU's GuC block registers its own client (tlm/gen/gen_gpu.cpp).
  gen::GttClient* guc_client = gpu_.gtt().find_client("guc");
  ASSERT_NE(guc_client, nullptr);
  gen::GttClient& guc = *guc_client;
  test::run_thread([&] {
    set_ggtt_pte(2, 0x5000 | kPresent);
    translate(guc, 0x2000, AddressSpace::kGgtt);
    translate(*rcs_, 0x2000, AddressSpace::kGgtt);
    mmio_write(gen::kGtcr, 1);
    translate(guc, 0x2000, AddressSpace::kGgtt);
    translate(*rcs_, 0x2000, AddressSpace::kGgtt);
  });
  EXPECT_EQ(guc.walk_reads(), 2u);
  EXPECT_EQ(rcs_->walk_reads(), 1u);
}

TEST_F(GttTest, GgttFaultFillsTheFaultRegistersBitByBitAndRaisesNoInterrupt) {
  test::run_thread([&] {
    // Every GT bank open and the master enabled: a fault still raises nothing (no GT interrupt source exists for it;
    // i915 reads RING_FAULT_REG in gt/intel_gt.c gen8_check_faults).
    for (std::uint32_t bank = 0; bank < 4; ++bank) {
      mmio_write(0x44304 + 0x10 * bank, 0);            // GEN8_GT_IMR(n)
      mmio_write(0x4430C + 0x10 * bank, 0xFFFF'FFFF);  // GEN8_GT_IER(n)
    }
    mmio_write(0x44200, 0x8000'0000);  // GEN8_MASTER_IRQ_CONTROL
    // Entry 0x4567 was never written: not present.
    const auto t = translate(*vcs_, 0x4567'8ABC, AddressSpace::kGgtt, true);
    EXPECT_FALSE(t.ok);
    EXPECT_EQ(t.fault, FaultType::kNotPresent);
    // VALID | type 0 << 1 | SRCID 0x22 << 3 | engine 1 << 12
    EXPECT_EQ(mmio_read(gen::kRingFaultReg), 0x1u | (0x22u << 3) | (1u << 12));
    EXPECT_EQ(mmio_read(gen::kFaultTlbData0), 0x45678u);  // VA bits 43:12
    EXPECT_EQ(mmio_read(gen::kFaultTlbData1), 0x10u);     // VA 47:44 = 0, GGTT select bit 4
    EXPECT_FALSE(gpu_.irq().level());
    for (std::uint32_t bank = 0; bank < 4; ++bank) EXPECT_EQ(mmio_read(0x44308 + 0x10 * bank), 0u) << bank;
    EXPECT_EQ(mmio_read(0x44200), 0x8000'0000u);  // enabled, no source pending
    // A second fault does not overwrite the first while VALID is set.
    translate(*rcs_, 0x9000, AddressSpace::kGgtt);
    EXPECT_EQ(mmio_read(gen::kFaultTlbData0), 0x45678u);
    // i915 clears VALID with a read-modify-write (intel_gt_clear_error_registers); the next fault is recorded.
    mmio_write(gen::kRingFaultReg, mmio_read(gen::kRingFaultReg) & ~1u);
    EXPECT_EQ(mmio_read(gen::kRingFaultReg), 0x22u << 3 | 1u << 12);
    translate(*rcs_, 0x9000, AddressSpace::kGgtt);
    EXPECT_EQ(mmio_read(gen::kRingFaultReg), 0x1u | (0x11u << 3));
    EXPECT_EQ(mmio_read(gen::kFaultTlbData0), 0x9u);
    EXPECT_FALSE(gpu_.irq().level());
  });
  EXPECT_EQ(gpu_.irq().raise_count(), 0u);
  EXPECT_EQ(take_fault_warnings("client vcs0, GGTT address 0x45678abc (write), GGTT PTE: not present"), 1u);
  EXPECT_EQ(take_fault_warnings("client rcs, GGTT address 0x9000 (read)"), 2u);
  EXPECT_EQ(vcs_->faults(), 1u);
  EXPECT_EQ(rcs_->faults(), 2u);
}

TEST_F(GttTest, GgttAccessBeyondItsSizeIsAnOutOfRangeFault) {
  test::run_thread([&] {
    const auto t = translate(*rcs_, 4ULL << 30, AddressSpace::kGgtt);
    EXPECT_FALSE(t.ok);
    EXPECT_EQ(t.fault, FaultType::kOutOfRange);
    EXPECT_EQ(mmio_read(gen::kRingFaultReg) >> 1 & 3, 2u);
  });
  EXPECT_EQ(rcs_->walk_reads(), 0u);
  EXPECT_EQ(take_fault_warnings("GGTT limit: out of range"), 1u);
}

TEST_F(GttTest, Legacy32BitPpgttWalksThreeLevelsFromTheFourPdps) {
  // va = PDP 2 (bits 31:30), PDE 3 (29:21), PTE 7 (20:12), offset 0x456.
  const std::uint64_t va = (2ULL << 30) | (3ULL << 21) | (7ULL << 12) | 0x456;
  gen::PpgttRoot root;
  root.mode = PpgttMode::kLegacy32;
  root.pdp = {0x10'0000, 0x11'0000, 0x12'0000, 0x13'0000};
  put_entry(0x12'0000, 3, 0x20'1000 | kPresent | kRw);                           // PDE -> page table
  put_entry(0x20'1000, 7, 0x3ABCD'E000 | kPresent | kRw | (1 << 3) | (1 << 7));  // PTE, PAT index 0b101
  rcs_->set_ppgtt_root(root);
  test::run_thread([&] {
    const auto t = translate(*rcs_, va, AddressSpace::kPpgtt, true);
    ASSERT_TRUE(t.ok);
    EXPECT_EQ(t.pa, 0x3ABCD'E456u);
    EXPECT_TRUE(t.writable);
    EXPECT_EQ(t.pat, 5u);
  });
  EXPECT_EQ(rcs_->walk_reads(), 2u);  // PDE + PTE: the PDP is a register
}

TEST_F(GttTest, FourLevel48BitPpgttWalksFromThePml4InPdp0) {
  const std::uint64_t va = (0x1A5ULL << 39) | (0x0C3ULL << 30) | (0x1FFULL << 21) | (0x001ULL << 12) | 0xABC;
  gen::PpgttRoot root;
  root.mode = PpgttMode::k48Bit;
  root.pdp[0] = 0x40'0000;
  put_entry(0x40'0000, 0x1A5, 0x40'1000 | kPresent | kRw);  // PML4E -> PDP page
  put_entry(0x40'1000, 0x0C3, 0x40'2000 | kPresent | kRw);  // PDPE -> PD
  put_entry(0x40'2000, 0x1FF, 0x40'3000 | kPresent | kRw);  // PDE -> PT
  put_entry(0x40'3000, 0x001, 0x77'7000 | kPresent);        // PTE, read-only
  rcs_->set_ppgtt_root(root);
  test::run_thread([&] {
    const auto t = translate(*rcs_, va, AddressSpace::kPpgtt);
    ASSERT_TRUE(t.ok);
    EXPECT_EQ(t.pa, 0x77'7ABCu);
    EXPECT_FALSE(t.writable);
  });
  EXPECT_EQ(rcs_->walk_reads(), 4u);
}

TEST_F(GttTest, TwoMebibytePdeMapsAWholeLargePage) {
  const std::uint64_t va = (1ULL << 30) | (5ULL << 21) | 0x1'2345;
  gen::PpgttRoot root;
  root.mode = PpgttMode::kLegacy32;
  root.pdp[1] = 0x10'0000;
  put_entry(0x10'0000, 5, 0x3A0'0000 | kPresent | kRw | (1 << 7));  // PS: 2 MiB at 0x3A00000
  rcs_->set_ppgtt_root(root);
  test::run_thread([&] {
    const auto t = translate(*rcs_, va, AddressSpace::kPpgtt);
    ASSERT_TRUE(t.ok);
    EXPECT_EQ(t.pa, 0x3A1'2345u);
    EXPECT_EQ(t.page_size, 2u << 20);
  });
  EXPECT_EQ(rcs_->walk_reads(), 1u);
}

TEST_F(GttTest, WriteThroughAReadOnlyEntryFaultsAtAnyLevel) {
  gen::PpgttRoot root;
  root.mode = PpgttMode::kLegacy32;
  root.pdp[0] = 0x10'0000;
  put_entry(0x10'0000, 0, 0x11'0000 | kPresent | kRw);
  put_entry(0x11'0000, 0, 0x50'0000 | kPresent);        // PTE read-only
  put_entry(0x10'0000, 1, 0x12'0000 | kPresent);        // PDE read-only
  put_entry(0x12'0000, 0, 0x60'0000 | kPresent | kRw);  // PTE writable under it
  rcs_->set_ppgtt_root(root);
  test::run_thread([&] {
    EXPECT_TRUE(translate(*rcs_, 0x10, AddressSpace::kPpgtt).ok);  // a read is fine
    auto w = translate(*rcs_, 0x10, AddressSpace::kPpgtt, true);
    EXPECT_FALSE(w.ok);
    EXPECT_EQ(w.fault, FaultType::kReadOnly);
    EXPECT_EQ(mmio_read(gen::kRingFaultReg), 0x1u | (1u << 1) | (0x11u << 3));
    EXPECT_EQ(mmio_read(gen::kFaultTlbData1), 0u);  // PPGTT: no GGTT select bit
    mmio_write(gen::kRingFaultReg, 0);
    auto w2 = translate(*rcs_, (1ULL << 21) | 0x20, AddressSpace::kPpgtt, true);
    EXPECT_FALSE(w2.ok);
    EXPECT_EQ(w2.fault, FaultType::kReadOnly);
  });
  EXPECT_EQ(take_fault_warnings("PPGTT address 0x10 (write), PTE: write to read-only page"), 1u);
  EXPECT_EQ(take_fault_warnings("PPGTT address 0x200020 (write), PTE: write to read-only page"), 1u);
}

TEST_F(GttTest, FaultAddressAboveFourGibSplitsAcrossBothDataRegisters) {
  gen::PpgttRoot root;
  root.mode = PpgttMode::k48Bit;
  root.pdp[0] = 0x40'0000;  // empty PML4: everything not present
  rcs_->set_ppgtt_root(root);
  test::run_thread([&] {
    const auto t = translate(*rcs_, 0xABCD'1234'5678ULL, AddressSpace::kPpgtt);
    EXPECT_EQ(t.fault, FaultType::kNotPresent);
    EXPECT_EQ(std::string(t.level), "PML4E");
    EXPECT_EQ(mmio_read(gen::kFaultTlbData0), 0xBCD1'2345u);  // VA bits 43:12
    EXPECT_EQ(mmio_read(gen::kFaultTlbData1), 0xAu);          // VA bits 47:44
  });
  EXPECT_EQ(take_fault_warnings("PML4E: not present"), 1u);
}

TEST_F(GttTest, OutOfRangeAddressesForEachMode) {
  gen::PpgttRoot legacy;
  legacy.mode = PpgttMode::kLegacy32;
  legacy.pdp[0] = 0x10'0000;
  test::run_thread([&] {
    EXPECT_EQ(translate(*rcs_, 0x1000, AddressSpace::kPpgtt).fault, FaultType::kOutOfRange);  // nothing bound
    rcs_->set_ppgtt_root(legacy);
    EXPECT_EQ(translate(*rcs_, 1ULL << 32, AddressSpace::kPpgtt).fault, FaultType::kOutOfRange);
    gen::PpgttRoot full;
    full.mode = PpgttMode::k48Bit;
    full.pdp[0] = 0x10'0000;
    rcs_->set_ppgtt_root(full);
    EXPECT_EQ(translate(*rcs_, 1ULL << 48, AddressSpace::kPpgtt).fault, FaultType::kOutOfRange);
  });
  EXPECT_EQ(take_fault_warnings("no PPGTT bound: out of range"), 1u);
  EXPECT_EQ(take_fault_warnings("4 GiB limit: out of range"), 1u);
  EXPECT_EQ(take_fault_warnings("48-bit limit: out of range"), 1u);
  EXPECT_EQ(rcs_->walk_reads(), 0u);
}

TEST_F(GttTest, GarbageInPageTablesEndsInFaultsNeverInHostAccesses) {
  gen::PpgttRoot root;
  root.mode = PpgttMode::k48Bit;
  root.pdp[0] = 0x40'0000;
  put_entry(0x40'0000, 0, 0x40'1000 | kPresent | kRw | (1ULL << 50));  // reserved bit 50
  put_entry(0x40'0000, 1, 0x40'2000 | kPresent | kRw);
  put_entry(0x40'2000, 0, 0x8000'0000 | kPresent | kRw | (1 << 7));  // 1 GiB PDPE: unsupported on Gen8/9
  put_entry(0x40'0000, 2, 0x40'3000 | kPresent | kRw);
  put_entry(0x40'3000, 0, 0x7F'0000'0000ULL | kPresent | kRw);  // PD outside DRAM: the walk read fails
  put_entry(0x40'0000, 3, 0x40'0000 | kPresent | kRw);          // PML4E pointing at the PML4 itself
  rcs_->set_ppgtt_root(root);
  test::run_thread([&] {
    EXPECT_EQ(translate(*rcs_, 0ULL << 39, AddressSpace::kPpgtt).fault, FaultType::kBadEntry);
    EXPECT_EQ(translate(*rcs_, 1ULL << 39, AddressSpace::kPpgtt).fault, FaultType::kBadEntry);
    EXPECT_EQ(translate(*rcs_, 2ULL << 39, AddressSpace::kPpgtt).fault, FaultType::kBadEntry);
    // Self-reference: every level reads the PML4 again; entry 3 then 3 ... the walk ends after four levels, with the
    // PML4's own address as the page.
    const std::uint64_t self = (3ULL << 39) | (3ULL << 30) | (3ULL << 21) | (3ULL << 12) | 0x10;
    const auto t = translate(*rcs_, self, AddressSpace::kPpgtt);
    EXPECT_TRUE(t.ok);
    EXPECT_EQ(t.pa, 0x40'0010u);
  });
  EXPECT_EQ(take_fault_warnings("PML4E: bad entry"), 1u);
  EXPECT_EQ(take_fault_warnings("PDPE: bad entry"), 1u);  // the 1 GiB page
  EXPECT_EQ(take_fault_warnings("PDE: bad entry"), 1u);   // reading the PDE from a PD outside DRAM failed
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "no target at 0x7f00000000").size(), 1u);
}

TEST_F(GttTest, SwitchingTheAddressSpaceDropsPpgttEntriesButKeepsGgttOnes) {
  gen::PpgttRoot a, b;
  a.mode = b.mode = PpgttMode::kLegacy32;
  a.pdp[0] = 0x10'0000;
  b.pdp[0] = 0x20'0000;
  put_entry(0x10'0000, 0, 0x11'0000 | kPresent | kRw);
  put_entry(0x11'0000, 0, 0xA0'0000 | kPresent | kRw);
  put_entry(0x20'0000, 0, 0x21'0000 | kPresent | kRw);
  put_entry(0x21'0000, 0, 0xB0'0000 | kPresent | kRw);
  test::run_thread([&] {
    set_ggtt_pte(0, 0xC0'0000 | kPresent);
    rcs_->set_ppgtt_root(a);
    EXPECT_EQ(translate(*rcs_, 0x44, AddressSpace::kPpgtt).pa, 0xA0'0044u);
    EXPECT_EQ(translate(*rcs_, 0x44, AddressSpace::kGgtt).pa, 0xC0'0044u);
    rcs_->set_ppgtt_root(b);
    EXPECT_EQ(translate(*rcs_, 0x44, AddressSpace::kPpgtt).pa, 0xB0'0044u);
    EXPECT_EQ(translate(*rcs_, 0x44, AddressSpace::kGgtt).pa, 0xC0'0044u);
  });
  EXPECT_EQ(rcs_->walk_reads(), 2u + 1u + 2u);  // a, GGTT, b; the second GGTT lookup hits
}

TEST_F(GttTest, ChangedPpgttEntryIsSeenOnlyAfterTheTlbIsInvalidated) {
  gen::PpgttRoot root;
  root.mode = PpgttMode::kLegacy32;
  root.pdp[0] = 0x10'0000;
  put_entry(0x10'0000, 0, 0x11'0000 | kPresent | kRw);
  put_entry(0x11'0000, 9, 0xA0'0000 | kPresent | kRw);
  rcs_->set_ppgtt_root(root);
  test::run_thread([&] {
    EXPECT_EQ(translate(*rcs_, 0x9000, AddressSpace::kPpgtt).pa, 0xA0'0000u);
    put_entry(0x11'0000, 9, 0xD0'0000 | kPresent | kRw);
    EXPECT_EQ(translate(*rcs_, 0x9000, AddressSpace::kPpgtt).pa, 0xA0'0000u);  // stale until invalidated
    rcs_->invalidate_tlb();  // what MI_FLUSH_DW / PIPE_CONTROL with TLB invalidate do
    EXPECT_EQ(translate(*rcs_, 0x9000, AddressSpace::kPpgtt).pa, 0xD0'0000u);
  });
}

TEST_F(GttTest, PteWindowBeyondTheGgttReadsZeroAndWarns) {
  // Default GGTT is 4 GiB = the whole 8 MiB window; a 2 MiB GGTT uses only its first 4 KiB.
  test::run_thread([&] {
    tlm::tlm_response_status s;
    EXPECT_EQ(host_.read_value<std::uint64_t>(kBar + gen::kBarSize - 8, &s), 0u);
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
  });
  EXPECT_EQ(take_fault_warnings(), 0u);
}

namespace {
class SmallGttTest : public GttTest {
 protected:
  static gen::GenGpuParams small() {
    gen::GenGpuParams p = no_engines();
    p.gtt.ggtt_size = 2ULL << 20;  // 512 entries = 4 KiB of PTEs
    p.gtt.tlb_entries = 4;
    p.gtt.tlb_ways = 2;  // 2 sets of 2
    return p;
  }
  SmallGttTest() : GttTest(small()) {}
};
}  // namespace

TEST_F(SmallGttTest, PteWindowBeyondASmallGgttIsIgnoredWithAWarning) {
  test::run_thread([&] {
    set_ggtt_pte(512, 0xF000 | kPresent);  // first entry past the 2 MiB GGTT
    tlm::tlm_response_status s;
    EXPECT_EQ(host_.read_value<std::uint64_t>(kBar + gen::kGgttPteWindowOffset + 512 * 8, &s), 0u);
  });
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING,
                               "write of GGTT entry window offset 0x1000 beyond the 0x200000 byte GGTT ignored")
                .size(),
            1u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "read of GGTT entry window offset 0x1000").size(), 1u);
}

TEST_F(SmallGttTest, SetAssociativeTlbEvictsTheLeastRecentlyUsedWay) {
  test::run_thread([&] {
    // Pages 0, 2, 4 all map to set 0 (vpn % 2 sets).
    for (unsigned page : {0u, 2u, 4u}) set_ggtt_pte(page, (0x100u + page) << 12 | kPresent);
    translate(*rcs_, 0 << 12, AddressSpace::kGgtt);  // miss, way A
    translate(*rcs_, 2 << 12, AddressSpace::kGgtt);  // miss, way B
    translate(*rcs_, 0 << 12, AddressSpace::kGgtt);  // hit: page 0 is now most recent
    translate(*rcs_, 4 << 12, AddressSpace::kGgtt);  // miss: evicts page 2
    translate(*rcs_, 0 << 12, AddressSpace::kGgtt);  // hit
    translate(*rcs_, 2 << 12, AddressSpace::kGgtt);  // miss again
  });
  EXPECT_EQ(rcs_->hits(), 2u);
  EXPECT_EQ(rcs_->misses(), 4u);
}

// ---- an engine's GTT fault on the whole platform: only the engine's CS error reaches the host ----

namespace {

struct EngineFaultCase {
  const char* name;
  bool master;               // GEN8_MASTER_IRQ_CONTROL set
  std::uint32_t emr;         // BCS RING_EMR
  bool imr_cs_error;         // GEN8_GT_IMR(0) leaves BCS's CS error (bit 19) unmasked
  bool ier_cs_error;         // GEN8_GT_IER(0) enables it
  std::uint32_t iir0;        // expected GEN8_GT_IIR(0)
  std::uint32_t master_irq;  // expected GEN8_MASTER_IRQ
  bool line;                 // expected host line
};

std::ostream& operator<<(std::ostream& os, const EngineFaultCase& c) { return os << c.name; }

// i915 gt/intel_execlists_submission.c enable_error_interrupt writes EMR = ~I915_ERROR_INSTRUCTION: the page-table
// error (EIR bit 4) a GTT fault sets stays masked, so i915 sees no interrupt for it at all. With bit 4 unmasked the
// fault reaches the host as BCS's GT_CS_MASTER_ERROR_INTERRUPT (bank 0, bit 3 + GEN8_BCS_IRQ_SHIFT 16 = 0x80000):
// latched into IIR only if IMR leaves it unmasked, GEN8_GT_BCS_IRQ (master bit 1) only if IER enables it, the line
// only with the master on.
constexpr std::uint32_t kI915Emr = ~0x1u, kPageTableUnmasked = ~0x11u, kBcsCsError = 0x0008'0000;
const EngineFaultCase kEngineFaultCases[] = {
    {"MasterOffI915Emr", false, kI915Emr, true, true, 0, 0, false},
    {"MasterOffPageTableErrorUnmasked", false, kPageTableUnmasked, true, true, kBcsCsError, 0x2, false},
    {"MasterOnI915Emr", true, kI915Emr, true, true, 0, 0x8000'0000, false},
    {"MasterOnPageTableErrorUnmasked", true, kPageTableUnmasked, true, true, kBcsCsError, 0x8000'0002, true},
    {"MasterOnCsErrorMaskedInImr", true, kPageTableUnmasked, false, true, 0, 0x8000'0000, false},
    {"MasterOnCsErrorDisabledInIer", true, kPageTableUnmasked, true, false, kBcsCsError, 0x8000'0000, false},
};

class EngineFaultInterruptTest : public ::testing::TestWithParam<EngineFaultCase> {
 protected:
  EngineFaultInterruptTest() : soc_("gpuvp", platform::PlatformParams{}), port_(soc_.host()), drv_(port_) {}
  void TearDown() override {
    for (const auto& f : port_.failures()) ADD_FAILURE() << "host port: " << f;
  }
  platform::Platform soc_;
  host::BusHostPort port_;
  host::I915Driver drv_;
};

}  // namespace

TEST_P(EngineFaultInterruptTest, TheLineRisesOnlyThroughTheEnginesCsErrorBit) {
  const EngineFaultCase& c = GetParam();
  const std::uint32_t bcs = gen::engine_info(gen::Engine::kBcs).mmio_base;
  test::run_thread([&] {
    // gen8_gt_irq_postinstall: the four engine bits of every engine unmasked and enabled, bank 2 as the GuC enables
    // it (GUC2HOST); then the master as the case says.
    const std::uint32_t irqs = 0x0909;
    const std::uint32_t enabled[4] = {irqs | irqs << 16, irqs | irqs << 16, 0x8000'0000, irqs};
    for (std::uint32_t n = 0; n < 4; ++n) {
      const std::uint32_t cs_error = n == 0 ? kBcsCsError : 0;
      drv_.mmio_write(0x4430C + 0x10 * n, enabled[n] & ~(c.ier_cs_error ? 0 : cs_error));
      drv_.mmio_write(0x44304 + 0x10 * n, ~enabled[n] | (c.imr_cs_error ? 0 : cs_error));
    }
    drv_.mmio_write(bcs + gen::engine_reg::kEmr, c.emr);
    if (c.master) drv_.mmio_write(0x44200, 0x8000'0000);
    host::I915Driver::Ring& r = drv_.create_ring(gen::Engine::kBcs);
    drv_.emit(r, gen::mi::store_data_imm(0x3000'0124, 0x1));  // a GGTT address nothing maps
    drv_.submit(r);
    ASSERT_TRUE(port_.wait_for32(kBar + bcs + gen::engine_reg::kEir, 0x10, 0x10, 1'000'000));
    EXPECT_EQ(drv_.mmio_read(gen::kRingFaultReg), 0x2011u);  // VALID, not present, SRCID 2, ENGINE_ID 2
    EXPECT_EQ(drv_.mmio_read(0x44308), c.iir0);
    for (std::uint32_t n = 1; n < 4; ++n) EXPECT_EQ(drv_.mmio_read(0x44308 + 0x10 * n), 0u) << "bank " << n;
    EXPECT_EQ(drv_.mmio_read(0x44200), c.master_irq);
    EXPECT_EQ(soc_.gen()->irq().level(), c.line);
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_US));  // nothing more arrives later
    EXPECT_EQ(soc_.gen()->irq().level(), c.line);
    // i915's handler acks IIR; with the fault register still VALID the line is down.
    drv_.mmio_write(0x44308, drv_.mmio_read(0x44308));
    EXPECT_FALSE(soc_.gen()->irq().level());
    EXPECT_EQ(drv_.mmio_read(gen::kRingFaultReg) & 1, 1u);
  });
  EXPECT_EQ(soc_.gen()->irq().raise_count(), c.line ? 1u : 0u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "translation fault: client bcs, GGTT address 0x30000124").size(),
            1u);
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "bcs: GTT fault on write to GGTT 0x30000124").size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(MasterImrIerAndEmr, EngineFaultInterruptTest, ::testing::ValuesIn(kEngineFaultCases),
                         [](const ::testing::TestParamInfo<EngineFaultCase>& info) { return info.param.name; });

// peek(): the translation an access would get, leaving no trace: no lookup, walk read or fault is counted, the TLB is
// not filled (a later translate() still misses), and a fault is neither recorded nor reported.
TEST_F(GttTest, PeekTranslatesLeavingNoTrace) {
  test::run_thread([&] {
    set_ggtt_pte(3, 0x5'6000 | kPresent);
    const gen::Translation peeked = rcs_->peek(3 * 4096 + 0x40, AddressSpace::kGgtt, true);
    ASSERT_TRUE(peeked.ok);
    EXPECT_EQ(peeked.pa, 0x5'6040u);
    EXPECT_EQ(core::stats().counter_value("gen.gtt.rcs.lookups"), 0u);
    EXPECT_EQ(rcs_->walk_reads(), 0u);
    ASSERT_TRUE(translate(*rcs_, 3 * 4096, AddressSpace::kGgtt).ok);
    EXPECT_EQ(rcs_->misses(), 1u);  // peek filled nothing
    // From the TLB now, as translate() would: a changed entry is seen only after an invalidation.
    set_ggtt_pte(3, 0x9'9000 | kPresent);
    EXPECT_EQ(rcs_->peek(3 * 4096, AddressSpace::kGgtt, false).pa, 0x5'6000u);
    const gen::Translation unmapped = rcs_->peek(9 * 4096, AddressSpace::kGgtt, false);
    EXPECT_FALSE(unmapped.ok);
    EXPECT_EQ(unmapped.fault, gen::FaultType::kNotPresent);
  });
  EXPECT_EQ(take_fault_warnings(), 0u);
  EXPECT_EQ(rcs_->faults(), 0u);
  EXPECT_EQ(rcs_->walk_reads(), 1u);
  EXPECT_EQ(rcs_->hits(), 0u);
}
