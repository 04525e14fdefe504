// The --trace timeline of whole runs, through the executable: a track for the GuC core, each CLE thread and every
// engine with spans named after what ran (boot, interrupt vector, list address and frame, batch address, context),
// and bandwidth counter tracks whose samples add up to the byte counters of the statistics.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "hw/gen/mi_commands.h"
#include "tb/host/i915_driver.h"
#include "tests/support/run_gpuvp.h"

using namespace gpuvp;
namespace mi = gen::mi;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Per process: CTest runs the cases of this suite at once.
std::string temp(const std::string& name) {
  return ::testing::TempDir() + "gpuvp_trace_tracks_" + std::to_string(::getpid()) + "_" + name;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

struct Span {
  std::string name;
  double ts;   // microseconds
  double dur;  // microseconds
  nlohmann::json args;
  double end() const { return ts + dur; }
};

// A parsed trace: spans per track name, counter samples per counter name.
struct Trace {
  std::map<std::string, std::vector<Span>> spans;
  std::map<std::string, std::vector<std::pair<double, double>>> counters;  // (ts, value)
  std::vector<std::string> tracks;

  explicit Trace(const std::string& path) {
    const nlohmann::json doc = nlohmann::json::parse(slurp(path));
    std::map<int, std::string> names;
    for (const auto& e : doc.at("traceEvents")) {
      if (e.at("ph") == "M" && e.at("name") == "thread_name") {
        names[e.at("tid").get<int>()] = e.at("args").at("name").get<std::string>();
        tracks.push_back(e.at("args").at("name").get<std::string>());
      }
    }
    for (const auto& e : doc.at("traceEvents")) {
      if (e.at("ph") == "X") {
        spans[names.at(e.at("tid").get<int>())].push_back({e.at("name").get<std::string>(), e.at("ts").get<double>(),
                                                           e.at("dur").get<double>(),
                                                           e.value("args", nlohmann::json())});
      } else if (e.at("ph") == "C") {
        counters[e.at("name").get<std::string>()].emplace_back(e.at("ts").get<double>(),
                                                               e.at("args").at("value").get<double>());
      }
    }
  }
  // Spans on a track whose name starts with prefix.
  std::vector<Span> named(const std::string& track, const std::string& prefix) const {
    std::vector<Span> out;
    auto it = spans.find(track);
    if (it == spans.end()) return out;
    for (const auto& s : it->second) {
      if (s.name.rfind(prefix, 0) == 0) out.push_back(s);
    }
    return out;
  }
  double counter_sum(const std::string& name) const {
    double sum = 0;
    auto it = counters.find(name);
    if (it != counters.end()) {
      for (const auto& [ts, v] : it->second) sum += v;
    }
    return sum;
  }
};

// Whether inner lies within outer (timestamps are exact to the picosecond; allow for the double's rounding).
bool within(const Span& inner, const Span& outer) {
  return inner.ts >= outer.ts - 1e-9 && inner.end() <= outer.end() + 1e-9;
}
bool within_any(const Span& inner, const std::vector<Span>& outers) {
  for (const auto& o : outers) {
    if (within(inner, o)) return true;
  }
  return false;
}

const nlohmann::json& stat(const nlohmann::json& stats, const std::string& dotted) {
  const nlohmann::json* node = &stats.at("stats");
  std::stringstream path(dotted);
  for (std::string key; std::getline(path, key, '.');) node = &node->at(key);
  return *node;
}

}  // namespace

// The demo run with --trace and --stats, for the tests that read what it wrote.
class DemoTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string trace = temp("demo_trace.json"), stats = temp("demo_stats.json");
    const test::ProcessResult r = test::run_gpuvp("run --quiet --stats " + stats + " --trace " + trace);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    trace_ = std::make_unique<Trace>(trace);
    stats_ = nlohmann::json::parse(slurp(stats));
  }
  const Trace& t() const { return *trace_; }
  std::unique_ptr<Trace> trace_;
  nlohmann::json stats_;
};

