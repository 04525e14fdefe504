// The GPGPU pipe end to end, driven as a driver would: the project's host driver models (I915Driver, GpgpuDriver)
// lay out heaps and emit NEO's Gen9 command sequence into the render ring; kernels in IGA assembly (the driver's own,
// tb/host/kernels, and tests/eu/exec/gpgpu_*.asm, assembled by iga64 at build time) run on the functional EU through
// the data port.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hw/gen/gpgpu_commands.h"
#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "tb/host/gpgpu_driver.h"
#include "tb/host/gpgpu_kernels.h"
#include "tb/host/i915_driver.h"
#include "tests/support/sc_test.h"
#include "tlm/core/stats.h"

using namespace gpuvp;

namespace {

std::vector<std::uint8_t> kernel(const std::string& name) {
  const std::string path = std::string(GPUVP_EU_KERNEL_DIR) + "/" + name + ".bin";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::uint8_t> bytes_of(const void* data, std::size_t n) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  return {p, p + n};
}

float as_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::uint32_t as_u32(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

struct Rig {
  explicit Rig(platform::PlatformParams params = {}) : soc("gpuvp", params), port(soc.host()), driver(port) {}
  gen::CommandStreamer& rcs() { return *soc.gen()->engine(gen::Engine::kRcs); }
  std::string incidents() {
    std::string all;
    for (const auto& i : rcs().incidents()) all += i + "\n";
    return all;
  }
  platform::Platform soc;
  host::BusHostPort port;
  host::I915Driver driver;
};

// Runs `kernel` with the driver's dispatch, waits for the breadcrumb; false if it never came.
bool run_dispatch(Rig& rig, const host::GpgpuKernel& k, std::uint64_t timeout_ns = 5'000'000) {
  auto& ring = rig.driver.create_ring(gen::Engine::kRcs, 16 * 1024);
  host::GpgpuDriver gpgpu(rig.driver);
  gpgpu.dispatch(ring, k);
  const std::uint32_t seqno = rig.driver.emit_breadcrumb(ring);
  rig.driver.submit(ring);
  return rig.driver.wait_seqno(ring, seqno, timeout_ns);
}

// Saxpy (out = 2 a + b) over `groups` SIMD16 groups of 16 items, with a[i] = i and b[i] = 1 uploaded; its surfaces
// are a, b and out.
host::GpgpuKernel saxpy_of_a_ramp(host::I915Driver& d, std::uint32_t groups) {
  const std::uint64_t bytes = std::uint64_t{groups} * 16 * 4;
  const auto a = d.alloc(bytes), b = d.alloc(bytes), out = d.alloc(bytes);
  std::vector<std::uint32_t> av(groups * 16), bv(groups * 16, as_u32(1.0f));
  for (unsigned i = 0; i < av.size(); ++i) av[i] = as_u32(static_cast<float>(i));
  d.upload(a, 0, av);
  d.upload(b, 0, bv);
  host::GpgpuKernel k;
  k.instructions = host::saxpy_kernel();
  k.simd = 16;
  k.local_size = {16, 1, 1};
  k.groups = {groups, 1, 1};
  const float s = 2.0f;
  k.cross_thread = bytes_of(&s, 4);
  k.surfaces = {a, b, out};
  return k;
}

}  // namespace

TEST(GpgpuDriver, LocalIdsAreUint16PerChannelOneRegisterPerDimension) {
  const auto ids = host::GpgpuDriver::local_ids(16, {4, 3, 2});  // 24 items: two SIMD16 threads
  ASSERT_EQ(ids.size(), 2u * 96);
  const auto id = [&](unsigned thread, unsigned dim, unsigned lane) {
    std::uint16_t v;
    std::memcpy(&v, ids.data() + thread * 96 + dim * 32 + lane * 2, 2);
    return v;
  };
  EXPECT_EQ(id(0, 0, 5), 1u);  // item 5 = (1, 1, 0)
  EXPECT_EQ(id(0, 1, 5), 1u);
  EXPECT_EQ(id(1, 0, 3), 3u);  // item 19 = (3, 1, 1)
  EXPECT_EQ(id(1, 1, 3), 1u);
  EXPECT_EQ(id(1, 2, 3), 1u);
  EXPECT_EQ(id(1, 0, 8), 0u);  // item 24 does not exist
}

TEST(GpgpuPipe, SaxpyKernelRunsFromTheRenderRingWithUntypedSurfaceMessages) {
  Rig rig;
  bool ok = false;
  std::vector<std::uint32_t> c(64);
  test::run_thread([&] {
    auto& d = rig.driver;
    const auto a = d.alloc(4096), b = d.alloc(4096), out = d.alloc(4096);
    std::vector<std::uint32_t> av(64), bv(64);
    for (unsigned i = 0; i < 64; ++i) {
      av[i] = as_u32(static_cast<float>(i) * 0.5f);
      bv[i] = as_u32(100.0f - static_cast<float>(i));
    }
    d.upload(a, 0, av);
    d.upload(b, 0, bv);
    d.fill(out, 0xEE);
    host::GpgpuKernel k;
    k.instructions = host::saxpy_kernel();
    k.simd = 16;
    k.local_size = {16, 1, 1};
    k.groups = {4, 1, 1};
    const float s = 3.0f;
    k.cross_thread = bytes_of(&s, 4);
    k.surfaces = {a, b, out};
    ok = run_dispatch(rig, k);
    rig.port.read_block(out.phys, c.data(), 64 * 4);
  });
  ASSERT_TRUE(ok) << rig.incidents();
  for (unsigned i = 0; i < 64; ++i) {
    EXPECT_EQ(as_float(c[i]), 3.0f * (static_cast<float>(i) * 0.5f) + (100.0f - static_cast<float>(i))) << i;
  }
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.walkers"), 1u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.thread_groups"), 4u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.eu_instructions"), 4u * 10);
  // The kernel's own totals (one kernel, one walker), under whichever timing rule the test runs.
  const nlohmann::json kernels = core::stats().to_json(0)["gpuvp"]["gen"]["rcs"]["gpgpu"]["kernels"];
  ASSERT_EQ(kernels.size(), 1u);
  const nlohmann::json& k = kernels.begin().value();
  EXPECT_EQ(k["walkers"].get<std::uint64_t>(), 1u);
  EXPECT_EQ(k["thread_groups"].get<std::uint64_t>(), 4u);
  EXPECT_EQ(k["threads"].get<std::uint64_t>(), 4u);
  EXPECT_EQ(k["eu_instructions"].get<std::uint64_t>(), 4u * 10);
  EXPECT_EQ(k["data_port_read_bytes"].get<std::uint64_t>(), 2u * 64 * 4);
  EXPECT_GT(k["time_ps"].get<std::uint64_t>(), 0u);
}

