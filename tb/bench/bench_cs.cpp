// bench_cs: host cost and simulated-time accuracy of the command streamer (gen::CommandStreamer) executing a long
// first-level batch buffer of cheap commands, in a small SoC built as in tests/test_gtt.cpp: a core::Bus with DRAM and
// the Gen BAR, a host core::Initiator that programs the GGTT (PTE writes through the BAR at +8 MiB) and the ring
// registers, and a gen::GenGpu with only its render engine.
//
// One benchmark batch = one submission: the host appends to the RCS ring
//     MI_BATCH_BUFFER_START (GGTT, first level) -> batch; MI_STORE_DATA_IMM breadcrumb = sequence number; MI_NOOP
// and writes RING_TAIL. The batch holds kBatchCommands commands of one kind and MI_BATCH_BUFFER_END:
//   noop : MI_NOOP
//   lri  : MI_LOAD_REGISTER_IMM of one RCS CS_GPR (0x2600 + 8 n, n = i % 16, low dword)
//   sdi  : MI_STORE_DATA_IMM of a distinct dword to a 256 KiB GGTT buffer
// The worker thread waits for the breadcrumb (and the engine going idle), then sc_pause()s.
//
// Counters: commands per host second (kIsRate, the batch commands; the 4 ring/BBE commands per batch are not
// counted), host CPU ns per command, simulated ns per command (the engine's busy time / commands), and the simulated
// time predicted by the cost model for the same work, computed from the configured parameters:
//   every command          decode_cycles + dword_cycles * (len - 1)       (GPU clock)
//   + LRI                  register_cycles per register written
//   + SDI                  memory_cycles + TLB hit + bus write (hop + port occupancy + DRAM write latency + transfer)
//   every 64-byte fetch    TLB hit + bus read (hop + occupancy + DRAM read latency + transfer); lines per batch are
//                          counted analytically (2 ring lines + ceil(batch bytes / 64))
//   every TLB miss         walk_level_cycles + 8-byte bus read; misses are taken from the GTT client's counters
// "sim/exp" is measured / expected simulated time (1.000000 when the model charges exactly the configured costs);
// "cmd_ns" is the per-command simulated time with the fetch and ring overheads removed, to compare with "cfg_ns".
//
// Every workload runs four times, on platforms elaborated side by side: command streamers built under a global
// quantum of 1 us and 10 us (LocalTime reads the quantum when it is constructed) with the default gen.memory_access
// (timed_dmi: DMI pointers charged the bus's and the DRAM's latency, contention and statistics), and two at 1 us whose
// GPU reaches memory through a bus transaction per access (transport) or through plain DMI pointers (dmi: no bus
// contention, the granted latency per access). timed_dmi and transport must give the same simulated time. The
// summary prints the ratios and the target (>= 20 M commands/s), which is reported, not asserted.
//
// Correctness (fails the benchmark row): breadcrumb value, the engine idle with HEAD == TAIL and no incidents, the
// number of commands executed, every SDI dword (the buffer is cleared before each batch, untimed), the final GPR
// values for LRI (cleared before each batch), and the number of GTT lookups. Any SystemC warning or error makes the
// process exit with 1.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include <benchmark/benchmark.h>

#include "hw/gen/gtt_regs.h"
#include "hw/gen/mi_commands.h"
#include "tb/bench/bench_support.h"
#include "tlm/core/bus.h"
#include "tlm/core/initiator.h"
#include "tlm/core/memory.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"
#include "tlm/core/timing.h"
#include "tlm/gen/command_streamer.h"
#include "tlm/gen/gen_gpu.h"

using namespace gpuvp;