TEST_F(DemoTrace, GucCoreHasBootFirmwareAndOneSpanPerInterruptServed) {
  const Trace& t = this->t();
  const nlohmann::json& s = stats_;
  const std::string guc = "gpuvp.gen.guc";
  ASSERT_TRUE(t.spans.count(guc)) << "no GuC track";

  const auto boot = t.named(guc, "boot ROM");
  ASSERT_EQ(boot.size(), stat(s, "gpuvp.gen.guc.boots").get<std::size_t>());
  ASSERT_EQ(boot.size(), 1u);
  EXPECT_GT(boot[0].dur, 0.0);

  // The firmware runs from the boot ROM's jump to its first HLT, then once per wake-up: the halted gaps have no span
  // (an interrupt already pending at HLT wakes the core at once: no gap there).
  const auto firmware = t.named(guc, "firmware");
  ASSERT_GE(firmware.size(), 2u);
  EXPECT_NEAR(firmware[0].ts, boot[0].end(), 1e-6);  // the jump ends the boot ROM
  double halted_us = 0;
  for (std::size_t i = 1; i < firmware.size(); ++i) {
    // Times are microseconds as doubles: ts + dur of the one before may exceed an equal start by a rounding error.
    EXPECT_GE(firmware[i].ts + 1e-6, firmware[i - 1].end()) << "firmware span " << i << " overlaps the one before";
    halted_us += firmware[i].ts - firmware[i - 1].end();
  }
  EXPECT_GT(halted_us, 1.0);

  // Every interrupt delivered is a span named after its vector, inside a firmware span.
  std::map<std::string, int> kinds;
  std::size_t served = 0;
  for (const auto& sp : t.spans.at(guc)) {
    if (sp.name == "host2guc mailbox" || sp.name == "doorbell" || sp.name == "engine event") {
      ++kinds[sp.name];
      ++served;
      EXPECT_TRUE(within_any(sp, firmware)) << sp.name << " at " << sp.ts << " outside the firmware's spans";
    }
  }
  EXPECT_EQ(served, stat(s, "gpuvp.gen.guc.interrupts").get<std::size_t>());
  // The demo sends H2G actions, rings doorbells and steers the render engine's events to the GuC.
  EXPECT_GE(kinds["host2guc mailbox"], 1);
  EXPECT_GE(kinds["doorbell"], 1);
  EXPECT_GE(kinds["engine event"], 1);
}

TEST_F(DemoTrace, CleThreadsHaveListSpansNamedAfterTheListTheDemoStarted) {
  // Where the demo starts its lists: its CT0CA and CT1CA writes (V3D at 0xe1000000, CTnCA at 0x110 + 4n).
  const std::string script = temp("demo.gpuvp");
  ASSERT_EQ(test::run_gpuvp("run --dump-demo " + script).exit_code, 0);
  const std::string text = slurp(script);
  std::smatch m0, m1;
  ASSERT_TRUE(std::regex_search(text, m0, std::regex("writel 0xe1000110 (0x[0-9a-f]+)")));
  ASSERT_TRUE(std::regex_search(text, m1, std::regex("writel 0xe1000114 (0x[0-9a-f]+)")));
  char bin[64], render[64];
  std::snprintf(bin, sizeof bin, "bin list 0x%08lx (frame 1)", std::stoul(m0[1].str(), nullptr, 16));
  std::snprintf(render, sizeof render, "render list 0x%08lx (frame 1)", std::stoul(m1[1].str(), nullptr, 16));

  const Trace& t = this->t();
  const auto ct0 = t.named("gpuvp.v3d.ct0", "bin list");
  const auto ct1 = t.named("gpuvp.v3d.ct1", "render list");
  ASSERT_EQ(ct0.size(), 1u);
  ASSERT_EQ(ct1.size(), 1u);
  EXPECT_EQ(ct0[0].name, bin);
  EXPECT_EQ(ct1[0].name, render);
  // Rendering waits for binning (the semaphore) and so ends after it.
  EXPECT_GT(ct1[0].end(), ct0[0].end());
  EXPECT_TRUE(within_any(ct0[0], t.named("gpuvp.v3d.ct0", "busy")));
  EXPECT_TRUE(t.named("gpuvp.v3d.ct0", "render list").empty());
}

