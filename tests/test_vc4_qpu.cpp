// QPU user programs end to end, driven as gpu_fft's direct mode drives them (tb/host/vc4_driver run_qpu_programs:
// SRQUA/SRQPC per program, SRQCS polled for the completed count): programs of the tests' own, in the assembler's
// syntax (tlm/vc4/qpu/qpu_assembler.h), on the default platform's 12 QPUs. They read memory through TMU direct
// lookups, write the VPM and store it through the VDW's DMA, share a counter under the mutex, hand work over with
// semaphores and raise the host interrupt; the scheduler's queue, reservations and counts; every way a program can go
// wrong (an error, a deadlock, a runaway) stopped with a report while the model stays up; the same run as a host
// script through the executable.
#include <cstring>
#include <fstream>
#include <memory>

#include <gtest/gtest.h>

#include "hw/vc4/qpu_isa.h"
#include "hw/vc4/v3d_regs.h"
#include "platform/platform.h"
#include "tb/host/vc4_driver.h"
#include "tests/support/run_gpuvp.h"
#include "tests/support/sc_test.h"
#include "tlm/core/stats.h"
#include "tlm/vc4/qpu/qpu_assembler.h"
#include "tlm/vc4/qpu_scheduler.h"
#include "tlm/vc4/v3d.h"

using namespace gpuvp;
using host::Vc4Driver;

namespace {

std::vector<std::uint64_t> assemble(const std::string& source) {
  vc4::qpu::AssembledProgram program;
  std::string error;
  EXPECT_TRUE(vc4::qpu::assemble(source, program, error)) << error;
  return program.code;
}

// Each program reads 16 words at `in` through TMU0, adds k, writes the sum to VPM row `row` and stores that row to
// `out` through the VDW. Uniforms: in, out, k, the generic write setup of the row, the VDW setup of the row.
const char* const kTmuAddStore = R"(
    mov r0, elem
    shl r1, r0, 2            # the element's byte offset
    mov r2, uni              # in
    add tmu0_s, r2, r1
    mov r3, uni              # out
    load_tmu0 nop
    mov r2, uni              # k
    add r1, r4, r2
    mov vw_setup, uni        # horizontal 32-bit, row `row`
    mov vpm, r1
    mov vw_setup, uni        # VDW: one unit of 16 words from row `row`
    mov vw_addr, r3
    mov r0, vpm_st_wait
    sig_end nop
    nop
    nop
)";

std::uint32_t generic_write_setup(unsigned row) { return 0x00001a00U | row; }
std::uint32_t vdw_row(unsigned row, unsigned depth) {
  return 0x80000000U | (1U << 23) | (depth << 16) | (1U << 14) | (row << 7);
}

struct Rig {
  explicit Rig(platform::PlatformParams params = {}) : soc("gpuvp", params), port(soc.host()), driver(port) {}
  std::string incidents() {
    std::string all;
    for (const auto& i : soc.v3d()->incidents()) all += i + "\n";
    return all;
  }
  platform::Platform soc;
  host::BusHostPort port;
  Vc4Driver driver;
};

std::vector<std::uint32_t> words(Rig& rig, std::uint32_t address, unsigned count) {
  std::vector<std::uint32_t> v(count);
  rig.port.read_block(address, v.data(), count * 4);
  return v;
}

// Eight programs, as gpu_fft launches its eight: each one's 16 words in, k added, out through the VPM and the DMA.
TEST(Vc4Qpu, EightProgramsReadThroughTheTmuAndStoreThroughTheVpmDma) {
  Rig rig;
  bool ok = false;
  Vc4Driver::Buffer in, out;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    in = d.alloc(8 * 64);
    out = d.alloc(8 * 64);
    std::vector<std::uint8_t> bytes(8 * 64);
    for (unsigned i = 0; i < 8 * 16; ++i) {
      const std::uint32_t v = 1000 * i;
      std::memcpy(&bytes[4 * i], &v, 4);
    }
    d.upload(in, 0, bytes);
    const std::uint32_t code = d.upload_qpu_code(assemble(kTmuAddStore));
    std::vector<std::uint32_t> uniforms;
    for (unsigned q = 0; q < 8; ++q) {
      uniforms.push_back(
          d.upload_uniforms({in.addr + 64 * q, out.addr + 64 * q, 7 * q, generic_write_setup(q), vdw_row(q, 16)}));
    }
    ok = d.run_qpu_programs(code, uniforms, 1'000'000);
  });
  ASSERT_TRUE(ok) << rig.incidents();
  const std::vector<std::uint32_t> result = words(rig, out.addr, 8 * 16);
  for (unsigned i = 0; i < 8 * 16; ++i) EXPECT_EQ(result[i], 1000 * i + 7 * (i / 16)) << i;
  EXPECT_EQ(rig.port.read32(rig.driver.layout().v3d + vc4::kV3dSrqcs), (8u << 16) | (8u << 8));
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.programs_completed"), 8u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.tmu_requests"), 8u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.dma_store_words"), 8u * 16);
  std::uint64_t instructions = 0, programs = 0;
  for (unsigned q = 0; q < 12; ++q) {
    instructions += core::stats().counter_value("gpuvp.v3d.qpus.qpu" + std::to_string(q) + ".instructions");
    programs += core::stats().counter_value("gpuvp.v3d.qpus.qpu" + std::to_string(q) + ".programs");
  }
  EXPECT_EQ(instructions, 8u * 16);
  EXPECT_EQ(programs, 8u);
}

// The default platform's memory as a QPU sees it (1 GHz bus and DRAM, 250 MHz V3D): a 64-byte read takes 66 ns (2
// hop, 2 on the bus's DRAM port at 32 bytes a cycle, 60 DRAM read latency, 2 transfer) = 17 V3D cycles rounded up, a
// 64-byte write 46 ns = 12 cycles.
constexpr unsigned kLineReadCycles = 17;

