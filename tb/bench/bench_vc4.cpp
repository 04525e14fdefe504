// bench_vc4: host cost of the vc4 binner and tile renderer, driven the way the vc4 driver drives them: the vc4-like
// driver model (tb/host/vc4_driver) on the default platform submits
//   bin    : a binning list of kTriangles small triangles spread over a 1024x1024 frame (16x16 tiles), CT0 only;
//   render : the kernel's render-only clear of a 1024x1024 RGBA8888 frame (256 tiles), CT1 only;
//   frame  : both, CT1 waiting on the semaphore the binning FLUSH releases (the render list clears and stores: it does
//            not branch into the tile lists, so this row is the control lists' cost alone);
//   shaded : a full 1024x1024 frame of two triangles binned and rendered through the tile lists, every pixel shaded by
//            the driver's flat fragment shader on the 12 QPUs (the fill rate: issue 21).
//   fft    : the project's 256-point FFT on 8 QPUs (tb/host/qpu_programs), launched as GPU_FFT's direct mode does.
// Reported: triangles binned per host second and render-list packets per host second (kIsRate), and the modelled
// (simulated) time per job in microseconds at the configured V3D clock (vc4.v3d.clock_hz, 250 MHz by default). For the
// FFT (issue 20): transforms per host second, the QPUs' modelled time per transform (the longest busy QPU), the
// issue-bound time (its instructions x issue_cycles) and their ratio, and GPU_FFT's published 256-point time on a
// Pi 1 (17 us per transform in batches of 10, 33 us alone: gpu_fft.txt release 3.0) beside it for scale (a different
// program: GPU_FFT's radix-16 passes against the project's eight radix-2 ones).
// For the shaded frame: pixels shaded per host second (kIsRate; issue 21's target is 100 M/s), the modelled frame
// time, the modelled fill rate in Gpixel/s and its ratio to the published 1 Gpixel/s at 250 MHz (reference-vc4-qpu.md
// 7.2: one 2x2 quad a clock), and the QPUs' busy share of the frame (the 24 GFLOPS figure is the QPUs' peak; a flat
// shader does no arithmetic, so its share of QPU time is what the frame says about it).
// The rows wait for FLDONE / FRDONE on the V3D interrupt, as the Linux driver does (vc4_irq.c), so
// that they measure the model rather than a driver's busy loop of register reads.
// Correctness (fails the row): the job's flush / frame completes (BFC / RFC), the FFT's spectrum is right, and no
// SystemC warning or error.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <systemc>
#include <vector>

#include <benchmark/benchmark.h>