namespace {

// Under array timing a walker's lines go through the L3 to DRAM: saxpy over 4,096 items (256 SIMD16 threads, each
// reading a line of a and of b and writing a line of out) misses 768 lines and reads 512 from DRAM; run again, it
// finds them all in the L3. Returns the cycles of the first run and of the second.
std::pair<std::uint64_t, std::uint64_t> saxpy_on_the_array(std::uint32_t dram_bytes_per_cycle) {
  platform::PlatformParams params;
  params.gen.gpu.cs.gpgpu.timing = "array";
  params.dram.memory.bytes_per_cycle = dram_bytes_per_cycle;
  Rig rig(params);
  bool ok = true;
  std::vector<std::uint32_t> c(4096);
  std::uint64_t first = 0;
  test::run_thread([&] {
    const host::GpgpuKernel k = saxpy_of_a_ramp(rig.driver, 256);
    const auto& out = k.surfaces[2];
    ok = run_dispatch(rig, k);
    first = core::stats().counter_value("gpuvp.gen.rcs.gpgpu.array_cycles");
    EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.l3_misses"), 768u);
    EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.l3_hits"), 0u);
    EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.dram_read_lines"), 512u);
    ok = ok && run_dispatch(rig, k);
    rig.port.read_block(out.phys, c.data(), 4096 * 4);
  });
  EXPECT_TRUE(ok) << rig.incidents();
  for (unsigned i = 0; i < 4096; i += 97) EXPECT_EQ(as_float(c[i]), 2.0f * static_cast<float>(i) + 1.0f) << i;
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.l3_hits"), 768u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.dram_read_lines"), 512u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.dram_written_lines"), 0u);  // nothing evicted
  // Per subslice: every thread and instruction of both runs is counted once, and each thread's SIMD16 mul and add are
  // 32 flops.
  std::uint64_t threads = 0, instructions = 0, flops = 0, thread_cycles = 0, active_cycles = 0;
  for (const auto& [path, value] : core::stats().counters_with_prefix("gpuvp.gen.rcs.gpgpu.subslice")) {
    if (path.find(".eu") != std::string::npos) continue;  // per EU, below
    if (path.find(".threads") != std::string::npos) threads += value;
    if (path.find(".instructions.") != std::string::npos) instructions += value;
    if (path.find(".flops32") != std::string::npos) flops += value;
    if (path.find(".thread_cycles") != std::string::npos) thread_cycles += value;
    if (path.find(".active_cycles") != std::string::npos) active_cycles += value;
  }
  // Resident thread-cycles fit in the array's 168 slots over the walkers' time, active cycles in the 24 EUs'.
  const std::uint64_t array_cycles = core::stats().counter_value("gpuvp.gen.rcs.gpgpu.array_cycles");
  EXPECT_GT(thread_cycles, 0u);
  EXPECT_LE(thread_cycles, 168 * array_cycles);
  EXPECT_GT(active_cycles, 0u);
  EXPECT_LE(active_cycles, 24 * array_cycles);
  EXPECT_EQ(threads, 512u);
  EXPECT_EQ(instructions, core::stats().counter_value("gpuvp.gen.rcs.gpgpu.eu_instructions"));
  // Each EU's active, stalled and idle cycles split the walkers' array cycles; the EUs' issue counts add up to the
  // subslices'. Saxpy's threads wait mostly for memory (each reads two lines and computes on them).
  std::uint64_t eu_instructions = 0, eu_active = 0;
  for (unsigned ss = 0; ss < 3; ++ss) {
    const std::string sub = "gpuvp.gen.rcs.gpgpu.subslice" + std::to_string(ss);
    std::uint64_t stalled = 0, idle = 0;
    for (unsigned e = 0; e < 8; ++e) {
      SCOPED_TRACE(e);
      const std::string eu = sub + ".eu" + std::to_string(e);
      const std::uint64_t a = core::stats().counter_value(eu + ".active_cycles");
      const std::uint64_t st = core::stats().counter_value(eu + ".stalled_cycles");
      const std::uint64_t i = core::stats().counter_value(eu + ".idle_cycles");
      EXPECT_EQ(a + st + i, array_cycles);
      eu_active += a;
      stalled += st;
      idle += i;
      eu_instructions += core::stats().counter_value(eu + ".instructions");
    }
    EXPECT_EQ(core::stats().counter_value(sub + ".stalled_cycles"), stalled);
    EXPECT_EQ(core::stats().counter_value(sub + ".idle_cycles"), idle);
    const std::uint64_t memory = core::stats().counter_value(sub + ".thread_stall_cycles.memory");
    const std::uint64_t dependency = core::stats().counter_value(sub + ".thread_stall_cycles.dependency");
    EXPECT_GT(memory, dependency);
    EXPECT_EQ(core::stats().counter_value(sub + ".thread_stall_cycles.barrier"), 0u);  // saxpy has none
  }
  EXPECT_EQ(eu_active, active_cycles);
  EXPECT_EQ(eu_instructions, instructions);
  // The hierarchy's rates: half the lines asked for hit (the second run's), and 512 lines came from DRAM over both
  // runs' array time at the 1 GHz GPU clock.
  const nlohmann::json gpgpu = core::stats().to_json(0)["gpuvp"]["gen"]["rcs"]["gpgpu"];
  EXPECT_DOUBLE_EQ(gpgpu["l3_hit_rate"].get<double>(), 0.5);
  EXPECT_NEAR(gpgpu["dram_bandwidth"].get<double>(), 512.0 * 64 / (static_cast<double>(array_cycles) * 1e-9), 1.0);
  EXPECT_EQ(flops, 512u * 32);
  // By execution size, from tb/host/kernels/saxpy.asm: per thread one SIMD1 mul, seven SIMD16 instructions (add, shl,
  // two sends, mul, add, send), two SIMD8 (the mov and the end of thread).
  std::map<std::string, std::uint64_t> by_width;
  for (const auto& [path, value] : core::stats().counters_with_prefix("gpuvp.gen.rcs.gpgpu.subslice")) {
    const std::size_t at = path.find(".instructions_by_width.");
    if (at != std::string::npos && path.find(".eu") == std::string::npos) by_width[path.substr(at + 23)] += value;
  }
  EXPECT_EQ(by_width["simd1"], 512u);
  EXPECT_EQ(by_width["simd8"], 512u * 2);
  EXPECT_EQ(by_width["simd16"], 512u * 7);
  EXPECT_EQ(by_width["simd2"] + by_width["simd4"] + by_width["simd32"], 0u);
  // Per kernel, known by its address: the driver uploads the kernel afresh for each dispatch, so each walker has an
  // entry of its own. The first missed every line (512 from DRAM), the second found them all in the L3.
  const nlohmann::json kernels = gpgpu["kernels"];
  EXPECT_EQ(kernels.size(), 2u);
  std::vector<nlohmann::json> runs;
  for (const auto& [address, k] : kernels.items()) runs.push_back(k);
  std::sort(runs.begin(), runs.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a["l3_hits"].get<std::uint64_t>() < b["l3_hits"].get<std::uint64_t>();
  });
  std::uint64_t kernel_cycles = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    SCOPED_TRACE(i);
    const nlohmann::json& k = runs[i];
    EXPECT_EQ(k["walkers"].get<std::uint64_t>(), 1u);
    EXPECT_EQ(k["threads"].get<std::uint64_t>(), 256u);
    EXPECT_EQ(k["thread_groups"].get<std::uint64_t>(), 256u);
    EXPECT_EQ(k["eu_instructions"].get<std::uint64_t>(), 256u * 10);
    EXPECT_EQ(k["flops32"].get<std::uint64_t>(), 256u * 32);
    EXPECT_EQ(k["l3_hits"].get<std::uint64_t>(), i == 0 ? 0u : 768u);
    EXPECT_EQ(k["l3_misses"].get<std::uint64_t>(), i == 0 ? 768u : 0u);
    EXPECT_EQ(k["dram_read_lines"].get<std::uint64_t>(), i == 0 ? 512u : 0u);
    EXPECT_EQ(k["data_port_read_bytes"].get<std::uint64_t>(), 2u * 4096 * 4);  // a and b
    EXPECT_EQ(k["data_port_written_bytes"].get<std::uint64_t>(), 4096u * 4);
    const std::uint64_t cycles = k["array_cycles"].get<std::uint64_t>();
    EXPECT_EQ(cycles, i == 0 ? first : array_cycles - first);
    // The engine's time in the walker covers its array cycles at the 1 GHz GPU clock.
    EXPECT_GE(k["time_ps"].get<std::uint64_t>(), cycles * 1000);
    kernel_cycles += cycles;
  }
  EXPECT_EQ(kernel_cycles, array_cycles);
  return {first, core::stats().counter_value("gpuvp.gen.rcs.gpgpu.array_cycles") - first};
}

}  // namespace