// Programs queued while SQRSV0/1 reserve every QPU start together when SQRSV0 frees QPUs 0-7: eight QPUs issue their 16
// instructions side by side, one per 4 cycles each. By hand: the TMU request issues at cycle 12, misses the TMU cache
// and its data is back at 12 + 9 + 17 = 38, so load_tmu0 at cycle 20 waits five rounds (20 cycles); the VDW store
// issues at cycle 64 and takes 12 + 16 cycles (its 16 words at a word a cycle; the memory's 12 are less), so
// vpm_st_wait at 68 waits six rounds (24 cycles): 64 + 44 = 108 cycles (432 ns at 250 MHz) for each QPU.
TEST(Vc4Qpu, ProgramsStartedTogetherRunSideBySide) {
  Rig rig;
  bool ok = false;
  Vc4Driver::Buffer in, out;
  core::Picoseconds released = 0, done = 0;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    const std::uint64_t v3d = d.layout().v3d;
    in = d.alloc(8 * 64);
    out = d.alloc(8 * 64);
    const std::uint32_t code = d.upload_qpu_code(assemble(kTmuAddStore));
    rig.port.write32(v3d + vc4::kV3dSqrsv0, 0x11111111);
    rig.port.write32(v3d + vc4::kV3dSqrsv1, 0x00001111);
    for (unsigned q = 0; q < 8; ++q) {
      rig.port.write32(v3d + vc4::kV3dSrqua, d.upload_uniforms({in.addr + 64 * q, out.addr + 64 * q, 1,
                                                                generic_write_setup(q), vdw_row(q, 16)}));
      rig.port.write32(v3d + vc4::kV3dSrqpc, code);
    }
    rig.port.write32(v3d + vc4::kV3dSqrsv0, 0);
    released = core::to_ps(sc_core::sc_time_stamp());
    ok = rig.port.wait_for32(v3d + vc4::kV3dSrqcs, 8u << 16, 0xFF0000, 1'000'000);
    done = core::to_ps(sc_core::sc_time_stamp());
  });
  ASSERT_TRUE(ok) << rig.incidents();
  for (unsigned q = 0; q < 8; ++q) {
    EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.qpu" + std::to_string(q) + ".instructions"), 16u) << q;
    const std::string qpu = "gpuvp.v3d.qpus.qpu" + std::to_string(q);
    EXPECT_EQ(core::stats().counter_value(qpu + ".busy_cycles"), 108u) << q;
    EXPECT_EQ(core::stats().counter_value(qpu + ".tmu_stall_cycles"), 20u) << q;
    EXPECT_EQ(core::stats().counter_value(qpu + ".dma_stall_cycles"), 24u) << q;
  }
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.qpu8.instructions"), 0u);
  // The host sees the count within its poll interval and a register access after the last program ends.
  EXPECT_GE(done - released, 108u * 4000);
  EXPECT_LE(done - released, 108u * 4000 + 500'000);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.tmu_cache_misses"), 8u);  // a line per program
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.tmu_cache_hits"), 0u);
}

// A direct lookup hits its slice's TMU cache when an earlier lookup filled the line: QPU 0 reads a line twice (a miss,
// then a hit); a second program on QPU 0 finds the line still there; SLCACTL's T0CCS bit of slice 0 clears it; QPU 4
// (slice 1) has a cache of its own. By hand, per program: the first request issues at cycle 4, its data is back at
// 4 + 9 + 17 = 30 (a miss) or 13 (a hit), so load_tmu0 at 8 waits six rounds (24 cycles) or two (8) and issues at 32
// or 16; the second request, always a hit, is back 9 cycles after its issue, so its load_tmu0 waits two rounds (8):
// 32 cycles for a program that misses, 16 for one that hits.
TEST(Vc4Qpu, DirectLookupsHitTheirSlicesTmuCacheAndMissesFillThroughTheBus) {
  Rig rig;
  bool ok = true;
  Vc4Driver::Buffer data;
  std::vector<std::uint64_t> stalls, hits, misses;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    const std::uint64_t v3d = d.layout().v3d;
    data = d.alloc(64);
    d.upload(data, 0, std::vector<std::uint8_t>(64, 1));
    const std::uint32_t code = d.upload_qpu_code(assemble(R"(
        mov r0, uni
        mov tmu0_s, r0
        load_tmu0 nop
        mov tmu0_s, r0
        load_tmu0 nop
        sig_end nop
        nop
        nop
    )"));
    const std::uint32_t uniforms = d.upload_uniforms({data.addr});
    const auto run_on = [&](unsigned qpu) {
      // Every QPU but `qpu` reserved.
      const std::uint64_t others = 0x111111111111ULL & ~(std::uint64_t{1} << (4 * qpu));
      rig.port.write32(v3d + vc4::kV3dSqrsv0, static_cast<std::uint32_t>(others));
      rig.port.write32(v3d + vc4::kV3dSqrsv1, static_cast<std::uint32_t>(others >> 32));
      // Queued through the registers alone: the driver's run_qpu_programs clears the slice caches first, as gpu_fft.
      rig.port.write32(v3d + vc4::kV3dSrqcs, 1U << 16);
      rig.port.write32(v3d + vc4::kV3dSrqua, uniforms);
      rig.port.write32(v3d + vc4::kV3dSrqpc, code);
      ok = ok && rig.port.wait_for32(v3d + vc4::kV3dSrqcs, 1U << 16, 0xFF0000, 1'000'000);
      const std::string q = "gpuvp.v3d.qpus.qpu" + std::to_string(qpu);
      stalls.push_back(core::stats().counter_value(q + ".tmu_stall_cycles"));
      hits.push_back(core::stats().counter_value("gpuvp.v3d.qpus.tmu_cache_hits"));
      misses.push_back(core::stats().counter_value("gpuvp.v3d.qpus.tmu_cache_misses"));
    };
    run_on(0);                                           // a miss, then a hit
    run_on(0);                                           // two hits
    rig.port.write32(v3d + vc4::kV3dSlcactl, 1U << 16);  // slice 0's TMU0 cache
    run_on(0);                                           // a miss again
    run_on(4);                                           // slice 1: a miss
  });
  ASSERT_TRUE(ok) << rig.incidents();
  EXPECT_EQ(misses, (std::vector<std::uint64_t>{1, 1, 2, 3}));
  EXPECT_EQ(hits, (std::vector<std::uint64_t>{1, 3, 4, 5}));
  // QPU 0's stall cycles accumulate over its three programs.
  EXPECT_EQ(stalls, (std::vector<std::uint64_t>{32, 32 + 16, 32 + 16 + 32, 32}));
}

// A DMA transfer lasts its start-up and then the longer of its own rate and the memory's time: at 1/16 cycle per word
// a 16-word VDW store would take 1 cycle, but its 64-byte write takes the memory 12 (46 ns): it is busy 12 + 12 = 24
// cycles from its issue at cycle 16, so vpm_st_wait at 20 waits five rounds (20 cycles).
TEST(Vc4Qpu, ADmaTransferTakesAtLeastTheMemorysTime) {
  platform::PlatformParams params;
  params.vc4.v3d.qpu.dma_cycles_per_word = 0.0625;
  Rig rig(params);
  bool ok = false;
  Vc4Driver::Buffer out;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    out = d.alloc(64);
    const std::uint32_t code = d.upload_qpu_code(assemble(R"(
        mov vw_setup, uni
        mov vpm, elem
        mov vw_setup, uni
        mov vw_addr, uni
        mov r0, vpm_st_wait
        sig_end nop
        nop
        nop
    )"));
    ok = d.run_qpu_programs(code, {d.upload_uniforms({generic_write_setup(0), vdw_row(0, 16), out.addr})}, 1'000'000);
  });
  ASSERT_TRUE(ok) << rig.incidents();
  EXPECT_EQ(words(rig, out.addr, 16)[15], 15u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.qpu0.dma_stall_cycles"), 20u);
}

