// V3D registers beyond identification: the interrupt trio INTCTL/INTENA/INTDIS and the host line, the CLE thread
// registers (EA write starts at CA, CTRUN stop/resume, CTRSTA, LC, RA0, PC), PCS, BFC/RFC, cache control, the binner
// pool and the error/debug registers. Semantics: Linux vc4_irq.c (interrupt DOC comment), vc4_gem.c (submit_cl,
// vc4_flush_caches), vc4_regs.h bits; BFC/RFC write-1-clears as documented in tlm/vc4/v3d.cpp.
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/sc_test.h"
#include "tests/test_vc4_support.h"
#include "tlm/core/bus.h"
#include "tlm/core/initiator.h"
#include "tlm/core/memory.h"
#include "tlm/core/stats.h"
#include "tlm/vc4/v3d.h"

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_US;
using vc4::ControlListExecutor;

namespace {

using test::vc4t::kV3d;

class V3dRegisters : public test::vc4t::Vc4Fixture {
 protected:
  V3dRegisters() : Vc4Fixture(vc4::V3dParams{}) {}
};

TEST_F(V3dRegisters, ResetValues) {
  test::run_thread([&] {
    EXPECT_EQ(rd(vc4::kV3dIntctl), 0u);
    EXPECT_EQ(rd(vc4::kV3dIntena), 0u);
    EXPECT_EQ(rd(vc4::kV3dIntdis), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode);  // CT0 is the binning thread
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    for (unsigned n = 0; n < 2; ++n) {
      EXPECT_EQ(rd(vc4::kV3dCtnEa(n)), 0u);
      EXPECT_EQ(rd(vc4::kV3dCtnCa(n)), 0u);
      EXPECT_EQ(rd(vc4::kV3dCtnRa0(n)), 0u);
      EXPECT_EQ(rd(vc4::kV3dCtnLc(n)), 0u);
      EXPECT_EQ(rd(vc4::kV3dCtnPc(n)), 0u);
    }
    EXPECT_EQ(rd(vc4::kV3dPcs), 0u);
    EXPECT_EQ(rd(vc4::kV3dBfc), 0u);
    EXPECT_EQ(rd(vc4::kV3dRfc), 0u);
    EXPECT_EQ(rd(vc4::kV3dL2cactl), 0u);
    EXPECT_EQ(rd(vc4::kV3dSlcactl), 0u);
  });
  EXPECT_FALSE(v3d_.irq().level());
}

TEST_F(V3dRegisters, IntctlIsWriteOneToClear) {
  test::run_thread([&] {
    v3d_.raise_interrupt(vc4::kV3dIntFrdone | vc4::kV3dIntFldone | vc4::kV3dIntSpilluse);
    EXPECT_EQ(rd(vc4::kV3dIntctl), 0xBu);
    wr(vc4::kV3dIntctl, 0);  // zeros change nothing
    EXPECT_EQ(rd(vc4::kV3dIntctl), 0xBu);
    wr(vc4::kV3dIntctl, vc4::kV3dIntFrdone);
    EXPECT_EQ(rd(vc4::kV3dIntctl), 0xAu);
    wr(vc4::kV3dIntctl, 0xFFFFFFFF);
    EXPECT_EQ(rd(vc4::kV3dIntctl), 0u);
  });
}

TEST_F(V3dRegisters, IntenaAndIntdisSetAndClearTheOneEnabledSet) {
  test::run_thread([&] {
    wr(vc4::kV3dIntena, 0x5);
    EXPECT_EQ(rd(vc4::kV3dIntena), 0x5u);
    EXPECT_EQ(rd(vc4::kV3dIntdis), 0x5u);  // "reading either one returns the set of enabled interrupts"
    wr(vc4::kV3dIntena, 0x2);              // 0s written are ignored
    EXPECT_EQ(rd(vc4::kV3dIntena), 0x7u);
    wr(vc4::kV3dIntena, 0);
    EXPECT_EQ(rd(vc4::kV3dIntena), 0x7u);
    wr(vc4::kV3dIntdis, 0x4);
    EXPECT_EQ(rd(vc4::kV3dIntena), 0x3u);
    EXPECT_EQ(rd(vc4::kV3dIntdis), 0x3u);
    wr(vc4::kV3dIntdis, 0);
    EXPECT_EQ(rd(vc4::kV3dIntdis), 0x3u);
    wr(vc4::kV3dIntena, 0xFFFFFFFF);  // only the four interrupt bits exist
    EXPECT_EQ(rd(vc4::kV3dIntena), 0xFu);
    wr(vc4::kV3dIntdis, 0xFFFFFFFF);
    EXPECT_EQ(rd(vc4::kV3dIntena), 0u);
  });
}

TEST_F(V3dRegisters, HostLineIsIntctlAndIntena) {
  test::run_thread([&] {
    v3d_.raise_interrupt(vc4::kV3dIntFrdone);
    EXPECT_FALSE(v3d_.irq().level());  // pending but not enabled
    wr(vc4::kV3dIntena, vc4::kV3dIntOutomem);
    EXPECT_FALSE(v3d_.irq().level());
    wr(vc4::kV3dIntena, vc4::kV3dIntFrdone);
    EXPECT_TRUE(v3d_.irq().level());
    wr(vc4::kV3dIntdis, vc4::kV3dIntFrdone);
    EXPECT_FALSE(v3d_.irq().level());
    wr(vc4::kV3dIntena, vc4::kV3dIntFrdone);
    EXPECT_TRUE(v3d_.irq().level());
    wr(vc4::kV3dIntctl, vc4::kV3dIntFrdone);  // the driver's acknowledge (vc4_irq.c vc4_irq)
    EXPECT_FALSE(v3d_.irq().level());
  });
  EXPECT_EQ(v3d_.irq().raise_count(), 2u);
}

TEST_F(V3dRegisters, WritingEaStartsTheThreadAtCa) {
  put(0x1000, std::vector<std::uint8_t>(64, 0x01));  // 64 NOPs
  test::run_thread([&] {
    wr(vc4::kV3dCtnCa(1), 0x1000);
    settle(5);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u) << "writing CA alone does not start the thread";
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1000u);
    wr(vc4::kV3dCtnEa(1), 0x1040);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), ControlListExecutor::kCtRun);
    EXPECT_EQ(rd(vc4::kV3dPcs), vc4::kV3dPcsRmActive | vc4::kV3dPcsRmBusy);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1040u);
    EXPECT_EQ(rd(vc4::kV3dCtnEa(1)), 0x1040u);
    EXPECT_EQ(rd(vc4::kV3dPcs), 0u);
    // The same on CT0, whose CS also shows CTMODE.
    submit(0, 0x1000, 0x1020);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode | ControlListExecutor::kCtRun);
    EXPECT_EQ(rd(vc4::kV3dPcs), vc4::kV3dPcsBmActive | vc4::kV3dPcsBmBusy);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(0)), 0x1020u);
  });
  EXPECT_EQ(v3d_.thread(1).packets_executed(), 64u);
  EXPECT_EQ(v3d_.thread(0).packets_executed(), 32u);
}

