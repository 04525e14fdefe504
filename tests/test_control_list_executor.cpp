// Control list executor (CT0/CT1): the packet table with its exact lengths (Linux vc4_packet.h sizes, docs/vc4-v3d.md),
// execution of every fixed-length packet, branches and sub-lists with the return stack, semaphores between
// the threads, the end address, every error path, hang detection and reset, timing, and one end-to-end run of the
// gpuvp executable driven through MMIO like the vc4 kernel driver (vc4_gem.c submit_cl: CA, then EA).
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "tests/support/run_gpuvp.h"
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
namespace pk = vc4::packet;

namespace {

constexpr std::uint32_t kRun = ControlListExecutor::kCtRun;
constexpr std::uint32_t kErr = ControlListExecutor::kCtErr;

vc4::V3dParams test_params() {
  vc4::V3dParams p;
  p.cle.hang_timeout_ns = 20'000;  // 20 us
  return p;
}

std::vector<std::uint8_t> u32le(std::uint32_t v) {
  return {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v >> 16),
          static_cast<std::uint8_t>(v >> 24)};
}

// A control list under construction at a fixed address.
struct List {
  std::uint32_t base;
  std::vector<std::uint8_t> bytes;
  std::uint32_t here() const { return base + static_cast<std::uint32_t>(bytes.size()); }
  List& op(std::uint8_t opcode, std::vector<std::uint8_t> payload = {}) {
    bytes.push_back(opcode);
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    return *this;
  }
  List& branch(std::uint32_t target) { return op(pk::kBranch, u32le(target)); }
  List& call(std::uint32_t target) { return op(pk::kBranchToSubList, u32le(target)); }
};

class Cle : public test::vc4t::Vc4Fixture {
 protected:
  explicit Cle(vc4::V3dParams params = test_params()) : Vc4Fixture(params) {}
  using Vc4Fixture::put;
  using Vc4Fixture::submit;
  void put(const List& l) { dram_.store().write(l.base, l.bytes.data(), l.bytes.size()); }
  void submit(unsigned n, const List& l) { submit(n, l.base, l.here()); }
  // A binning list branching to itself (NOP, then BRANCH 0x1001) runs 40 us: hung at the BRANCH, reported once;
  // `after` runs in the simulation then.
  void run_branch_to_itself(const std::function<void()>& after = {}) {
    List l{0x1000, {}};
    l.op(pk::kNop).branch(0x1001);
    put(l);
    test::run_thread([&] {
      submit(0, 0x1000, 0x1006);
      settle(40);
      EXPECT_EQ(v3d_.thread(0).state(), ControlListExecutor::State::kHung);
      EXPECT_EQ(rd(vc4::kV3dCtnCa(0)), 0x1001u);
      if (after) after();
    });
    EXPECT_EQ(errors("CT0 (binning) hung: no progress for 20000 ns;"), 1u);
  }
};

// ---- the packet table ----

TEST(PacketTable, EveryOpcodeHasItsExactLength) {
  // Linux vc4_packet.h *_SIZE; 41/42/67 from PeterLemon LIB/CONTROL_LIST.INC; 0 = variable.
  const std::map<int, int> expected = {
      {0, 1},   {1, 1},   {4, 1},   {5, 1},   {6, 1},   {7, 1},    {8, 1},    {16, 5},   {17, 5}, {18, 1},  {24, 1},
      {25, 1},  {26, 5},  {27, 5},  {28, 7},  {29, 7},  {32, 14},  {33, 10},  {41, 10},  {42, 0}, {48, 0},  {49, 0},
      {56, 2},  {64, 5},  {65, 5},  {66, 5},  {67, 9},  {96, 4},   {97, 5},   {98, 5},   {99, 5}, {100, 3}, {101, 5},
      {102, 9}, {103, 5}, {104, 9}, {105, 9}, {106, 9}, {112, 16}, {113, 11}, {114, 14}, {115, 3}};
  for (int op = 0; op < 256; ++op) {
    const vc4::PacketInfo* info = vc4::packet_info(static_cast<std::uint8_t>(op));
    auto it = expected.find(op);
    if (it == expected.end()) {
      EXPECT_EQ(info, nullptr) << "opcode " << op << " should be undefined";  // includes GEM_HANDLES (254)
    } else {
      ASSERT_NE(info, nullptr) << "opcode " << op;
      EXPECT_EQ(info->length, it->second) << info->name;
    }
  }
  EXPECT_STREQ(vc4::packet_info(112)->name, "TILE_BINNING_MODE_CONFIG");
  EXPECT_EQ(vc4::packet_info(28)->unit, vc4::PacketUnit::kRenderer);
  EXPECT_EQ(vc4::packet_info(33)->unit, vc4::PacketUnit::kBinner);
  EXPECT_EQ(vc4::packet_info(96)->unit, vc4::PacketUnit::kCle);
}