// Twelve programs each add 1 to a counter ten times under the mutex (TMU read, VPM write, DMA store, wait): 120.
TEST(Vc4Qpu, TwelveProgramsCountUnderTheMutex) {
  Rig rig;
  bool ok = false;
  Vc4Driver::Buffer counter;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    counter = d.alloc(64);
    d.upload(counter, 0, std::vector<std::uint8_t>(64, 0));
    const std::uint32_t code = d.upload_qpu_code(assemble(R"(
        mov ra0, uni             # the counter
        mov ra1, uni             # iterations
        mov ra2, uni             # the write setup of this program's VPM row
        mov ra3, uni             # the VDW setup of element 0 of that row
        nop
      loop:
        mov r0, mutex_acq
        mov tmu0_s, ra0
        load_tmu0 nop
        add r1, r4, 1
        mov vw_setup, ra2
        mov vpm, r1
        mov vw_setup, ra3
        mov vw_addr, ra0
        mov r0, vpm_st_wait
        mov mutex_release, r0
        sub.sf ra1, ra1, 1
        branch.rel.any_zc loop
        nop
        nop
        nop
        sig_end nop
        nop
        nop
    )"));
    std::vector<std::uint32_t> uniforms;
    for (unsigned q = 0; q < 12; ++q) {
      uniforms.push_back(d.upload_uniforms({counter.addr, 10, generic_write_setup(q), vdw_row(q, 1)}));
    }
    ok = d.run_qpu_programs(code, uniforms, 2'000'000);
  });
  ASSERT_TRUE(ok) << rig.incidents();
  EXPECT_EQ(words(rig, counter.addr, 2), (std::vector<std::uint32_t>{120, 0}));
  std::uint64_t mutex_waits = 0;
  for (unsigned q = 0; q < 12; ++q) {
    mutex_waits += core::stats().counter_value("gpuvp.v3d.qpus.qpu" + std::to_string(q) + ".mutex_stall_cycles");
  }
  EXPECT_GT(mutex_waits, 0u);  // twelve QPUs wanted it at once
}

// The same count with semaphore 4 as the lock instead of the mutex (semaphores start at 0: the first program opens
// the lock once with a release, then all twelve take and give it): 120, each QPU having waited on it.
TEST(Vc4Qpu, TwelveProgramsCountUnderASemaphoreLock) {
  Rig rig;
  bool ok = false;
  Vc4Driver::Buffer counter;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    counter = d.alloc(64);
    d.upload(counter, 0, std::vector<std::uint8_t>(64, 0));
    const std::string body = R"(
        mov ra0, uni             # the counter
        mov ra1, uni             # iterations
        mov ra2, uni             # the write setup of this program's VPM row
        mov ra3, uni             # the VDW setup of element 0 of that row
        nop
      loop:
        sacq 4
        mov tmu0_s, ra0
        load_tmu0 nop
        add r1, r4, 1
        mov vw_setup, ra2
        mov vpm, r1
        mov vw_setup, ra3
        mov vw_addr, ra0
        mov r0, vpm_st_wait
        srel 4
        sub.sf ra1, ra1, 1
        branch.rel.any_zc loop
        nop
        nop
        nop
        sig_end nop
        nop
        nop
    )";
    const std::uint32_t opener = d.upload_qpu_code(assemble("    srel 4\n" + body));
    const std::uint32_t code = d.upload_qpu_code(assemble(body));
    const std::uint64_t v3d = d.layout().v3d;
    rig.port.write32(v3d + vc4::kV3dSrqcs, 0x10180);
    for (unsigned q = 0; q < 12; ++q) {
      rig.port.write32(v3d + vc4::kV3dSrqua,
                       d.upload_uniforms({counter.addr, 10, generic_write_setup(q), vdw_row(q, 1)}));
      rig.port.write32(v3d + vc4::kV3dSrqpc, q == 0 ? opener : code);
    }
    ok = rig.port.wait_for32(v3d + vc4::kV3dSrqcs, 12u << 16, 0xFF0000, 2'000'000);
  });
  ASSERT_TRUE(ok) << rig.incidents();
  EXPECT_EQ(words(rig, counter.addr, 2), (std::vector<std::uint32_t>{120, 0}));
  for (unsigned q = 0; q < 12; ++q) {
    EXPECT_GT(core::stats().counter_value("gpuvp.v3d.qpus.qpu" + std::to_string(q) + ".semaphore_stall_cycles"), 0u)
        << q;
    EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.qpu" + std::to_string(q) + ".programs"), 1u) << q;
  }
}

// A producer hands a value to a consumer through memory and semaphore 2 (the consumer starts first and waits); the
// consumer raises the host interrupt, which latches its QPU's bit in DBQITC and, enabled in DBQITE, the V3D
// interrupt.
TEST(Vc4Qpu, ASemaphoreHandsWorkOverAndTheHostInterruptLatches) {
  Rig rig;
  bool ok = false;
  Vc4Driver::Buffer data;
  std::uint32_t dbqitc = 0;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    data = d.alloc(128);
    d.upload(data, 0, std::vector<std::uint8_t>(128, 0));
    const std::uint32_t consumer = d.upload_qpu_code(assemble(R"(
        mov r3, uni              # the value's address
        sacq 2
        mov tmu0_s, r3
        load_tmu0 nop
        add r1, r4, 1
        mov vw_setup, uni
        mov vpm, r1
        mov vw_setup, uni
        mov r2, uni              # where the result goes
        mov vw_addr, r2
        mov r0, vpm_st_wait
        load_imm host_int, 1
        sig_end nop
        nop
        nop
    )"));
    const std::uint32_t producer = d.upload_qpu_code(assemble(R"(
        load_imm r1, 41
        mov vw_setup, uni
        mov vpm, r1
        mov vw_setup, uni
        mov vw_addr, uni
        mov r0, vpm_st_wait
        srel 2
        sig_end nop
        nop
        nop
    )"));
    rig.port.write32(d.layout().v3d + vc4::kV3dSrqcs, 0x10180);
    rig.port.write32(d.layout().v3d + vc4::kV3dDbqite, 0xFFFF);
    rig.port.write32(d.layout().v3d + vc4::kV3dSrqua,
                     d.upload_uniforms({data.addr, generic_write_setup(0), vdw_row(0, 1), data.addr + 64}));
    rig.port.write32(d.layout().v3d + vc4::kV3dSrqpc, consumer);
    rig.port.write32(d.layout().v3d + vc4::kV3dSrqua,
                     d.upload_uniforms({generic_write_setup(1), vdw_row(1, 1), data.addr}));
    rig.port.write32(d.layout().v3d + vc4::kV3dSrqpc, producer);
    ok = rig.port.wait_for32(d.layout().v3d + vc4::kV3dSrqcs, 2u << 16, 0xFF0000, 1'000'000);
    dbqitc = rig.port.read32(d.layout().v3d + vc4::kV3dDbqitc);
  });
  ASSERT_TRUE(ok) << rig.incidents();
  EXPECT_EQ(words(rig, data.addr + 64, 1)[0], 42u);
  EXPECT_EQ(dbqitc, 1u);  // QPU 0 ran the consumer
  EXPECT_TRUE(rig.soc.v3d()->irq().level());
  EXPECT_GT(core::stats().counter_value("gpuvp.v3d.qpus.qpu0.semaphore_stall_cycles"), 0u);
}

