// bench_vc4: host cost of the vc4 binner and tile renderer, driven the way the vc4 driver drives them: the vc4-like
// driver model (tb/host/vc4_driver) on the default platform submits
//   bin    : a binning list of kTriangles small triangles spread over a 1024x1024 frame (16x16 tiles), CT0 only;
//   render : the kernel's render-only clear of a 1024x1024 RGBA8888 frame (256 tiles), CT1 only;
//   frame  : both, CT1 waiting on the semaphore the binning FLUSH releases (the render list does not branch into the
//            tile lists: rasterisation is not modelled yet).
// Reported: triangles binned per host second and render-list packets per host second (kIsRate), and the modelled
// (simulated) time per job in microseconds at the configured V3D clock (vc4.v3d.clock_hz, 250 MHz by default).
// Correctness (fails the row): the job's flush / frame completes (BFC / RFC), and no SystemC warning or error.
#include <cstdio>
#include <cstdlib>
#include <systemc>
#include <vector>

#include <benchmark/benchmark.h>

#include "platform/platform.h"
#include "tb/bench/bench_support.h"
#include "tb/bench/platform_rig.h"
#include "tb/host/vc4_driver.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"
#include "tlm/vc4/v3d.h"

using namespace gpuvp;

namespace {

constexpr unsigned kTriangles = 2000;
constexpr unsigned kSize = 1024;

struct Rig : sc_core::sc_module {
  platform::Platform& soc;
  host::BusHostPort port;
  host::Vc4Driver driver;
  std::vector<std::uint8_t> bin;
  std::vector<std::uint8_t> render;
  std::vector<std::uint8_t> frame_render;
  sc_core::sc_event go;
  int mode = 0;  // 0 bin, 1 render, 2 frame
  int rounds = 0;
  bool ok = true;

  Rig(sc_core::sc_module_name n, platform::Platform& platform)
      : sc_module(n), soc(platform), port(soc.host(), 50), driver(port) {
    SC_HAS_PROCESS(Rig);
    SC_THREAD(work);
  }

  std::uint64_t v3d(std::uint32_t offset) const { return soc.params().vc4.base + offset; }

  void work() {
    driver.enable_interrupts();
    driver.supply_overspill();
    host::Vc4Scene scene;
    scene.width = kSize;
    scene.height = kSize;
    // Triangles of about 24 pixels on a pseudo-random but fixed grid: most touch one tile, some two or four.
    for (unsigned i = 0; i < kTriangles; ++i) {
      const float x = static_cast<float>((i * 397) % (kSize - 32)), y = static_cast<float>((i * 211) % (kSize - 32));
      scene.vertices.push_back({x, y});
      scene.vertices.push_back({x + 24, y + 4});
      scene.vertices.push_back({x + 6, y + 24});
      for (unsigned k = 0; k < 3; ++k) scene.indices.push_back(static_cast<std::uint16_t>((3 * i + k) & 0xFFFF));
    }
    bin = driver.build_bin_cl(scene);
    driver.bin_setup(bin);
    host::Vc4RenderSetup r;
    r.color_address = driver.alloc(kSize * kSize * 4).addr;
    r.width = kSize;
    r.height = kSize;
    r.use_clear_color = true;
    r.clear_color[0] = r.clear_color[1] = 0xFF000000;
    r.max_x_tile = kSize / 64 - 1;
    r.max_y_tile = kSize / 64 - 1;
    render = host::Vc4Driver::build_render_cl(r);
    frame_render = {vc4::packet::kWaitOnSemaphore};
    frame_render.insert(frame_render.end(), render.begin(), render.end());
    sc_core::sc_pause();
    for (;;) {
      sc_core::wait(go);
      for (int i = 0; i < rounds && ok; ++i) {
        if (mode == 0) {
          driver.submit(bin, {});
          ok = port.wait_for32(v3d(vc4::kV3dIntctl), vc4::kV3dIntFldone, vc4::kV3dIntFldone, 100'000'000);
          port.write32(v3d(vc4::kV3dIntctl), vc4::kV3dIntAll);
          // CT0 consumed its own increment: the semaphore goes back to 0 with a WAIT on CT1.
          driver.submit({}, {vc4::packet::kWaitOnSemaphore});
        } else {
          driver.submit(mode == 2 ? bin : std::vector<std::uint8_t>{}, mode == 2 ? frame_render : render);
          ok = driver.wait_frame(100'000'000, false);
        }
        ok = ok && port.failures().empty();
      }
      soc.host().sync();
      sc_core::sc_pause();
    }
  }
};

Rig* rig = nullptr;

// Runs `rounds` jobs of a mode; returns false (and skips the row) on failure.
bool run_jobs(benchmark::State& state, int mode, int rounds) {
  rig->mode = mode;
  rig->rounds = rounds;
  rig->go.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
  if (!rig->ok) state.SkipWithError("a job did not complete");
  return rig->ok;
}

// Argument: 0 bin, 1 render, 2 frame (see the top of the file).
void BM_Vc4(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  const auto prims0 = core::stats().counter_value("gpuvp.v3d.ptb.primitives");
  const auto packets0 = core::stats().counter_value("gpuvp.v3d.ct1.packets");
  const auto sim0 = core::now_ps();
  std::int64_t jobs = 0;
  while (state.KeepRunningBatch(1)) {
    if (!run_jobs(state, mode, 1)) return;
    ++jobs;
  }
  const double prims = static_cast<double>(core::stats().counter_value("gpuvp.v3d.ptb.primitives") - prims0);
  const double packets = static_cast<double>(core::stats().counter_value("gpuvp.v3d.ct1.packets") - packets0);
  const double sim_us = static_cast<double>(core::now_ps() - sim0) / 1e6 / static_cast<double>(jobs);
  if (mode == 0) state.counters["triangles/s"] = benchmark::Counter(prims, benchmark::Counter::kIsRate);
  if (mode == 1) state.counters["packets/s"] = benchmark::Counter(packets, benchmark::Counter::kIsRate);
  state.counters[mode == 2 ? "frame_us" : "sim_us/job"] = sim_us;
}
BENCHMARK(BM_Vc4)->Name("BM_BinTriangles")->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Vc4)->Name("BM_RenderListPackets")->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Vc4)->Name("BM_Frame")->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace

int sc_main(int argc, char** argv) {
  bool console = true;
  if (!bench::start(argc, argv, console)) return 2;
  rig = bench::default_platform_rig<Rig>();  // elaborate, build the lists, pause
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (console) {
    std::printf(
        "\nvc4 at %.0f MHz: %u triangles over %ux%u (16x16 tiles); frame_us is the modelled time of binning them "
        "and clearing + storing the frame; no target is asserted\n",
        static_cast<double>(rig->soc.params().vc4.v3d.clock_hz) / 1e6, kTriangles, kSize, kSize);
  }
  return bench::finish();
}

int main(int argc, char** argv) { return bench::run(argc, argv); }
