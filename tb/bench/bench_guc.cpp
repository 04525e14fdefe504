// bench_guc: the GuC microcontroller driven the way i915 drives it. The i915-like driver model (tb/host) loads the
// firmware built from firmware/guc/ once, then sends SAMPLE_FORCEWAKE through the MMIO mailbox or the command
// transport channel and waits for each reply (SOFT_SCRATCH(0), or the fence in the send descriptor); a third
// benchmark resets the GuC and loads it again per iteration (boot ROM DMA, RSA check, start-up).
//
// Reported: mailbox round trips per host second (kIsRate), firmware instructions per host second (Unicorn plus the
// model's per-instruction accounting), the simulated round-trip latency in ns and in GuC cycles, and for boots the
// simulated load time. Compare the round trip with bench_execlists' submission-to-start latency: a GuC action costs
// the interrupt, the firmware's register reads and writes through the BAR and the host's polling.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include <systemc>

#include "firmware/guc/guc_abi.h"
#include "firmware/tools/guc_image.h"
#include "platform/platform.h"
#include "tb/bench/bench_support.h"
#include "tb/host/guc_driver.h"
#include "tb/host/i915_driver.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"

using namespace gpuvp;

namespace {

enum class Work { kMailbox, kCommandTransport, kBoot };

struct Rig : sc_core::sc_module {
  platform::Platform& soc;
  host::BusHostPort port;
  host::I915Driver driver;
  host::GucDriver guc;
  std::vector<std::uint8_t> image;
  sc_core::sc_event go;
  Work work_kind = Work::kMailbox;
  int rounds = 0;
  bool ok = true;
  core::Picoseconds sim_in_work = 0;

  Rig(sc_core::sc_module_name n, platform::Platform& platform)
      : sc_module(n), soc(platform), port(soc.host(), 20), driver(port), guc(driver) {
    SC_HAS_PROCESS(Rig);
    SC_THREAD(work);
  }

  void work() {
    image = firmware::read_file(firmware::default_firmware_path());
    ok = guc.load(image).ok && guc.ct_enable();
    sc_core::sc_pause();
    for (;;) {
      sc_core::wait(go);
      for (int i = 0; i < rounds && ok; ++i) {
        soc.host().sync();
        const core::Picoseconds start = core::now_ps();
        if (work_kind == Work::kMailbox) {
          ok = guc.send({GUC_ACTION_SAMPLE_FORCEWAKE, 3}) == GUC_REPLY_SUCCESS;
        } else if (work_kind == Work::kCommandTransport) {
          ok = guc.ct_send({GUC_ACTION_SAMPLE_FORCEWAKE, 3}) == GUC_REPLY_SUCCESS;
        } else {
          ok = guc.reset() && guc.load(image).ok && guc.ct_enable();
        }
        soc.host().sync();
        sim_in_work += core::now_ps() - start;
      }
      sc_core::sc_pause();
    }
  }
};

Rig* rig = nullptr;

void run(benchmark::State& state, Work kind, int batch) {
  const std::string prefix = "gpuvp.gen.guc.";
  const auto instructions0 = core::stats().counter_value(prefix + "instructions");
  rig->sim_in_work = 0;
  rig->work_kind = kind;
  std::int64_t done = 0;
  while (state.KeepRunningBatch(batch)) {
    rig->rounds = batch;
    rig->go.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    if (!rig->ok) {
      state.SkipWithError("the GuC did not answer");
      return;
    }
    done += batch;
  }
  const double instructions =
      static_cast<double>(core::stats().counter_value(prefix + "instructions") - instructions0);
  const double sim_ns = static_cast<double>(rig->sim_in_work) / 1e3 / static_cast<double>(done);
  state.counters["firmware_instr/s"] = benchmark::Counter(instructions, benchmark::Counter::kIsRate);
  state.counters["instr/op"] = instructions / static_cast<double>(done);
  state.counters["sim_ns/op"] = sim_ns;
  state.counters["guc_cycles/op"] = sim_ns * static_cast<double>(rig->soc.params().gen.gpu.guc.clock_hz) / 1e9;
  state.counters["ops/s"] = benchmark::Counter(static_cast<double>(done), benchmark::Counter::kIsRate);
}

void BM_MailboxRoundTrip(benchmark::State& state) { run(state, Work::kMailbox, 64); }
BENCHMARK(BM_MailboxRoundTrip)->Unit(benchmark::kMicrosecond);

void BM_CommandTransportRoundTrip(benchmark::State& state) { run(state, Work::kCommandTransport, 64); }
BENCHMARK(BM_CommandTransportRoundTrip)->Unit(benchmark::kMicrosecond);

void BM_ResetAndBoot(benchmark::State& state) { run(state, Work::kBoot, 4); }
BENCHMARK(BM_ResetAndBoot)->Unit(benchmark::kMillisecond);

}  // namespace

int sc_main(int argc, char** argv) {
  bool console = true;
  if (!bench::start(argc, argv, console)) return 2;
  auto* soc = new platform::Platform("gpuvp", platform::PlatformParams{});
  rig = new Rig("rig", *soc);
  sc_core::sc_start();  // elaborate, load the firmware, pause
  if (!rig->ok) {
    std::fprintf(stderr, "bench_guc: the firmware did not load or refused the CT buffers\n");
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (console) {
    std::printf("\nGuC firmware instructions: %llu\n",
                static_cast<unsigned long long>(core::stats().counter_value("gpuvp.gen.guc.instructions")));
  }
  const auto problems = core::ReportLog::count(sc_core::SC_WARNING) + core::ReportLog::count(sc_core::SC_ERROR);
  std::printf("SystemC warnings/errors: %zu\n", problems);
  return problems ? 1 : 0;
}

int main(int argc, char** argv) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