// SQRSV0/1 keep every QPU from user programs: requests queue (16 at most: the 17th sets QPURQERR and is lost);
// freed, the queue drains; SRQCS's clear bits reset the error and the counts.
TEST(Vc4Qpu, TheQueueHoldsSixteenRequestsWhileReservationsKeepQpusAway) {
  Rig rig;
  std::uint32_t queued = 0, drained = 0, cleared = 0;
  bool ok = false;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    const std::uint64_t v3d = d.layout().v3d;
    rig.port.write32(v3d + vc4::kV3dSqrsv0, 0x11111111);
    rig.port.write32(v3d + vc4::kV3dSqrsv1, 0x00001111);
    const std::uint32_t code = d.upload_qpu_code(assemble("sig_end nop\nnop\nnop\n"));
    for (unsigned i = 0; i < 17; ++i) rig.port.write32(v3d + vc4::kV3dSrqpc, code);
    queued = rig.port.read32(v3d + vc4::kV3dSrqcs);
    rig.port.write32(v3d + vc4::kV3dSqrsv0, 0x11111110);  // QPU 0 may take user programs
    ok = rig.port.wait_for32(v3d + vc4::kV3dSrqcs, 16u << 16, 0xFF0000, 1'000'000);
    drained = rig.port.read32(v3d + vc4::kV3dSrqcs);
    rig.port.write32(v3d + vc4::kV3dSrqcs, 0x10180);
    cleared = rig.port.read32(v3d + vc4::kV3dSrqcs);
  });
  ASSERT_TRUE(ok) << rig.incidents();
  EXPECT_EQ(queued, 16u | (1u << 7) | (16u << 8));
  EXPECT_EQ(drained, (1u << 7) | (16u << 8) | (16u << 16));
  EXPECT_EQ(cleared, 0u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.qpu0.programs"), 16u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.qpu1.programs"), 0u);
}

// Code and uniforms given through the 0xC... and 0x4... bus aliases reach the same DRAM.
TEST(Vc4Qpu, BusAddressAliasesReachTheSameMemory) {
  Rig rig;
  bool ok = false;
  Vc4Driver::Buffer out;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    out = d.alloc(64);
    const std::uint32_t code = d.upload_qpu_code(assemble(R"(
        mov r1, uni
        mov vw_setup, uni
        mov vpm, r1
        mov vw_setup, uni
        mov vw_addr, uni
        mov r0, vpm_st_wait
        sig_end nop
        nop
        nop
    )"));
    const std::uint32_t uniforms =
        d.upload_uniforms({0xCAFE, generic_write_setup(0), vdw_row(0, 1), 0xC0000000U | out.addr});
    ok = d.run_qpu_programs(0xC0000000U | code, {0x40000000U | uniforms}, 1'000'000);
  });
  ASSERT_TRUE(ok) << rig.incidents();
  EXPECT_EQ(words(rig, out.addr, 1)[0], 0xCAFEu);
}

// ---- programs that go wrong: each stops with a report, the others and the model go on ----

TEST(Vc4Qpu, AProgramErrorStopsItsQpuWithAReportAndTheOthersComplete) {
  Rig rig;
  std::uint32_t srqcs = 0;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    const std::uint32_t good = d.upload_qpu_code(assemble("sig_end nop\nnop\nnop\n"));
    const std::uint32_t bad = d.upload_qpu_code({0x100009e709000000ULL});  // add op 9: undefined
    const std::uint64_t v3d = d.layout().v3d;
    rig.port.write32(v3d + vc4::kV3dSrqpc, bad);
    rig.port.write32(v3d + vc4::kV3dSrqpc, good);
    rig.port.wait_for32(v3d + vc4::kV3dSrqcs, 1u << 16, 0xFF0000, 1'000'000);
    sc_core::wait(10, sc_core::SC_US);
    srqcs = rig.port.read32(v3d + vc4::kV3dSrqcs);
  });
  EXPECT_EQ(srqcs, (2u << 8) | (1u << 16));  // two made, one completed
  EXPECT_NE(rig.incidents().find("QPU 0 at "), std::string::npos) << rig.incidents();
  EXPECT_NE(rig.incidents().find("add op 9 is undefined"), std::string::npos) << rig.incidents();
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.programs_failed"), 1u);
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR).size(), 1u);
}

// Both wait on semaphore 5 and no program is queued: they sleep (costing no host time) until software queues another
// program, and none comes within the hang timeout: a deadlock, reported once with each QPU's instruction.
TEST(Vc4Qpu, QpusThatAllWaitOnSemaphoresAreADeadlockAfterTheTimeout) {
  platform::PlatformParams params;
  params.vc4.v3d.qpu.hang_timeout_ns = 50'000;
  Rig rig(params);
  std::uint32_t srqcs = 0;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    const std::uint32_t code = d.upload_qpu_code(assemble("sacq 5\nsig_end nop\nnop\nnop\n"));
    const std::uint64_t v3d = d.layout().v3d;
    rig.port.write32(v3d + vc4::kV3dSrqpc, code);
    rig.port.write32(v3d + vc4::kV3dSrqpc, code);
    sc_core::wait(100, sc_core::SC_US);
    srqcs = rig.port.read32(v3d + vc4::kV3dSrqcs);
  });
  EXPECT_EQ(srqcs, 2u << 8);  // none completed
  const std::string incidents = rig.incidents();
  EXPECT_NE(incidents.find("deadlock: every running QPU waits, nothing releases it and no program came to start within "
                           "50000 ns of the oldest one's start: QPU 0 at "),
            std::string::npos)
      << incidents;
  EXPECT_NE(incidents.find("'sacq 5' (a semaphore); QPU 1 at "), std::string::npos) << incidents;
  // Waiting, they were busy and stalled for the whole timeout (12,500 cycles at 250 MHz).
  EXPECT_GE(core::stats().counter_value("gpuvp.v3d.qpus.qpu0.semaphore_stall_cycles"), 12'500u - 100);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.programs_failed"), 2u);
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR).size(), 1u);
}