// Every fixed-length packet in one list, payload bytes 0xFF: a wrong length anywhere would decode a 0xFF payload byte
// as opcode 255 and stop the thread with an error. The thread runs without its tile renderer (0xFF payloads are not
// valid renderer configurations): the CLE alone decodes, counts and reports the unit packets.
TEST_F(Cle, ExecutesEveryFixedLengthPacketWithItsLength) {
  v3d_.thread(1).set_unit(nullptr);
  List sub{0x20000, {}};
  sub.op(pk::kNop).op(pk::kReturnFromSubList);
  List l{0x10000, {}};
  unsigned fixed = 0;
  for (int op = 1; op < 256; ++op) {
    const vc4::PacketInfo* info = vc4::packet_info(static_cast<std::uint8_t>(op));
    if (!info || info->length == 0) continue;
    ++fixed;
    switch (op) {
      case pk::kWaitOnSemaphore:
      case pk::kReturnFromSubList:
        break;  // emitted with 7 / in the sub-list
      case pk::kIncrementSemaphore:
        l.op(pk::kIncrementSemaphore).op(pk::kWaitOnSemaphore);
        break;
      case pk::kBranch:
        l.branch(l.here() + 5);
        break;
      case pk::kBranchToSubList:
        l.call(sub.base);
        break;
      default:
        l.op(static_cast<std::uint8_t>(op), std::vector<std::uint8_t>(info->length - 1, 0xFF));
    }
  }
  ++fixed;  // HALT
  l.op(pk::kHalt);
  put(sub);
  put(l);
  test::run_thread([&] {
    submit(1, l);
    settle(100);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), l.here());
    EXPECT_EQ(rd(vc4::kV3dCtnLc(1)), 0x00020001u);  // FLUSH + FLUSH_ALL_STATE, one return
    EXPECT_EQ(rd(vc4::kV3dRfc), 3u);                // EOF: STORE_MS_..._AND_EOF, and the EOF bit (0xFF) of 26 and 28
    EXPECT_EQ(rd(vc4::kV3dBfc), 0u);                // FLUSH in the render thread does not count as a binning flush
  });
  const ControlListExecutor& ct1 = v3d_.thread(1);
  EXPECT_EQ(ct1.state(), ControlListExecutor::State::kStopped);
  EXPECT_EQ(ct1.packets_executed(), fixed + 1);  // plus the sub-list's NOP
  for (int op = 0; op < 256; ++op) {
    const vc4::PacketInfo* info = vc4::packet_info(static_cast<std::uint8_t>(op));
    const std::uint64_t runs = (!info || info->length == 0) ? 0 : op == pk::kNop ? 2 : 1;
    EXPECT_EQ(ct1.list_state().executed[static_cast<std::size_t>(op)], runs) << "opcode " << op;
  }
  // Binner/renderer packets: FLUSH, FLUSH_ALL_STATE, six loads/stores, three primitives, TILE_COORDINATES.
  EXPECT_EQ(warnings("which is not attached to this thread"), 12u);
  EXPECT_EQ(core::stats().counter_value("v3d.ct1.not_modelled"), 12u);
}

TEST_F(Cle, RecordsTheLastValueOfEachStatePacket) {
  List l{0x1000, {}};
  l.op(pk::kConfigurationBits, {0x03, 0x00, 0x02})
      .op(pk::kClipWindow, {0x00, 0x00, 0x00, 0x00, 0x80, 0x02, 0xE0, 0x01})
      .op(pk::kConfigurationBits, {0x07, 0x70, 0x01})
      .op(pk::kTileBinningModeConfig,
          {0x00, 0x00, 0x10, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x0A, 0x08, 0x04});
  put(l);
  test::run_thread([&] {
    submit(0, l);
    settle();
  });
  const auto& s = v3d_.thread(0).list_state();
  const vc4::StatePacket& cfg = s.last[pk::kConfigurationBits];
  EXPECT_TRUE(cfg.seen);
  EXPECT_EQ(cfg.address, 0x100Du);
  EXPECT_EQ(cfg.length, 4u);
  EXPECT_EQ(cfg.u8(1), 0x07u);
  EXPECT_EQ(cfg.u16(2), 0x0170u);
  EXPECT_EQ(s.executed[pk::kConfigurationBits], 2u);
  const vc4::StatePacket& clip = s.last[pk::kClipWindow];
  EXPECT_EQ(clip.u16(5), 640u);
  EXPECT_EQ(clip.u16(7), 480u);
  const vc4::StatePacket& bin = s.last[pk::kTileBinningModeConfig];
  EXPECT_EQ(bin.u32(1), 0x00100000u);
  EXPECT_EQ(bin.u32(5), 0x4000u);
  EXPECT_EQ(bin.u32(9), 0x00200000u);
  EXPECT_EQ(bin.u8(13), 10u);
  EXPECT_EQ(bin.u8(14), 8u);
  EXPECT_FALSE(s.last[pk::kClearColors].seen);
}

// ---- control flow ----

TEST_F(Cle, BranchContinuesAtTheTargetAndStopsAtTheEndAddress) {
  List a{0x1000, {}};
  a.op(pk::kNop).branch(0x3000);
  List b{0x3000, {}};
  b.op(pk::kNop).op(pk::kNop).op(pk::kHalt);  // EA lies before the HALT
  put(a);
  put(b);
  test::run_thread([&] {
    submit(1, 0x1000, 0x3002);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x3002u);
  });
  EXPECT_EQ(v3d_.thread(1).packets_executed(), 4u);
  EXPECT_EQ(v3d_.thread(1).list_state().executed[pk::kHalt], 0u);
}

TEST_F(Cle, HaltStopsTheThreadWithoutError) {
  List l{0x1000, {}};
  l.op(pk::kNop).op(pk::kHalt).op(pk::kNop).op(pk::kNop);
  put(l);
  test::run_thread([&] {
    submit(1, l);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1002u);
  });
  EXPECT_EQ(v3d_.thread(1).packets_executed(), 2u);
}

TEST_F(Cle, SubListsNestTwoLevelsWithTheReturnStackInCsAndRa0) {
  List main{0x1000, {}};
  main.call(0x2000).op(pk::kNop);  // returns to 0x1005
  List s1{0x2000, {}};
  s1.call(0x3000).op(pk::kReturnFromSubList);  // returns to 0x2005
  List s2{0x3000, {}};
  s2.op(pk::kWaitOnSemaphore).op(pk::kReturnFromSubList);
  List bin{0x4000, {}};
  bin.op(pk::kIncrementSemaphore).op(pk::kFlush);  // the increment takes effect when the FLUSH completes
  for (const List* l : {&main, &s1, &s2, &bin}) put(*l);
  test::run_thread([&] {
    submit(1, main);
    settle(5);
    // Waiting two levels deep: CTRUN, CTSUBS, depth 2; RA0 is the innermost return address.
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kRun | ControlListExecutor::kCtSubs | 2u << ControlListExecutor::kCtRtsdShift);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x3000u);
    EXPECT_EQ(rd(vc4::kV3dCtnRa0(1)), 0x2005u);
    submit(0, bin);
    settle(5);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1006u);
    EXPECT_EQ(rd(vc4::kV3dCtnRa0(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnLc(1)), 2u);  // two returns
  });
}