// The first run is bound by DRAM: 512 lines at 32 bytes per cycle (1 GHz DRAM and GPU) take 1,024 cycles; the last
// thread's reads then complete a miss's latency later (1 + 2 + 60 + 100) and its write is in the L3 101 cycles after
// it issues: at least 1,288 cycles, and within 5 % of it (the first requests and the last mad and end of thread).
// The second run, all hits, takes less than half.
TEST(GpgpuPipe, UnderArrayTimingSaxpyLinesGoThroughTheL3ToDram) {
  const auto [first, second] = saxpy_on_the_array(32);
  EXPECT_GE(first, 1024u + 163 + 101);
  EXPECT_LE(first, (1024u + 163 + 101) * 105 / 100);
  EXPECT_LT(second * 2, first);
}

// Half the DRAM bandwidth: 2,048 cycles for the lines, the last miss's latency (now 1 + 4 + 60 + 100) and the write.
TEST(GpgpuPipe, UnderArrayTimingHalfTheDramBandwidthDoublesTheStreamingPart) {
  const auto [first, second] = saxpy_on_the_array(16);
  EXPECT_GE(first, 2048u + 165 + 101);
  EXPECT_LE(first, (2048u + 165 + 101) * 105 / 100);
  EXPECT_LT(second * 3, first);
}