TEST(Vc4Qpu, AProgramThatNeverEndsIsHungAfterTheTimeout) {
  platform::PlatformParams params;
  params.vc4.v3d.qpu.hang_timeout_ns = 50'000;
  Rig rig(params);
  std::uint32_t srqcs = 0;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    const std::uint32_t code = d.upload_qpu_code(assemble("loop:\nbranch.rel.always loop\nnop\nnop\nnop\n"));
    rig.port.write32(d.layout().v3d + vc4::kV3dSrqpc, code);
    sc_core::wait(100, sc_core::SC_US);
    srqcs = rig.port.read32(d.layout().v3d + vc4::kV3dSrqcs);
  });
  EXPECT_EQ(srqcs, 1u << 8);
  EXPECT_NE(rig.incidents().find("QPU 0: the program at "), std::string::npos) << rig.incidents();
  EXPECT_NE(rig.incidents().find("instructions without ending"), std::string::npos) << rig.incidents();
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR).size(), 1u);
}

// The eight programs as a host script (register writes, a poll of SRQCS, checks of the results) through `gpuvp run
// --script`.
TEST(Vc4Qpu, TheSameProgramsAsAHostScriptThroughTheExecutable) {
  host::ScriptHostPort port;
  Vc4Driver d(port);
  const Vc4Driver::Buffer in = d.alloc(8 * 64), out = d.alloc(8 * 64);
  std::vector<std::uint8_t> bytes(8 * 64);
  for (unsigned i = 0; i < 8 * 16; ++i) {
    const std::uint32_t v = 3 * i;
    std::memcpy(&bytes[4 * i], &v, 4);
  }
  d.upload(in, 0, bytes);
  const std::uint32_t code = d.upload_qpu_code(assemble(kTmuAddStore));
  std::vector<std::uint32_t> uniforms;
  for (unsigned q = 0; q < 8; ++q) {
    uniforms.push_back(
        d.upload_uniforms({in.addr + 64 * q, out.addr + 64 * q, 100, generic_write_setup(q), vdw_row(q, 16)}));
  }
  d.run_qpu_programs(code, uniforms, 1'000'000);
  for (unsigned i = 0; i < 8 * 16; i += 5) port.expect32(out.addr + 4 * i, 3 * i + 100);
  EXPECT_EQ(port.unknown_reads(), 0u);
  const std::string path = ::testing::TempDir() + "vc4_qpu.gpuvp";
  std::ofstream(path) << port.script();
  test::ProcessResult r = test::run_gpuvp("run --script " + path);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("ERR"), std::string::npos) << r.out;
}

// Fragment shader batches as the tile renderer's front end queues them: each interpolates a varying with the payload's
// W and writes it as the colour. The ports grant the scoreboard in queue order (as the front end orders overlapping
// primitives); SQRSV's FS bits keep the batches off QPUs 0-10, so all five run on QPU 11, one after another, and no
// user program's count moves.
TEST(Vc4Qpu, FragmentShaderBatchesRunOnTheQpusTheirReservationsAllow) {
  struct Shared {
    unsigned turn = 0;
    std::vector<unsigned> colour_writes;  // job numbers, in write order
  };
  class Port : public vc4::qpu::FragmentPort {
   public:
    Port(unsigned job, Shared& shared) : job_(job), shared_(shared) {}
    bool next_varying(vc4::qpu::Vector& partial, vc4::qpu::Vector& c, std::string&) override {
      for (unsigned e = 0; e < 16; ++e) {
        partial[e] = float_bits(static_cast<float>(e));
        c[e] = float_bits(static_cast<float>(100 * job_));
      }
      return true;
    }
    vc4::qpu::Vector pixel_coordinate(bool) const override { return {}; }
    vc4::qpu::Vector ms_or_reverse(bool) const override { return {}; }
    bool scoreboard_acquire() override { return shared_.turn == job_; }
    void scoreboard_release() override { ++shared_.turn; }
    bool tlb_write(std::uint32_t address, const vc4::qpu::Vector& value, const std::array<bool, 16>&,
                   std::string&) override {
      if (address == vc4::qpu::kWriteTlbColorAll) {
        shared_.colour_writes.push_back(job_);
        colour = value;
      }
      return true;
    }
    bool tlb_load(std::uint32_t, vc4::qpu::Vector&, std::string&) override { return false; }
    static std::uint32_t float_bits(float f) {
      std::uint32_t u;
      std::memcpy(&u, &f, 4);
      return u;
    }
    vc4::qpu::Vector colour{};

   private:
    unsigned job_;
    Shared& shared_;
  };
  Rig rig;
  Shared shared;
  std::vector<std::unique_ptr<Port>> ports;
  std::vector<vc4::ShaderJob::Status> status(5);
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    const std::uint64_t v3d = d.layout().v3d;
    const std::uint32_t code = d.upload_qpu_code(assemble(R"(
        mov r0, vary
        fmul r1, r0, ra15
        fadd tlb_color_all, r1, r5
        sig_end nop
        nop
        sig_unlock_score nop
    )"));
    rig.port.write32(v3d + vc4::kV3dSqrsv0, 0x22222222);
    rig.port.write32(v3d + vc4::kV3dSqrsv1, 0x00000222);
    vc4::QpuScheduler& qpus = rig.soc.v3d()->qpus();
    for (unsigned j = 0; j < 5; ++j) {
      ports.push_back(std::make_unique<Port>(j, shared));
      vc4::ShaderJob job;
      job.pc = code;
      job.port = ports.back().get();
      job.w.fill(Port::float_bits(2.0F));
      job.status = &status[j];
      qpus.shade(job, core::to_ps(sc_core::sc_time_stamp()));
    }
    while (qpus.shader_jobs_pending() > 0) sc_core::wait(qpus.shaders_done());
  });
  EXPECT_EQ(shared.colour_writes, (std::vector<unsigned>{0, 1, 2, 3, 4}));
  for (unsigned j = 0; j < 5; ++j) {
    EXPECT_TRUE(status[j].done) << j;
    EXPECT_EQ(status[j].error, "") << j;
    for (unsigned e = 0; e < 16; ++e) {
      EXPECT_EQ(ports[j]->colour[e], Port::float_bits(static_cast<float>(2 * e + 100 * j))) << j << " " << e;
    }
  }
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.fragment_batches"), 5u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.qpu11.instructions"), 5u * 6u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.qpu0.instructions"), 0u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.v3d.qpus.programs_completed"), 0u);
  EXPECT_EQ(rig.port.read32(rig.driver.layout().v3d + vc4::kV3dSrqcs) >> 16, 0u);
}