TEST_F(V3dRegisters, EaEqualToCaDoesNotRun) {
  test::run_thread([&] {
    submit(1, 0x2000, 0x2000);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    settle(2);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x2000u);
  });
  EXPECT_EQ(v3d_.thread(1).packets_executed(), 0u);
}

TEST_F(V3dRegisters, CtrunZeroStopsAndOneResumesAtCa) {
  put(0x1000, {0x08, 0x01, 0x01});  // WAIT_ON_SEMAPHORE, NOP, NOP
  put(0x2000, {0x07, 0x04});        // INCREMENT_SEMAPHORE, FLUSH (which makes the increment take effect)
  test::run_thread([&] {
    submit(1, 0x1000, 0x1003);
    settle(5);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), ControlListExecutor::kCtRun);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1000u);
    wr(vc4::kV3dCtnCs(1), 0);  // stop
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    settle(5);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1000u);
    submit(0, 0x2000, 0x2002);  // the semaphore goes to 1 while CT1 is stopped
    settle(5);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 1u << ControlListExecutor::kCtSemaShift);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1000u);
    wr(vc4::kV3dCtnCs(1), ControlListExecutor::kCtRun);  // resume
    settle(5);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1003u);
    wr(vc4::kV3dCtnCs(1), ControlListExecutor::kCtRun);  // CA == EA: a resume has nothing to do
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
  });
}

