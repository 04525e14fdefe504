// The EU array's memory hierarchy (eu::MemoryHierarchy, eu::SlotCalendar): hand-computed completion times, L3
// hit/miss/writeback behaviour, bandwidth limits, and the array timing a streaming kernel by its DRAM bandwidth.
#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "tlm/gen/eu/eu_array.h"
#include "tlm/gen/eu/memory_hierarchy.h"

namespace gpuvp::gen::eu {
namespace {

// A log of one message per entry of `messages`, each reading (or writing) the lines given.
MemoryLog log_of(const std::vector<std::vector<std::uint64_t>>& messages, std::uint8_t flags = MemoryLine::kRead) {
  MemoryLog log;
  for (const auto& lines : messages) {
    MemoryMessage m;
    m.first_line = static_cast<std::uint32_t>(log.lines.size());
    m.line_count = static_cast<std::uint16_t>(lines.size());
    for (std::uint64_t a : lines) log.lines.push_back({a, flags});
    log.messages.push_back(m);
  }
  return log;
}

MemoryHierarchyParams simple() {
  MemoryHierarchyParams p;
  p.subslices = 1;
  p.l3_kib = 64;  // 1,024 lines, 64 sets of 16 ways
  p.l3_banks = 1;
  p.dram_channels = 1;
  p.dram_bytes_per_cycle = 32;
  p.dram_read_latency_cycles = 60;
  p.l3_latency_cycles = 100;
  p.bucket_cycles = 4;
  return p;
}

TEST(SlotCalendar, TransfersTakeTheirTimeAndQueueBehindEachOther) {
  SlotCalendar c(64, 4);
  EXPECT_EQ(c.reserve(0, 64), 1u);
  // Nine more lines at cycle 0 queue behind the first: the tenth ends at cycle 10.
  std::uint64_t end = 0;
  for (int i = 0; i < 9; ++i) end = c.reserve(0, 64);
  EXPECT_EQ(end, 10u);
  SlotCalendar half(32, 4);
  EXPECT_EQ(half.reserve(0, 64), 2u);
  // 1,000 lines at 32 bytes per cycle: 2,000 cycles.
  for (int i = 1; i < 1000; ++i) end = half.reserve(0, 64);
  EXPECT_EQ(end, 2000u);
}

TEST(SlotCalendar, AnEarlierRequestArrivingLaterIsNotQueuedBehindLaterOnes) {
  SlotCalendar c(64, 4);
  EXPECT_EQ(c.reserve(100, 64), 101u);
  EXPECT_EQ(c.reserve(0, 64), 1u);          // the array times EUs one after another: arrival order is not time order
  EXPECT_EQ(c.reserve(100, 64 * 8), 109u);  // behind the first line from 100
  c.retire(100);
  EXPECT_EQ(c.reserve(0, 64), 110u);  // retired time is gone: the request takes the first capacity left
}

TEST(SlotCalendar, FractionalRatesAccumulate) {
  SlotCalendar c(33.6, 4);  // DDR4-2400 x 2 channels (38.4 GB/s) seen from a 1,143 MHz GPU clock
  std::uint64_t end = 0;
  for (int i = 0; i < 10'000; ++i) end = c.reserve(0, 64);
  EXPECT_NEAR(static_cast<double>(end), 10'000 * 64 / 33.6, 4);
}

// A missed line: its L3 bank (1 cycle), then DRAM (2 cycles at 32 B/clk) and the DRAM latency, then the L3's; the
// same line again hits: its bank and the L3 latency.
TEST(MemoryHierarchy, AMissGoesToDramAndTheNextAccessHits) {
  MemoryHierarchy m(simple());
  const MemoryLog log = log_of({{0x1000}});
  EXPECT_EQ(m.access(0, log, log.messages[0], 0), 1u + 2 + 60 + 100);
  EXPECT_EQ(m.stats().l3_misses, 1u);
  EXPECT_EQ(m.stats().dram_read_lines, 1u);
  EXPECT_EQ(m.access(0, log, log.messages[0], 1000), 1000u + 1 + 100);
  EXPECT_EQ(m.stats().l3_hits, 1u);
  EXPECT_EQ(m.stats().dram_read_lines, 1u);
}

TEST(MemoryHierarchy, AWorkingSetThatFitsHitsAndOneTwiceTheSizeMisses) {
  const auto misses = [](unsigned lines) {
    MemoryHierarchy m(simple());
    for (int pass = 0; pass < 2; ++pass) {
      for (unsigned i = 0; i < lines; ++i) {
        const MemoryLog log = log_of({{0x10'0000 + 64ULL * i}});
        m.access(0, log, log.messages[0], 0);
      }
    }
    return m.stats().l3_misses;
  };
  EXPECT_EQ(misses(512), 512u);  // the second pass hits everywhere
  // 2,048 lines through 1,024 with LRU: the second pass finds none (each set saw twice its ways since).
  EXPECT_EQ(misses(2048), 4096u);
}

TEST(MemoryHierarchy, WrittenLinesAllocateWithoutAFillAndGoBackWhenEvicted) {
  MemoryHierarchy m(simple());
  for (unsigned i = 0; i < 1024 + 256; ++i) {
    const MemoryLog log = log_of({{64ULL * i}}, MemoryLine::kWrite);
    m.access(0, log, log.messages[0], 0);
  }
  EXPECT_EQ(m.stats().dram_read_lines, 0u);
  EXPECT_EQ(m.stats().l3_misses, 1280u);
  EXPECT_EQ(m.stats().l3_writebacks, m.stats().dram_written_lines);
  // The cache holds 1,024 lines: at least the 256 beyond that went back (set conflicts may evict a few more).
  EXPECT_GE(m.stats().l3_writebacks, 256u);
  EXPECT_LE(m.stats().l3_writebacks, 1280u - 512);
}

// Who else sees the DRAM lines (the platform's bus, through the GPGPU pipe): each line once, with its address, its
// direction and the cycle its channel starts moving it (two cycles before the channel is done with it). Three missed
// lines of one message leave the single bank at cycles 1, 2 and 3; the 32 B/clk channel's calendar counts capacity in
// 4-cycle buckets of two lines: the first two lines end in the first bucket (at 3 and 4), the third in the next (at
// 6), so they start at 1, 2 and 4. A dirty victim goes as a write; a detached observer hears nothing.
TEST(MemoryHierarchy, DramLinesGoToTheTrafficObserverWhenTheirChannelStartsMovingThem) {
  struct Line {
    std::uint64_t address;
    bool write;
    std::uint64_t cycle;
  };
  struct Recorder final : DramTraffic {
    std::vector<Line> lines;
    void line(std::uint64_t address, bool write, std::uint64_t cycle) override {
      lines.push_back({address, write, cycle});
    }
  } recorder;
  MemoryHierarchy m(simple());
  m.attach_traffic(&recorder);
  const MemoryLog reads = log_of({{0x1000, 0x1040, 0x1080}});
  m.access(0, reads, reads.messages[0], 0);
  ASSERT_EQ(recorder.lines.size(), 3u);
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(recorder.lines[i].address, 0x1000u + 64 * i);
    EXPECT_FALSE(recorder.lines[i].write);
  }
  EXPECT_EQ(recorder.lines[0].cycle, 1u);
  EXPECT_EQ(recorder.lines[1].cycle, 2u);
  EXPECT_EQ(recorder.lines[2].cycle, 4u);
  // 1,280 written lines through a 1,024-line cache: every writeback is reported once, as a write of a written line.
  recorder.lines.clear();
  for (unsigned i = 0; i < 1024 + 256; ++i) {
    const MemoryLog log = log_of({{0x10'0000 + 64ULL * i}}, MemoryLine::kWrite);
    m.access(0, log, log.messages[0], 10'000);
  }
  EXPECT_EQ(recorder.lines.size(), m.stats().dram_written_lines);
  EXPECT_GE(recorder.lines.size(), 256u);
  for (const Line& l : recorder.lines) {
    EXPECT_TRUE(l.write);
    EXPECT_GE(l.address, 0x10'0000u);
    EXPECT_LT(l.address, 0x10'0000u + 64 * 1280);
    EXPECT_GE(l.cycle, 10'000u);
  }
  m.attach_traffic(nullptr);
  recorder.lines.clear();
  const MemoryLog more = log_of({{0x80'0000}});
  m.access(0, more, more.messages[0], 20'000);
  EXPECT_EQ(m.stats().dram_read_lines, 4u);
  EXPECT_TRUE(recorder.lines.empty());
}

// L3CNTLREG's fields in ways: NEO's two Gen9 values are Mesa's validated configurations {URB 32, all 64} and {SLM 32,
// URB 16, all 48}, each the L3's 96 ways; the data port caches in "all", else in DC. Ways are 8 KiB on 4 banks.
TEST(L3Partition, NeosValuesDecodeToMesasValidatedConfigurations) {
  const L3Partition plain = L3Partition::decode(0x80000340);
  EXPECT_EQ(plain.slm, 0u);
  EXPECT_EQ(plain.urb, 32u);
  EXPECT_EQ(plain.all, 64u);
  EXPECT_EQ(plain.ro + plain.dc, 0u);
  EXPECT_EQ(plain.ways(), 96u);
  EXPECT_EQ(plain.data_ways() * L3Partition::way_kib(4), 512u);
  const L3Partition slm = L3Partition::decode(0x60000321);
  EXPECT_EQ(slm.slm, 32u);
  EXPECT_EQ(slm.urb, 16u);
  EXPECT_EQ(slm.all, 48u);
  EXPECT_EQ(slm.ways(), 96u);
  EXPECT_EQ(slm.data_ways() * L3Partition::way_kib(4), 384u);
  // {URB 32, DC 16, RO 48}: the data cache partition serves the data port.
  const L3Partition split = L3Partition::decode((32U << 1) | (48U << 11) | (16U << 18));
  EXPECT_EQ(split.ro, 48u);
  EXPECT_EQ(split.dc, 16u);
  EXPECT_EQ(split.data_ways(), 16u);
  EXPECT_EQ(L3Partition::way_kib(1), 4u);  // Mesa get_l3_way_size: 4 KiB per bank with one bank
  EXPECT_EQ(L3Partition::way_kib(2), 4u);
}

// Resizing the data partition empties it; with none, every line goes to DRAM and stays nowhere.
TEST(MemoryHierarchy, AResizedL3StartsEmptyAndNoDataPartitionLeavesLinesUncached) {
  MemoryHierarchy m(simple());
  const MemoryLog read = log_of({{0x1000}});
  const MemoryLog write = log_of({{0x2000}}, MemoryLine::kWrite);
  m.access(0, read, read.messages[0], 0);
  m.access(0, read, read.messages[0], 1000);
  EXPECT_EQ(m.stats().l3_hits, 1u);
  m.resize_l3(64);  // the same size: the lines stay
  m.access(0, read, read.messages[0], 2000);
  EXPECT_EQ(m.stats().l3_hits, 2u);
  m.resize_l3(32);
  EXPECT_EQ(m.l3_kib(), 32u);
  m.access(0, read, read.messages[0], 3000);
  EXPECT_EQ(m.stats().l3_hits, 2u);
  EXPECT_EQ(m.stats().l3_misses, 2u);
  m.resize_l3(0);
  // Uncached, a read costs its bank, DRAM and both latencies every time, and a write its DRAM transfer.
  EXPECT_EQ(m.access(0, read, read.messages[0], 4000), 4000u + 1 + 2 + 60 + 100);
  EXPECT_EQ(m.access(0, read, read.messages[0], 5000), 5000u + 1 + 2 + 60 + 100);
  EXPECT_EQ(m.access(0, write, write.messages[0], 6000), 6000u + 1 + 100);
  EXPECT_EQ(m.stats().l3_hits, 2u);
  EXPECT_EQ(m.stats().l3_misses, 5u);
  EXPECT_EQ(m.stats().dram_read_lines, 4u);
  EXPECT_EQ(m.stats().dram_written_lines, 1u);
  EXPECT_EQ(m.stats().l3_writebacks, 0u);
}

// Streaming reads of distinct lines are bound by DRAM bandwidth: 4,096 lines at 32 B/clk take 8,192 cycles, at 16 B/clk
// 16,384 (plus one line's latency), and two channels of half the bandwidth each take as long as one of all of it.
TEST(MemoryHierarchy, StreamingReadsTakeTheirDramTime) {
  const auto stream = [](double bytes_per_cycle, unsigned channels) {
    MemoryHierarchyParams p = simple();
    p.dram_bytes_per_cycle = bytes_per_cycle;
    p.dram_channels = channels;
    MemoryHierarchy m(p);
    std::uint64_t end = 0;
    for (unsigned i = 0; i < 4096; ++i) {
      const MemoryLog log = log_of({{64ULL * i}});
      end = std::max(end, m.access(0, log, log.messages[0], 0));
    }
    return static_cast<double>(end);
  };
  EXPECT_NEAR(stream(32, 1), 8192 + 160, 8);
  EXPECT_NEAR(stream(16, 1), 16384 + 160, 8);
  EXPECT_NEAR(stream(32, 2), 8192 + 160, 8192 * 0.02);
}

TEST(MemoryHierarchy, AnAccessOverheadPerLineLowersTheStreamingBandwidth) {
  MemoryHierarchyParams p = simple();
  p.dram_line_overhead_cycles = 1;  // 64 bytes take 2 + 1 cycles of a 32 B/clk channel
  MemoryHierarchy m(p);
  std::uint64_t end = 0;
  for (unsigned i = 0; i < 1000; ++i) {
    const MemoryLog log = log_of({{64ULL * i}});
    end = std::max(end, m.access(0, log, log.messages[0], 0));
  }
  EXPECT_NEAR(static_cast<double>(end), 3000 + 160, 8);
}

TEST(MemoryHierarchy, SharedLocalMemoryHasItsOwnBandwidthAndNoCache) {
  MemoryHierarchy m(simple());
  std::uint64_t end = 0;
  for (unsigned i = 0; i < 100; ++i) {
    const MemoryLog log = log_of({{64ULL * (i % 16)}}, MemoryLine::kRead | MemoryLine::kSlm);
    end = std::max(end, m.access(0, log, log.messages[0], 0));
  }
  EXPECT_EQ(end, 100u + 100);  // 64 B/clk, then the SLM latency
  EXPECT_EQ(m.stats().slm_lines, 100u);
  EXPECT_EQ(m.stats().l3_hits + m.stats().l3_misses, 0u);
}

TEST(MemoryHierarchy, AMessageWaitsForItsSubslicePort) {
  MemoryHierarchyParams p = simple();
  p.port_bytes_per_cycle = 16;  // a line takes 4 cycles through the port
  MemoryHierarchy m(p);
  const MemoryLog warm = log_of({{0, 64, 128, 192}});
  m.access(0, warm, warm.messages[0], 0);
  // Four lines that hit: the port needs 16 cycles for them (the bank 4), then the L3 latency.
  EXPECT_EQ(m.access(0, warm, warm.messages[0], 1000), 1000u + 16 + 100);
  EXPECT_THROW(m.access(1, warm, warm.messages[0], 0), std::out_of_range);
}

// A send, a use of its response, the end of thread: timing ops as timing_of makes them for a SIMD16 untyped read
// (send: 1 cycle on the send unit, 2 of front end; the add: 4 FPU cycles, latency 8).
std::vector<TimingOp> read_and_use() {
  TimingOp send;
  send.pipe = TimingPipe::kSend;
  send.cls = TimingClass::kSend;
  send.occupancy = 1;
  send.front_end = 2;
  send.reads[0] = {10, 2};
  send.writes = {20, 2};
  TimingOp add;
  add.pipe = TimingPipe::kFpuAny;
  add.cls = TimingClass::kFpu;
  add.occupancy = 4;
  add.front_end = 4;
  add.latency = 8;
  add.reads[0] = {20, 2};
  add.writes = {30, 2};
  TimingOp eot = send;
  eot.eot = true;
  eot.reads[0] = {112, 1};
  eot.writes = {};
  return {send, add, eot};
}

// A streaming kernel on the array: 24 EUs x 7 threads x 16 messages of two distinct lines each (5,376 lines). Its time
// follows DRAM bandwidth: about 5,376 x 64 / 32 = 10,752 cycles at 32 B/clk, twice that at 16.
TEST(EuArrayMemory, HalvedDramBandwidthDoublesAStreamingKernel) {
  const std::vector<TimingOp> ops = read_and_use();
  const auto kernel_cycles = [&](double dram_bytes_per_cycle) {
    MemoryHierarchyParams mp;
    mp.dram_channels = 2;
    mp.dram_bytes_per_cycle = dram_bytes_per_cycle;
    MemoryHierarchy memory(mp);
    EuArray array(EuArrayParams{});
    array.attach_memory(&memory);
    std::uint64_t next_line = 0;
    for (unsigned g = 0; g < 21; ++g) {  // 21 groups of 8 threads
      EuArray::Group group;
      for (unsigned t = 0; t < 8; ++t) {
        EuArray::Trace trace;
        std::vector<std::vector<std::uint64_t>> messages;
        for (unsigned k = 0; k < 16; ++k) {
          trace.push_back(&ops[0]);
          trace.push_back(&ops[1]);
          messages.push_back({next_line * 64, next_line * 64 + 64});
          next_line += 2;
        }
        trace.push_back(&ops[2]);
        messages.emplace_back();  // the end of thread reaches no memory
        group.threads.push_back(trace);
        group.memory.push_back(log_of(messages));
      }
      array.add(std::move(group));
    }
    const std::uint64_t cycles = array.run();
    EXPECT_EQ(memory.stats().dram_read_lines, 5376u);
    return static_cast<double>(cycles);
  };
  const double full = kernel_cycles(32), half = kernel_cycles(16);
  EXPECT_NEAR(full, 10'752, 10'752 * 0.05);
  EXPECT_NEAR(half / full, 2.0, 0.05);
}

// A thread's memory messages given in parts (EuCore::append_memory_log, as a walker gives a long thread's) time as the
// same messages given at once: each part's lines are its own, renumbered behind the ones already given.
TEST(EuArrayMemory, MemoryMessagesGivenInPartsTimeAsGivenAtOnce) {
  const std::vector<TimingOp> ops = read_and_use();
  const auto run = [&](bool in_parts) {
    MemoryHierarchy memory(simple());
    EuCore core(EuCoreParams{});
    core.attach_memory(&memory, 0);
    const unsigned slot = core.start(0);
    std::vector<std::vector<std::uint64_t>> messages;
    for (unsigned k = 0; k < 6; ++k) messages.push_back({k * 128, k * 128 + 64});
    const std::vector<std::vector<std::uint64_t>> first(messages.begin(), messages.begin() + 2),
        second(messages.begin() + 2, messages.end());
    core.set_memory_log(slot, log_of(in_parts ? first : messages));
    for (unsigned k = 0; k < 2; ++k) {
      core.append(slot, ops[0]);
      core.append(slot, ops[1]);
    }
    if (in_parts) {
      EXPECT_EQ(core.issue(), std::optional<unsigned>(slot));  // ran out before its end
      core.append_memory_log(slot, log_of(second));
    }
    for (unsigned k = 2; k < 6; ++k) {
      core.append(slot, ops[0]);
      core.append(slot, ops[1]);
    }
    core.append(slot, ops[2]);
    EXPECT_FALSE(core.issue().has_value());
    EXPECT_EQ(memory.stats().dram_read_lines, 12u);
    return core.ended_at(slot);
  };
  EXPECT_EQ(run(true), run(false));
}

// An FPU-bound and a send-bound kernel on one EU, and both at once: seven threads of N independent SIMD16 mads take
// 7 x 4N FPU cycles over two FPUs, 14N; seven threads of N independent two-line reads take 14N cycles of the
// subslice's data port (64 B/clk: a line a cycle; the L3 banks, GTI and DRAM are set wider); threads that do both
// still take 14N, as the FPUs and the send unit work side by side. Times are T(2N) - T(N), which cancels the start
// and the last responses.
TEST(EuArrayMemory, AnFpuBoundAndASendBoundKernelOverlap) {
  constexpr unsigned kN = 200;
  const std::vector<TimingOp> base = read_and_use();
  TimingOp mad = base[1];  // SIMD16: 4 FPU cycles, latency 8
  mad.reads[0] = {100, 2};
  const auto cycles = [&](unsigned n, bool mads, bool sends) {
    MemoryHierarchyParams mp = simple();
    mp.l3_banks = 4;
    mp.gti_bytes_per_cycle = 256;
    mp.dram_channels = 4;
    mp.dram_bytes_per_cycle = 1024;
    MemoryHierarchy memory(mp);
    EuCore core(EuCoreParams{});
    core.attach_memory(&memory, 0);
    // Kept alive for the core. A mad writes the next of 8 register pairs, a read the next of 20: 20 reads in flight
    // per thread cover a miss's round trip (about 165 cycles) at the port's rate.
    std::vector<TimingOp> ops;
    ops.reserve(7 * 2 * n + 1);
    std::uint64_t line = 0;
    for (unsigned t = 0; t < 7; ++t) {
      const unsigned slot = core.start(0);
      std::vector<std::vector<std::uint64_t>> messages;
      for (unsigned i = 0; i < n; ++i) {
        if (mads) {
          ops.push_back(mad);
          ops.back().writes = {static_cast<std::uint8_t>(84 + 2 * (i % 8)), 2};
          core.append(slot, ops.back());
        }
        if (sends) {
          ops.push_back(base[0]);
          ops.back().writes = {static_cast<std::uint8_t>(40 + 2 * (i % 20)), 2};
          core.append(slot, ops.back());
          messages.push_back({line * 64, line * 64 + 64});
          line += 2;
        }
      }
      messages.emplace_back();  // the end of thread reaches no memory
      core.set_memory_log(slot, log_of(messages));
      core.append(slot, base[2]);
    }
    EXPECT_FALSE(core.issue().has_value());
    return static_cast<double>(core.last_cycle());
  };
  const auto per_n = [&](bool mads, bool sends) { return cycles(2 * kN, mads, sends) - cycles(kN, mads, sends); };
  EXPECT_NEAR(per_n(true, false), 14.0 * kN, 14.0 * kN * 0.02);
  EXPECT_NEAR(per_n(false, true), 14.0 * kN, 14.0 * kN * 0.02);
  EXPECT_NEAR(per_n(true, true), 14.0 * kN, 14.0 * kN * 0.05);
}

// Without memory timing a send takes send_latency; with it, a hit takes the L3's latency and a miss DRAM's too, and
// the thread's end waits for its writes.
TEST(EuArrayMemory, AThreadsEndWaitsForItsWrites) {
  std::vector<TimingOp> ops = read_and_use();
  ops[0].writes = {};  // a write: no response
  MemoryHierarchyParams mp = simple();
  MemoryHierarchy memory(mp);
  EuArrayParams ap;
  ap.subslices_per_slice = 1;
  ap.eus_per_subslice = 1;
  ap.dispatch_cycles = 0;
  ap.core.eot_cycles = 0;
  EuArray array(ap);
  array.attach_memory(&memory);
  EuArray::Group group;
  group.threads.push_back({&ops[0], &ops[2]});
  MemoryLog log = log_of({{0x4000}}, MemoryLine::kWrite);
  log.messages.emplace_back();
  group.memory.push_back(log);
  array.add(std::move(group));
  // The write issues at 0 and is in the L3 at 1 + 100 (its bank, the L3 latency; no fill); the end issues then.
  EXPECT_EQ(array.run(), 101u);
}

}  // namespace
}  // namespace gpuvp::gen::eu