TEST_F(Cle, SubListsBeyondTheEndAddressRunAndReturn) {
  // The render list's tile lists live elsewhere (tile allocation memory), often above CTnEA.
  List main{0x1000, {}};
  main.call(0x80000).call(0x80020);
  List t0{0x80000, {}};
  t0.op(pk::kPrimitiveListFormat, {0x12}).op(pk::kReturnFromSubList);
  List t1{0x80020, {}};
  t1.op(pk::kNop).op(pk::kReturnFromSubList);
  for (const List* l : {&main, &t0, &t1}) put(*l);
  test::run_thread([&] {
    submit(1, main);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x100Au);
  });
}

// ---- semaphores ----

TEST_F(Cle, RenderThreadWaitsUntilTheBinningThreadIncrements) {
  List render{0x1000, {}};
  render.op(pk::kWaitOnSemaphore).op(pk::kNop);
  List bin{0x2000, std::vector<std::uint8_t>(100, pk::kNop)};
  bin.op(pk::kIncrementSemaphore).op(pk::kFlush);
  put(render);
  put(bin);
  sc_time ct1_done;
  test::run_thread([&] {
    submit(1, render);
    settle(10);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kRun);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1000u);
    EXPECT_TRUE(v3d_.thread(1).waiting_on_semaphore());
    // The binning list's increment waits for its FLUSH: stop CT0 between the two and CT1 keeps waiting.
    submit(0, 0x2000, 0x2065);
    settle(3);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(0)), 0x2065u);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kRun);
    wr(vc4::kV3dCtnCs(0), ControlListExecutor::kCtRsta);  // drops the queued increment
    const sc_time ct0_start = sc_core::sc_time_stamp();
    submit(0, bin);
    while (rd(vc4::kV3dCtnCs(1)) & kRun) sc_core::wait(sc_time(10, sc_core::SC_NS));
    ct1_done = sc_core::sc_time_stamp();
    // 100 NOPs at 2 V3D cycles (8 ns) each come first.
    EXPECT_GE(ct1_done - ct0_start, sc_time(800, sc_core::SC_NS));
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1002u);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode);  // semaphore consumed: count 0
  });
  EXPECT_EQ(core::stats().counter_value("v3d.ct1.semaphore_waits"), 1u);
}

TEST_F(Cle, SemaphoreCountShowsInBothStatusRegistersAndSaturatesAtSeven) {
  List bin{0x2000, std::vector<std::uint8_t>(2, pk::kIncrementSemaphore)};
  bin.op(pk::kFlush);
  List more{0x3000, std::vector<std::uint8_t>(8, pk::kIncrementSemaphore)};
  more.op(pk::kFlush);
  put(bin);
  put(more);
  test::run_thread([&] {
    submit(0, bin);  // two increments
    settle(5);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode | 2u << ControlListExecutor::kCtSemaShift);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 2u << ControlListExecutor::kCtSemaShift);
    submit(0, more);  // eight more: 7 is the 3-bit maximum
    settle(5);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 7u << ControlListExecutor::kCtSemaShift);
  });
  EXPECT_EQ(warnings("increment lost"), 3u);
}

TEST_F(Cle, WaitingForTheOtherThreadIsNotAHangWhileItWorks) {
  List render{0x1000, {}};
  render.op(pk::kWaitOnSemaphore);
  // CT0 needs far longer than the 20 us hang timeout: 16384 NOPs at 8 ns plus fetches.
  List bin{0x10000, std::vector<std::uint8_t>(16384, pk::kNop)};
  bin.op(pk::kIncrementSemaphore).op(pk::kFlush);
  put(render);
  put(bin);
  test::run_thread([&] {
    submit(0, bin);
    submit(1, render);
    settle(300);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1001u);
  });
  EXPECT_EQ(core::stats().counter_value("v3d.ct1.hangs"), 0u);
}

// ---- errors ----

TEST_F(Cle, UnknownOpcodeStopsTheThreadWithCterr) {
  List l{0x1000, {}};
  l.op(pk::kNop).op(2).op(pk::kNop);
  List m{0x2000, {}};
  m.op(254, std::vector<std::uint8_t>(8, 0));  // GEM_HANDLES: a kernel pseudo packet, never seen by the hardware
  put(l);
  put(m);
  test::run_thread([&] {
    submit(1, l);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kErr);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1001u);
    submit(0, m);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode | kErr);
    // A restart clears CTERR.
    submit(1, 0x1002, 0x1003);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kRun);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
  });
  EXPECT_EQ(errors("CT1 (rendering): unknown opcode 2; thread stopped with CTERR at 0x00001001, opcode 2 (unknown)"),
            1u);
  EXPECT_EQ(errors("CT0 (binning): unknown opcode 254; thread stopped with CTERR at 0x00002000, opcode 254"), 1u);
  EXPECT_EQ(v3d_.thread(1).incidents().size(), 1u);
}

TEST_F(Cle, PacketRunningPastTheEndAddressIsAnError) {
  List l{0x1000, {}};
  l.op(pk::kNop).branch(0x1000);
  put(l);
  test::run_thread([&] {
    submit(1, 0x1000, 0x1004);  // the BRANCH at 0x1001 needs bytes up to 0x1005
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kErr);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1001u);
  });
  EXPECT_EQ(errors("BRANCH (5 bytes) runs past the end address 0x00001004; thread stopped with CTERR at 0x00001001, "
                   "opcode 16 (BRANCH)"),
            1u);
}

