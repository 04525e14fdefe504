// Temporal decoupling is a host-speed knob, never a change in modelled results: the same workload at sim.quantum_ns
// 0, 1000 and 100000 gives the same interrupt times, register values and per-block busy times within the tolerance
// the README states (1 %). Each workload is a host script run by the gpuvp executable at the three quanta.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "firmware/guc/guc_abi.h"
#include "firmware/tools/guc_image.h"
#include "hw/gen/mi_commands.h"
#include "tb/host/guc_driver.h"
#include "tb/host/i915_driver.h"
#include "tb/host/vc4_driver.h"
#include "tb/host/vc4_shaders.h"
#include "tests/support/run_gpuvp.h"
#include "tlm/gen/command_streamer.h"
#include "tlm/gen/gt_interrupts.h"
#include "tlm/vc4/qpu/qpu_assembler.h"

using namespace gpuvp;
namespace mi = gen::mi;

namespace {

constexpr std::uint64_t kQuanta[] = {0, 1000, 100000};
constexpr double kTolerance = 0.01;

// What one run of a script answered and measured.
struct RunResult {
  std::vector<std::string> answers;       // stdout lines
  std::map<std::string, double> busy_ps;  // every busy tracker, by dotted path
  std::map<std::string, double> utilisation;
  double sim_time_ps = 0;
  std::uint64_t qpu_thread_switches = 0;  // the vc4 QPUs' thread switches, all QPUs
};

void collect_busy(const nlohmann::json& node, const std::string& path, RunResult& r) {
  if (!node.is_object()) return;
  if (node.contains("busy_ps") && node.contains("utilisation")) {
    r.busy_ps[path] = node["busy_ps"].get<double>();
    r.utilisation[path] = node["utilisation"].get<double>();
    return;
  }
  for (const auto& [key, child] : node.items()) collect_busy(child, path.empty() ? key : path + "." + key, r);
}

RunResult run_at(const std::string& script, std::uint64_t quantum_ns, const std::string& extra = "") {
  const std::string stats =
      script + "." + std::to_string(quantum_ns) + ".json";  // beside its script: tests run at once
  std::remove(stats.c_str());
  const test::ProcessResult p =
      test::run_gpuvp("run --quiet --script " + script + " --set sim.quantum_ns=" + std::to_string(quantum_ns) +
                      " --stats " + stats + " " + extra);
  EXPECT_EQ(p.exit_code, 0) << "quantum " << quantum_ns << " ns:\n" << p.out;
  RunResult r;
  std::istringstream lines(p.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("OK", 0) == 0 || line.rfind("ERR", 0) == 0) r.answers.push_back(line);
  }
  std::ifstream in(stats);
  if (!in) {
    ADD_FAILURE() << "no statistics written at quantum " << quantum_ns;
    return r;
  }
  const nlohmann::json doc = nlohmann::json::parse(in);
  r.sim_time_ps = doc["sim_time_ps"].get<double>();
  collect_busy(doc["stats"], "", r);
  for (const auto& [name, qpu] : doc["stats"]["gpuvp"]["v3d"]["qpus"].items()) {
    if (qpu.is_object() && qpu.contains("thread_switches"))
      r.qpu_thread_switches += qpu["thread_switches"].get<std::uint64_t>();
  }
  return r;
}

bool within(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b)) + 1e-9;
}

// The time an "OK TIME" answer (clock_step, irq_wait, poll) carries, or -1.
double answer_time(const std::string& answer) {
  if (answer.rfind("OK ", 0) != 0 || answer.rfind("OK 0x", 0) == 0) return -1;
  return std::stod(answer.substr(3));
}