// A fragment shader the scheduler stops as hung releases the scoreboard, as one that ends does: the batch waiting
// for it (the ports' turns) then runs. The first loops for ever after its tile buffer write; the hang timeout is 50 us;
// SQRSV's FS bits leave only QPU 0 to shaders, so the second starts when the first is stopped.
TEST(Vc4Qpu, AHungFragmentShaderReleasesTheScoreboardWhenStopped) {
  struct Port : vc4::qpu::FragmentPort {
    Port(unsigned job, unsigned& turn) : job_(job), turn_(turn) {}
    bool next_varying(vc4::qpu::Vector&, vc4::qpu::Vector&, std::string& error) override {
      error = "no varyings";
      return false;
    }
    vc4::qpu::Vector pixel_coordinate(bool) const override { return {}; }
    vc4::qpu::Vector ms_or_reverse(bool) const override { return {}; }
    bool scoreboard_acquire() override { return turn_ == job_; }
    void scoreboard_release() override { turn_ = job_ + 1; }
    bool tlb_write(std::uint32_t, const vc4::qpu::Vector&, const std::array<bool, 16>&, std::string&) override {
      ++writes;
      return true;
    }
    bool tlb_load(std::uint32_t, vc4::qpu::Vector&, std::string&) override { return false; }
    unsigned writes = 0;
    unsigned job_;
    unsigned& turn_;
  };
  platform::PlatformParams params;
  params.vc4.v3d.qpu.hang_timeout_ns = 50'000;
  Rig rig(params);
  unsigned turn = 0;
  Port hung(0, turn), next(1, turn);
  vc4::ShaderJob::Status hung_status, next_status;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    const std::uint32_t loop = d.upload_qpu_code(assemble(R"(
        load_imm tlb_color_all, 1
      forever:
        branch.rel forever
        nop
        nop
        nop
    )"));
    const std::uint32_t flat = d.upload_qpu_code(assemble(R"(
        load_imm tlb_color_all, 2
        sig_end nop
        nop
        sig_unlock_score nop
    )"));
    rig.port.write32(d.layout().v3d + vc4::kV3dSqrsv0, 0x22222220);
    rig.port.write32(d.layout().v3d + vc4::kV3dSqrsv1, 0x00002222);
    vc4::QpuScheduler& qpus = rig.soc.v3d()->qpus();
    vc4::ShaderJob job;
    job.pc = loop;
    job.port = &hung;
    job.status = &hung_status;
    qpus.shade(job, core::to_ps(sc_core::sc_time_stamp()));
    job.pc = flat;
    job.port = &next;
    job.status = &next_status;
    qpus.shade(job, core::to_ps(sc_core::sc_time_stamp()));
    while (qpus.shader_jobs_pending() > 0) sc_core::wait(qpus.shaders_done());
  });
  EXPECT_TRUE(hung_status.done);
  EXPECT_NE(hung_status.error.find("hung"), std::string::npos) << hung_status.error;
  EXPECT_TRUE(next_status.done);
  EXPECT_EQ(next_status.error, "");
  EXPECT_EQ(hung.writes, 1u);
  EXPECT_EQ(next.writes, 1u);
  EXPECT_EQ(turn, 2u);
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "has run").size(), 1u);  // the hang report
}

// A fragment port with no varyings whose scoreboard is always free; it counts the tile buffer writes.
struct CountingPort : vc4::qpu::FragmentPort {
  bool next_varying(vc4::qpu::Vector&, vc4::qpu::Vector&, std::string&) override { return false; }
  vc4::qpu::Vector pixel_coordinate(bool) const override { return {}; }
  vc4::qpu::Vector ms_or_reverse(bool) const override { return {}; }
  bool scoreboard_acquire() override { return true; }
  void scoreboard_release() override {}
  bool tlb_write(std::uint32_t, const vc4::qpu::Vector&, const std::array<bool, 16>&, std::string&) override {
    ++writes;
    return true;
  }
  bool tlb_load(std::uint32_t, vc4::qpu::Vector&, std::string&) override { return false; }
  unsigned writes = 0;
};

// Shader kinds are reserved separately (SQRSV bit 1 FS, 2 VS, 3 CS): with every QPU refusing vertex shaders, a
// vertex batch stays queued while a fragment batch queued after it runs (in order within a kind only), and the front
// end can take the stuck batch back (QpuScheduler::cancel): it never runs, its status says so, nothing is pending.
TEST(Vc4Qpu, AReservedShaderKindDoesNotHoldOthersAndCanBeCancelled) {
  Rig rig(platform::PlatformParams{});
  CountingPort port;
  vc4::qpu::Vpm input, output;
  vc4::ShaderJob::Status vertex_status, fragment_status;
  bool cancelled = false, cancelled_again = true;
  unsigned pending_after = 99;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    const std::uint32_t flat = d.upload_qpu_code(assemble(R"(
        load_imm tlb_color_all, 2
        sig_end nop
        nop
        sig_unlock_score nop
    )"));
    rig.port.write32(d.layout().v3d + vc4::kV3dSqrsv0, 0x44444444);  // bit 2 (vertex shaders) on every QPU
    rig.port.write32(d.layout().v3d + vc4::kV3dSqrsv1, 0x00004444);
    vc4::QpuScheduler& qpus = rig.soc.v3d()->qpus();
    vc4::ShaderJob vertex;
    vertex.kind = vc4::ShaderJob::Kind::kVertex;
    vertex.pc = flat;
    vertex.input = &input;
    vertex.output = &output;
    vertex.status = &vertex_status;
    qpus.shade(vertex, core::to_ps(sc_core::sc_time_stamp()));
    vc4::ShaderJob fragment;
    fragment.pc = flat;
    fragment.port = &port;
    fragment.status = &fragment_status;
    qpus.shade(fragment, core::to_ps(sc_core::sc_time_stamp()));
    sc_core::wait(sc_core::sc_time(20, sc_core::SC_US));
    cancelled = qpus.cancel(&vertex_status);
    cancelled_again = qpus.cancel(&vertex_status);
    pending_after = qpus.shader_jobs_pending();
  });
  EXPECT_TRUE(fragment_status.done);
  EXPECT_EQ(fragment_status.error, "");
  EXPECT_EQ(port.writes, 1u);
  EXPECT_TRUE(cancelled);
  EXPECT_FALSE(cancelled_again);
  EXPECT_TRUE(vertex_status.done);
  EXPECT_EQ(vertex_status.error, "cancelled");
  EXPECT_EQ(pending_after, 0u);
}