#include "platform/platform.h"
#include "tb/bench/bench_support.h"
#include "tb/bench/platform_rig.h"
#include "tb/host/qpu_programs.h"
#include "tb/host/vc4_driver.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"
#include "tlm/vc4/qpu/qpu_assembler.h"
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
  std::vector<std::uint8_t> shaded_bin, shaded_render;
  sc_core::sc_event go;
  host::QpuFft fft;
  std::vector<std::complex<float>> fft_input;
  int mode = 0;  // 0 bin, 1 render, 2 frame, 3 fft, 4 shaded
  int rounds = 0;
  bool ok = true;

  Rig(sc_core::sc_module_name n, platform::Platform& platform)
      : sc_module(n), soc(platform), port(soc.host(), 50, irq_lines(platform)), driver(port) {
    SC_HAS_PROCESS(Rig);
    SC_THREAD(work);
  }

  static std::vector<const core::InterruptLine*> irq_lines(platform::Platform& p) {
    std::vector<const core::InterruptLine*> lines;
    for (const auto& [name, line] : p.host_irqs()) lines.push_back(line);
    return lines;
  }
  std::uint64_t v3d(std::uint32_t offset) const { return soc.params().vc4.base + offset; }
  // Waits for `bits` of INTCTL as the Linux driver does, on the V3D interrupt (vc4_irq.c: the handler acknowledges
  // what it finds; OUTOMEM gets more binner memory), not by polling: what the rows measure is the model's host time,
  // not a busy loop's reads. False when `timeout_ns` of simulated time pass first.
  bool wait_interrupts(std::uint32_t bits, std::uint64_t timeout_ns) {
    const std::size_t vc4_line = 1;  // the platform's host interrupt lines: 0 gen, 1 vc4
    const core::Picoseconds deadline = core::now_ps() + timeout_ns * core::kPsPerNs;
    std::uint32_t seen = 0;
    for (;;) {
      const std::uint32_t status = port.read32(v3d(vc4::kV3dIntctl));
      if ((status & vc4::kV3dIntOutomem) != 0) driver.service_interrupts();
      seen |= status & bits;
      port.write32(v3d(vc4::kV3dIntctl), status & ~vc4::kV3dIntOutomem);
      if ((seen & bits) == bits) return true;
      const core::Picoseconds now = core::now_ps();
      if (now >= deadline || !port.wait_irq(vc4_line, (deadline - now) / core::kPsPerNs)) return false;
    }
  }
  std::uint32_t frame_address = 0;
  // A pixel of the shaded frame's last row.
  std::uint32_t sr_check_address() const { return frame_address + 4 * (kSize * (kSize - 1) + 517); }

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
    r.color_address = frame_address = driver.alloc(kSize * kSize * 4).addr;
    r.width = kSize;
    r.height = kSize;
    r.use_clear_color = true;
    r.clear_color[0] = r.clear_color[1] = 0xFF000000;
    r.max_x_tile = kSize / 64 - 1;
    r.max_y_tile = kSize / 64 - 1;
    render = host::Vc4Driver::build_render_cl(r);
    frame_render = {vc4::packet::kWaitOnSemaphore};
    frame_render.insert(frame_render.end(), render.begin(), render.end());
    // The shaded frame: two triangles covering the frame, the flat shader's colour.
    host::Vc4Scene full;
    full.width = full.height = kSize;
    const auto side = static_cast<float>(kSize);
    full.vertices = {{0, 0}, {side, 0}, {0, side}, {side, side}};
    full.indices = {0, 1, 2, 1, 3, 2};
    full.color = 0xFF80C040;
    shaded_bin = driver.build_bin_cl(full);
    const host::Vc4Driver::BinSetup setup = driver.bin_setup(shaded_bin);
    host::Vc4RenderSetup sr = r;
    sr.has_bin = true;
    sr.tile_alloc = setup.tile_alloc;
    sr.bin_tiles_x = setup.tiles_x;
    sr.bin_tiles_y = setup.tiles_y;
    shaded_render = host::Vc4Driver::build_render_cl(sr);
    // The FFT of (-1)^n: 256 at bin 128, 0 elsewhere.
    vc4::qpu::AssembledProgram program;
    std::string error;
    ok = vc4::qpu::assemble(host::fft_program_source(), program, error);
    for (unsigned n = 0; n < host::QpuFftShape::kPoints; ++n) fft_input.emplace_back(n % 2 == 0 ? 1.0F : -1.0F, 0.0F);
    fft = host::prepare_qpu_fft(driver, program.code, fft_input);
    sc_core::sc_pause();
    for (;;) {
      sc_core::wait(go);
      for (int i = 0; i < rounds && ok; ++i) {
        if (mode == 3) {
          const auto* bytes = reinterpret_cast<const std::uint8_t*>(fft_input.data());
          driver.upload(fft.data, 0, std::vector<std::uint8_t>(bytes, bytes + fft_input.size() * 8));
          ok = host::run_qpu_fft(driver, fft, 100'000'000);
          const std::vector<std::complex<float>> out = host::read_qpu_fft_result(port, fft);
          for (unsigned k = 0; k < out.size(); ++k) {
            ok = ok && std::abs(out[k] - std::complex<float>(k == 128 ? 256.0F : 0.0F, 0.0F)) < 1e-3F;
          }
        } else if (mode == 0) {
          driver.submit(bin, {});
          ok = wait_interrupts(vc4::kV3dIntFldone, 100'000'000);
          // CT0 consumed its own increment: the semaphore goes back to 0 with a WAIT on CT1.
          driver.submit({}, {vc4::packet::kWaitOnSemaphore});
        } else if (mode == 4) {
          driver.submit(shaded_bin, shaded_render);
          ok = wait_interrupts(vc4::kV3dIntFldone | vc4::kV3dIntFrdone, 100'000'000) &&
               port.read32(sr_check_address()) == 0xFF80C040;
        } else {
          driver.submit(mode == 2 ? bin : std::vector<std::uint8_t>{}, mode == 2 ? frame_render : render);
          ok = wait_interrupts(vc4::kV3dIntFrdone, 100'000'000);
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
void BM_QpuFft(benchmark::State& state) {
  // Per transform: the eight programs start together, so the longest busy QPU (the master, which waits for the
  // slaves at each barrier) is the transform's time on the QPUs.
  std::uint64_t busy = 0, issued = 0, busy_cycles_max = 0, instructions_max = 0;
  std::int64_t jobs = 0;
  while (state.KeepRunningBatch(1)) {
    std::vector<std::uint64_t> busy0, inst0;
    for (unsigned q = 0; q < 8; ++q) {
      busy0.push_back(core::stats().counter_value("gpuvp.v3d.qpus.qpu" + std::to_string(q) + ".busy_cycles"));
      inst0.push_back(core::stats().counter_value("gpuvp.v3d.qpus.qpu" + std::to_string(q) + ".instructions"));
    }
    if (!run_jobs(state, 3, 1)) return;
    busy_cycles_max = instructions_max = 0;
    for (unsigned q = 0; q < 8; ++q) {
      const std::string n = "gpuvp.v3d.qpus.qpu" + std::to_string(q);
      busy_cycles_max = std::max(busy_cycles_max, core::stats().counter_value(n + ".busy_cycles") - busy0[q]);
      instructions_max = std::max(instructions_max, core::stats().counter_value(n + ".instructions") - inst0[q]);
    }
    busy += busy_cycles_max;
    issued += instructions_max;
    ++jobs;
  }
  const double mhz = static_cast<double>(rig->soc.params().vc4.v3d.clock_hz) / 1e6;
  const double qpu_us = static_cast<double>(busy) / static_cast<double>(jobs) / mhz;
  const double issue_us =
      static_cast<double>(issued) * rig->soc.params().vc4.v3d.qpu.issue_cycles / static_cast<double>(jobs) / mhz;
  state.counters["ffts/s"] = benchmark::Counter(static_cast<double>(jobs), benchmark::Counter::kIsRate);
  state.counters["qpu_us/fft"] = qpu_us;
  state.counters["issue_bound_us"] = issue_us;
  state.counters["modelled/issue"] = qpu_us / issue_us;
  state.counters["gpu_fft_pi1_us"] = 17.0;
  state.counters["modelled/gpu_fft"] = qpu_us / 17.0;
}

void BM_ShadedFrame(benchmark::State& state) {
  const auto pixels0 = core::stats().counter_value("gpuvp.v3d.renderer.fragments_shaded");
  std::uint64_t busy0 = 0;
  const unsigned qpus = rig->soc.params().vc4.v3d.slices * rig->soc.params().vc4.v3d.qpus_per_slice;
  const auto busy_now = [&] {
    std::uint64_t b = 0;
    for (unsigned q = 0; q < qpus; ++q) {
      b += core::stats().counter_value("gpuvp.v3d.qpus.qpu" + std::to_string(q) + ".busy_cycles");
    }
    return b;
  };
  busy0 = busy_now();
  const auto sim0 = core::now_ps();
  std::int64_t jobs = 0;
  while (state.KeepRunningBatch(1)) {
    if (!run_jobs(state, 4, 1)) return;
    ++jobs;
  }
  const double pixels =
      static_cast<double>(core::stats().counter_value("gpuvp.v3d.renderer.fragments_shaded") - pixels0);
  const double frame_us = static_cast<double>(core::now_ps() - sim0) / 1e6 / static_cast<double>(jobs);
  const double mhz = static_cast<double>(rig->soc.params().vc4.v3d.clock_hz) / 1e6;
  const double gpix = pixels / static_cast<double>(jobs) / frame_us / 1e3;
  state.counters["pixels/s"] = benchmark::Counter(pixels, benchmark::Counter::kIsRate);
  state.counters["frame_us"] = frame_us;
  state.counters["modelled_gpix/s"] = gpix;
  state.counters["modelled/1gpix"] = gpix / 1.0;
  state.counters["qpu_busy_share"] =
      static_cast<double>(busy_now() - busy0) / static_cast<double>(jobs) / (frame_us * mhz * qpus);
}

BENCHMARK(BM_Vc4)->Name("BM_BinTriangles")->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Vc4)->Name("BM_RenderListPackets")->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Vc4)->Name("BM_Frame")->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QpuFft)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ShadedFrame)->Unit(benchmark::kMillisecond);

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