TEST_F(Cle, BranchOutsideDramIsAnError) {
  List l{0x1000, {}};
  l.branch(0x01000000);  // just past the 16 MiB of DRAM
  List m{0x2000, {}};
  m.call(0xE1000000);  // the V3D's own registers
  put(l);
  put(m);
  test::run_thread([&] {
    submit(1, l);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kErr);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1000u);
    submit(0, m);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode | kErr);
    EXPECT_EQ(rd(vc4::kV3dCtnRa0(0)), 0u);  // nothing pushed
  });
  EXPECT_EQ(errors("CT1 (rendering): BRANCH target 0x01000000 is outside DRAM"), 1u);
  EXPECT_EQ(errors("CT0 (binning): BRANCH_TO_SUB_LIST target 0xe1000000 is outside DRAM"), 1u);
}

TEST_F(Cle, StartingOutsideDramIsAnError) {
  test::run_thread([&] {
    submit(1, 0x02000000, 0x02000010);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kErr);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x02000000u);
  });
  EXPECT_EQ(errors("packet fetch failed: address 0x02000000 is outside DRAM; thread stopped with CTERR at "
                   "0x02000000, no opcode fetched"),
            1u);
}

TEST_F(Cle, ReturnWithAnEmptyStackIsAnError) {
  List l{0x1000, {}};
  l.op(pk::kNop).op(pk::kReturnFromSubList);
  put(l);
  test::run_thread([&] {
    submit(1, l);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kErr);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1001u);
  });
  EXPECT_EQ(errors("RETURN_FROM_SUB_LIST with an empty return stack; thread stopped with CTERR at 0x00001001, opcode "
                   "18 (RETURN_FROM_SUB_LIST)"),
            1u);
}

TEST_F(Cle, NestingDeeperThanTwoIsAnError) {
  List main{0x1000, {}};
  main.call(0x2000);
  List s1{0x2000, {}};
  s1.call(0x3000);
  List s2{0x3000, {}};
  s2.op(pk::kNop).call(0x4000);
  for (const List* l : {&main, &s1, &s2}) put(*l);
  test::run_thread([&] {
    submit(1, main);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kErr | ControlListExecutor::kCtSubs | 2u << ControlListExecutor::kCtRtsdShift);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x3001u);
    EXPECT_EQ(rd(vc4::kV3dCtnRa0(1)), 0x2005u);
  });
  EXPECT_EQ(errors("BRANCH_TO_SUB_LIST nested deeper than 2 levels; thread stopped with CTERR at 0x00003001, opcode "
                   "17 (BRANCH_TO_SUB_LIST)"),
            1u);
}

// ---- compressed primitive lists (PTB output, 16-bit-index triangles) ----

TEST_F(Cle, CompressedPrimitiveListsRunToTheirEscape) {
  List l{0x10000, {}};
  l.op(pk::kPrimitiveListFormat, {pk::kListFormat16BitTriangles})
      .op(pk::kCompressedPrimitive, {0x81, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00,  // three absolute indices
                                     0x0F, 0x00, 0x05, 0x00,                    // one absolute, two relative
                                     0x13, 0x25,                                // three 4-bit deltas
                                     0x04,                                      // one relative index
                                     0x80})                                     // escape
      .op(pk::kClippedCompressedPrimitive, {0x08, 0x00, 0x30, 0x00, 0x04, 0x80})
      .op(pk::kNop);
  put(l);
  test::run_thread([&] {
    submit(1, l);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), l.here());
  });
  EXPECT_EQ(v3d_.thread(1).list_state().executed[pk::kCompressedPrimitive], 1u);
  EXPECT_EQ(v3d_.thread(1).list_state().executed[pk::kClippedCompressedPrimitive], 1u);
  EXPECT_EQ(v3d_.thread(1).list_state().last[pk::kClippedCompressedPrimitive].u32(1), 0x00300008u);
  // Each primitive entry reaches the tile renderer decoded (compressed_list.h): (1, 2, 3) absolute; (5, 5 + 0,
  // 5 + 0) one absolute and two relative to it; (5 + 1, 5 + 5, 5 + 2) three deltas to the previous triangle;
  // (7, 10, 7 + 1) flag 0: the previous triangle's third and second index and a new one. The clipped list starts
  // afresh from (0, 0, 0): 0x04 gives (0, 0, 1).
  std::vector<std::array<std::uint16_t, 3>> got;
  for (const auto& p : v3d_.renderer().tile_primitives()) got.push_back(p.index);
  EXPECT_EQ(got, (std::vector<std::array<std::uint16_t, 3>>{{1, 2, 3}, {5, 5, 5}, {6, 10, 7}, {7, 10, 8}, {0, 0, 1}}));
  // Each primitive entry reaches the tile renderer, which (with no shader state in the list) counts it and warns once
  // that it draws nothing.
  EXPECT_EQ(v3d_.renderer().primitives_not_shaded(), 5u);
  EXPECT_EQ(warnings("primitive entry at 0x10003 (PRIMITIVE_LIST_FORMAT 0x12) reached tile (0, 0) before any shader "
                     "state in the render thread: counted in primitives_not_shaded, not drawn"),
            1u);
}

TEST_F(Cle, CompressedListRelativeBranchContinuesInCompressedMode) {
  List l{0x10000, {}};
  // 0x82 at 0x10003: base 0x10000 (32-byte aligned) + 8 * 32 = 0x10100.
  l.op(pk::kPrimitiveListFormat, {0x12}).op(pk::kCompressedPrimitive, {0x82, 0x08, 0x00});
  List cont{0x10100, {}};
  cont.op(0x04).op(0x80).op(pk::kNop);  // an entry, the escape, then ordinary packets again
  put(l);
  put(cont);
  test::run_thread([&] {
    submit(1, 0x10000, 0x10103);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x10103u);
  });
  EXPECT_EQ(warnings("before any shader state in the render thread"), 1u);
}