// Between kinds, the batch that arrived first starts first, whatever order the front ends queued them in (a front end
// running ahead in its quantum queues a batch of its future): with one QPU for shaders, a vertex batch queued first
// but arriving at 10 us and a fragment batch queued second but arriving at 5 us run fragment first.
TEST(Vc4Qpu, BetweenKindsTheBatchThatArrivedFirstStartsFirst) {
  Rig rig(platform::PlatformParams{});
  CountingPort port;
  vc4::qpu::Vpm input, output;
  vc4::ShaderJob::Status vertex_status, fragment_status;
  core::Picoseconds now = 0;
  test::run_thread([&] {
    Vc4Driver& d = rig.driver;
    // 200 issues, then the end: the two cannot overlap on one QPU.
    std::string source;
    for (int i = 0; i < 200; ++i) source += "nop\n";
    const std::uint32_t code = d.upload_qpu_code(assemble(source + "sig_end nop\nnop\nnop\n"));
    // Only QPU 11 takes shaders of any kind (its nibble 0, the others' 0xE: FS, VS and CS bits).
    rig.port.write32(d.layout().v3d + vc4::kV3dSqrsv0, 0xEEEEEEEE);
    rig.port.write32(d.layout().v3d + vc4::kV3dSqrsv1, 0x00000EEE);
    vc4::QpuScheduler& qpus = rig.soc.v3d()->qpus();
    now = core::to_ps(sc_core::sc_time_stamp());
    vc4::ShaderJob vertex;
    vertex.kind = vc4::ShaderJob::Kind::kVertex;
    vertex.pc = code;
    vertex.input = &input;
    vertex.output = &output;
    vertex.status = &vertex_status;
    qpus.shade(vertex, now + 10'000'000);
    vc4::ShaderJob fragment;
    fragment.pc = code;
    fragment.port = &port;
    fragment.status = &fragment_status;
    qpus.shade(fragment, now + 5'000'000);
    while (qpus.shader_jobs_pending() > 0) sc_core::wait(qpus.shaders_done());
  });
  EXPECT_EQ(vertex_status.error, "");
  EXPECT_EQ(fragment_status.error, "");
  // 203 issues of 4 cycles at 250 MHz take 3.248 us: each batch runs at least that long after its start, the
  // fragment batch from its arrival and the vertex batch after it.
  constexpr core::Picoseconds kRun = 203 * 16'000;
  EXPECT_GE(fragment_status.end_ps, now + 5'000'000 + kRun);
  EXPECT_GE(vertex_status.end_ps, std::max(fragment_status.end_ps, now + 10'000'000) + kRun);
}

// ---- threaded fragment shaders: two threads per QPU ----

// A fragment port that keeps what the shader wrote to the colour buffer; its batches cover the same pixels, so one
// takes the scoreboard once every earlier batch has released it (as the tile renderer's batches on a quad).
struct ThreadedPort : vc4::qpu::FragmentPort {
  ThreadedPort(unsigned job, std::vector<bool>& released) : job_(job), released_(released) {}
  bool next_varying(vc4::qpu::Vector&, vc4::qpu::Vector&, std::string& error) override {
    error = "no varyings";
    return false;
  }
  vc4::qpu::Vector pixel_coordinate(bool) const override { return {}; }
  vc4::qpu::Vector ms_or_reverse(bool) const override { return {}; }
  bool scoreboard_acquire() override {
    return std::all_of(released_.begin(), released_.begin() + job_, [](bool r) { return r; });
  }
  void scoreboard_release() override { released_[job_] = true; }
  bool tlb_write(std::uint32_t address, const vc4::qpu::Vector& value, const std::array<bool, 16>&,
                 std::string&) override {
    if (address == vc4::qpu::kWriteTlbColorAll) colour = value;
    return true;
  }
  bool tlb_load(std::uint32_t, vc4::qpu::Vector&, std::string&) override { return false; }
  vc4::qpu::Vector colour{};
  unsigned job_;
  std::vector<bool>& released_;
};

struct ThreadedRun {
  std::vector<vc4::ShaderJob::Status> status = std::vector<vc4::ShaderJob::Status>(2);
  std::vector<vc4::qpu::Vector> colours;
  std::uint64_t tmu_stall_cycles = 0, thread_switches = 0, instructions = 0;
};

// A platform whose QPU 11 alone takes fragment shaders (SQRSV keeps them off the others), with a TMU latency of 100
// cycles, running pairs of fragment batches of one program, threaded or not. Uniform 0 of batch j is its data
// address: 16 words at 0x100 x j past the data (another cache line), word e holding 1000 j + e.
struct TwoBatchRig : Rig {
  static platform::PlatformParams params() {
    platform::PlatformParams p;
    p.vc4.v3d.qpu.tmu_latency_cycles = 100;
    p.vc4.v3d.qpu.hang_timeout_ns = 50'000;
    return p;
  }
  TwoBatchRig() : Rig(params()) {}
  // Call inside test::run_thread; the statistics are this run's. `second_source`: the second batch's program, when
  // it differs.
  ThreadedRun run(const std::string& source, bool threaded, const std::string& second_source = {}) {
    const auto counter = [](const char* name) {
      return core::stats().counter_value(std::string("gpuvp.v3d.qpus.qpu11.") + name);
    };
    const std::uint64_t stalls = counter("tmu_stall_cycles"), switches = counter("thread_switches"),
                        issued = counter("instructions");
    std::vector<bool> released(2, false);
    ThreadedPort first(0, released), second(1, released);
    ThreadedRun r;
    const std::uint32_t code = driver.upload_qpu_code(assemble(source));
    const std::uint32_t second_code = second_source.empty() ? code : driver.upload_qpu_code(assemble(second_source));
    const Vc4Driver::Buffer data = driver.alloc(0x200, 256);
    for (unsigned k = 0; k < 2 * 64; ++k) port.write32(data.addr + 4 * k, 1000 * (k / 64) + k % 64);
    port.write32(driver.layout().v3d + vc4::kV3dSqrsv0, 0x22222222);
    port.write32(driver.layout().v3d + vc4::kV3dSqrsv1, 0x00000222);
    vc4::QpuScheduler& qpus = soc.v3d()->qpus();
    ThreadedPort* ports[2] = {&first, &second};
    for (unsigned j = 0; j < 2; ++j) {
      vc4::ShaderJob job;
      job.pc = j == 0 ? code : second_code;
      job.uniforms = driver.upload_uniforms({data.addr + 0x100 * j});
      job.port = ports[j];
      job.status = &r.status[j];
      job.threaded = threaded;
      qpus.shade(job, core::to_ps(sc_core::sc_time_stamp()));
    }
    while (qpus.shader_jobs_pending() > 0) sc_core::wait(qpus.shaders_done());
    r.colours = {first.colour, second.colour};
    r.tmu_stall_cycles = counter("tmu_stall_cycles") - stalls;
    r.thread_switches = counter("thread_switches") - switches;
    r.instructions = counter("instructions") - issued;
    return r;
  }
};

