// bench_execlists: context switches per host second and the simulated submission-to-start latency of execlists,
// driven the way i915 drives them: the i915-like driver model (tb/host) submits pairs of small logical ring
// contexts through ELSP on the render engine of the default platform and waits for their breadcrumbs.
//
// One benchmark iteration = one ELSP pair (two contexts, each a breadcrumb). Reported: context switches per host
// second (kIsRate), host ns per switch, simulated ns per switch, and the mean simulated submission-to-start latency
// from the engine's `submit_to_start_ps` histogram, in ns and GPU cycles. The cost model's knobs are
// gen.cs.context_restore_cycles / context_save_cycles plus the register writes and image traffic of each switch.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <systemc>

#include <benchmark/benchmark.h>

#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "tb/bench/bench_support.h"
#include "tb/bench/platform_rig.h"
#include "tb/host/i915_driver.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"
#include "tlm/gen/execlists.h"

using namespace gpuvp;

namespace {

// The SoC and a worker thread that runs batches of submissions between sc_pause()s.
struct Rig : sc_core::sc_module {
  platform::Platform& soc;
  host::BusHostPort port;
  host::I915Driver driver;
  host::I915Driver::Context* a = nullptr;
  host::I915Driver::Context* b = nullptr;
  sc_core::sc_event go;
  int rounds = 0;
  bool ok = true;

  Rig(sc_core::sc_module_name n, platform::Platform& platform)
      : sc_module(n), soc(platform), port(soc.host(), 20), driver(port) {
    SC_HAS_PROCESS(Rig);
    SC_THREAD(work);
  }

  void work() {
    driver.enable_execlists(gen::Engine::kRcs);
    a = &driver.create_context(gen::Engine::kRcs, 64 * 1024);
    b = &driver.create_context(gen::Engine::kRcs, 64 * 1024);
    sc_core::sc_pause();
    for (;;) {
      sc_core::wait(go);
      for (int i = 0; i < rounds && ok; ++i) {
        const auto sa = driver.emit_breadcrumb(*a);
        const auto sb = driver.emit_breadcrumb(*b);
        driver.submit(*a, b);
        ok = driver.wait_seqno(*b, sb, 100'000) && driver.wait_seqno(*a, sa, 1'000);
        // As i915 does, the next pair goes in only once the CSB says the engine went idle: resubmitting a context
        // that is still active as element 1 would let its saved image overwrite the new TAIL.
        bool idle = false;
        for (int polls = 0; ok && !idle && polls < 1000; ++polls) {
          for (const auto& e : driver.process_csb(gen::Engine::kRcs))
            idle = idle || (e.status & gen::Execlists::kActiveToIdle);
          if (!idle) {
            soc.host().sync();
            sc_core::wait(50, sc_core::SC_NS);
          }
        }
        ok = ok && idle;
      }
      soc.host().sync();
      sc_core::sc_pause();
    }
  }
};

Rig* rig = nullptr;

void BM_ExeclistPairs(benchmark::State& state) {
  const std::string prefix = "gpuvp.gen.rcs.";
  const auto switches0 = core::stats().counter_value(prefix + "context_switches");
  const auto sim0 = core::now_ps();
  const auto& latency = core::stats().histogram(prefix + "submit_to_start_ps");
  const auto lat_count0 = latency.count();
  const auto lat_sum0 = latency.sum();
  std::int64_t pairs = 0;
  constexpr int kBatch = 256;
  while (state.KeepRunningBatch(kBatch)) {
    rig->rounds = kBatch;
    rig->go.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    if (!rig->ok) {
      state.SkipWithError("a breadcrumb did not arrive");
      return;
    }
    pairs += kBatch;
  }
  const double switches = static_cast<double>(core::stats().counter_value(prefix + "context_switches") - switches0);
  const double sim_ns = static_cast<double>(core::now_ps() - sim0) / 1e3;
  const double lat_n = static_cast<double>(latency.count() - lat_count0);
  const double lat_ns = lat_n > 0 ? static_cast<double>(latency.sum() - lat_sum0) / lat_n / 1e3 : 0.0;
  state.counters["switches/s"] = benchmark::Counter(switches, benchmark::Counter::kIsRate);
  state.counters["sim_ns/switch"] = switches > 0 ? sim_ns / switches : 0.0;
  state.counters["submit_to_start_ns"] = lat_ns;
  state.counters["submit_to_start_cycles"] = lat_ns * static_cast<double>(rig->soc.params().gen.gpu.clock_hz) / 1e9;
  state.counters["pairs"] = static_cast<double>(pairs);
}
BENCHMARK(BM_ExeclistPairs)->Unit(benchmark::kMicrosecond);

}  // namespace

int sc_main(int argc, char** argv) {
  bool console = true;
  if (!bench::start(argc, argv, console)) return 2;
  rig = bench::default_platform_rig<Rig>();  // elaborate, create the contexts, pause
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const auto& latency = core::stats().histogram("gpuvp.gen.rcs.submit_to_start_ps");
  std::printf("\nContext switches: %llu; submission-to-start latency: mean %.1f ns, min %.1f ns, max %.1f ns\n",
              static_cast<unsigned long long>(core::stats().counter_value("gpuvp.gen.rcs.context_switches")),
              latency.count() ? static_cast<double>(latency.sum()) / static_cast<double>(latency.count()) / 1e3 : 0.0,
              static_cast<double>(latency.min()) / 1e3, static_cast<double>(latency.max()) / 1e3);
  return bench::finish();
}

int main(int argc, char** argv) { return bench::run(argc, argv); }