TEST_F(Cle, CompressedListsOfUndocumentedFormatsAndUnterminatedListsAreErrors) {
  List a{0x1000, {}};
  a.op(pk::kPrimitiveListFormat, {0x31}).op(pk::kCompressedPrimitive, {0x80});  // 32-bit x/y lines
  List b{0x2000, {}};
  b.op(pk::kPrimitiveListFormat, {0x12}).op(pk::kCompressedPrimitive, {0x04, 0x04});
  List c{0x3000, {}};
  c.op(pk::kVgInlinePrimitives, {0x04, 0x00});
  put(a);
  put(b);
  put(c);
  test::run_thread([&] {
    submit(1, a);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kErr);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1002u);
    submit(0, b);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode | kErr);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(0)), b.here());
    submit(1, c);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kErr);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x3000u);
  });
  EXPECT_EQ(errors("compressed primitive list in PRIMITIVE_LIST_FORMAT 0x00000031 is not modelled"), 1u);
  EXPECT_EQ(errors("CT0 (binning): compressed primitive list reaches the end address without its escape byte"), 1u);
  EXPECT_EQ(errors("VG_INLINE_PRIMITIVES is not modelled"), 1u);
  EXPECT_EQ(warnings("COMPRESSED_PRIMITIVE at 0x00002002 is not a packet of the PTB binner"), 1u);
}

TEST_F(Cle, CompressedLineEntriesWithoutADocumentedMeaningStopTheThread) {
  List l{0x1000, {}};
  // Lines: absolute (5 bytes), one absolute + one relative (3 bytes), then a 1-byte line coding no source explains.
  l.op(pk::kPrimitiveListFormat, {pk::kListFormat16BitLines})
      .op(pk::kCompressedPrimitive, {0x81, 0x05, 0x00, 0x06, 0x00, 0x0A, 0x20, 0x00, 0x04, 0x80});
  put(l);
  test::run_thread([&] {
    submit(1, l);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kErr);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x100Bu);  // at the 1-byte entry
  });
  std::vector<std::array<std::uint16_t, 3>> got;
  for (const auto& p : v3d_.renderer().tile_primitives()) got.push_back(p.index);
  EXPECT_EQ(got, (std::vector<std::array<std::uint16_t, 3>>{{5, 6, 0}, {0x20, 0x22, 0}}));
  EXPECT_EQ(warnings("before any shader state in the render thread"), 1u);
  EXPECT_EQ(errors("compressed list entry 0x00000004 in PRIMITIVE_LIST_FORMAT 0x00000011: the 1-byte line coding is "
                   "not modelled"),
            1u);
}

// The render thread's INCREMENT_SEMAPHORE takes effect when the last tile of its frame is written ("after tile lists
// are flushed or last tile written", the guide's packet table): CT0, waiting on the semaphore, runs on only after the
// EOF store.
TEST_F(Cle, RenderThreadIncrementTakesEffectWhenTheLastTileIsWritten) {
  List render{0x1000, {}};
  render
      .op(pk::kTileRenderingModeConfig, {0x00, 0x00, 0x40, 0x00, 64, 0, 64, 0, 0x04, 0x00})  // 64x64 at 0x400000
      .op(pk::kTileCoordinates, {0, 0})
      .op(pk::kIncrementSemaphore);
  const std::uint32_t store_at = render.here();
  render.op(pk::kStoreMsTileBuffer).op(pk::kTileCoordinates, {0, 0});
  const std::uint32_t eof_at = render.here();
  render.op(pk::kStoreMsTileBufferAndEof);
  List bin{0x2000, {}};
  bin.op(pk::kWaitOnSemaphore).op(pk::kNop);
  put(render);
  put(bin);
  test::run_thread([&] {
    submit(0, bin);
    settle(5);
    EXPECT_TRUE(v3d_.thread(0).waiting_on_semaphore());
    // CT1 up to (not including) the first store: the increment is queued, the count stays 0.
    submit(1, 0x1000, store_at);
    settle(5);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(v3d_.thread(1).pending_semaphore_increments(), 1u);
    EXPECT_TRUE(v3d_.thread(0).waiting_on_semaphore());
    // A store without EOF is not the end of the frame.
    submit(1, store_at, eof_at);
    settle(5);
    EXPECT_EQ(rd(vc4::kV3dRfc), 0u);
    EXPECT_TRUE(v3d_.thread(0).waiting_on_semaphore());
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode | kRun);
    // The EOF store: RFC counts the frame and the increment lands; CT0 consumes it and finishes. Both take effect at
    // the render thread's local time, when the tile's write to memory is done (a few us).
    submit(1, eof_at, render.here());
    settle(20);
    EXPECT_EQ(rd(vc4::kV3dRfc), 1u);
    EXPECT_EQ(v3d_.thread(1).pending_semaphore_increments(), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode);  // stopped, semaphore consumed
    EXPECT_EQ(rd(vc4::kV3dCtnCa(0)), bin.here());
  });
  EXPECT_EQ(core::stats().counter_value("v3d.ct0.semaphore_waits"), 1u);
}

// ---- packets of the other thread's unit ----

TEST_F(Cle, PacketsOfTheOtherUnitAreSkippedWithOneWarningPerThreadAndType) {
  List bin{0x1000, {}};
  bin.op(pk::kTileCoordinates, {1, 2})
      .op(pk::kTileCoordinates, {2, 2})
      .op(pk::kClearColors, std::vector<std::uint8_t>(13, 0));
  List render{0x2000, {}};
  for (int i = 0; i < 3; ++i) render.op(pk::kGlArrayPrimitive, {4, 3, 0, 0, 0, 0, 0, 0, 0});
  render.op(pk::kStartTileBinning);
  put(bin);
  put(render);
  test::run_thread([&] {
    submit(0, bin);
    settle();
    submit(1, render);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
  });
  EXPECT_EQ(warnings("CT0 (binning): TILE_COORDINATES at 0x00001000 is not a packet of the PTB binner: skipped"), 1u);
  EXPECT_EQ(warnings("CT0 (binning): CLEAR_COLORS at 0x00001006 is not a packet of the PTB binner"), 1u);
  EXPECT_EQ(warnings("CT1 (rendering): GL_ARRAY_PRIMITIVE at 0x00002000 is not a packet of the tile renderer"), 1u);
  EXPECT_EQ(warnings("CT1 (rendering): START_TILE_BINNING at 0x0000201e is not a packet of the tile renderer"), 1u);
  EXPECT_EQ(core::stats().counter_value("v3d.ct0.not_modelled"), 3u);
  EXPECT_EQ(core::stats().counter_value("v3d.ct1.not_modelled"), 4u);
  EXPECT_EQ(v3d_.thread(0).list_state().last[pk::kTileCoordinates].u8(1), 2u);
  EXPECT_EQ(v3d_.renderer().tiles_stored(), 0u);
}