// The array's DRAM lines leave the GPU through its memory port and cross the platform's bus to DRAM at their times:
// the two saxpy runs do the same driver and engine work, and the first also reads a and b from DRAM (512 lines) where
// the second hits the L3. So the GPU port's reads, the bus's DRAM port and the DRAM differ by exactly those lines, no
// byte of memory changes (the lines carry no data: it moved in the functional run), and the GTT counts no more
// translations for them. A 4-byte bus port (16 cycles of the 1 GHz bus per line) shows each line booked there.
TEST(GpgpuPipe, UnderArrayTimingTheArraysDramLinesCrossTheBusToDram) {
  platform::PlatformParams params;
  params.gen.gpu.cs.gpgpu.timing = "array";
  params.bus.dram_port_bytes_per_cycle = 4;
  Rig rig(params);
  const std::vector<std::string> counters = {
      "gpuvp.gen.memory.reads",   "gpuvp.gen.memory.writes",   "gpuvp.bus.dram.transactions",
      "gpuvp.bus.dram.bytes",     "gpuvp.dram.reads",          "gpuvp.dram.bytes_read",
      "gpuvp.dram.bytes_written", "gpuvp.gen.gtt.rcs.lookups", "gpuvp.gen.gtt.rcs.walk_reads",
      "gpuvp.host.transactions"};
  const auto snapshot = [&] {
    std::map<std::string, std::uint64_t> values;
    for (const std::string& c : counters) values[c] = core::stats().counter_value(c);
    values["busy"] = core::stats().busy_times(~core::Picoseconds{0})["gpuvp.bus.dram.busy"];
    return values;
  };
  std::map<std::string, std::uint64_t> before, middle, after;
  std::vector<std::uint32_t> c(4096);
  bool ok = true;
  test::run_thread([&] {
    const host::GpgpuKernel k = saxpy_of_a_ramp(rig.driver, 256);
    const auto& out = k.surfaces[2];
    before = snapshot();
    ok = run_dispatch(rig, k);
    middle = snapshot();
    ok = ok && run_dispatch(rig, k);
    after = snapshot();
    rig.port.read_block(out.phys, c.data(), 4096 * 4);
  });
  ASSERT_TRUE(ok) << rig.incidents();
  for (unsigned i = 0; i < 4096; i += 97) EXPECT_EQ(as_float(c[i]), 2.0f * static_cast<float>(i) + 1.0f) << i;
  ASSERT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.dram_read_lines"), 512u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.dram_written_lines"), 0u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.dram_lines_unbooked"), 0u);
  const auto extra = [&](const std::string& counter) {
    return static_cast<std::int64_t>(middle[counter] - before[counter]) -
           static_cast<std::int64_t>(after[counter] - middle[counter]);
  };
  EXPECT_EQ(extra("gpuvp.gen.memory.reads"), 512);
  EXPECT_EQ(extra("gpuvp.gen.memory.writes"), 0);
  // The host polls the breadcrumb (a 4-byte read each time) for longer in the first run.
  const std::int64_t polls = extra("gpuvp.host.transactions");
  EXPECT_GE(polls, 0);
  EXPECT_EQ(extra("gpuvp.bus.dram.transactions"), 512 + polls);
  EXPECT_EQ(extra("gpuvp.bus.dram.bytes"), 512 * 64 + 4 * polls);
  EXPECT_EQ(extra("gpuvp.dram.reads"), 512 + polls);
  EXPECT_EQ(extra("gpuvp.dram.bytes_read"), 512 * 64 + 4 * polls);
  EXPECT_EQ(extra("gpuvp.dram.bytes_written"), 0);
  EXPECT_EQ(extra("gpuvp.gen.gtt.rcs.lookups"), 0);
  EXPECT_EQ(extra("gpuvp.gen.gtt.rcs.walk_reads"), 0);
  EXPECT_EQ(extra("busy"), (512 * 16 + polls) * 1000);
}