namespace {

constexpr std::uint64_t kBar = 0xE000'0000;
constexpr std::uint64_t kDramSize = 1ULL << 30;           // 1 GiB
constexpr std::uint64_t kGsm = kDramSize - (8ULL << 20);  // top 8 MiB: the PTEs of a 4 GiB GGTT
constexpr std::uint64_t kPhysOffset = 0x1000'0000;        // GGTT page -> physical page + 256 MiB
constexpr std::uint64_t kPresent = 1;

constexpr std::uint32_t kRcsBase = 0x2000;
constexpr std::uint64_t kRingGva = 0x0001'0000;  // 4 KiB ring
constexpr std::uint32_t kRingBytes = 4096;
constexpr std::uint64_t kBreadcrumbGva = 0x0002'0000;
constexpr std::uint64_t kSdiGva = 0x0010'0000;     // SDI destination buffer
constexpr std::uint64_t kBatchGva0 = 0x0100'0000;  // + 16 MiB per workload
constexpr std::uint32_t kBatchCommands = 64 * 1024;
constexpr unsigned kGprs = 16;

constexpr std::uint64_t kBusHop = 2, kBusBytesPerCycle = 32;  // DRAM port timing, as in tests/test_gtt.cpp

enum class Kind { kNoop, kLri, kSdi };

struct WorkloadInfo {
  const char* name;
  Kind kind;
  unsigned dwords;  // per command
};
const WorkloadInfo kWorkloads[] = {
    {"noop", Kind::kNoop, 1},
    {"lri", Kind::kLri, 3},
    {"sdi", Kind::kSdi, 4},
};

std::uint32_t value_of(std::uint32_t i) { return i * 2654435761u ^ 0x5A5A'0000u; }

core::MemoryParams dram_params() {
  core::MemoryParams p;
  p.size = kDramSize;
  return p;
}

gen::GenGpuParams gpu_params(const std::string& memory_access = "timed_dmi") {
  gen::GenGpuParams p;
  p.engines = {true, false, false, false, false};
  p.memory_access = memory_access;
  return p;
}

double cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// Runs closures inside the kernel: one sc_start() per job, the job ends with sc_pause().
class Worker : public sc_core::sc_module {
 public:
  explicit Worker(sc_core::sc_module_name name) : sc_module(name) {
    SC_HAS_PROCESS(Worker);
    SC_THREAD(run);
  }
  void submit(std::function<void()> job) {
    job_ = std::move(job);
    start_.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
  }

 private:
  void run() {
    for (;;) {
      sc_core::wait(start_);
      job_();
      sc_core::sc_pause();
    }
  }
  sc_core::sc_event start_;
  std::function<void()> job_;
};

// One SoC. Its command streamer takes the global quantum current when the platform is constructed.
struct Platform {
  std::string tag;
  core::Picoseconds quantum_ps;
  std::string memory_access;
  core::Bus bus;
  core::Memory dram;
  core::Initiator host;
  gen::GenGpu gpu;
  Worker worker;
  gen::CommandStreamer* rcs = nullptr;
  gen::GttClient* client = nullptr;
  core::BusyTime* busy = nullptr;
  std::uint32_t tail = 0;  // ring offset of the next submission
  std::uint32_t seq = 0;

  Platform(const std::string& t, core::Picoseconds quantum, const std::string& access)
      : tag(t),
        quantum_ps(quantum),
        memory_access(access),
        bus(("bus_" + t).c_str()),
        dram(("dram_" + t).c_str(), dram_params()),
        host(("host_" + t).c_str()),
        gpu(("gen_" + t).c_str(), gpu_params(access), kGsm),
        worker(("worker_" + t).c_str()) {
    bus.attach_initiator(host.socket, "host");
    bus.attach_initiator(gpu.memory.socket, "gen");
    bus.attach_target(dram.socket, "dram", 0, kDramSize, {kBusHop, kBusBytesPerCycle});
    bus.attach_target(gpu.socket, "bar", kBar, gen::kBarSize, {2, 4});
    rcs = gpu.engine(gen::Engine::kRcs);
    client = gpu.gtt().find_client("rcs");
    busy = &core::stats().busy_time(std::string(rcs->name()) + ".busy");
  }

  // Host-side (untimed) access to what a GGTT address maps to.
  void put(std::uint64_t gva, const void* data, std::size_t len) {
    dram.store().write(gva + kPhysOffset, static_cast<const unsigned char*>(data), len);
  }
  std::uint32_t get32(std::uint64_t gva) {
    std::uint32_t v = 0;
    dram.store().read(gva + kPhysOffset, reinterpret_cast<unsigned char*>(&v), 4);
    return v;
  }
  // Timed MMIO from the worker thread.
  bool mmio_write32(std::uint32_t offset, std::uint32_t v) {
    return host.write_value<std::uint32_t>(kBar + offset, v) == tlm::TLM_OK_RESPONSE;
  }
  bool mmio_read32(std::uint32_t offset, std::uint32_t& v) {
    tlm::tlm_response_status s;
    v = host.read_value<std::uint32_t>(kBar + offset, &s);
    return s == tlm::TLM_OK_RESPONSE;
  }
  bool map_range(std::uint64_t gva, std::uint64_t bytes) {
    for (std::uint64_t page = gva >> 12; page < (gva + bytes + 4095) >> 12; ++page) {
      const std::uint64_t pte = ((page << 12) + kPhysOffset) | kPresent;
      if (host.write_value<std::uint64_t>(kBar + gen::kGgttPteWindowOffset + page * 8, pte) != tlm::TLM_OK_RESPONSE) {
        return false;
      }
    }
    return true;
  }
};

std::vector<std::unique_ptr<Platform>> g_platforms;

// The cost model's prediction, from the configured parameters.
struct CostModel {
  core::Picoseconds period;  // GPU clock
  std::uint64_t decode, dword, reg, mem, tlb_hit, walk_level;
  core::Picoseconds line_read_ps;    // 64-byte fetch: hop + occupancy + DRAM read + transfer (DMI: hop + read)
  core::Picoseconds walk_read_ps;    // 8-byte GGTT entry read
  core::Picoseconds dword_write_ps;  // 4-byte SDI write

  explicit CostModel(const std::string& memory_access) {
    const gen::GenGpuParams g = gpu_params(memory_access);
    const core::MemoryParams m = dram_params();
    period = core::ClockDomain("gpu", g.clock_hz).period_ps();
    const core::Picoseconds bus_period = core::ClockDomain("bus", 1'000'000'000).period_ps();
    const core::Picoseconds mem_period = core::ClockDomain("mem", m.clock_hz).period_ps();
    decode = g.cs.decode_cycles;
    dword = g.cs.dword_cycles;
    reg = g.cs.register_cycles;
    mem = g.cs.memory_cycles;
    tlb_hit = g.gtt.tlb_hit_cycles;
    walk_level = g.gtt.walk_level_cycles;
    auto bus_ps = [&](std::uint64_t bytes, bool read) {
      // A DMI access costs the latency the region was granted with: the bus hop and the DRAM latency.
      if (memory_access == "dmi") {
        return kBusHop * bus_period + (read ? m.read_latency_cycles : m.write_latency_cycles) * mem_period;
      }
      const std::uint64_t occupancy = (bytes + kBusBytesPerCycle - 1) / kBusBytesPerCycle;
      const std::uint64_t transfer = (bytes + m.bytes_per_cycle - 1) / m.bytes_per_cycle;
      return (kBusHop + occupancy) * bus_period +
             ((read ? m.read_latency_cycles : m.write_latency_cycles) + transfer) * mem_period;
    };
    line_read_ps = bus_ps(64, true);
    walk_read_ps = bus_ps(8, true);
    dword_write_ps = bus_ps(4, false);
  }
  core::Picoseconds command_ps(unsigned len) const { return (decode + dword * (len - 1)) * period; }
  core::Picoseconds sdi_ps() const { return command_ps(4) + (mem + tlb_hit) * period + dword_write_ps; }
  // One batch command, without its share of command fetch.
  core::Picoseconds batch_command_ps(Kind k) const {
    switch (k) {
      case Kind::kNoop:
        return command_ps(1);
      case Kind::kLri:
        return command_ps(3) + reg * period;
      case Kind::kSdi:
        return sdi_ps();
    }
    return 0;
  }
  core::Picoseconds line_fetch_ps() const { return tlb_hit * period + line_read_ps; }
  core::Picoseconds miss_ps() const { return walk_level * period + walk_read_ps; }
  // Ring commands around the batch: BB_START (3 dwords), BB_END, the breadcrumb SDI, MI_NOOP.
  core::Picoseconds overhead_ps() const { return command_ps(3) + command_ps(1) + sdi_ps() + command_ps(1); }
};

struct Result {
  double cmd_per_s = 0, host_ns = 0, sim_ns = 0, exp_ns = 0, cmd_ns = 0, cfg_ns = 0;
};
std::map<std::string, Result> g_results;  // by benchmark name

std::uint64_t batch_gva(int w) { return kBatchGva0 + (static_cast<std::uint64_t>(w) << 24); }
std::uint64_t batch_bytes(int w) { return (std::uint64_t{kBatchCommands} * kWorkloads[w].dwords + 1) * 4; }

// Untimed host-side writes of the batches, then (timed, in the kernel) GGTT entries and ring registers.
bool setup(Platform& p) {
  for (int w = 0; w < 3; ++w) {
    std::vector<std::uint32_t> b;
    b.reserve(batch_bytes(w) / 4);
    for (std::uint32_t i = 0; i < kBatchCommands; ++i) {
      switch (kWorkloads[w].kind) {
        case Kind::kNoop:
          gen::mi::emit(b, gen::mi::noop());
          break;
        case Kind::kLri:
          gen::mi::emit(
              b, gen::mi::load_register_imm({{kRcsBase + gen::engine_reg::kGpr0 + 8 * (i % kGprs), value_of(i)}}));
          break;
        case Kind::kSdi:
          gen::mi::emit(b, gen::mi::store_data_imm(kSdiGva + 4ULL * i, value_of(i)));
          break;
      }
    }
    gen::mi::emit(b, gen::mi::batch_buffer_end());
    if (b.size() * 4 != batch_bytes(w)) return false;
    p.put(batch_gva(w), b.data(), b.size() * 4);
  }
  bool ok = true;
  p.worker.submit([&] {
    ok = ok && p.map_range(kRingGva, kRingBytes) && p.map_range(kBreadcrumbGva, 4096) &&
         p.map_range(kSdiGva, 4ULL * kBatchCommands);
    for (int w = 0; w < 3; ++w) ok = ok && p.map_range(batch_gva(w), batch_bytes(w));
    // i915's ring programming order: CTL 0, HEAD, TAIL, START, CTL valid | (pages - 1) << 12.
    namespace er = gen::engine_reg;
    ok = ok && p.mmio_write32(kRcsBase + er::kCtl, 0) && p.mmio_write32(kRcsBase + er::kHead, 0) &&
         p.mmio_write32(kRcsBase + er::kTail, 0) && p.mmio_write32(kRcsBase + er::kStart, kRingGva) &&
         p.mmio_write32(kRcsBase + er::kCtl, ((kRingBytes / 4096 - 1) << 12) | 1);
    p.host.sync();
  });
  return ok;
}

// One submission of workload w; returns after the breadcrumb landed and the engine went idle.
void submit_batch(Platform& p, int w, core::Picoseconds expected_ps) {
  p.worker.submit([&p, w, expected_ps] {
    const std::uint32_t seq = ++p.seq;
    std::vector<std::uint32_t> ring;
    gen::mi::emit(ring, gen::mi::batch_buffer_start(batch_gva(w), false));
    gen::mi::emit(ring, gen::mi::store_data_imm(kBreadcrumbGva, seq));
    gen::mi::emit(ring, gen::mi::noop());
    p.put(kRingGva + p.tail, ring.data(), ring.size() * 4);
    p.tail = (p.tail + static_cast<std::uint32_t>(ring.size() * 4)) % kRingBytes;
    if (!p.mmio_write32(kRcsBase + gen::engine_reg::kTail, p.tail)) return;  // the caller finds no breadcrumb
    p.host.sync();
    // Most of the batch runs while we sleep once; then poll every microsecond, giving up (the caller reports the
    // missing breadcrumb) on an error, a hang, or 10 times the expected time.
    using State = gen::CommandStreamer::State;
    const core::Picoseconds give_up = core::now_ps() + 10 * expected_ps + core::kPsPerUs;
    sc_core::wait(core::to_sc_time(expected_ps));
    while (p.get32(kBreadcrumbGva) != seq || p.rcs->state() == State::kRunning) {
      const State st = p.rcs->state();
      if ((st != State::kRunning && st != State::kIdle) || core::now_ps() > give_up) break;
      sc_core::wait(core::to_sc_time(core::kPsPerUs));
    }
  });
}

std::string bench_name(int w, const Platform& p) { return std::string("cs/") + kWorkloads[w].name + "/" + p.tag; }

void run_cs(benchmark::State& state, int platform_index, int w) {
  Platform& p = *g_platforms[static_cast<std::size_t>(platform_index)];
  const WorkloadInfo& wl = kWorkloads[w];
  const CostModel cm(p.memory_access);
  const std::uint64_t lines = 2 + (batch_bytes(w) + 63) / 64;  // the batch starts 64-byte aligned
  const std::uint64_t sdis = (wl.kind == Kind::kSdi ? kBatchCommands : 0) + 1;
  const core::Picoseconds expected_no_miss =
      kBatchCommands * cm.batch_command_ps(wl.kind) + cm.overhead_ps() + lines * cm.line_fetch_ps();
  std::vector<std::uint32_t> readback(kBatchCommands);

  std::uint64_t batches = 0, sim_ps = 0, exp_ps = 0, misses_total = 0, exact_batches = 0;
  double host_ns = 0;
  std::string error;
  while (state.KeepRunningBatch(kBatchCommands)) {
    state.PauseTiming();
    if (wl.kind == Kind::kSdi) {
      p.dram.store().fill(kSdiGva + kPhysOffset, 0, 4ULL * kBatchCommands);
    } else if (wl.kind == Kind::kLri) {
      for (unsigned n = 0; n < kGprs; ++n) p.gpu.regs().at(kRcsBase + gen::engine_reg::kGpr0 + 8 * n).set(0);
    }
    const std::uint64_t cmds0 = p.rcs->commands_executed();
    const std::uint64_t lookups0 = p.client->hits() + p.client->misses(), misses0 = p.client->misses();
    const core::Picoseconds busy0 = p.busy->busy_ps;
    state.ResumeTiming();

    const double t0 = cpu_ns();
    submit_batch(p, w, expected_no_miss);
    host_ns += cpu_ns() - t0;

    state.PauseTiming();
    ++batches;
    const std::uint64_t misses = p.client->misses() - misses0;
    const std::uint64_t lookups = p.client->hits() + p.client->misses() - lookups0;
    const core::Picoseconds measured = p.busy->busy_ps - busy0;
    const core::Picoseconds expected = expected_no_miss + misses * cm.miss_ps();
    sim_ps += measured;
    exp_ps += expected;
    misses_total += misses;
    if (measured == expected) ++exact_batches;
    if (p.rcs->state() != gen::CommandStreamer::State::kIdle || !p.rcs->incidents().empty()) {
      error = "engine not idle after the batch (error or hang)";
    } else if (p.get32(kBreadcrumbGva) != p.seq) {
      error = "breadcrumb missing";
    } else if (p.rcs->ring().head_offset() != p.rcs->ring().tail_offset()) {
      error = "ring HEAD != TAIL after the breadcrumb";
    } else if (p.rcs->commands_executed() - cmds0 != kBatchCommands + 4) {
      error = "commands executed != batch + 4";
    } else if (lookups != lines + sdis) {
      error = "GTT lookups != line fetches + SDI writes";
    } else if (wl.kind == Kind::kSdi) {
      p.dram.store().read(kSdiGva + kPhysOffset, reinterpret_cast<unsigned char*>(readback.data()),
                          4ULL * kBatchCommands);
      for (std::uint32_t i = 0; i < kBatchCommands && error.empty(); ++i) {
        if (readback[i] != value_of(i)) error = "SDI buffer dword " + std::to_string(i) + " wrong";
      }
    } else if (wl.kind == Kind::kLri) {
      for (unsigned n = 0; n < kGprs && error.empty(); ++n) {
        const std::uint64_t v = p.gpu.regs().at(kRcsBase + gen::engine_reg::kGpr0 + 8 * n).value();
        if (v != value_of(kBatchCommands - kGprs + n)) error = "CS_GPR" + std::to_string(n) + " wrong after LRI";
      }
    }
    state.ResumeTiming();
    if (!error.empty()) break;
  }
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  const double cmds = static_cast<double>(batches) * kBatchCommands;
  const double fetch_ps = static_cast<double>(batches * lines * cm.line_fetch_ps() + misses_total * cm.miss_ps());
  const double overhead_ps = static_cast<double>(batches * cm.overhead_ps());
  Result r;
  r.host_ns = host_ns / cmds;
  r.cmd_per_s = cmds / (host_ns * 1e-9);
  r.sim_ns = static_cast<double>(sim_ps) / 1000.0 / cmds;
  r.exp_ns = static_cast<double>(exp_ps) / 1000.0 / cmds;
  r.cmd_ns = (static_cast<double>(sim_ps) - fetch_ps - overhead_ps) / 1000.0 / cmds;
  r.cfg_ns = static_cast<double>(cm.batch_command_ps(wl.kind)) / 1000.0;
  state.counters["cmd/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["host_ns/cmd"] = benchmark::Counter(r.host_ns);
  state.counters["sim_ns/cmd"] = benchmark::Counter(r.sim_ns);
  state.counters["exp_ns/cmd"] = benchmark::Counter(r.exp_ns);
  state.counters["sim/exp"] = benchmark::Counter(static_cast<double>(sim_ps) / static_cast<double>(exp_ps));
  state.counters["cmd_ns"] = benchmark::Counter(r.cmd_ns);
  state.counters["cfg_ns"] = benchmark::Counter(r.cfg_ns);
  state.counters["miss/batch"] = benchmark::Counter(static_cast<double>(misses_total) / static_cast<double>(batches));
  state.counters["exact"] = benchmark::Counter(static_cast<double>(exact_batches) / static_cast<double>(batches));
  g_results[bench_name(w, p)] = r;
}

void print_summary(std::FILE* out) {
  const CostModel cm("transport");  // the same costs as timed_dmi
  std::fprintf(out,
               "\nCost model (GPU clock %.3f ns): line fetch %.0f ns, TLB miss +%.0f ns, ring+BBE overhead %.0f ns "
               "per batch of %u commands\n",
               static_cast<double>(cm.period) / 1000.0, static_cast<double>(cm.line_fetch_ps()) / 1000.0,
               static_cast<double>(cm.miss_ps()) / 1000.0, static_cast<double>(cm.overhead_ps()) / 1000.0,
               kBatchCommands);
  std::fprintf(out, "%-22s %10s %9s %12s %12s %10s %10s %10s\n", "benchmark", "M cmd/s", "host ns", "sim ns/cmd",
               "expected", "sim/exp", "cmd ns", "config ns");
  for (int w = 0; w < 3; ++w) {
    for (const auto& p : g_platforms) {
      auto it = g_results.find(bench_name(w, *p));
      if (it == g_results.end()) continue;
      const Result& r = it->second;
      std::fprintf(out, "%-22s %10.2f %9.2f %12.4f %12.4f %10.6f %10.4f %10.4f\n", it->first.c_str(), r.cmd_per_s / 1e6,
                   r.host_ns, r.sim_ns, r.exp_ns, r.sim_ns / r.exp_ns, r.cmd_ns, r.cfg_ns);
    }
  }
  std::fprintf(out, "\nQuantum 10 us vs 1 us (commands/s ratio, host time):\n");
  for (int w = 0; w < 3; ++w) {
    auto a = g_results.find(bench_name(w, *g_platforms[0]));
    auto b = g_results.find(bench_name(w, *g_platforms[1]));
    if (a == g_results.end() || b == g_results.end()) continue;
    std::fprintf(out, "  %-5s %6.3fx  (%.2f vs %.2f M cmd/s; simulated time %s)\n", kWorkloads[w].name,
                 b->second.cmd_per_s / a->second.cmd_per_s, b->second.cmd_per_s / 1e6, a->second.cmd_per_s / 1e6,
                 a->second.sim_ns == b->second.sim_ns ? "identical" : "differs");
  }
  // Platforms: 0 q1us (timed_dmi), 1 q10us, 2 q1us_transport, 3 q1us_dmi.
  auto compare = [&](const char* title, std::size_t fast, std::size_t slow, bool same_time) {
    std::fprintf(out, "\n%s:\n", title);
    for (int w = 0; w < 3; ++w) {
      auto a = g_results.find(bench_name(w, *g_platforms[slow]));
      auto b = g_results.find(bench_name(w, *g_platforms[fast]));
      if (a == g_results.end() || b == g_results.end()) continue;
      std::fprintf(out, "  %-5s %6.3fx  (%.2f vs %.2f M cmd/s; simulated %.2f vs %.2f ns/cmd%s)\n", kWorkloads[w].name,
                   b->second.cmd_per_s / a->second.cmd_per_s, b->second.cmd_per_s / 1e6, a->second.cmd_per_s / 1e6,
                   b->second.sim_ns, a->second.sim_ns,
                   !same_time                             ? ""
                   : a->second.sim_ns == b->second.sim_ns ? ", identical"
                                                          : ", DIFFERS");
    }
  };
  compare(
      "GPU memory through timed DMI vs a bus transaction per access, quantum 1 us (gen.memory_access timed_dmi "
      "vs transport; the same simulated time, contention and statistics)",
      0, 2, true);
  compare(
      "GPU memory through plain DMI vs a bus transaction per access, quantum 1 us (gen.memory_access dmi vs "
      "transport; no contention or DRAM statistics with plain DMI)",
      3, 2, false);
  std::fprintf(out, "\nTarget (reported, not asserted): >= 20 M commands/s on this machine\n");
  for (int w = 0; w < 3; ++w) {
    for (const auto& p : g_platforms) {
      auto it = g_results.find(bench_name(w, *p));
      if (it == g_results.end()) continue;
      std::fprintf(out, "  %-22s %8.2f M/s  %s\n", it->first.c_str(), it->second.cmd_per_s / 1e6,
                   it->second.cmd_per_s >= 20e6 ? "MET" : "MISSED");
    }
  }
}

}  // namespace

int sc_main(int argc, char** argv) {
  bool console = true;
  if (!bench::start(argc, argv, console)) return 2;

  // Each platform's command streamer reads the global quantum when it is constructed.
  struct Variant {
    const char* tag;
    core::Picoseconds quantum;
    const char* memory_access;
  };
  for (const Variant& v :
       {Variant{"q1us", core::kPsPerUs, "timed_dmi"}, Variant{"q10us", 10 * core::kPsPerUs, "timed_dmi"},
        Variant{"q1us_transport", core::kPsPerUs, "transport"}, Variant{"q1us_dmi", core::kPsPerUs, "dmi"}}) {
    core::set_global_quantum(v.quantum);
    g_platforms.push_back(std::make_unique<Platform>(v.tag, v.quantum, v.memory_access));
  }
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaboration and initialisation: the workers wait for a job

  int status = 0;
  for (auto& p : g_platforms) {
    if (!setup(*p)) {
      std::fprintf(stderr, "bench_cs: platform %s setup failed\n", p->tag.c_str());
      status = 1;
    }
  }
  if (status == 0) {
    for (int w = 0; w < 3; ++w) {
      for (int i = 0; i < static_cast<int>(g_platforms.size()); ++i) {
        benchmark::RegisterBenchmark(bench_name(w, *g_platforms[static_cast<std::size_t>(i)]).c_str(),
                                     [i, w](benchmark::State& st) { run_cs(st, i, w); })
            ->Unit(benchmark::kMicrosecond);
      }
    }
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();

  std::FILE* out = console ? stdout : stderr;
  print_summary(out);
  const int finish_status = bench::finish(out);
  g_platforms.clear();
  return status == 0 ? finish_status : 1;
}

int main(int argc, char** argv) { return bench::run(argc, argv); }
