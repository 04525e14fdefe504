// bench_rtl: the same workload with the C++ ring pointer (gen.ring_model=tlm) and with the verilated rtl/ring_ptr.sv
// behind its clocked adapter, clocked once per operation (gen.ring_model=rtl) or on every engine clock cycle
// (gen.ring_model=rtl_lockstep, the platform rows only), side by side:
//   ring/<model>     the ring pointer alone, driven as a command streamer drives it: the driver moves TAIL by 1 KiB,
//                    then for every command bytes_available(), head_address() and consume(4, 12 or 16 bytes), until
//                    the ring is empty; 16 KiB ring, so it wraps every 16 submissions. Counted: commands.
//   ring/cxx         the same with gen::RingPointer called directly (the cost of the tlm/rtl dispatch is the
//                    difference to ring/tlm)
//   platform/<model> the whole SoC: an i915-like driver (tb/host) fills a 16 KiB RCS ring with 1000 MI_NOOPs and a
//                    breadcrumb per submission and waits for it. Counted: engine commands executed.
//   stores/<model>   the same with 250 MI_STORE_DATA_IMMs to a GGTT buffer per submission instead of the NOOPs: each
//                    command waits out a DRAM write (about 70 engine cycles instead of 6), which costs a lockstep RTL
//                    block a clock per cycle and the other models nothing. The ratio depends on simulated cycles per
//                    command; both workloads are printed.
// The summary prints each ratio TLM/RTL and the target (the TLM ring pointer at least 100x faster than the RTL),
// which is reported, not asserted. Correctness (fails the row): the ring is empty with HEAD == TAIL after every
// submission, the breadcrumb arrives, and both models end with identical registers.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <systemc>

#include <benchmark/benchmark.h>

#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "rtl/rtl_ring_pointer.h"
#include "tb/bench/bench_support.h"
#include "tb/host/i915_driver.h"
#include "tlm/core/report.h"
#include "tlm/gen/ring_pointer.h"

using namespace gpuvp;

namespace {

constexpr std::uint32_t kRingBytes = 16 * 1024;
constexpr std::uint32_t kSubmitBytes = 1024;
// The driver polls the breadcrumb once per quantum: a finer poll would make the host's bus reads and kernel round
// trips, the same in every mode, the bulk of the platform rows.
constexpr std::uint64_t kPollNs = 1000;
std::map<std::string, double> g_rate;  // commands per second, by benchmark name

// ---- the ring pointer alone ----

template <typename Ring>
std::uint64_t drive_ring(Ring& ring, int submissions, std::uint32_t& sink) {
  std::uint64_t commands = 0;
  for (int s = 0; s < submissions; ++s) {
    ring.write_tail((ring.tail_offset() + kSubmitBytes) % kRingBytes);
    while (!ring.empty()) {
      const std::uint32_t avail = ring.bytes_available();
      sink += ring.head_address();
      const std::uint32_t len = 4 + 4 * static_cast<std::uint32_t>(commands % 4 == 0 ? 0 : commands % 3 + 1);
      ring.consume(len < avail ? len : avail);
      ++commands;
    }
  }
  return commands;
}

template <typename Ring>
void BM_Ring(benchmark::State& state, Ring& ring) {
  ring.write_start(0x100000);
  ring.write_ctl((kRingBytes - 4096) | gen::RingPointer::kCtlEnable);
  std::uint32_t sink = 0;
  std::uint64_t commands = 0;
  constexpr int kSubmissions = 64;
  while (state.KeepRunning()) commands += drive_ring(ring, kSubmissions, sink);
  benchmark::DoNotOptimize(sink);
  if (ring.head_offset() != ring.tail_offset()) state.SkipWithError("HEAD != TAIL after the submissions");
  state.SetItemsProcessed(static_cast<std::int64_t>(commands));
  state.counters["cmd/s"] = benchmark::Counter(static_cast<double>(commands), benchmark::Counter::kIsRate);
  state.counters["wraps"] = ring.wrap_count();
}

// ---- the whole platform ----

struct Rig : sc_core::sc_module {
  platform::Platform& soc;
  host::BusHostPort port;
  host::I915Driver driver;
  host::I915Driver::Ring* ring = nullptr;
  sc_core::sc_event go;
  int rounds = 0;
  bool stores = false;  // the workload: NOOPs or SDIs
  bool ok = true;