namespace {

// Saxpy over 4,096 items run twice under array timing with L3CNTLREG set to `l3cntlreg` by MMIO (the kernel's dispatch
// leaves it alone); false if a run did not complete.
// With `out`, the results are read back there.
bool saxpy_twice_with_l3cntlreg(Rig& rig, std::uint32_t l3cntlreg, std::uint32_t* reset_value = nullptr,
                                std::uint32_t groups = 256, std::vector<float>* out_values = nullptr) {
  bool ok = true;
  test::run_thread([&] {
    auto& d = rig.driver;
    if (reset_value != nullptr) *reset_value = d.mmio_read(gen::gpgpu::kL3Cntlreg);
    d.mmio_write(gen::gpgpu::kL3Cntlreg, l3cntlreg);
    const std::uint64_t bytes = std::uint64_t{groups} * 16 * 4;
    host::GpgpuKernel k = saxpy_of_a_ramp(d, groups);
    const auto& out = k.surfaces[2];
    k.program_l3 = false;
    ok = run_dispatch(rig, k) && run_dispatch(rig, k);
    if (out_values != nullptr) {
      out_values->resize(groups * 16);
      rig.port.read_block(out.phys, out_values->data(), bytes);
    }
  });
  return ok;
}

platform::PlatformParams array_timing() {
  platform::PlatformParams params;
  params.gen.gpu.cs.gpgpu.timing = "array";
  return params;
}

}  // namespace