// ---- hangs ----

TEST_F(Cle, SemaphoreThatNeverComesIsAHangAndCtrstaResets) {
  List l{0x1000, {}};
  l.op(pk::kWaitOnSemaphore);
  List ok{0x2000, {}};
  ok.op(pk::kNop).op(pk::kNop);
  put(l);
  put(ok);
  test::run_thread([&] {
    submit(1, l);
    settle(15);
    EXPECT_EQ(v3d_.thread(1).state(), ControlListExecutor::State::kRunning);
    settle(15);
    EXPECT_EQ(v3d_.thread(1).state(), ControlListExecutor::State::kHung);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kRun);  // still "running" to the guest, as a stuck thread is
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1000u);
    wr(vc4::kV3dCtnCs(1), ControlListExecutor::kCtRsta);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(v3d_.thread(1).state(), ControlListExecutor::State::kStopped);
    submit(1, ok);
    settle();
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x2002u);
  });
  EXPECT_EQ(errors("CT1 (rendering) hung: no progress for 20000 ns (waiting on the semaphore); CT1CS=0x00000020 "
                   "CA=0x00001000 EA=0x00001001"),
            1u);
  EXPECT_EQ(core::stats().counter_value("v3d.ct1.hangs"), 1u);
  EXPECT_EQ(v3d_.incidents().size(), 1u);
}

TEST_F(Cle, BranchToItselfIsAHang) {
  run_branch_to_itself([&] {
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode | kRun);
    wr(vc4::kV3dCtnCs(0), 0);  // CTRUN = 0 also stops a hung thread
    EXPECT_EQ(rd(vc4::kV3dCtnCs(0)), ControlListExecutor::kCtMode);
  });
  // 20 us of BRANCHes at 2 + 4 cycles (24 ns) each.
  EXPECT_GT(v3d_.thread(0).packets_executed(), 800u);
}

TEST_F(Cle, LoopsThroughNopsAndSubListsAreHangs) {
  List a{0x1000, {}};
  a.op(pk::kNop).op(pk::kNop).branch(0x1000);
  List b{0x2000, {}};
  b.call(0x2100).branch(0x2000);
  List s{0x2100, {}};
  s.op(pk::kReturnFromSubList);
  for (const List* l : {&a, &b, &s}) put(*l);
  test::run_thread([&] {
    submit(0, 0x1000, 0x1FFF);
    submit(1, 0x2000, 0x2FFF);
    settle(40);
    EXPECT_EQ(v3d_.thread(0).state(), ControlListExecutor::State::kHung);
    EXPECT_EQ(v3d_.thread(1).state(), ControlListExecutor::State::kHung);
    wr(vc4::kV3dCtnCs(0), ControlListExecutor::kCtRsta);
    wr(vc4::kV3dCtnCs(1), ControlListExecutor::kCtRsta);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), 0u);
    EXPECT_EQ(rd(vc4::kV3dCtnRa0(1)), 0u);
  });
  EXPECT_EQ(errors("hung: no progress"), 2u);
}

// Two threads waiting on each other's semaphore: nothing can increment it, so neither CA ever moves again. Both are
// hung at their watchdog (the Linux hangcheck resets when neither CT0CA nor CT1CA moved), not "waiting for a peer
// that works" forever.
TEST_F(Cle, BothThreadsWaitingOnTheSemaphoreAreADeadlockAndBothHang) {
  List bin{0x1000, {}};
  bin.op(pk::kWaitOnSemaphore).op(pk::kIncrementSemaphore);
  List render{0x2000, {}};
  render.op(pk::kWaitOnSemaphore).op(pk::kIncrementSemaphore);
  put(bin);
  put(render);
  test::run_thread([&] {
    submit(0, bin);
    submit(1, render);
    settle(15);
    EXPECT_EQ(v3d_.thread(0).state(), ControlListExecutor::State::kRunning);
    EXPECT_EQ(v3d_.thread(1).state(), ControlListExecutor::State::kRunning);
    settle(15);
    EXPECT_EQ(v3d_.thread(0).state(), ControlListExecutor::State::kHung);
    EXPECT_EQ(v3d_.thread(1).state(), ControlListExecutor::State::kHung);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(0)), 0x1000u);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x2000u);
  });
  EXPECT_EQ(errors("CT0 (binning) hung: no progress for 20000 ns (waiting on the semaphore) (deadlock: the other "
                   "thread waits on the semaphore too, nothing can release it); CT0CS=0x00000021 CA=0x00001000"),
            1u);
  EXPECT_EQ(errors("CT1 (rendering) hung: no progress for 20000 ns (waiting on the semaphore) (deadlock: the other "
                   "thread waits on the semaphore too, nothing can release it); CT1CS=0x00000020 CA=0x00002000"),
            1u);
  EXPECT_EQ(core::stats().counter_value("v3d.ct0.hangs"), 1u);
  EXPECT_EQ(core::stats().counter_value("v3d.ct1.hangs"), 1u);
}

// ---- configurations that make packets free, lists that loop inside a compressed list ----