  Rig(sc_core::sc_module_name n, platform::Platform& platform)
      : sc_module(n), soc(platform), port(soc.host(), kPollNs), driver(port) {
    SC_HAS_PROCESS(Rig);
    SC_THREAD(work);
  }
  void work() {
    ring = &driver.create_ring(gen::Engine::kRcs, kRingBytes);
    const host::I915Driver::Buffer target = driver.alloc(4096);
    sc_core::sc_pause();
    const std::vector<std::uint32_t> noops(1000, gen::mi::noop()[0]);
    std::vector<std::uint32_t> sdis;
    for (std::uint32_t i = 0; i < 250; ++i) {
      const std::vector<std::uint32_t> sdi = gen::mi::store_data_imm(target.gfx + 4 * i, i);
      sdis.insert(sdis.end(), sdi.begin(), sdi.end());
    }
    for (;;) {
      sc_core::wait(go);
      for (int i = 0; i < rounds && ok; ++i) {
        driver.emit(*ring, stores ? sdis : noops);
        const std::uint32_t seqno = driver.emit_breadcrumb(*ring);
        driver.submit(*ring);
        ok = driver.wait_seqno(*ring, seqno, 1'000'000);
      }
      soc.host().sync();
      sc_core::sc_pause();
    }
  }
};

std::map<std::string, Rig*> g_rigs;

void BM_Platform(benchmark::State& state, const std::string& model, bool stores) {
  Rig& rig = *g_rigs.at(model);
  rig.stores = stores;
  gen::CommandStreamer& rcs = *rig.soc.gen()->engine(gen::Engine::kRcs);
  // One untimed round first: a lockstep block catches up on every clock cycle simulated since it last ran (the
  // other rows advance the shared kernel's time), which is not the steady state this row measures.
  rig.rounds = 1;
  rig.go.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
  const std::uint64_t commands0 = rcs.commands_executed();
  constexpr int kRounds = 4;
  while (state.KeepRunning()) {
    rig.rounds = kRounds;
    rig.go.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    if (!rig.ok) {
      state.SkipWithError("a breadcrumb did not arrive");
      return;
    }
  }
  if (rcs.ring().head_offset() != rcs.ring().tail_offset()) state.SkipWithError("HEAD != TAIL after the rounds");
  const double commands = static_cast<double>(rcs.commands_executed() - commands0);
  state.counters["cmd/s"] = benchmark::Counter(commands, benchmark::Counter::kIsRate);
}

// Collects cmd/s per benchmark for the summary.
class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      auto it = r.counters.find("cmd/s");
      // Rate counters arrive already divided by the run's CPU time.
      if (it != r.counters.end() && !r.error_occurred) g_rate[r.benchmark_name()] = it->second.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

int sc_main(int argc, char** argv) {
  bool console = true;
  if (!bench::start(argc, argv, console)) return 2;
  rtl::register_ring_model();
  for (const char* model : {"tlm", "rtl", "rtl_lockstep"}) {
    platform::PlatformParams params;
    params.gen.gpu.ring_model = model;
    auto* soc = new platform::Platform(model, params);
    g_rigs[model] = new Rig((std::string("rig_") + model).c_str(), *soc);
  }
  sc_core::sc_start();  // elaborate, create the rings, pause
  // ring/cxx: gen::RingPointer called directly, to show what the command streamer's tlm/rtl dispatch costs.
  benchmark::RegisterBenchmark("ring/cxx", [](benchmark::State& s) {
    gen::RingPointer ring;
    BM_Ring(s, ring);
  });
  benchmark::RegisterBenchmark("ring/tlm", [](benchmark::State& s) {
    gen::EngineRingPointer ring;
    BM_Ring(s, ring);
  });
  benchmark::RegisterBenchmark("ring/rtl", [](benchmark::State& s) {
    gen::EngineRingPointer ring;
    ring.attach(std::make_unique<rtl::RtlRingPointer>(), nullptr);
    BM_Ring(s, ring);
  });
  for (const char* workload : {"platform", "stores"}) {
    for (const char* model : {"tlm", "rtl", "rtl_lockstep"}) {
      const bool stores = std::string(workload) == "stores";
      const std::string m = model;
      benchmark::RegisterBenchmark((std::string(workload) + "/" + model).c_str(), [m, stores](benchmark::State& s) {
        BM_Platform(s, m, stores);
      })->Unit(benchmark::kMillisecond);
    }
  }
  Collector collector;
  if (console) {
    benchmark::RunSpecifiedBenchmarks(&collector);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  if (console) {
    std::printf("\nTLM / RTL speed ratio (commands per host second):\n");
    const double cxx = g_rate["ring/cxx"], tlm = g_rate["ring/tlm"];
    if (cxx > 0 && tlm > 0) std::printf("  dispatch  %9.3fx  (ring/cxx vs ring/tlm)\n", cxx / tlm);
    std::printf("Target (reported, not asserted): TLM >= 100x faster than RTL\n");
    for (const char* row : {"ring/rtl", "platform/rtl", "platform/rtl_lockstep", "stores/rtl", "stores/rtl_lockstep"}) {
      const std::string level = std::string(row).substr(0, std::string(row).find('/'));
      const double t = g_rate[level + "/tlm"], r = g_rate[row];
      if (t > 0 && r > 0) {
        std::printf("  %-22s %9.1fx  (%.3f vs %.3f M cmd/s)  %s\n", row, t / r, t / 1e6, r / 1e6,
                    t / r >= 100 ? "MET" : "MISSED");
      }
    }
  }
  return bench::finish();
}

int main(int argc, char** argv) { return bench::run(argc, argv); }
