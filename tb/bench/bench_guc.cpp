// bench_guc: the GuC microcontroller driven the way i915 drives it. The i915-like driver model (tb/host) loads the
// firmware built from firmware/guc/ once, then sends SAMPLE_FORCEWAKE through the MMIO mailbox or the command
// transport channel and waits for each reply (SOFT_SCRATCH(0), or the fence in the send descriptor); a third
// benchmark resets the GuC and loads it again per iteration (boot ROM DMA, RSA check, start-up).
//
// Reported: mailbox round trips per host second (kIsRate), firmware instructions per host second (Unicorn plus the
// model's per-instruction accounting), the simulated round-trip latency in ns and in GuC cycles, and for boots the
// simulated load time. Compare the round trip with bench_execlists' submission-to-start latency: a GuC action costs
// the interrupt, the firmware's register reads and writes through the BAR and the host's polling.
//
// Submission rows: the same one-breadcrumb request on the render engine submitted through a GuC client (work item,
// doorbell, the firmware writing ELSP) and directly through ELSP; sim_ns/op is the simulated time from the host's
// submission to the breadcrumb it waits for. The engine work after the start is the same in both rows, so the
// difference is the GuC path's doorbell-to-ELSP cost (interrupt, work-queue reads, idle check, ELSP writes by the
// firmware); elsp_to_start_ns is the engine's mean ELSP-to-start latency (gen.rcs.submit_to_start_ps) over the row.
// The GuC row runs twice: with the firmware log at HIGH verbosity (GUC_CTL_DEBUG, the GucDriver's default: a line per
// doorbell, submission and completion, each character a graphics-memory write) and at LOW (errors only), the GuC
// reloaded in between, untimed.
#include <cstdio>
#include <cstdlib>
#include <systemc>

#include <benchmark/benchmark.h>

#include "firmware/guc/guc_abi.h"
#include "firmware/tools/guc_image.h"
#include "platform/platform.h"
#include "tb/bench/bench_support.h"
#include "tb/bench/platform_rig.h"
#include "tb/host/guc_driver.h"
#include "tb/host/i915_driver.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"

using namespace gpuvp;

namespace {

enum class Work { kMailbox, kCommandTransport, kBoot, kGucSubmit, kElspSubmit, kReload };

struct Rig : sc_core::sc_module {
  platform::Platform& soc;
  host::BusHostPort port;
  host::I915Driver driver;
  host::GucDriver guc;
  std::vector<std::uint8_t> image;
  host::GucDriver::Client client;
  host::I915Driver::Context* guc_context = nullptr;
  host::I915Driver::Context* elsp_context = nullptr;
  sc_core::sc_event go;
  Work work_kind = Work::kMailbox;
  int rounds = 0;
  int log_level = GUC_LOG_VERBOSITY_HIGH;  // for the next kReload (and every kBoot)
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
    guc.enable_submission({gen::Engine::kRcs});
    guc_context = &driver.create_context(gen::Engine::kRcs);
    elsp_context = &driver.create_context(gen::Engine::kRcs);
    ok = ok && guc.create_client(client, 1, 1) == GUC_REPLY_SUCCESS;
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
        } else if (work_kind == Work::kGucSubmit) {
          const std::uint32_t seqno = driver.emit_breadcrumb(*guc_context);
          guc.submit(client, *guc_context);
          ok = driver.wait_seqno(*guc_context, seqno, 1'000'000);
          guc.ct_receive();  // the completion events, as a driver drains them (a full buffer would drop them)
        } else if (work_kind == Work::kReload) {
          host::GucDriver::LoadOptions options;
          options.log_level = log_level;
          ok = guc.reset() && guc.load(image, options).ok && guc.ct_enable();
          guc.enable_submission({gen::Engine::kRcs});
          ok = ok && guc.create_client(client, 1, 1) == GUC_REPLY_SUCCESS;
        } else if (work_kind == Work::kElspSubmit) {
          const std::uint32_t seqno = driver.emit_breadcrumb(*elsp_context);
          driver.submit(*elsp_context);
          ok = driver.wait_seqno(*elsp_context, seqno, 1'000'000);
        } else {
          host::GucDriver::LoadOptions options;
          options.log_level = log_level;
          ok = guc.reset() && guc.load(image, options).ok && guc.ct_enable();
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
  auto& submit_to_start = core::stats().histogram("gpuvp.gen.rcs.submit_to_start_ps", "");
  const auto starts0 = submit_to_start.count();
  const auto start_ps0 = submit_to_start.sum();
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
  const double instructions = static_cast<double>(core::stats().counter_value(prefix + "instructions") - instructions0);
  const double sim_ns = static_cast<double>(rig->sim_in_work) / 1e3 / static_cast<double>(done);
  state.counters["firmware_instr/s"] = benchmark::Counter(instructions, benchmark::Counter::kIsRate);
  state.counters["instr/op"] = instructions / static_cast<double>(done);
  state.counters["sim_ns/op"] = sim_ns;
  state.counters["guc_cycles/op"] = sim_ns * static_cast<double>(rig->soc.params().gen.gpu.guc.clock_hz) / 1e9;
  if (submit_to_start.count() > starts0) {
    state.counters["elsp_to_start_ns"] = static_cast<double>(submit_to_start.sum() - start_ps0) / 1e3 /
                                         static_cast<double>(submit_to_start.count() - starts0);
  }
  state.counters["ops/s"] = benchmark::Counter(static_cast<double>(done), benchmark::Counter::kIsRate);
}

void BM_MailboxRoundTrip(benchmark::State& state) { run(state, Work::kMailbox, 64); }
BENCHMARK(BM_MailboxRoundTrip)->Unit(benchmark::kMicrosecond);

void BM_CommandTransportRoundTrip(benchmark::State& state) { run(state, Work::kCommandTransport, 64); }
BENCHMARK(BM_CommandTransportRoundTrip)->Unit(benchmark::kMicrosecond);

// Reloads the GuC with the firmware log at level (untimed).
void reload(int level) {
  rig->log_level = level;
  rig->work_kind = Work::kReload;
  rig->rounds = 1;
  rig->go.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
}

void BM_GucSubmissionToBreadcrumb(benchmark::State& state) { run(state, Work::kGucSubmit, 16); }
BENCHMARK(BM_GucSubmissionToBreadcrumb)->Unit(benchmark::kMicrosecond);

void BM_GucSubmissionToBreadcrumbLogLow(benchmark::State& state) {
  reload(GUC_LOG_VERBOSITY_LOW);
  if (!rig->ok) {
    state.SkipWithError("the GuC did not reload");
    return;
  }
  run(state, Work::kGucSubmit, 16);
  reload(GUC_LOG_VERBOSITY_HIGH);
}
BENCHMARK(BM_GucSubmissionToBreadcrumbLogLow)->Unit(benchmark::kMicrosecond);

void BM_ElspSubmissionToBreadcrumb(benchmark::State& state) { run(state, Work::kElspSubmit, 16); }
BENCHMARK(BM_ElspSubmissionToBreadcrumb)->Unit(benchmark::kMicrosecond);

void BM_ResetAndBoot(benchmark::State& state) { run(state, Work::kBoot, 4); }
BENCHMARK(BM_ResetAndBoot)->Unit(benchmark::kMillisecond);

}  // namespace

int sc_main(int argc, char** argv) {
  bool console = true;
  if (!bench::start(argc, argv, console)) return 2;
  rig = bench::default_platform_rig<Rig>();  // elaborate, load the firmware, pause
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
  return bench::finish();
}

int main(int argc, char** argv) { return bench::run(argc, argv); }