// The L3 caches the data port's lines in the data partition L3CNTLREG gives it: NEO's partition with SLM leaves 48 of
// the 96 ways of 8 KiB (384 KiB), and the second saxpy run hits every line as with the 512 KiB of its partition
// without SLM (the register's reset value).
TEST(GpgpuPipe, UnderArrayTimingTheL3HoldsDataInThePartitionL3CntlregGivesIt) {
  Rig rig(array_timing());
  std::uint32_t reset = 0;
  ASSERT_TRUE(saxpy_twice_with_l3cntlreg(rig, gen::gpgpu::kL3CntlregWithSlm, &reset)) << rig.incidents();
  EXPECT_EQ(reset, gen::gpgpu::kL3CntlregWithoutSlm);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.l3_data_kib"), 384u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.l3_hits"), 768u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.dram_read_lines"), 512u);
}

// Saxpy over 36,864 items touches 6,912 lines (432 KiB): run again, it finds them all in the 512 KiB of the partition
// without SLM (8,192 lines: no 16-way set overflows) and almost none in the 384 KiB of the one with SLM (6,144 lines:
// LRU loses a working set larger than the cache).
std::uint64_t second_run_hits_of_432_kib(std::uint32_t l3cntlreg) {
  Rig rig(array_timing());
  EXPECT_TRUE(saxpy_twice_with_l3cntlreg(rig, l3cntlreg, nullptr, 2304)) << rig.incidents();
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.l3_hits") +
                core::stats().counter_value("gpuvp.gen.rcs.gpgpu.l3_misses"),
            2u * 6912);
  return core::stats().counter_value("gpuvp.gen.rcs.gpgpu.l3_hits");
}

TEST(GpgpuPipe, UnderArrayTimingA432KiBWorkingSetStaysInThe512KiBDataPartition) {
  EXPECT_EQ(second_run_hits_of_432_kib(gen::gpgpu::kL3CntlregWithoutSlm), 6912u);
}

TEST(GpgpuPipe, UnderArrayTimingA432KiBWorkingSetDoesNotFitThe384KiBDataPartition) {
  EXPECT_LE(second_run_hits_of_432_kib(gen::gpgpu::kL3CntlregWithSlm), 6912u / 100);
}

// A partition without a data cache (URB 32, RO 64): every line goes to DRAM, in both runs, and each written line too.
TEST(GpgpuPipe, UnderArrayTimingAnL3WithoutADataPartitionSendsEveryLineToDram) {
  Rig rig(array_timing());
  std::vector<float> out;
  ASSERT_TRUE(saxpy_twice_with_l3cntlreg(rig, (32U << 1) | (64U << 11), nullptr, 256, &out)) << rig.incidents();
  // The written lines crossed the bus as writes that carry no data (byte enables off): the results stay.
  for (unsigned i = 0; i < 4096; ++i) ASSERT_EQ(out[i], 2.0f * static_cast<float>(i) + 1.0f) << i;
  EXPECT_GE(core::stats().counter_value("gpuvp.gen.memory.writes"), 2u * 256);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.l3_data_kib"), 0u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.l3_hits"), 0u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.l3_misses"), 2u * 768);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.dram_read_lines"), 2u * 512);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.dram_written_lines"), 2u * 256);
}

// More ways than the L3 has (URB 64 and all 64 of 96) is a driver's error: the walker stops the engine naming the
// register, its value and the partition; no thread runs.
TEST(GpgpuPipe, AnL3PartitionLargerThanTheL3StopsTheEngineNamingIt) {
  Rig rig;
  const std::uint32_t value = (64U << 1) | (64U << 25);
  EXPECT_FALSE(saxpy_twice_with_l3cntlreg(rig, value));
  EXPECT_NE(
      rig.incidents().find("L3CNTLREG (0x7034) 0x80000080 allocates 128 ways of the L3's 96 (SLM 0, URB 64, RO 0, "
                           "DC 0, all 64)"),
      std::string::npos)
      << rig.incidents();
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.threads"), 0u);
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR).size(), 1u);
}