// A CLE fixture whose parameters differ from test_params() by `change`.
template <void (*change)(vc4::V3dParams&)>
class CleWith : public Cle {
 protected:
  static vc4::V3dParams params() {
    vc4::V3dParams p = test_params();
    change(p);
    return p;
  }
  CleWith() : Cle(params()) {}
  // A compressed list at 0x1000 whose relative branch (0x82 0x01 0x00 at 0x1003: 0x1000 + 1 * 32) goes on at 0x1020,
  // where body (ending with a relative branch) loops.
  void put_compressed_loop(std::vector<std::uint8_t> body) {
    List l{0x1000, {}};
    l.op(pk::kPrimitiveListFormat, {0x12}).op(pk::kCompressedPrimitive, {0x82, 0x01, 0x00});
    put(l);
    put(List{0x1020, std::move(body)});
  }
};

void make_packets_free(vc4::V3dParams& p) {
  p.cle.packet_cycles = 0;
  p.cle.byte_cycles = 0;
}
using CleFreePackets = CleWith<make_packets_free>;

// With packets free a list branching to itself would stop simulated time (and the host with it); a jump costs one
// V3D cycle (4 ns) at least, so the watchdog meets it as before.
TEST_F(CleFreePackets, BranchToItselfStillMovesTimeAndIsAHang) {
  run_branch_to_itself();
  // 20 us of BRANCHes at one cycle (4 ns) each, the first fetch of the line (64 ns) aside.
  EXPECT_GE(v3d_.thread(0).packets_executed(), 4900u);
  EXPECT_LE(v3d_.thread(0).packets_executed(), 5010u);
}

TEST_F(CleFreePackets, CompressedListRelativeBranchToItselfIsAHang) {
  put_compressed_loop({0x82, 0x00, 0x00});  // branches to its own 32-byte block
  test::run_thread([&] {
    submit(0, 0x1000, 0x1FFF);
    settle(40);
    EXPECT_EQ(v3d_.thread(0).state(), ControlListExecutor::State::kHung);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(0)), 0x1020u);
  });
  EXPECT_EQ(errors("CT0 (binning) hung: no progress for 20000 ns;"), 1u);
  EXPECT_EQ(warnings("COMPRESSED_PRIMITIVE at 0x00001002 is not a packet of the PTB binner"), 1u);
}

// A render list that branches back inside one compressed list hands the tile the same primitive again and again:
// the renderer keeps at most kMaxTilePrimitives for a tile, then stops the thread with an error naming the tile.
void make_watchdog_long(vc4::V3dParams& p) {
  p.cle.hang_timeout_ns = 100'000'000;  // 100 ms: the list is stopped by the renderer's limit first
}
using CleLongWatchdog = CleWith<make_watchdog_long>;

TEST_F(CleLongWatchdog, ATileReceivesAtMostTheLimitOfPrimitivesThenTheRenderThreadStops) {
  put_compressed_loop({0x04, 0x82, 0x00, 0x00});  // one primitive (a relative index), then back to 0x1020
  test::run_thread([&] {
    submit(1, 0x1000, 0x1FFF);
    // Each round: 2 + 2 + 2 x 1 cycles of packets and 4 of the renderer, 10 cycles (40 ns): 65536 rounds in 2.7 ms.
    settle(3000);
    EXPECT_EQ(v3d_.thread(1).state(), ControlListExecutor::State::kError);
    EXPECT_EQ(rd(vc4::kV3dCtnCs(1)), kErr);
    EXPECT_EQ(rd(vc4::kV3dCtnCa(1)), 0x1020u);
  });
  EXPECT_EQ(v3d_.renderer().tile_primitives().size(), vc4::TileRenderer::kMaxTilePrimitives);
  EXPECT_EQ(v3d_.renderer().primitives_not_shaded(), vc4::TileRenderer::kMaxTilePrimitives);
  EXPECT_EQ(warnings("before any shader state in the render thread"), 1u);
  EXPECT_EQ(errors("CT1 (rendering): tile (0, 0) receives more than 65536 primitives, the model's limit per tile (a "
                   "render list looping inside a primitive list?); thread stopped with CTERR at 0x00001020, opcode 48 "
                   "(COMPRESSED_PRIMITIVE)"),
            1u);
}

// ---- timing ----