TEST_F(V3dRegisters, CtrstaClearsErrorStackAndSemaphore) {
  put(0x1000, {0x11, 0x00, 0x11, 0x00, 0x00});  // BRANCH_TO_SUB_LIST 0x1100
  // A 64x64 frame at 0x200000, tile (0, 0), INCREMENT x2 (CT1's take effect when the frame's last tile is written),
  // STORE_MS_TILE_BUFFER_AND_EOF, then opcode 2 (unknown).
  put(0x1100, {0x71, 0x00, 0x00, 0x20, 0x00, 64, 0, 64, 0, 0x04, 0x00, 0x73, 0x00, 0x00, 0x07, 0x07, 0x19, 0x02});
  test::run_thread([&] {
    submit(1, 0x1000, 0x1005);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), ControlListExecutor::kCtErr | ControlListExecutor::kCtSubs |
                                         1u << ControlListExecutor::kCtRtsdShift |
                                         2u << ControlListExecutor::kCtSemaShift);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode | 2u << ControlListExecutor::kCtSemaShift);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1111u);
    EXPECT_EQ(rd(vc4::kV3dCtnRa0(1)), 0x1005u);
    wr(vc4::kV3dCtnCs(1), ControlListExecutor::kCtRsta);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode);
    EXPECT_EQ(rd(vc4::kV3dCtnRa0(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1111u);  // addresses are kept
  });
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "unknown opcode 2").size(), 1u);
}

TEST_F(V3dRegisters, ListCountersCountReturnsAndFlushesAndAreWritable) {
  put(0x1000, {0x11, 0x00, 0x11, 0x00, 0x00,  // BRANCH_TO_SUB_LIST 0x1100
               0x11, 0x00, 0x11, 0x00, 0x00,  // again
               0x04, 0x05});                  // FLUSH, FLUSH_ALL_STATE
  put(0x1100, {0x12});                        // RETURN_FROM_SUB_LIST
  test::run_thread([&] {
    submit(0, 0x1000, 0x100C);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnLc(0)), 0x00020002u);
    wr(vc4::kV3dCtnLc(0), 0x00050007);
    EXPECT_EQ(rd(vc4::kV3dCtnLc(0)), 0x00050007u);
    wr(vc4::kV3dCtnLc(0), 0);
    EXPECT_EQ(rd(vc4::kV3dCtnLc(0)), 0u);
  });
}

TEST_F(V3dRegisters, FlushCountsInBfcAndRaisesFldone) {
  put(0x1000, {0x04, 0x01, 0x04});  // FLUSH, NOP, FLUSH
  test::run_thread([&] {
    wr(vc4::kV3dIntena, vc4::kV3dIntFldone);
    submit(0, 0x1000, 0x1003);
    settle();
    EXPECT_EQ(rd(vc4::kV3dBfc), 2u);
    EXPECT_EQ(rd(vc4::kV3dIntctl), vc4::kV3dIntFldone);
    EXPECT_TRUE(v3d_.irq().level());
    wr(vc4::kV3dBfc, 0);  // ignored
    EXPECT_EQ(rd(vc4::kV3dBfc), 2u);
    wr(vc4::kV3dBfc, 1);  // clears the count
    EXPECT_EQ(rd(vc4::kV3dBfc), 0u);
    EXPECT_EQ(rd(vc4::kV3dRfc), 0u);
    wr(vc4::kV3dIntctl, vc4::kV3dIntFldone);
    EXPECT_FALSE(v3d_.irq().level());
  });
  // Without START_TILE_BINNING there are no tile lists to cap: the flushes only count.
  EXPECT_EQ(core::stats().counter_value("v3d.ptb.flushes"), 2u);
}