TEST(GpgpuPipe, ThePartialThreadTakesTheRightExecutionMaskAndOutOfBoundsAccessesAreDropped) {
  Rig rig;
  bool ok = false;
  std::vector<std::uint32_t> c(64);
  test::run_thread([&] {
    auto& d = rig.driver;
    const auto a = d.alloc(4096), b = d.alloc(4096), out = d.alloc(4096);
    std::vector<std::uint32_t> ones(64, as_u32(1.0f));
    d.upload(a, 0, ones);
    d.upload(b, 0, ones);
    d.fill(out, 0xEE);
    host::GpgpuKernel k;
    k.instructions = host::saxpy_kernel();
    k.local_size = {12, 1, 1};  // lanes 12-15 of every thread are off (right mask 0xFFF)
    k.groups = {4, 1, 1};
    const float s = 2.0f;
    k.cross_thread = bytes_of(&s, 4);
    k.surfaces = {a, b, out};
    // a is 40 floats long: lanes past it read 0; c is 48 floats long: writes past it are dropped.
    k.surface_bytes = {40 * 4, 0, 48 * 4};
    ok = run_dispatch(rig, k);
    rig.port.read_block(out.phys, c.data(), 64 * 4);
  });
  ASSERT_TRUE(ok) << rig.incidents();
  for (unsigned i = 0; i < 64; ++i) {
    const unsigned lane = i % 16;
    std::uint32_t expected = 0xEEEEEEEE;
    if (lane < 12 && i < 48) expected = as_u32(i < 40 ? 3.0f : 1.0f);
    EXPECT_EQ(c[i], expected) << i;
  }
  EXPECT_GE(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.out_of_bounds"), 1u);
}

TEST(GpgpuPipe, SharedLocalMemoryBarrierAndA64AtomicsAcrossTwoThreadsPerGroup) {
  Rig rig;
  bool ok = false;
  std::vector<std::uint32_t> out_values(96);
  std::uint32_t counter = 0;
  test::run_thread([&] {
    auto& d = rig.driver;
    const auto out = d.alloc(4096), count = d.alloc(4096);
    d.fill(out, 0);
    d.upload(count, 0, {5});
    host::GpgpuKernel k;
    k.instructions = host::slm_reverse_count_kernel();
    k.local_size = {32, 1, 1};
    k.groups = {3, 1, 1};
    k.slm_bytes = 1024;
    k.barrier = true;
    const std::uint64_t address = count.gfx;
    k.cross_thread = bytes_of(&address, 8);
    k.surfaces = {out};
    ok = run_dispatch(rig, k);
    rig.port.read_block(out.phys, out_values.data(), 96 * 4);
    counter = rig.port.read32(count.phys);
  });
  ASSERT_TRUE(ok) << rig.incidents();
  for (unsigned i = 0; i < 96; ++i) EXPECT_EQ(out_values[i], 31 - i % 32) << i;
  EXPECT_EQ(counter, 5u + 96);
  EXPECT_EQ(core::stats().counter_value("gpuvp.gen.rcs.gpgpu.barriers"), 3u);
}

TEST(GpgpuPipe, AWalkerWithoutTheGpgpuPipelineSelectedStopsTheEngineNamingIt) {
  Rig rig;
  bool ok = true;
  test::run_thread([&] {
    auto& ring = rig.driver.create_ring(gen::Engine::kRcs, 4096);
    rig.driver.emit(ring, gen::gpgpu::media_vfe_state(8));
    rig.driver.emit(ring, gen::gpgpu::gpgpu_walker({}));
    const std::uint32_t seqno = rig.driver.emit_breadcrumb(ring);
    rig.driver.submit(ring);
    ok = rig.driver.wait_seqno(ring, seqno, 200'000);
  });
  EXPECT_FALSE(ok);
  EXPECT_NE(rig.incidents().find("GPGPU_WALKER while PIPELINE_SELECT has pipeline 0 selected, not GPGPU (2)"),
            std::string::npos)
      << rig.incidents();
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR).size(), 1u);
}

TEST(GpgpuPipe, AKernelThatNeverEndsIsStoppedAtTheInstructionLimitAndTheModelStaysUp) {
  platform::PlatformParams params;
  params.gen.gpu.cs.gpgpu.thread_group_instruction_limit = 5000;
  Rig rig(params);
  bool ok = true;
  test::run_thread([&] {
    host::GpgpuKernel k;
    k.instructions = kernel("gpgpu_forever");
    k.local_size = {8, 1, 1};
    k.simd = 8;
    ok = run_dispatch(rig, k, 2'000'000);
  });
  EXPECT_FALSE(ok);
  EXPECT_NE(rig.incidents().find("without ending (gpgpu.thread_group_instruction_limit): a kernel that never ends"),
            std::string::npos)
      << rig.incidents();
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR).size(), 1u);
}