TEST_F(DemoTrace, EachRenderedTileIsASpanInsideTheRenderList) {
  const Trace& t = this->t();
  const auto list = t.named("gpuvp.v3d.ct1", "render list");
  const auto tiles = t.named("gpuvp.v3d.ct1", "tile ");
  ASSERT_EQ(list.size(), 1u);
  // The demo's 256x128 frame in 64x64 tiles, each selected once.
  EXPECT_EQ(tiles.size(), stat(stats_, "gpuvp.v3d.renderer.tiles").get<std::size_t>());
  std::set<std::pair<int, int>> seen;
  double previous_end = 0;
  for (const Span& tile : tiles) {
    const int x = tile.args.at("x").get<int>(), y = tile.args.at("y").get<int>();
    EXPECT_EQ(tile.name, "tile " + std::to_string(x) + "," + std::to_string(y));
    EXPECT_EQ(tile.args.at("frame").get<int>(), 1);  // the render list's "(frame 1)"
    EXPECT_GT(tile.dur, 0.0);
    EXPECT_GE(tile.ts, list[0].ts);
    EXPECT_LE(tile.end(), list[0].end() + 1e-6);
    EXPECT_GE(tile.ts, previous_end - 1e-6);  // one after the other
    previous_end = tile.end();
    seen.insert({x, y});
  }
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_TRUE(seen.count({3, 1}));
}

TEST_F(DemoTrace, EveryEngineShowsTheBatchItRan) {
  const Trace& t = this->t();
  const nlohmann::json& s = stats_;
  for (const char* engine : {"rcs", "bcs", "vcs0", "vcs1", "vecs"}) {
    SCOPED_TRACE(engine);
    const std::string track = std::string("gpuvp.gen.") + engine;
    const auto batches = t.named(track, "batch 0x");
    EXPECT_EQ(batches.size(), stat(s, track + ".batches").get<std::size_t>());
    ASSERT_EQ(batches.size(), 1u);
    EXPECT_GT(batches[0].dur, 0.0);
    EXPECT_TRUE(within_any(batches[0], t.named(track, "busy")));
  }
  // The execlist contexts keep their "ctx <id>" spans.
  EXPECT_FALSE(t.named("gpuvp.gen.rcs", "ctx 0x").empty());
}

TEST_F(DemoTrace, BandwidthCountersAddUpToTheByteCounters) {
  const Trace& t = this->t();
  const nlohmann::json& s = stats_;
  // One sample per 1 us window in bytes per microsecond: the samples add up to the bytes exactly.
  const auto read = stat(s, "gpuvp.dram.bytes_read").get<double>();
  const auto written = stat(s, "gpuvp.dram.bytes_written").get<double>();
  ASSERT_GT(read, 0.0);
  ASSERT_GT(written, 0.0);
  // Every DRAM access goes through the bus's DRAM port: its counters are the DRAM's.
  EXPECT_EQ(t.counter_sum("gpuvp.bus.dram read B/us"), read);
  EXPECT_EQ(t.counter_sum("gpuvp.bus.dram write B/us"), written);
  for (const char* port : {"dram", "gen", "v3d"}) {
    SCOPED_TRACE(port);
    const std::string name = std::string("gpuvp.bus.") + port;
    const double bytes = stat(s, name + ".bytes").get<double>();
    ASSERT_GT(bytes, 0.0);
    EXPECT_EQ(t.counter_sum(name + " read B/us") + t.counter_sum(name + " write B/us"), bytes);
  }
  // Samples are in time order per counter and end at zero; bandwidth samples sit on window boundaries (the EU
  // subslices' activity is sampled at each kernel's start and end).
  for (const auto& [name, samples] : t.counters) {
    SCOPED_TRACE(name);
    ASSERT_FALSE(samples.empty());
    const bool bandwidth = name.size() > 5 && name.compare(name.size() - 5, 5, " B/us") == 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (bandwidth) {
        EXPECT_NEAR(samples[i].first, std::round(samples[i].first), 1e-9) << "sample " << i;
      }
      if (i > 0) {
        EXPECT_GT(samples[i].first, samples[i - 1].first) << "sample " << i;
      }
    }
    EXPECT_EQ(samples.back().second, 0.0);
  }
}