// Runs the script at every quantum and compares each run with the quantum-0 one: the same answers (values exactly,
// times within the tolerance) and busy times within the tolerance, utilisation never above 100 %.
std::vector<RunResult> expect_invariant(const std::string& script) {
  std::vector<RunResult> runs;
  for (std::uint64_t q : kQuanta) runs.push_back(run_at(script, q));
  const RunResult& ref = runs[0];
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunResult& r = runs[i];
    SCOPED_TRACE("quantum " + std::to_string(kQuanta[i]) + " ns");
    EXPECT_EQ(r.answers.size(), ref.answers.size());
    for (std::size_t a = 0; a < std::min(r.answers.size(), ref.answers.size()); ++a) {
      const double t = answer_time(r.answers[a]), t0 = answer_time(ref.answers[a]);
      if (t < 0 || t0 < 0) {
        EXPECT_EQ(r.answers[a], ref.answers[a]) << "answer " << a;
      } else {
        EXPECT_TRUE(within(t, t0, kTolerance)) << "answer " << a << ": " << r.answers[a] << " vs " << ref.answers[a];
      }
    }
    for (const auto& [path, busy] : ref.busy_ps) {
      if (!r.busy_ps.count(path)) {
        ADD_FAILURE() << path << " missing";
        continue;
      }
      // Busy times of a few cycles differ by a cycle's rounding: 1 % or 10 ns, whichever is larger.
      EXPECT_TRUE(std::fabs(r.busy_ps.at(path) - busy) <= std::max(kTolerance * busy, 10'000.0))
          << path << ": " << r.busy_ps.at(path) << " ps vs " << busy << " ps at quantum 0";
    }
    for (const auto& [path, u] : r.utilisation) EXPECT_LE(u, 1.0) << path;
  }
  return runs;
}

std::string save(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

// A script recorded from the i915-like driver, with host lines of the test's own added between its parts.
class Recorder {
 public:
  Recorder() : driver_(port_) {}
  host::I915Driver& driver() { return driver_; }
  host::ScriptHostPort& port() { return port_; }
  // Adds a line at this point of the recording.
  void line(const std::string& text) {
    text_ += port_.script().substr(taken_);
    taken_ = port_.script().size();
    text_ += text + "\n";
  }
  std::string script() { return text_ + port_.script().substr(taken_); }

 private:
  host::ScriptHostPort port_;
  host::I915Driver driver_;
  std::string text_;
  std::size_t taken_ = 0;
};

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

constexpr std::uint32_t kBar = 0xE0000000;
constexpr std::uint32_t kIir0 = kBar + gen::GtInterrupts::kGtIsrBase + 8;  // GEN8_GT_IIR(0)

}  // namespace

// The first case: one MI_STORE_DATA_IMM and MI_USER_INTERRUPT on the render ring. The interrupt reaches the
// host when the engine executes MI_USER_INTERRUPT, whatever the quantum.
TEST(QuantumInvariance, RingStoreAndUserInterrupt) {
  Recorder rec;
  auto& d = rec.driver();
  const auto data = d.alloc(4096);
  d.enable_interrupts(gen::Engine::kRcs);
  auto& ring = d.create_ring(gen::Engine::kRcs, 4096);
  d.emit(ring, mi::store_data_imm(data.gfx, 0x600DF00D));
  d.emit(ring, mi::user_interrupt());
  d.submit(ring);
  rec.line("irq_wait gen 1000000");
  rec.line("readl " + hex(kBar + gen::engine_info(gen::Engine::kRcs).mmio_base + gen::engine_reg::kHead));
  rec.line("expectl " + hex(kIir0) + " 0x1 0x1");
  rec.line("expectl " + hex(data.phys) + " 0x600df00d");
  const auto runs = expect_invariant(save("qinv_ring.gpuvp", rec.script()));
  // The interrupt is a result of the engine's work: exactly the same time at every quantum.
  ASSERT_GE(runs[0].answers.size(), 1u);
  for (const auto& r : runs) {
    const auto it =
        std::find_if(r.answers.begin(), r.answers.end(), [](const std::string& a) { return answer_time(a) > 0; });
    ASSERT_NE(it, r.answers.end());
  }
}

// The second case: a batch of 512 stores (about 70 us of work). Completion and busy time do not move with
// the quantum, and the engine is busy at most 100 % of the run.
std::string long_batch_script(const std::string& name) {
  Recorder rec;
  auto& d = rec.driver();
  const auto data = d.alloc(512 * 4);
  const auto batch = d.alloc(4096 * 4);
  std::vector<std::uint32_t> dwords;
  for (std::uint32_t i = 0; i < 512; ++i) {
    const auto sdi = mi::store_data_imm(data.gfx + 4 * i, 0xB0000000u + i);
    dwords.insert(dwords.end(), sdi.begin(), sdi.end());
  }
  const auto end = mi::batch_buffer_end();
  dwords.insert(dwords.end(), end.begin(), end.end());
  d.upload(batch, 0, dwords);
  d.enable_interrupts(gen::Engine::kRcs);
  auto& ring = d.create_ring(gen::Engine::kRcs, 4096);
  d.emit(ring, mi::batch_buffer_start(batch.gfx, /*ppgtt=*/false));
  d.emit(ring, mi::user_interrupt());
  d.submit(ring);
  rec.line("irq_wait gen 10000000");
  rec.line("expectl " + hex(data.phys + 4 * 511) + " " + hex(0xB0000000u + 511));
  return save(name, rec.script());
}

TEST(QuantumInvariance, LongBatchCompletesAtTheSameTime) {
  const auto runs = expect_invariant(long_batch_script("qinv_batch.gpuvp"));
  for (const auto& r : runs) {
    ASSERT_TRUE(r.busy_ps.count("gpuvp.gen.rcs.busy"));
    EXPECT_GT(r.busy_ps.at("gpuvp.gen.rcs.busy"), 20e6);  // tens of microseconds of work, counted
  }
}

// Execlists: a context submitted through ELSP; the context-switch interrupts (CSB) and the breadcrumb's user
// interrupt reach the host at the same times at every quantum, and the CSB holds the same entries.
TEST(QuantumInvariance, ExeclistContextSwitchInterrupts) {
  Recorder rec;
  auto& d = rec.driver();
  const auto data = d.alloc(4096);
  d.enable_interrupts(gen::Engine::kRcs, gen::GtInterrupts::kContextSwitch);
  d.enable_execlists(gen::Engine::kRcs);
  auto& ctx = d.create_context(gen::Engine::kRcs);
  for (std::uint32_t i = 0; i < 64; ++i) d.emit(ctx, mi::store_data_imm(data.gfx + 4 * i, i * 3));
  d.emit(ctx, mi::user_interrupt());
  d.submit(ctx);
  // Idle-to-active, then the user interrupt, then active-to-idle: three host interrupts, each cleared in IIR.
  for (int n = 0; n < 3; ++n) {
    rec.line("irq_wait gen 1000000");
    rec.line("readl " + hex(kIir0));
    rec.line("writel " + hex(kIir0) + " 0xffffffff");
  }
  const std::uint32_t base = gen::engine_info(gen::Engine::kRcs).mmio_base;
  rec.line("readl " + hex(kBar + base + gen::Execlists::kCsbPointer));
  rec.line("readl " + hex(kBar + base + gen::Execlists::kCsbBase));
  expect_invariant(save("qinv_execlists.gpuvp", rec.script()));
}

// Everything the demo runs (vc4 binning and rendering, every Gen engine through rings, execlists, GuC submission):
// the per-block busy times, the GuC core's among them, and the demo's completion (it polls for every result, so its
// simulated time is the time its work took) do not move with the quantum.
TEST(QuantumInvariance, DemoBusyTimes) {
  std::vector<RunResult> runs;
  for (std::uint64_t q : kQuanta) {
    const std::string stats = ::testing::TempDir() + "qinv_demo_" + std::to_string(q) + ".json";
    const test::ProcessResult p =
        test::run_gpuvp("run --quiet --set sim.quantum_ns=" + std::to_string(q) + " --stats " + stats);
    ASSERT_EQ(p.exit_code, 0) << p.out;
    std::ifstream in(stats);
    const auto doc = nlohmann::json::parse(in);
    RunResult r;
    collect_busy(doc["stats"], "", r);
    r.sim_time_ps = doc["sim_time_ps"].get<double>();
    runs.push_back(r);
  }
  for (const char* block : {"gpuvp.gen.rcs.busy", "gpuvp.gen.bcs.busy", "gpuvp.gen.vcs0.busy", "gpuvp.gen.vcs1.busy",
                            "gpuvp.gen.vecs.busy", "gpuvp.gen.guc.busy", "gpuvp.v3d.ct0.busy", "gpuvp.v3d.ct1.busy"}) {
    ASSERT_TRUE(runs[0].busy_ps.count(block)) << block;
    EXPECT_GT(runs[0].busy_ps.at(block), 0) << block;
  }
  for (std::size_t i = 1; i < runs.size(); ++i) {
    SCOPED_TRACE("quantum " + std::to_string(kQuanta[i]) + " ns");
    EXPECT_LE(std::fabs(runs[i].sim_time_ps - runs[0].sim_time_ps), kTolerance * runs[0].sim_time_ps)
        << runs[i].sim_time_ps << " ps vs " << runs[0].sim_time_ps << " ps at quantum 0";
    for (const auto& [path, busy] : runs[0].busy_ps) {
      EXPECT_TRUE(std::fabs(runs[i].busy_ps.at(path) - busy) <= std::max(kTolerance * busy, 10'000.0))
          << path << ": " << runs[i].busy_ps.at(path) << " ps vs " << busy << " ps at quantum 0";
    }
    for (const auto& [path, u] : runs[i].utilisation) EXPECT_LE(u, 1.0) << path;
  }
}

// vc4 through the GL shader path (issue 21): the coordinate and vertex shaders and the fragment shaders of twelve
// overlapping triangles with the depth test and early Z, run as a host script recorded from the vc4 driver model. The
// frame (every pixel an expect), the frame's completion time and the V3D's busy times do not move with the quantum.
void expect_vc4_gl_scene_invariant(bool threaded) {
  const auto assembled = [](const std::string& source) {
    vc4::qpu::AssembledProgram program;
    std::string error;
    EXPECT_TRUE(vc4::qpu::assemble(source, program, error)) << error;
    return program.code;
  };
  host::ScriptHostPort port;
  host::Vc4Driver driver(port);
  driver.enable_interrupts();
  driver.supply_overspill();
  host::Vc4Scene scene;
  scene.width = 128;
  scene.height = 64;
  for (unsigned t = 0; t < 12; ++t) {
    const float x = static_cast<float>(8 * t), z = static_cast<float>(t % 5) / 5.0F + 0.1F;
    const float r = static_cast<float>(t % 3) / 2.0F, g = static_cast<float>(t % 4) / 3.0F;
    for (const auto& [vx, vy] : {std::pair{x, 4.0F}, std::pair{x + 40, 20.0F}, std::pair{x + 8, 60.0F}}) {
      scene.vertices.push_back({vx, vy, z, t % 2 != 0 ? 0.5F : 1.0F, {r, g, 1.0F - r}});
    }
    for (unsigned k = 0; k < 3; ++k) scene.indices.push_back(static_cast<std::uint16_t>(3 * t + k));
  }
  // Threaded: a thread switch first, so that batches sharing a QPU take turns.
  scene.fragment_shader =
      assembled((threaded ? "sig_switch nop\nnop\nnop\n" : "") + host::interpolated_color_fragment_shader_source());
  scene.threaded_fragment_shader = threaded;
  scene.varyings = 3;
  scene.depth_func = 1;  // less
  scene.depth_write = true;
  scene.early_z = true;
  scene.coordinate_shader = assembled(host::scene_coordinate_shader_source());
  scene.vertex_shader = assembled(host::scene_vertex_shader_source());
  std::vector<std::uint8_t> bin = driver.build_bin_cl(scene);
  const host::Vc4Driver::BinSetup setup = driver.bin_setup(bin);
  const host::Vc4Driver::Buffer fb = driver.alloc(128 * 64 * 4);
  host::Vc4RenderSetup r;
  r.color_address = fb.addr;
  r.width = 128;
  r.height = 64;
  r.use_clear_color = true;
  r.clear_z = 0xFFFFFF;
  r.has_bin = true;
  r.tile_alloc = setup.tile_alloc;
  r.bin_tiles_x = setup.tiles_x;
  r.bin_tiles_y = setup.tiles_y;
  r.max_x_tile = setup.tiles_x - 1;
  r.max_y_tile = setup.tiles_y - 1;
  driver.submit(bin, host::Vc4Driver::build_render_cl(r));
  driver.wait_frame(5'000'000, false);
  // Every seventh pixel read back (the answers hold the values; the frame's completion is the poll's time).
  for (unsigned i = 0; i < 128 * 64; i += 7) port.read32(fb.addr + 4 * i);
  const std::vector<RunResult> runs =
      expect_invariant(save(threaded ? "qinv_vc4_gl_threaded.gpuvp" : "qinv_vc4_gl.gpuvp", port.script()));
  // The frame is drawn: the triangles' flat colours among the pixels read besides the clear colour 0.
  std::set<std::string> colours;
  for (const std::string& a : runs[0].answers) {
    if (a.rfind("OK 0x", 0) == 0) colours.insert(a);
  }
  EXPECT_GE(colours.size(), 10u);
  // Threaded, batches shared QPUs at every quantum. Which batches pair up depends on when the scheduler sees them (a
  // front end behind the scheduler's clock hands its batch over late), so the count of switches may differ a little
  // with the quantum; the times above stay within the tolerance.
  for (const RunResult& run : runs) {
    if (!threaded) {
      EXPECT_EQ(run.qpu_thread_switches, 0u);
      continue;
    }
    EXPECT_GT(run.qpu_thread_switches, 0u);
    EXPECT_TRUE(
        within(static_cast<double>(run.qpu_thread_switches), static_cast<double>(runs[0].qpu_thread_switches), 0.1))
        << run.qpu_thread_switches << " thread switches against " << runs[0].qpu_thread_switches << " at quantum 0";
  }
}

TEST(QuantumInvariance, Vc4GlSceneWithEarlyZ) { expect_vc4_gl_scene_invariant(false); }

// The same scene with a threaded fragment shader (two batches per QPU taking turns at a thread switch).
TEST(QuantumInvariance, Vc4GlSceneWithThreadedFragmentShaders) { expect_vc4_gl_scene_invariant(true); }

// The GuC core (issue 23): an image of 100,000 straight-line NOPs that then reports READY and halts, loaded the way
// i915 loads it. The core's busy time (its own instruction times, from the jump to HLT) is exactly the same at every
// quantum, and the driver sees READY at the same time; at quantum 0 the core runs gen.guc.min_slice_instructions per
// Unicorn start (it used to start Unicorn per instruction, minutes of host time for this script).
TEST(QuantumInvariance, GucStraightLineFirmware) {
  constexpr std::size_t kNops = 100'000;
  std::vector<std::uint8_t> code(kNops, 0x90);
  // mov dword [GUC_LAPIC_BASE + GUC_LAPIC_UKERNEL_STATUS], GUC_UKERNEL_READY; hlt; jmp back to the hlt
  const std::uint32_t status_reg = GUC_LAPIC_BASE + GUC_LAPIC_UKERNEL_STATUS;
  code.insert(code.end(), {0xC7, 0x05});
  for (int shift = 0; shift < 32; shift += 8) code.push_back(static_cast<std::uint8_t>(status_reg >> shift));
  code.insert(code.end(), {GUC_UKERNEL_READY, 0, 0, 0, 0xF4, 0xEB, 0xFD});
  Recorder rec;
  host::GucDriver guc(rec.driver());
  guc.load(firmware::pack_image(code, firmware::test_key_path(), 0x090100));
  rec.line("expectl " + hex(kBar + GUC_REG_STATUS) + " " + hex(GUC_STATUS_MIA_HALT_REQUESTED) + " " +
           hex(GUC_STATUS_MIA_HALT_REQUESTED));
  const auto runs = expect_invariant(save("qinv_guc.gpuvp", rec.script()));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ASSERT_TRUE(runs[i].busy_ps.count("gpuvp.gen.guc.busy"));
    // The NOPs, the status write and the HLT at 2.5 ns each (400 MHz, one cycle an instruction).
    EXPECT_EQ(runs[i].busy_ps.at("gpuvp.gen.guc.busy"), (kNops + 2) * 2500.0) << "quantum " << kQuanta[i];
  }
}

// Utilisation is honest at both ends. A run cut short by sim.time_limit_ns in the middle of the batch counts the work
// in progress up to the cut (the engine's busy span is still open), and no block is ever busy more than the run.
TEST(Utilisation, WorkInProgressCountsUpToTheEndOfTheRun) {
  const std::string script = long_batch_script("util_batch.gpuvp");
  const RunResult full = run_at(script, 1000);
  ASSERT_EQ(full.answers.size() > 0, true);
  double irq_ps = -1;
  for (const auto& a : full.answers) {
    if (answer_time(a) > 0) irq_ps = answer_time(a) * 1000;
  }
  ASSERT_GT(irq_ps, 0);
  const double busy_full = full.busy_ps.at("gpuvp.gen.rcs.busy");
  const double start_ps = irq_ps - busy_full;  // the engine runs from the TAIL write to its user interrupt
  ASSERT_GT(start_ps, 0);
  const double cut_ps = start_ps + busy_full / 2;
  for (std::uint64_t q : kQuanta) {
    SCOPED_TRACE("quantum " + std::to_string(q) + " ns");
    const std::string stats = script + ".cut" + std::to_string(q) + ".json";
    const test::ProcessResult p = test::run_gpuvp(
        "run --quiet --script " + script + " --set sim.quantum_ns=" + std::to_string(q) +
        " --set sim.time_limit_ns=" + std::to_string(static_cast<std::uint64_t>(cut_ps / 1000)) + " --stats " + stats);
    std::ifstream in(stats);
    ASSERT_TRUE(in) << p.out;
    const nlohmann::json doc = nlohmann::json::parse(in);
    RunResult cut;
    collect_busy(doc["stats"], "", cut);
    const double rcs = cut.busy_ps.at("gpuvp.gen.rcs.busy");
    // Busy from the start of the batch up to the cut: half the batch's busy time, within 1 % (and a few cycles).
    EXPECT_NEAR(rcs, cut_ps - start_ps, std::max(0.01 * (cut_ps - start_ps), 10'000.0));
    for (const auto& [path, u] : cut.utilisation) {
      EXPECT_LE(u, 1.0) << path;
      EXPECT_GE(u, 0.0) << path;
    }
    EXPECT_GT(cut.utilisation.at("gpuvp.gen.rcs.busy"), 0.4);
    EXPECT_GT(cut.busy_ps.at("gpuvp.dram.busy"), 0);
  }
}

// The vc4 threads likewise: the demo cut at 30 us, in the middle of its frame, counts the render thread's work so far
// (it was reported as 0 before), and the binning thread's finished work.
TEST(Utilisation, Vc4ThreadsCountWorkInProgress) {
  const std::string stats = ::testing::TempDir() + "util_vc4.json";
  const test::ProcessResult p = test::run_gpuvp("run --quiet --set sim.time_limit_ns=30000 --stats " + stats);
  std::ifstream in(stats);
  ASSERT_TRUE(in) << p.out;
  RunResult cut;
  collect_busy(nlohmann::json::parse(in)["stats"], "", cut);
  EXPECT_GT(cut.busy_ps.at("gpuvp.v3d.ct0.busy"), 0);
  EXPECT_GT(cut.busy_ps.at("gpuvp.v3d.ct1.busy"), 0);
  for (const auto& [path, u] : cut.utilisation) EXPECT_LE(u, 1.0) << path;
}

// A GTT fault on the first fetch of a ring stops the engine with an error at once: its busy time is the few cycles
// it ran, never more than the run (it read 111.7 % before).
TEST(Utilisation, EngineStoppedByAFaultIsNeverBusyBeyondTheRun) {
  Recorder rec;
  auto& d = rec.driver();
  d.enable_interrupts(gen::Engine::kBcs);
  const std::uint32_t base = gen::engine_info(gen::Engine::kBcs).mmio_base;
  rec.line("writel " + hex(kBar + base + gen::engine_reg::kStart) + " 0x7f000000");  // not mapped in the GGTT
  rec.line("writel " + hex(kBar + base + gen::engine_reg::kCtl) + " 0x1");           // 4 KiB, enabled
  rec.line("writel " + hex(kBar + base + gen::engine_reg::kTail) + " 0x40");
  rec.line("irq_wait gen 100000");
  rec.line("expectl " + hex(kBar + base + gen::engine_reg::kEir) + " 0x10 0x10");  // page table error
  rec.line("clock_step 100");
  const std::string script = save("util_fault.gpuvp", rec.script());
  for (std::uint64_t q : kQuanta) {
    SCOPED_TRACE("quantum " + std::to_string(q) + " ns");
    const std::string stats = script + "." + std::to_string(q) + ".json";
    test::run_gpuvp("run --quiet --script " + script + " --set sim.quantum_ns=" + std::to_string(q) + " --stats " +
                    stats);
    std::ifstream in(stats);
    ASSERT_TRUE(in);
    RunResult r;
    collect_busy(nlohmann::json::parse(in)["stats"], "", r);
    for (const auto& [path, u] : r.utilisation) EXPECT_LE(u, 1.0) << path;
    EXPECT_LT(r.busy_ps.at("gpuvp.gen.bcs.busy"), 1'000'000);  // a few cycles, not the run
  }
}