// A walker of 16 M thread groups (each trivial) is guest input that must not stall the model: the groups are charged
// as they end (with one dispatch cycle each), the engine yields to the rest of the model between them, and the host
// driver's wait runs out in simulated time while the walker is still going.
TEST(GpgpuPipe, AWalkerOfVeryManyGroupsLetsTheRestOfTheModelRun) {
  Rig rig;
  bool ok = true;
  std::uint64_t groups_at_timeout = 0;
  test::run_thread([&] {
    auto& d = rig.driver;
    const auto a = d.alloc(4096), b = d.alloc(4096), out = d.alloc(4096);
    host::GpgpuKernel k;
    k.instructions = host::saxpy_kernel();
    k.groups = {1U << 24, 1, 1};
    const float s = 1.0f;
    k.cross_thread = bytes_of(&s, 4);
    k.surfaces = {a, b, out};
    ok = run_dispatch(rig, k, 200'000);
    groups_at_timeout = core::stats().counter_value("gpuvp.gen.rcs.gpgpu.thread_groups");
  });
  EXPECT_FALSE(ok);
  // 200 us at 1 GHz: about 4 k groups of about 46 cycles (10 instructions shared by 24 EUs, a dispatch cycle, and the
  // data port's accesses of 48 lanes).
  EXPECT_GT(groups_at_timeout, 1'000u);
  EXPECT_LT(groups_at_timeout, 1U << 24);
  EXPECT_TRUE(rig.incidents().empty()) << rig.incidents();
}

// A thread group shares its barrier and shared local memory, so it runs within one subslice: a group of more threads
// than a subslice holds (here 2 EUs x 7 threads = 14, and 128 work items in SIMD8 are 16 threads) is a modelled error
// naming both counts; one of 14 threads runs.
TEST(GpgpuPipe, AThreadGroupLargerThanASubsliceStopsTheEngineNamingBothCounts) {
  platform::PlatformParams params;
  params.gen.gpu.cs.gpgpu.eus_per_subslice = 2;
  Rig rig(params);
  bool big = true, fits = false;
  test::run_thread([&] {
    auto& d = rig.driver;
    const auto a = d.alloc(4096), b = d.alloc(4096), out = d.alloc(4096);
    host::GpgpuKernel k;
    k.instructions = host::saxpy_kernel();
    k.simd = 8;
    k.local_size = {112, 1, 1};
    const float s = 1.0f;
    k.cross_thread = bytes_of(&s, 4);
    k.surfaces = {a, b, out};
    fits = run_dispatch(rig, k, 1'000'000);
    k.local_size = {128, 1, 1};
    big = run_dispatch(rig, k, 200'000);
  });
  EXPECT_TRUE(fits);
  EXPECT_FALSE(big);
  EXPECT_NE(
      rig.incidents().find("GPGPU_WALKER thread group of 16 threads exceeds the 14 hardware threads of a subslice"),
      std::string::npos)
      << rig.incidents();
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR).size(), 1u);
}

// Shared local memory lives in the L3: a kernel with some, dispatched while L3CNTLREG allocates none (its reset value:
// NEO's partition without SLM),
// stops the engine with the error naming the register; the driver model programs NEO's SLM partition otherwise.
TEST(GpgpuPipe, SharedLocalMemoryWithoutAnSlmPartitionInL3CntlregStopsTheEngine) {
  Rig rig;
  bool ok = true;
  test::run_thread([&] {
    auto& d = rig.driver;
    const auto out = d.alloc(4096), count = d.alloc(4096);
    host::GpgpuKernel k;
    k.instructions = host::slm_reverse_count_kernel();
    k.local_size = {32, 1, 1};
    k.slm_bytes = 1024;
    k.barrier = true;
    const std::uint64_t address = count.gfx;
    k.cross_thread = bytes_of(&address, 8);
    k.surfaces = {out};
    k.program_l3 = false;
    ok = run_dispatch(rig, k, 200'000);
  });
  EXPECT_FALSE(ok);
  EXPECT_NE(rig.incidents().find("kernel with 1024 bytes of shared local memory while L3CNTLREG (0x7034) allocates "
                                 "none (SLM Enable, bit 0, is clear: 0x80000340)"),
            std::string::npos)
      << rig.incidents();
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR).size(), 1u);
}