TEST_F(V3dRegisters, EndOfFrameStoreCountsInRfcAndRaisesFrdone) {
  // TILE_RENDERING_MODE_CONFIG (64x64 RGBA8888 at 0x30000), STORE_MS_TILE_BUFFER (no EOF),
  // STORE_MS_TILE_BUFFER_AND_EOF, STORE_FULL_RES with EOF (bit 3) to 0x100000, STORE_GENERAL (colour) with EOF in its
  // address word, STORE_GENERAL without.
  put(0x1000, {0x71, 0x00, 0x00, 0x03, 0x00, 0x40, 0x00, 0x40, 0x00, 0x04, 0x00, 0x18, 0x19, 0x1A, 0x08, 0x00,
               0x10, 0x00, 0x1C, 0x01, 0x00, 0x08, 0x00, 0x20, 0x00, 0x1C, 0x01, 0x00, 0x00, 0x00, 0x20, 0x00});
  test::run_thread([&] {
    wr(vc4::kV3dIntena, vc4::kV3dIntFrdone);
    submit(1, 0x1000, 0x1020);
    settle(100);  // six tile stores of 16 KiB
    EXPECT_EQ(rd(vc4::kV3dRfc), 3u);
    EXPECT_EQ(rd(vc4::kV3dBfc), 0u);
    EXPECT_EQ(rd(vc4::kV3dIntctl), vc4::kV3dIntFrdone);
    EXPECT_TRUE(v3d_.irq().level());
    wr(vc4::kV3dRfc, 0xFF);
    EXPECT_EQ(rd(vc4::kV3dRfc), 0u);
  });
  EXPECT_EQ(v3d_.renderer().tiles_stored(), 6u);  // the full-resolution store writes colour and Z/S
}

TEST_F(V3dRegisters, CacheControl) {
  test::run_thread([&] {
    wr(vc4::kV3dL2cactl, vc4::kV3dL2cEna);
    EXPECT_EQ(rd(vc4::kV3dL2cactl), vc4::kV3dL2cEna);
    wr(vc4::kV3dL2cactl, vc4::kV3dL2cClr);  // what vc4_flush_caches writes
    EXPECT_EQ(rd(vc4::kV3dL2cactl), vc4::kV3dL2cEna);
    wr(vc4::kV3dL2cactl, vc4::kV3dL2cDis);
    EXPECT_EQ(rd(vc4::kV3dL2cactl), 0u);
    wr(vc4::kV3dSlcactl, 0x0F0F0F0F);
    EXPECT_EQ(rd(vc4::kV3dSlcactl), 0u);
    wr(vc4::kV3dSlcactl, 0);
  });
  EXPECT_EQ(core::stats().counter_value("v3d.l2_cache_clears"), 1u);
  EXPECT_EQ(core::stats().counter_value("v3d.slice_cache_clears"), 1u);
}

TEST_F(V3dRegisters, BinnerPoolAndDebugRegisters) {
  test::run_thread([&] {
    wr(vc4::kV3dBpoa, 0x00800000);
    wr(vc4::kV3dBpos, 0x40000);
    EXPECT_EQ(rd(vc4::kV3dBpoa), 0x00800000u);
    EXPECT_EQ(rd(vc4::kV3dBpos), 0x40000u);
    wr(vc4::kV3dBpca, 0x1234);  // read-only
    wr(vc4::kV3dBpcs, 0x1234);
    EXPECT_EQ(rd(vc4::kV3dBpca), 0u);
    EXPECT_EQ(rd(vc4::kV3dBpcs), 0u);
    for (std::uint32_t off : {vc4::kV3dDbge, vc4::kV3dFdbgo, vc4::kV3dFdbgb, vc4::kV3dFdbgr, vc4::kV3dFdbgs,
                              vc4::kV3dErrstat, vc4::kV3dCtnPc(0), vc4::kV3dCtnPc(1), vc4::kV3dCtnRa0(0)}) {
      wr(off, 0xFFFFFFFF);
      EXPECT_EQ(rd(off), 0u) << std::hex << off;
    }
    wr(vc4::kV3dPcs, 0xFFFFFFFF);
    EXPECT_EQ(rd(vc4::kV3dPcs), 0u);
  });
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "to read-only register").size(), 12u);
}

}  // namespace