// Mesa's shape of a textured shader: the lookup, a thread switch, then the data (reference-vc4-qpu.md 5.1: threaded
// shaders must switch around TMU fetches).
const char* kLookupSwitchLoad = R"(
    mov r0, elem
    shl r1, r0, 2
    add tmu0_s, uni, r1
    sig_switch nop
    nop
    nop
    load_tmu0 nop
    mov tlb_color_all, r4
    sig_end nop
    nop
    sig_unlock_score nop
)";

// Two threaded batches on one QPU hide each other's TMU latency: the first's lookup is in flight while the second's
// first six instructions issue, and the second's while the first waits for its data and ends. Single-threaded, each
// batch waits out its whole latency alone.
TEST(Vc4Qpu, TwoThreadedBatchesOnOneQpuHideEachOthersTmuLatency) {
  TwoBatchRig rig;
  ThreadedRun single, threaded;
  test::run_thread([&] {
    single = rig.run(kLookupSwitchLoad, false);
    threaded = rig.run(kLookupSwitchLoad, true);
  });
  for (const ThreadedRun* run : {&single, &threaded}) {
    for (unsigned j = 0; j < 2; ++j) {
      EXPECT_TRUE(run->status[j].done);
      EXPECT_EQ(run->status[j].error, "") << j;
      for (unsigned e = 0; e < 16; ++e) EXPECT_EQ(run->colours[j][e], 1000 * j + e) << j << " " << e;
    }
    EXPECT_EQ(run->instructions, 2u * 11u);
  }
  EXPECT_EQ(single.thread_switches, 0u);
  // The first's switch (to the second), the second's (back), the first's end (to the second).
  EXPECT_EQ(threaded.thread_switches, 3u);
  // Alone, a batch waits S cycles at load_tmu (its latency less the 16 cycles of the four issues since the lookup).
  // Threaded, the first waits S - 24 (the second's six issues pass meanwhile); the second's lookup went out 24 cycles
  // after the first's, so its data comes 24 cycles after the first's, of which the first's last five issues take 20:
  // it waits 4. In all S - 20, against 2 S.
  ASSERT_EQ(single.tmu_stall_cycles % 2, 0u);
  EXPECT_GT(single.tmu_stall_cycles, 2u * 24u);
  EXPECT_EQ(threaded.tmu_stall_cycles, single.tmu_stall_cycles / 2 - 20);
}

// LAST_THREAD_SWITCH (sig 6): a later thread past its last switch does not run again until the earlier thread of
// its QPU has ended (Mesa vc4_qpu_emit.c: so that it cannot take the scoreboard of a quad the earlier one holds).
// Both batches run: switch (last or plain), two slots, a plain switch, two slots, the colour write, the end. After
// the second's last switch the first runs on through its own next switch to its end; with plain switches the two
// alternate at every switch.
// A switch's two delay slots, the colour write of 5 and the end.
const char* kSlotsWriteFiveEnd = "nop\nnop\nload_imm tlb_color_all, 5\nsig_end nop\nnop\nsig_unlock_score nop\n";

TEST(Vc4Qpu, AfterItsLastSwitchALaterThreadWaitsForTheEarlierToEnd) {
  const auto program = [](const char* first_switch) {
    return std::string(first_switch) + " nop\nnop\nnop\nsig_switch nop\n" + kSlotsWriteFiveEnd;
  };
  TwoBatchRig rig;
  ThreadedRun last, plain;
  test::run_thread([&] {
    last = rig.run(program("sig_thread_switch"), true);
    plain = rig.run(program("sig_switch"), true);
  });
  for (const ThreadedRun* run : {&last, &plain}) {
    for (unsigned j = 0; j < 2; ++j) {
      EXPECT_EQ(run->status[j].error, "") << j;
      EXPECT_EQ(run->colours[j][0], 5u) << j;
    }
  }
  // Last: the first's switch (to the second), the second's (back), the first's end. Plain: first, second, first,
  // second at their switches, then the first's end.
  EXPECT_EQ(last.thread_switches, 3u);
  EXPECT_EQ(plain.thread_switches, 5u);
}

// A later thread that reaches the tile buffer while the earlier one, holding the scoreboard of the same pixels, waits
// for its turn can never go on: the scheduler reports the deadlock after the hang timeout and stops the waiting
// batch; the earlier one then runs to its end.
TEST(Vc4Qpu, ALaterThreadWaitingOnTheEarliersScoreboardIsAReportedDeadlock) {
  TwoBatchRig rig;
  ThreadedRun run;
  test::run_thread([&] {
    run = rig.run(std::string("sig_switch nop\n") + kSlotsWriteFiveEnd, true, R"(
        load_imm tlb_color_all, 6
        sig_switch nop
        nop
        nop
        sig_end nop
        nop
        sig_unlock_score nop
    )");
  });
  EXPECT_EQ(run.status[0].error, "");
  EXPECT_EQ(run.colours[0][0], 5u);
  EXPECT_NE(run.status[1].error.find("deadlock"), std::string::npos) << run.status[1].error;
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "deadlock: every running QPU waits").size(), 1u);
}

// More QPUs than the V3D's registers have fields for is a configuration error: one line naming the keys, exit 2.
TEST(Vc4Qpu, MoreThanSixteenQpusIsAConfigurationError) {
  test::ProcessResult r = test::run_gpuvp("run --quiet --set vc4.v3d.slices=5 --set vc4.v3d.qpus_per_slice=4");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("config keys 'vc4.v3d.slices' x 'vc4.v3d.qpus_per_slice': 20 QPUs, more than the 16"),
            std::string::npos)
      << r.out;
}

}  // namespace