TEST(TraceTracks, SameRunSameTraceAndTheTraceDoesNotChangeTheModel) {
  const std::string a = temp("det_a.json"), b = temp("det_b.json");
  const std::string stats_traced = temp("det_stats_traced.json"), stats_plain = temp("det_stats_plain.json");
  ASSERT_EQ(test::run_gpuvp("run --quiet --trace " + a + " --stats " + stats_traced).exit_code, 0);
  ASSERT_EQ(test::run_gpuvp("run --quiet --trace " + b).exit_code, 0);
  ASSERT_EQ(test::run_gpuvp("run --quiet --stats " + stats_plain).exit_code, 0);
  const std::string first = slurp(a);
  EXPECT_GT(first.size(), 1000u);
  EXPECT_TRUE(first == slurp(b)) << "two runs of the demo wrote different traces";
  const nlohmann::json traced = nlohmann::json::parse(slurp(stats_traced));
  const nlohmann::json plain = nlohmann::json::parse(slurp(stats_plain));
  EXPECT_EQ(traced.at("stats"), plain.at("stats"));
  EXPECT_EQ(traced.at("sim_time_ps"), plain.at("sim_time_ps"));
}

// A batch the test places itself, calling a second-level batch: each level is a span named after its address, the
// second inside the first, and both end before the user interrupt that follows them in the ring.
TEST(TraceTracks, BatchSpansNameTheAddressOfEachLevel) {
  host::ScriptHostPort port;
  host::I915Driver d(port);
  const auto data = d.alloc(4096);
  const auto first = d.alloc(4096);
  const auto second = d.alloc(4096);
  std::vector<std::uint32_t> second_cmds;
  for (std::uint32_t i = 0; i < 32; ++i) mi::emit(second_cmds, mi::store_data_imm(data.gfx + 4 * i, 0xC0DE0000u + i));
  mi::emit(second_cmds, mi::batch_buffer_end());
  std::vector<std::uint32_t> first_cmds;
  mi::emit(first_cmds, mi::store_data_imm(data.gfx + 512, 0xF1F1F1F1u));
  mi::emit(first_cmds, mi::batch_buffer_start(second.gfx, /*ppgtt=*/false, /*second_level=*/true));
  mi::emit(first_cmds, mi::store_data_imm(data.gfx + 516, 0xF2F2F2F2u));
  mi::emit(first_cmds, mi::batch_buffer_end());
  d.upload(second, 0, second_cmds);
  d.upload(first, 0, first_cmds);
  d.enable_interrupts(gen::Engine::kRcs);
  auto& ring = d.create_ring(gen::Engine::kRcs, 4096);
  d.emit(ring, mi::batch_buffer_start(first.gfx, /*ppgtt=*/false));
  d.emit(ring, mi::user_interrupt());
  d.submit(ring);
  const std::string script = temp("batches.gpuvp");
  std::ofstream(script) << port.script() << "irq_wait gen 10000000\n"
                        << "expectl " << hex(data.phys + 516) << " 0xf2f2f2f2\n";
  const std::string trace = temp("batches.json");
  const test::ProcessResult r = test::run_gpuvp("run --quiet --script " + script + " --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // The irq_wait answer: the time the user interrupt reached the host, in ns.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("OK ([0-9]+)\nOK 0x0*f2f2f2f2\n"))) << r.out;
  const double irq_us = std::stod(m[1].str()) / 1000.0;

  const Trace t(trace);
  const auto outer = t.named("gpuvp.gen.rcs", "batch " + hex(first.gfx));
  const auto inner = t.named("gpuvp.gen.rcs", "batch " + hex(second.gfx));
  ASSERT_EQ(outer.size(), 1u) << "batch " << hex(first.gfx);
  ASSERT_EQ(inner.size(), 1u) << "batch " << hex(second.gfx);
  EXPECT_EQ(t.named("gpuvp.gen.rcs", "batch ").size(), 2u);
  EXPECT_TRUE(within(inner[0], outer[0]));
  EXPECT_GT(inner[0].ts, outer[0].ts);        // a store ran before the call
  EXPECT_LT(inner[0].end(), outer[0].end());  // and one after the return
  EXPECT_LE(outer[0].end(), irq_us);
  // 32 stores take most of the outer batch's time.
  EXPECT_GT(inner[0].dur, outer[0].dur / 2);
}