TEST_F(Cle, TimeIsPacketsAndBytesAtTheV3dClockPlusFetches) {
  // 32 NOPs fill one 32-byte fetch: each further 32 NOPs cost 32 x 2 cycles x 4 ns = 256 ns plus one line fetch
  // (bus hop 2 + port 1 + DRAM latency 60 + 32 bytes at 32 per cycle = 64 ns at 1 GHz): 320 ns.
  put(List{0x1000, std::vector<std::uint8_t>(96, pk::kNop)});
  List l{0x2000, {}};
  l.op(pk::kTileBinningModeConfig, std::vector<std::uint8_t>(15, 0)).op(pk::kNop);  // 16 + 1 bytes
  put(l);
  core::BusyTime& busy = core::stats().busy_time("v3d.ct1.busy");
  std::array<core::Picoseconds, 3> t{};
  test::run_thread([&] {
    for (unsigned i = 0; i < 3; ++i) {
      const core::Picoseconds before = busy.busy_ps;
      submit(1, 0x1000, 0x1000 + 32 * (i + 1));
      settle(5);
      t[i] = busy.busy_ps - before;
    }
  });
  EXPECT_EQ(t[1] - t[0], 320'000u);
  EXPECT_EQ(t[2] - t[1], 320'000u);
  EXPECT_EQ(t[0], 320'000u);
}

// ---- end to end through the gpuvp executable ----

using Result = test::ProcessResult;
Result run_gpuvp(const std::string& args) { return test::run_gpuvp(args); }
std::string write_temp(const std::string& name, const std::string& text) { return test::write_temp_file(name, text); }

// Driven like the vc4 kernel driver: lists in memory, INTENA, CA then EA per thread (vc4_gem.c submit_cl), the render
// thread first (it waits on the semaphore), then the binning thread; then the registers the hang dump reads.
TEST(ControlListExecutorE2e, RenderListOfControlPacketsThroughMmio) {
  const std::string script =
      write_temp("cle_e2e.gpuvp",
                 "# render list at 0x10000: WAIT_ON_SEMAPHORE, BRANCH_TO_SUB_LIST 0x10200, NOP,\n"
                 "# BRANCH 0x10100; 0x10100: NOP NOP (end) HALT; sub-list 0x10200: NOP, RETURN\n"
                 "write 0x10000 12 0x081100020100011000010100\n"
                 "write 0x10100 3 0x010100\n"
                 "write 0x10200 2 0x0112\n"
                 "# binning list at 0x20000: NOP, INCREMENT_SEMAPHORE, FLUSH\n"
                 "write 0x20000 3 0x010704\n"
                 "writel 0xe1000034 0xf        # INTENA: all four\n"
                 "expectl 0xe1000038 0xf       # INTDIS reads the enabled set\n"
                 "writel 0xe1000114 0x10000    # CT1CA\n"
                 "writel 0xe100010c 0x10102    # CT1EA: starts CT1\n"
                 "clock_step 2000\n"
                 "expectl 0xe1000104 0x20      # CT1CS: CTRUN, waiting on the semaphore\n"
                 "expectl 0xe1000114 0x10000   # CT1CA: at the WAIT\n"
                 "expectl 0xe1000130 0xc       # PCS: RMACTIVE | RMBUSY\n"
                 "writel 0xe1000110 0x20000    # CT0CA\n"
                 "writel 0xe1000108 0x20003    # CT0EA: starts CT0\n"
                 "clock_step 5000\n"
                 "expectl 0xe1000100 0x1       # CT0CS: CTMODE, stopped, semaphore 0\n"
                 "expectl 0xe1000110 0x20003   # CT0CA == CT0EA\n"
                 "expectl 0xe1000104 0x0       # CT1CS: stopped, no error\n"
                 "expectl 0xe1000114 0x10102   # CT1CA == CT1EA\n"
                 "expectl 0xe100011c 0x0       # CT1RA0: stack empty\n"
                 "expectl 0xe1000124 0x1       # CT1LC: one sub-list return\n"
                 "expectl 0xe1000130 0x0       # PCS: idle\n"
                 "expectl 0xe1000030 0x2       # INTCTL: FLDONE, no frame\n"
                 "expectl 0xe1000134 0x1       # BFC: one flush\n");
  Result r = run_gpuvp("run --quiet --script " + script);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("ERR"), std::string::npos) << r.out;
}

TEST(ControlListExecutorE2e, AFaultyListIsAModelErrorNamingThreadAddressAndOpcode) {
  const std::string script = write_temp("cle_bad.gpuvp",
                                        "write 0x10000 3 0x0101ee\n"
                                        "writel 0xe1000114 0x10000\n"
                                        "writel 0xe100010c 0x10003\n"
                                        "clock_step 2000\n"
                                        "expectl 0xe1000104 0x8       # CT1CS: CTERR\n"
                                        "expectl 0xe1000114 0x10002\n");
  Result r = run_gpuvp("run --script " + script);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("CT1 (rendering): unknown opcode 238; thread stopped with CTERR at 0x00010002"),
            std::string::npos)
      << r.out;
}

// The reproducer of a guest that stopped time: free packets and a binning list branching to itself. The run ends, in
// bounded wall time, with the CLE hang reported.
TEST(ControlListExecutorE2e, FreePacketsAndABranchToItselfEndWithTheHangReported) {
  const std::string script = write_temp("cle_free_loop.gpuvp",
                                        "write 0x10000 5 0x1000000100     # BRANCH 0x10000\n"
                                        "writel 0xe1000110 0x10000        # CT0CA\n"
                                        "writel 0xe1000108 0x10005        # CT0EA: starts CT0\n"
                                        "clock_step 3000000\n"
                                        "expectl 0xe1000100 0x21          # CT0CS: CTMODE, still CTRUN: hung\n"
                                        "expectl 0xe1000110 0x10000\n");
  const auto start = std::chrono::steady_clock::now();
  Result r = run_gpuvp("run --script " + script +
                       " --set vc4.v3d.cle.packet_cycles=0 --set vc4.v3d.cle.byte_cycles=0"
                       " --set vc4.v3d.cle.hang_timeout_ns=1000000");
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << r.out;  // a hang is a guest error: "completed with model errors"
  EXPECT_NE(r.out.find("CT0 (binning) hung: no progress for 1000000 ns; CT0CS=0x00000021 CA=0x00010000"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("outcome:        completed with model errors"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("simulated time: 3.000 ms"), std::string::npos) << r.out;
  EXPECT_LT(wall_s, 60.0);
}

// CT0 and CT1 both waiting on the semaphore with count 0: a deadlock. Both threads are hung at the hang timeout
// (100 ms by default) and the run fails as other hangs do.
TEST(ControlListExecutorE2e, BothThreadsWaitingOnTheSemaphoreEndAsHangsNotAsACompletedRun) {
  const std::string script = write_temp("cle_deadlock.gpuvp",
                                        "write 0x10000 1 0x08             # WAIT_ON_SEMAPHORE\n"
                                        "write 0x20000 1 0x08             # WAIT_ON_SEMAPHORE\n"
                                        "writel 0xe1000114 0x20000        # CT1CA\n"
                                        "writel 0xe100010c 0x20001        # CT1EA: starts CT1\n"
                                        "writel 0xe1000110 0x10000        # CT0CA\n"
                                        "writel 0xe1000108 0x10001        # CT0EA: starts CT0\n"
                                        "clock_step 500000000\n");
  Result r = run_gpuvp("run --script " + script);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("CT0 (binning) hung: no progress for 100000000 ns (waiting on the semaphore) (deadlock: the "
                       "other thread waits on the semaphore too, nothing can release it)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("CT1 (rendering) hung: no progress for 100000000 ns (waiting on the semaphore) (deadlock: the "
                       "other thread waits on the semaphore too, nothing can release it)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("outcome:        completed with model errors"), std::string::npos) << r.out;
}

}  // namespace
