#include "platform/demo/demo_workload.h"

#include <array>
#include <complex>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "firmware/guc/guc_abi.h"
#include "firmware/tools/guc_image.h"
#include "hw/gen/engine_regs.h"
#include "hw/gen/engines.h"
#include "hw/gen/execlist_regs.h"
#include "hw/gen/mi_commands.h"
#include "hw/vc4/packets.h"
#include "hw/vc4/v3d_regs.h"
#include "tb/host/gpgpu_driver.h"
#include "tb/host/gpgpu_kernels.h"
#include "tb/host/guc_driver.h"
#include "tb/host/i915_driver.h"
#include "tb/host/qpu_programs.h"
#include "tb/host/vc4_driver.h"
#include "tb/host/vc4_shaders.h"
#include "tlm/core/report.h"
#include "tlm/vc4/qpu/qpu_assembler.h"
#include "tlm/vc4/v3d.h"  // V3d::ident1_for: the IDENT1 value of the configured V3D

namespace gpuvp::demo {

using platform::PlatformParams;

namespace {
std::string hex(std::uint64_t v) { return core::format_hex(v); }

// Every wait of the demo is a poll that ends when the value is there; its time-out is only a budget for a platform
// configured much slower than the default (each wait takes well under 1 ms with ten times the DRAM latency).
constexpr std::uint64_t kBudgetNs = 10'000'000;

// A deterministic pattern so that every read-back has one right answer.
std::uint32_t pattern(gen::Engine e, std::uint32_t i) {
  return 0x9E3779B9u * (i + 1) ^ (static_cast<std::uint32_t>(e) + 1) << 24;
}

std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The GPGPU part (on the render engine's legacy ring, before it switches to execlists): two OpenCL-style dispatches
// that the project's GPGPU driver model lays out and emits as NEO does on Gen9 (heaps, binding table, interface
// descriptor, thread payload; PIPELINE_SELECT .. GPGPU_WALKER), each kernel running on the EU through the data port.
void gpgpu_demo(host::I915Driver& driver, host::ScriptHostPort& port, host::I915Driver::Ring& ring) {
  port.comment(
      "rcs: GPGPU, saxpy over 1024 work items (64 work-groups of 16), then 4 work-groups of 32 that reverse "
      "their IDs through shared local memory across a barrier and count themselves with a global atomic");
  host::GpgpuDriver gpgpu(driver);
  constexpr std::uint32_t kItems = 1024;
  constexpr float kScale = 1.5f;
  const auto a = driver.alloc(kItems * 4), b = driver.alloc(kItems * 4), c = driver.alloc(kItems * 4);
  std::vector<std::uint32_t> av(kItems), bv(kItems);
  for (std::uint32_t i = 0; i < kItems; ++i) {
    av[i] = float_bits(static_cast<float>(i) * 0.25f);
    bv[i] = float_bits(1000.0f - static_cast<float>(i));
  }
  driver.upload(a, 0, av);
  driver.upload(b, 0, bv);
  host::GpgpuKernel saxpy;
  saxpy.instructions = host::saxpy_kernel();
  saxpy.local_size = {16, 1, 1};
  saxpy.groups = {kItems / 16, 1, 1};
  saxpy.cross_thread.resize(4);
  std::memcpy(saxpy.cross_thread.data(), &kScale, 4);
  saxpy.surfaces = {a, b, c};
  gpgpu.dispatch(ring, saxpy);

  constexpr std::uint32_t kGroups = 4;
  const auto reversed = driver.alloc(kGroups * 32 * 4), counter = driver.alloc(4096);
  driver.upload(counter, 0, {0});
  host::GpgpuKernel reverse;
  reverse.instructions = host::slm_reverse_count_kernel();
  reverse.local_size = {32, 1, 1};
  reverse.groups = {kGroups, 1, 1};
  reverse.slm_bytes = 1024;
  reverse.barrier = true;
  reverse.cross_thread.resize(8);
  std::memcpy(reverse.cross_thread.data(), &counter.gfx, 8);
  reverse.surfaces = {reversed};
  gpgpu.dispatch(ring, reverse);

  const std::uint32_t seqno = driver.emit_breadcrumb(ring);
  driver.submit(ring);
  driver.wait_seqno(ring, seqno, kBudgetNs);
  port.comment("rcs: check saxpy's results (the multiply and the add round separately) and the reversal and count");
  const auto expected = [&](std::uint32_t i) {
    // Two statements: no contraction into a fused multiply-add, as the kernel does not fuse them.
    const float product = kScale * (static_cast<float>(i) * 0.25f);
    const float sum = product + (1000.0f - static_cast<float>(i));
    return float_bits(sum);
  };
  for (std::uint32_t i = 0; i < kItems; i += 73) port.expect32(c.phys + 4 * i, expected(i));
  port.expect32(c.phys + 4 * (kItems - 1), expected(kItems - 1));
  for (std::uint32_t i = 0; i < kGroups * 32; i += 13) port.expect32(reversed.phys + 4 * i, 31 - i % 32);
  port.expect32(counter.phys, kGroups * 32);
}

// The GuC part (after the execlists part, on the render engine): the i915 GuC load sequence with the built firmware,
// the CT channel, the render engine's interrupts captured for the GuC, and two clients of different priority whose
// work items the firmware submits through ELSP; the firmware reports both completions in the CT receive buffer.
void guc_demo(host::I915Driver& driver, host::ScriptHostPort& port) {
  namespace mi = gen::mi;
  const std::string path = firmware::default_firmware_path();
  if (!std::ifstream(path)) {
    port.comment("GuC part left out: no firmware image at " + path);
    return;
  }
  port.comment("GuC: load and authenticate the firmware, then submit through two clients' work queues");
  host::GucDriver guc(driver);
  // The load polls for the end of the DMA, checks the boot ROM's verdict and polls for uKernel READY.
  host::GucDriver::LoadOptions load;
  load.timeout_ns = kBudgetNs;
  guc.load(firmware::read_file(path), load);
  port.comment("GuC: the command transport buffers; a recording knows only that the mailbox answered, so check it");
  guc.ct_enable();
  port.expect32(driver.layout().bar + GUC_REG_SOFT_SCRATCH(0), GUC_REPLY_SUCCESS);
  guc.capture_interrupts({gen::Engine::kRcs});
  const auto results = driver.alloc(4096);
  host::GucDriver::Client clients[2];
  host::I915Driver::Context* contexts[2] = {};
  std::uint32_t seqnos[2] = {};
  for (std::uint32_t c = 0; c < 2; ++c) {
    guc.create_client(clients[c], 1 + c, 1 + c, c == 0 ? GUC_CLIENT_PRIORITY_NORMAL : GUC_CLIENT_PRIORITY_KMD_HIGH);
    port.expect32(driver.layout().bar + GUC_REG_SOFT_SCRATCH(0), GUC_REPLY_SUCCESS);
    contexts[c] = &driver.create_context(gen::Engine::kRcs);
    for (std::uint32_t d = 0; d < 8; ++d) {
      driver.emit(*contexts[c], mi::store_data_imm(results.gfx + 32 * c + 4 * d, 0x6C000000u | c << 8 | d));
    }
    seqnos[c] = driver.emit_breadcrumb(*contexts[c]);
    guc.submit(clients[c], *contexts[c]);
  }
  for (std::uint32_t c = 0; c < 2; ++c) driver.wait_seqno(*contexts[c], seqnos[c], kBudgetNs);
  port.comment("GuC: both work queues consumed, the stores landed, two completion events for the host");
  for (std::uint32_t c = 0; c < 2; ++c) {
    port.expect32(clients[c].desc() + GUC_PD_HEAD, GUC_WQ_ITEM_BYTES);
    port.expect32(results.phys + 32 * c + 28, 0x6C000000u | c << 8 | 7);
  }
  port.wait_for32(guc.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_TAIL, 2 * 16, ~0u, kBudgetNs);
}

// The Gen part: every configured engine runs a batch through its own ring, as i915 submits legacy rings, and the
// video engine waits on a semaphore the render engine releases. The driver model records it as a host script.
void gen_demo(const PlatformParams& params, std::ostream& s) {
  host::ScriptHostPort port;
  host::DriverLayout layout;
  layout.bar = params.gen.base;
  layout.memory_base = params.dram.base + 0x0100'0000;
  host::I915Driver driver(port, layout);
  const gen::EngineSelection& engines = params.gen.gpu.engines;
  namespace mi = gen::mi;
  using Alu = gen::mi::Alu;

  port.comment("Intel Gen: one batch per engine, submitted through legacy rings");
  const auto semaphore = driver.alloc(4096);
  driver.upload(semaphore, 0, {0});
  struct Job {
    gen::Engine engine;
    host::I915Driver::Ring* ring;
    host::I915Driver::Buffer results;
    std::uint32_t seqno;
  };
  std::vector<Job> jobs;
  constexpr std::uint32_t kDwords = 64;
  for (int i = 0; i < gen::kEngineCount; ++i) {
    const auto engine = static_cast<gen::Engine>(i);
    if (!engines.has(engine)) continue;
    const gen::EngineInfo& info = gen::engine_info(engine);
    port.comment(std::string(info.name) + ": ring, batch and results buffer");
    driver.enable_interrupts(engine);
    auto& ring = driver.create_ring(engine);
    const auto results = driver.alloc(4096);
    const auto batch = driver.alloc(4096);
    std::vector<std::uint32_t> cmds;
    if (engine == gen::Engine::kVcs0 && engines.rcs) {
      // Waits until the render engine has released the semaphore.
      mi::emit(cmds, mi::semaphore_wait(semaphore.gfx, 1, mi::Compare::kEqual));
    }
    for (std::uint32_t d = 0; d < kDwords; ++d)
      mi::emit(cmds, mi::store_data_imm(results.gfx + 4 * d, pattern(engine, d)));
    if (info.render) {
      // MI_MATH: R2 = R0 + R1, then stored after the pattern.
      const std::uint32_t gpr = info.mmio_base + gen::engine_reg::kGpr0;
      mi::emit(cmds, mi::load_register_imm({{gpr, 1000}, {gpr + 4, 0}, {gpr + 8, 234}, {gpr + 12, 0}}));
      mi::emit(cmds, mi::math({Alu::encode(Alu::kLoad, Alu::kSrcA, 0), Alu::encode(Alu::kLoad, Alu::kSrcB, 1),
                               Alu::encode(Alu::kAdd, 0, 0), Alu::encode(Alu::kStore, 2, Alu::kAccu)}));
      mi::emit(cmds, mi::store_register_mem(gpr + 16, results.gfx + 4 * kDwords));
      mi::emit(cmds, mi::store_data_imm(semaphore.gfx, 1));
      mi::emit(cmds, mi::pipe_control(mi::kPcCsStall | mi::kPcPostSyncImm | mi::kPcDestGgtt,
                                      results.gfx + 4 * kDwords + 8, 0x600DF00Dull));
    } else {
      mi::emit(cmds, mi::flush_dw(results.gfx + 4 * kDwords + 8, 0x600DF00D, true, false));
    }
    mi::emit(cmds, mi::batch_buffer_end());
    driver.upload(batch, 0, cmds);
    driver.emit(ring, mi::batch_buffer_start(batch.gfx, false));
    const std::uint32_t seqno = driver.emit_breadcrumb(ring);
    jobs.push_back({engine, &ring, results, seqno});
  }
  port.comment("submit everything, then wait for every breadcrumb");
  for (auto& job : jobs) driver.submit(*job.ring);
  for (auto& job : jobs) driver.wait_seqno(*job.ring, job.seqno, kBudgetNs);
  for (auto& job : jobs) {
    port.comment(std::string(gen::engine_info(job.engine).name) + ": check what it wrote");
    for (std::uint32_t d = 0; d < kDwords; d += 9) port.expect32(job.results.phys + 4 * d, pattern(job.engine, d));
    if (gen::engine_info(job.engine).render) port.expect32(job.results.phys + 4 * kDwords, 1234);
    port.expect32(job.results.phys + 4 * kDwords + 8, 0x600DF00D);
  }
  for (auto& job : jobs) {
    if (job.engine == gen::Engine::kRcs) gpgpu_demo(driver, port, *job.ring);
  }
  if (engines.rcs) {
    // Execlists: three logical ring contexts share the render engine; contexts 1 and 2 go in one ELSP pair,
    // context 3 follows when the pair completes. With --trace, each context is a span on the rcs track.
    port.comment("rcs switches to execlists: three contexts share the engine");
    driver.enable_execlists(gen::Engine::kRcs);
    const auto shared = driver.alloc(4096);
    std::vector<host::I915Driver::Context*> contexts;
    std::vector<std::uint32_t> seqnos;
    for (std::uint32_t c = 0; c < 3; ++c) {
      auto& ctx = driver.create_context(gen::Engine::kRcs);
      for (std::uint32_t d = 0; d < 16; ++d) {
        driver.emit(ctx, mi::store_data_imm(shared.gfx + 64 * c + 4 * d, (c + 1) << 16 | d));
      }
      seqnos.push_back(driver.emit_breadcrumb(ctx));
      contexts.push_back(&ctx);
    }
    // The CSB write pointer in the engine's status page says when the pair has completed: entry 2, active-to-idle.
    // The breadcrumb comes before the context save that writes it; a submission in between would preempt.
    const std::uint64_t csb_write =
        driver.engine_status_page(gen::Engine::kRcs).phys + gen::ExeclistRegs::kHwspCsbWriteDword * 4;
    driver.submit(*contexts[0], contexts[1]);
    driver.wait_seqno(*contexts[1], seqnos[1], kBudgetNs);
    port.wait_for32(csb_write, 2, ~0u, kBudgetNs);
    driver.submit(*contexts[2]);
    driver.wait_seqno(*contexts[2], seqnos[2], kBudgetNs);
    for (std::uint32_t c = 0; c < 3; ++c) {
      port.expect32(driver.seqno_address(*contexts[c]), seqnos[c]);
      port.expect32(shared.phys + 64 * c + 60, (c + 1) << 16 | 15);
    }
    // The context status buffer mirror: five entries (idle-to-active, element switch, active-to-idle, then
    // idle-to-active and active-to-idle for the third context); the write pointer ends at entry 4.
    port.wait_for32(csb_write, 4, ~0u, kBudgetNs);
    if (params.gen.gpu.guc.enabled) guc_demo(driver, port);
  }
  s << port.script();
}

// The QPUs: the project's 256-point FFT (tb/host/qpu_programs) as 8 user programs launched as gpu_fft's direct mode
// launches its own (SRQUA/SRQPC, SRQCS polled), passes synchronised by semaphores. The input (-1)^n makes every
// product exact: X[128] = 256, every other bin 0.
void qpu_demo(host::Vc4Driver& driver, host::ScriptHostPort& port) {
  port.comment("VideoCore IV QPUs: a 256-point FFT on 8 QPUs (TMU lookups, VPM, DMA stores, semaphores)");
  vc4::qpu::AssembledProgram program;
  std::string error;
  if (!vc4::qpu::assemble(host::fft_program_source(), program, error)) {
    throw std::logic_error("the demo's FFT program does not assemble: " + error);
  }
  constexpr unsigned kN = host::QpuFftShape::kPoints;
  std::vector<std::complex<float>> x(kN);
  for (unsigned n = 0; n < kN; ++n) x[n] = {n % 2 == 0 ? 1.0F : -1.0F, 0.0F};
  const host::QpuFft fft = host::prepare_qpu_fft(driver, program.code, x);
  host::run_qpu_fft(driver, fft, kBudgetNs);
  port.comment("FFT of (-1)^n: 256 at bin 128, 0 elsewhere (a few bins checked)");
  for (unsigned k : {0U, 1U, 64U, 127U, 128U, 129U, 255U}) {
    port.expect32(fft.data.addr + 8 * k, k == kN / 2 ? 0x43800000U : 0U);  // 256.0f
    port.expect32(fft.data.addr + 8 * k + 4, 0);
  }
}

// The vc4 part: the vc4-like driver model bins four overlapping triangles on CT0 (Mesa-style binning list, the
// kernel's bin memory set-up, an overflow block supplied in advance) while CT1 waits on the semaphore the binning
// FLUSH releases, then renders them into a 256x128 RGBA8888 frame (the kernel's render list, branching into the tile
// lists): each triangle's fragments run a shader of the demo's own on the QPUs that interpolates the vertices' colours,
// modulates them by a T-format checkerboard texture through TMU0, and passes Z to the depth test ("less", with
// updates). The green triangle is drawn first and nearest: the red one behind it stays hidden where they overlap; the
// textured one, last and nearest of all, covers a corner of the green one. `gpuvp --dump-fb FILE` writes the frame as
// a PNG.
// The demo texture's second colour (0xAARRGGBB).
constexpr std::uint32_t kDemoTexelColor = 0xFF3060C0;

// The frame: four triangles binned on CT0 and rendered on CT1 with the project's fragment shader, pixels checked.
void vc4_frame_demo(const PlatformParams& params, host::Vc4Driver& driver, host::ScriptHostPort& port) {
  port.comment("VideoCore IV: bin four triangles on CT0, render them into a 256x128 frame on CT1");
  driver.enable_interrupts();
  driver.supply_overspill();
  host::Vc4Scene scene;
  scene.width = 256;
  scene.height = 128;
  // Varyings: red, green, blue, then the texture coordinates s and t (0 outside the textured triangle: the white
  // texel at (0, 0) leaves a colour as it is).
  const auto v = [](float x, float y, float z, float r, float g, float b, float s = 0, float t = 0) {
    return host::Vc4Vertex{x, y, z, 1, {r, g, b, s, t, 0, 0, 0}};
  };
  scene.vertices = {v(100, 10, 0.25F, 0, 1, 0),     v(230, 60, 0.25F, 0, 1, 0),     v(60, 120, 0.25F, 0, 1, 0),
                    v(20, 10, 0.5F, 1, 0, 0),       v(150, 20, 0.5F, 1, 0, 0),      v(40, 110, 0.5F, 1, 0, 0),
                    v(160, 70, 0.75F, 1, 0, 0),     v(250, 120, 0.75F, 0, 1, 0),    v(170, 125, 0.75F, 0, 0, 1),
                    v(180, 4, 0.1F, 1, 1, 1, 0, 0), v(252, 4, 0.1F, 1, 1, 1, 2, 0), v(252, 64, 0.1F, 1, 1, 1, 2, 2)};
  scene.indices = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  // A 32x32 checkerboard of 8x8 squares (T-format: both sides over four micro-tiles), white where (x / 8 + y / 8)
  // is even, repeated twice across the last triangle.
  std::vector<std::uint32_t> texels(32 * 32);
  for (unsigned y = 0; y < 32; ++y) {
    for (unsigned x = 0; x < 32; ++x) texels[y * 32 + x] = ((x / 8 + y / 8) % 2 == 0) ? 0xFFFFFFFF : kDemoTexelColor;
  }
  const host::Vc4Driver::Texture texture = driver.upload_texture(32, 32, texels);
  scene.fragment_uniforms = {texture.p0, texture.p1};
  // Red, green and blue interpolated (partial * W + C per varying), packed into 0xAARRGGBB by the mul ALU's colour
  // packs (a float 0..1 to a byte), modulated by the texel at (s, t), Z passed through to the depth test.
  vc4::qpu::AssembledProgram shader;
  std::string error;
  if (!vc4::qpu::assemble(host::textured_color_fragment_shader_source(), shader, error)) {
    throw std::logic_error("the demo's fragment shader does not assemble: " + error);
  }
  scene.fragment_shader = shader.code;
  scene.varyings = 5;
  scene.depth_func = 1;  // less
  scene.depth_write = true;
  std::vector<std::uint8_t> bin = driver.build_bin_cl(scene);
  const host::Vc4Driver::BinSetup setup = driver.bin_setup(bin);
  const host::Vc4Driver::Buffer frame = driver.alloc(256 * 128 * 4);
  host::Vc4RenderSetup render;
  render.color_address = frame.addr;
  render.width = 256;
  render.height = 128;
  render.use_clear_color = true;
  render.clear_color[0] = render.clear_color[1] = 0xFF204080;
  render.clear_z = 0xFFFFFF;  // the far plane
  render.has_bin = true;
  render.tile_alloc = setup.tile_alloc;
  render.bin_tiles_x = setup.tiles_x;
  render.bin_tiles_y = setup.tiles_y;
  render.max_x_tile = 3;
  render.max_y_tile = 1;
  driver.submit(bin, host::Vc4Driver::build_render_cl(render));
  driver.wait_frame(kBudgetNs, false);
  port.comment("one binning flush, one frame; tile (0,0)'s list starts with its state");
  port.expect32(params.vc4.base + vc4::kV3dBfc, 1);
  port.expect32(params.vc4.base + vc4::kV3dRfc, 1);
  port.expect32(setup.tile_alloc, 0x1238, 0xFFFF);  // PRIMITIVE_LIST_FORMAT 0x12
  const auto pixel = [&](unsigned x, unsigned y) { return frame.addr + 4 * (256 * y + x); };
  port.comment(
      "pixels: red alone, green over red (nearer, drawn first), green alone, the shaded one, the texture's two "
      "colours, the clear colour");
  port.expect32(pixel(40, 30), 0xFFFF0000);
  port.expect32(pixel(110, 40), 0xFF00FF00);
  port.expect32(pixel(190, 60), 0xFF00FF00);
  port.expect32(pixel(175, 110), 0xFF000000, 0xFF000000);
  // (s, t) = ((x + 1/2 - 180) / 36, (y + 1/2 - 4) / 30): texels (18, 17) and (11, 17), nearest.
  port.expect32(pixel(236, 20), 0xFFFFFFFF);
  port.expect32(pixel(228, 20), kDemoTexelColor);
  port.expect32(pixel(250, 100), 0xFF204080);
  port.expect32(frame.addr + frame.size - 4, 0xFF204080);
}

void vc4_demo(const PlatformParams& params, unsigned parts, std::ostream& s) {
  host::ScriptHostPort port;
  host::Vc4Layout layout;
  layout.v3d = params.vc4.base;
  layout.memory_base = static_cast<std::uint32_t>(params.dram.base + 0x0600'0000);
  layout.memory_size = 0x0100'0000;
  host::Vc4Driver driver(port, layout);
  if ((parts & kDemoVc4Frame) != 0) vc4_frame_demo(params, driver, port);
  const bool fft_fits = params.vc4.v3d.slices * params.vc4.v3d.qpus_per_slice >= host::QpuFftShape::kPrograms;
  if ((parts & kDemoVc4Fft) != 0 && fft_fits) qpu_demo(driver, port);
  s << port.script();
}
}  // namespace

const std::vector<DemoWorkload>& demo_workloads() {
  static const std::vector<DemoWorkload> workloads{
      {"demo", kDemoAll, "the whole embedded demo (what gpuvp runs without a workload)"},
      {"demo-vc4", kDemoVc4Frame | kDemoVc4Fft, "the demo's VideoCore IV part: the frame, then the FFT"},
      {"demo-vc4-frame", kDemoVc4Frame, "the demo's vc4 frame: four triangles binned and shaded on the QPUs"},
      {"demo-vc4-fft", kDemoVc4Fft, "the demo's 256-point FFT as 8 QPU user programs"},
      {"demo-gen", kDemoGen, "the demo's Intel Gen part: rings, GPGPU, execlists and the GuC"},
  };
  return workloads;
}

const DemoWorkload* find_demo_workload(const std::string& name) {
  for (const DemoWorkload& w : demo_workloads()) {
    if (name == w.name) return &w;
  }
  return nullptr;
}

std::string demo_script(const PlatformParams& params, unsigned parts) {
  // The whole demo runs what the platform has; a part asked for by name must run, or the run would measure nothing.
  if (parts != kDemoAll) {
    const auto need = [](bool ok, const std::string& what) {
      if (!ok) throw std::runtime_error("this workload needs " + what);
    };
    if ((parts & (kDemoVc4Frame | kDemoVc4Fft)) != 0) {
      need(params.vc4.enabled, "the vc4 GPU (vc4.enabled=true)");
      need(params.dram.memory.size >= 0x0800'0000, "128 MiB of DRAM (dram.size) for the vc4 driver model");
    }
    const unsigned qpus = params.vc4.v3d.slices * params.vc4.v3d.qpus_per_slice;
    need((parts & kDemoVc4Fft) == 0 || qpus >= host::QpuFftShape::kPrograms,
         std::to_string(host::QpuFftShape::kPrograms) + " QPUs for the FFT; the platform has " + std::to_string(qpus) +
             " (vc4.v3d.slices x vc4.v3d.qpus_per_slice)");
    need((parts & kDemoGen) == 0 || (params.gen.enabled && params.dram.memory.size >= 0x0600'0000 + 0x0080'0000),
         "the Gen GPU (gen.enabled=true) and 104 MiB of DRAM (dram.size) for the i915 driver model");
  }
  std::ostringstream s;
  s << "# gpuvp demo workload: what `gpuvp` runs without a workload (`gpuvp run --dump-demo FILE` writes it).\n"
       "# Generated for one configuration (addresses, the engines and GPUs present), so run it with the same\n"
       "# --config/--set: gpuvp run --script FILE. Protocol: README, \"Host script protocol\". Every wait is a poll\n"
       "# (polll ADDR VALUE [MASK] TIMEOUT_NS) that ends when the value is there; the time-outs are only budgets.\n";
  if (params.vc4.enabled && (parts & (kDemoVc4Frame | kDemoVc4Fft)) != 0) {
    const std::uint64_t v3d = params.vc4.base;
    s << "# VideoCore IV: identify the V3D block as the vc4 driver's probe does\n"
      << "expectl " << hex(v3d + vc4::kV3dIdent0) << ' ' << hex(vc4::kV3dExpectedIdent0) << '\n'
      << "expectl " << hex(v3d + vc4::kV3dIdent1) << ' ' << hex(vc4::V3d::ident1_for(params.vc4.v3d)) << '\n'
      << "writel " << hex(v3d + vc4::kV3dScratch) << " 0xcafef00d\n"
      << "expectl " << hex(v3d + vc4::kV3dScratch) << " 0xcafef00d\n";
    // The vc4 driver model's memory lies at 96..112 MiB of DRAM.
    if (params.dram.memory.size >= 0x0800'0000) vc4_demo(params, parts, s);
  }
  const bool any_engine = params.gen.gpu.engines.rcs || params.gen.gpu.engines.bcs || params.gen.gpu.engines.vcs0 ||
                          params.gen.gpu.engines.vcs1 || params.gen.gpu.engines.vecs;
  // The driver model needs 16 MiB + 64 MiB of DRAM below the GGTT's stolen memory.
  if ((parts & kDemoGen) != 0 && params.gen.enabled && any_engine &&
      params.dram.memory.size >= 0x0600'0000 + 0x0080'0000) {
    gen_demo(params, s);
  }
  return s.str();
}

}  // namespace gpuvp::demo
