// Statistics registry: counters, histograms, busy time, JSON output; statistics groups, and the platform's modules
// declaring theirs with units and descriptions.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "platform/platform.h"
#include "platform/platform_params.h"
#include "tests/support/sc_test.h"
#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"

using gpuvp::core::BusyTime;
using gpuvp::core::Counter;
using gpuvp::core::Histogram;
using gpuvp::core::Picoseconds;
using gpuvp::core::StatsRegistry;
using gpuvp::core::StatsSeries;

TEST(Stats, CountersCountAndStartAtZero) {
  StatsRegistry reg;
  Counter& c = reg.counter("blk.reads", "reads");
  EXPECT_EQ(c.value, 0u);
  ++c;
  ++c;
  c += 40;
  EXPECT_EQ(c.value, 42u);
  EXPECT_EQ(reg.counter_value("blk.reads"), 42u);
  EXPECT_TRUE(reg.has("blk.reads"));
  EXPECT_FALSE(reg.has("blk.writes"));
  EXPECT_EQ(reg.counter_value("blk.writes"), 0u);  // never registered
  EXPECT_FALSE(reg.has("blk.writes"));             // and asking does not register it
}

TEST(Stats, SamePathReturnsTheSameCounter) {
  StatsRegistry reg;
  Counter& a = reg.counter("x.y");
  a += 5;
  Counter& b = reg.counter("x.y", "described later");
  EXPECT_EQ(&a, &b);
  ++b;
  EXPECT_EQ(a.value, 6u);
  // Registering many more statistics does not move the first one (blocks keep references).
  for (int i = 0; i < 1000; ++i) reg.counter("many.c" + std::to_string(i));
  EXPECT_EQ(&reg.counter("x.y"), &a);
  EXPECT_EQ(reg.counter_value("x.y"), 6u);
  EXPECT_EQ(&reg.histogram("h"), &reg.histogram("h"));
  EXPECT_EQ(&reg.busy_time("b"), &reg.busy_time("b"));
}

TEST(Stats, SamePathWithAnotherKindIsRejected) {
  StatsRegistry reg;
  reg.counter("blk.x");
  EXPECT_THROW(reg.histogram("blk.x"), std::logic_error);
  EXPECT_THROW(reg.busy_time("blk.x"), std::logic_error);
  // A histogram is not a counter: counter_value reports 0.
  reg.histogram("blk.h").sample(9);
  EXPECT_EQ(reg.counter_value("blk.h"), 0u);
}

TEST(Stats, HistogramBucketsArePowersOfTwo) {
  Histogram h;
  for (std::uint64_t v : {0ULL, 1ULL, 2ULL, 3ULL, 4ULL, 7ULL, 8ULL, 1023ULL, 1024ULL, 1025ULL, 2047ULL}) h.sample(v);
  EXPECT_EQ(h.bucket(0), 1u);   // 0
  EXPECT_EQ(h.bucket(1), 1u);   // 1
  EXPECT_EQ(h.bucket(2), 2u);   // 2, 3
  EXPECT_EQ(h.bucket(3), 2u);   // 4, 7
  EXPECT_EQ(h.bucket(4), 1u);   // 8
  EXPECT_EQ(h.bucket(10), 1u);  // 1023
  EXPECT_EQ(h.bucket(11), 3u);  // 1024, 1025, 2047
  EXPECT_EQ(h.bucket(12), 0u);
  EXPECT_EQ(h.count(), 11u);
  EXPECT_EQ(h.sum(), 0u + 1 + 2 + 3 + 4 + 7 + 8 + 1023 + 1024 + 1025 + 2047);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 2047u);
  Histogram top;
  top.sample(~0ULL);
  top.sample(1ULL << 63);
  EXPECT_EQ(top.bucket(64), 2u);
}

TEST(Stats, HistogramMinMaxMeanAndJson) {
  Histogram empty;
  EXPECT_EQ(empty.min(), 0u);
  EXPECT_EQ(empty.max(), 0u);
  nlohmann::json e = empty.to_json();
  EXPECT_EQ(e["count"], 0u);
  EXPECT_EQ(e["min"], 0u);
  EXPECT_DOUBLE_EQ(e["mean"].get<double>(), 0.0);
  EXPECT_TRUE(e["buckets"].is_object());
  EXPECT_TRUE(e["buckets"].empty());

  Histogram h;
  h.sample(5);
  h.sample(3);
  h.sample(1024);
  h.sample(0);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 1024u);
  nlohmann::json j = h.to_json();
  EXPECT_EQ(j["count"], 4u);
  EXPECT_EQ(j["sum"], 1032u);
  EXPECT_EQ(j["min"], 0u);
  EXPECT_EQ(j["max"], 1024u);
  EXPECT_DOUBLE_EQ(j["mean"].get<double>(), 258.0);
  // Only non-empty buckets, keyed by their lower bound.
  EXPECT_EQ(j["buckets"], nlohmann::json::parse(R"({"0": 1, "2": 1, "4": 1, "1024": 1})"));

  Histogram one;
  one.sample(7);
  EXPECT_EQ(one.min(), 7u);
  EXPECT_EQ(one.max(), 7u);
  EXPECT_DOUBLE_EQ(one.to_json()["mean"].get<double>(), 7.0);
}

TEST(Stats, BusyTimeReportsUtilisation) {
  StatsRegistry reg;
  BusyTime& b = reg.busy_time("dram.busy");
  b.add(250);
  b.add(50);
  EXPECT_EQ(b.busy_ps, 300u);
  nlohmann::json j = reg.to_json(1200);
  EXPECT_EQ(j["dram"]["busy"]["busy_ps"], 300u);
  EXPECT_EQ(j["dram"]["busy"]["idle_ps"], 900u);
  EXPECT_DOUBLE_EQ(j["dram"]["busy"]["utilisation"].get<double>(), 0.25);
  // No simulated time: utilisation 0 rather than a division by zero.
  nlohmann::json zero = reg.to_json(0);
  EXPECT_EQ(zero["dram"]["busy"]["idle_ps"], 0u);
  EXPECT_DOUBLE_EQ(zero["dram"]["busy"]["utilisation"].get<double>(), 0.0);
  // Busy longer than the run (a span reaching past the end) never gives negative idle time, nor more than 100 %.
  EXPECT_EQ(reg.to_json(100)["dram"]["busy"]["idle_ps"], 0u);
  EXPECT_EQ(reg.to_json(100)["dram"]["busy"]["busy_ps"], 100u);
  EXPECT_DOUBLE_EQ(reg.to_json(100)["dram"]["busy"]["utilisation"].get<double>(), 1.0);
  EXPECT_EQ(reg.busy_times(1200), (std::map<std::string, gpuvp::core::Picoseconds>{{"dram.busy", 300}}));
}

// An engine opens and closes its busy span at its local time. Read at the end of a run, a span still open counts up
// to the end (work in progress is work), and what a decoupled engine booked past the end does not count.
TEST(Stats, BusySpansCountWorkInProgressAndNothingPastTheEnd) {
  StatsRegistry reg;
  BusyTime& b = reg.busy_time("rcs.busy");
  b.begin(100);
  EXPECT_EQ(b.at(50), 0u);     // before the span
  EXPECT_EQ(b.at(400), 300u);  // in progress
  b.end(600);
  EXPECT_EQ(b.at(1000), 500u);
  EXPECT_EQ(b.at(600), 500u);
  EXPECT_EQ(b.at(450), 350u);  // the run ended at 450 while the engine's local time had reached 600
  b.begin(800);
  EXPECT_EQ(b.at(1000), 700u);
  EXPECT_EQ(reg.to_json(1000)["rcs"]["busy"]["busy_ps"], 700u);
  EXPECT_EQ(reg.to_json(1000)["rcs"]["busy"]["idle_ps"], 300u);
  // A long span past the end: within [0, 900] the engine was busy 100-600 and 800-900.
  b.end(5000);
  EXPECT_EQ(b.at(900), 600u);
  EXPECT_EQ(b.at(5000), 4700u);
  // An end without a begin changes nothing.
  const Picoseconds before = b.busy_ps;
  b.end(6000);
  EXPECT_EQ(b.busy_ps, before);
}

TEST(Stats, JsonNestsDottedPaths) {
  StatsRegistry reg;
  reg.counter("platform.bus.transactions") += 3;
  reg.counter("platform.bus.dram.bytes") += 64;
  reg.counter("platform.host.errors") += 1;
  reg.counter("top") += 9;
  reg.histogram("platform.bus.latency").sample(2);
  reg.busy_time("platform.bus.dram.busy").add(10);
  const nlohmann::json j = reg.to_json(40);
  EXPECT_EQ(j["platform"]["bus"]["transactions"], 3u);
  EXPECT_EQ(j["platform"]["bus"]["dram"]["bytes"], 64u);
  EXPECT_EQ(j["platform"]["host"]["errors"], 1u);
  EXPECT_EQ(j["top"], 9u);
  EXPECT_EQ(j["platform"]["bus"]["latency"]["count"], 1u);
  EXPECT_EQ(j["platform"]["bus"]["latency"]["buckets"]["2"], 1u);
  EXPECT_DOUBLE_EQ(j["platform"]["bus"]["dram"]["busy"]["utilisation"].get<double>(), 0.25);
  EXPECT_EQ(j.size(), 2u);
  EXPECT_EQ(j["platform"].size(), 2u);
  EXPECT_EQ(j["platform"]["bus"].size(), 3u);
}

TEST(Stats, JsonPathComponentsAreObjectKeysEvenWhenNumeric) {
  // Per-instance statistics ("eu.0", "eu.1") must nest as keyed objects like any other component.
  StatsRegistry reg;
  reg.counter("gpu.eu.0.cycles") += 5;
  reg.counter("gpu.eu.1.cycles") += 6;
  reg.counter("gpu.eu.12.cycles") += 7;
  reg.counter("gpu.eu.total") += 18;
  reg.counter("odd~name/x.y") += 1;
  nlohmann::json j;
  ASSERT_NO_THROW(j = reg.to_json(1));
  ASSERT_TRUE(j["gpu"]["eu"].is_object()) << j.dump();
  EXPECT_EQ(j["gpu"]["eu"]["0"]["cycles"], 5u);
  EXPECT_EQ(j["gpu"]["eu"]["1"]["cycles"], 6u);
  EXPECT_EQ(j["gpu"]["eu"]["12"]["cycles"], 7u);
  EXPECT_EQ(j["gpu"]["eu"]["total"], 18u);
  EXPECT_EQ(j["gpu"]["eu"].size(), 4u);
  EXPECT_EQ(j["odd~name/x"]["y"], 1u);
}

TEST(Stats, CountersWithPrefix) {
  StatsRegistry reg;
  reg.counter("p.bus.a") += 1;
  reg.counter("p.bus.b") += 2;
  reg.counter("p.bus2.c") += 3;
  reg.counter("p.busy") += 4;
  reg.counter("q.bus.a") += 5;
  reg.histogram("p.bus.h").sample(1);
  reg.busy_time("p.bus.t").add(1);
  using Map = std::map<std::string, std::uint64_t>;
  EXPECT_EQ(reg.counters_with_prefix("p.bus."), (Map{{"p.bus.a", 1}, {"p.bus.b", 2}}));
  EXPECT_EQ(reg.counters_with_prefix("p.bus"), (Map{{"p.bus.a", 1}, {"p.bus.b", 2}, {"p.bus2.c", 3}, {"p.busy", 4}}));
  EXPECT_EQ(reg.counters_with_prefix("p."), (Map{{"p.bus.a", 1}, {"p.bus.b", 2}, {"p.bus2.c", 3}, {"p.busy", 4}}));
  EXPECT_EQ(reg.counters_with_prefix("").size(), 5u);
  EXPECT_TRUE(reg.counters_with_prefix("z.").empty());
  EXPECT_TRUE(reg.counters_with_prefix("p.bus.a.").empty());
}

TEST(Stats, WriteJsonToAFileAndReadItBack) {
  StatsRegistry reg;
  reg.counter("blk.reads") += 11;
  reg.histogram("blk.lat").sample(3);
  reg.busy_time("blk.busy").add(500);
  const std::string path = ::testing::TempDir() + "gpuvp_test_stats_" + std::to_string(::getpid()) + ".json";
  reg.write_json(path, 2000);
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::remove(path.c_str());
  EXPECT_EQ(doc["sim_time_ps"], 2000u);
  EXPECT_EQ(doc["stats"]["blk"]["reads"], 11u);
  EXPECT_EQ(doc["stats"]["blk"]["lat"]["max"], 3u);
  EXPECT_EQ(doc["stats"]["blk"]["busy"]["busy_ps"], 500u);
  EXPECT_DOUBLE_EQ(doc["stats"]["blk"]["busy"]["utilisation"].get<double>(), 0.25);
  EXPECT_EQ(doc["stats"], reg.to_json(2000));
}

TEST(Stats, WriteJsonToAnUnwritablePathNamesTheFile) {
  StatsRegistry reg;
  const std::string path = "/nonexistent-gpuvp-dir/stats.json";
  try {
    reg.write_json(path, 1);
    FAIL() << "writing to " << path << " succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'" + path + "'"), std::string::npos) << e.what();
  }
}

TEST(Stats, GlobalRegistryIsASingleton) {
  EXPECT_EQ(&gpuvp::core::stats(), &gpuvp::core::stats());
  gpuvp::core::stats().counter("test_stats.global") += 3;
  EXPECT_EQ(gpuvp::core::stats().counter_value("test_stats.global"), 3u);
}

TEST(Stats, UnitsFollowTheName) {
  EXPECT_EQ(StatsRegistry::unit_of("a.b.contention_wait_ps"), "ps");
  EXPECT_EQ(StatsRegistry::unit_of("a.dram.bytes"), "bytes");
  EXPECT_EQ(StatsRegistry::unit_of("a.tile.bytes_stored"), "bytes");
  EXPECT_EQ(StatsRegistry::unit_of("a.dram.bytes_written"), "bytes");
  EXPECT_EQ(StatsRegistry::unit_of("a.ring.transactions"), "events");
  EXPECT_EQ(StatsRegistry::unit_of("a.ps.count"), "events");  // only the last component counts
}

TEST(Stats, MetricsDescribeEveryStatistic) {
  StatsRegistry r;
  r.counter("blk.bytes", "bytes moved");
  r.histogram("blk.latency_ps");
  r.busy_time("blk.busy");
  const auto m = r.metrics_json();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m["blk.bytes"], (nlohmann::json{{"kind", "counter"}, {"unit", "bytes"}, {"description", "bytes moved"}}));
  EXPECT_EQ(m["blk.latency_ps"], (nlohmann::json{{"kind", "histogram"}, {"unit", "ps"}}));
  EXPECT_EQ(m["blk.busy"], (nlohmann::json{{"kind", "busy_time"}, {"unit", "ps"}}));
}

TEST(Stats, SeriesSamplesCumulativeValuesAndPadsLateStatistics) {
  StatsRegistry r;
  Counter& a = r.counter("a");
  BusyTime& busy = r.busy_time("blk.busy");
  StatsSeries series;
  a += 2;
  series.sample(r, 0);
  a += 3;
  busy.begin(500);
  Counter& late = r.counter("late");  // registered between samples
  late += 7;
  series.sample(r, 1000);
  const auto j = series.to_json();
  EXPECT_EQ(j["time_ps"], (nlohmann::json{0, 1000}));
  EXPECT_EQ(j["counters"]["a"], (nlohmann::json{2, 5}));
  EXPECT_EQ(j["counters"]["late"], (nlohmann::json{0, 7}));
  EXPECT_EQ(j["busy_ps"]["blk.busy"], (nlohmann::json{0, 500}));  // the open span counts up to the sample
  EXPECT_EQ(series.samples(), 2u);
  EXPECT_EQ(series.last_sample_ps(), 1000u);
}

// ---- statistics groups: what a module owns ----

TEST(StatsGroup, DeclaresStatisticsUnderItsPathWithUnitAndDescription) {
  StatsRegistry reg;
  gpuvp::core::StatsGroup group("soc.gen.rcs", reg);
  Counter& commands = group.counter("commands", "commands", "commands executed");
  group.histogram("latency_ps", "ps", "submission to start").sample(3000);
  group.busy_time("busy", "executing or waiting on memory").add(250);
  commands += 7;
  EXPECT_EQ(reg.counter_value("soc.gen.rcs.commands"), 7u);
  const auto metrics = reg.metrics_json();
  EXPECT_EQ(metrics["soc.gen.rcs.commands"]["kind"], "counter");
  EXPECT_EQ(metrics["soc.gen.rcs.commands"]["unit"], "commands");  // declared, not derived from the name
  EXPECT_EQ(metrics["soc.gen.rcs.commands"]["description"], "commands executed");
  EXPECT_EQ(metrics["soc.gen.rcs.latency_ps"]["unit"], "ps");
  EXPECT_EQ(metrics["soc.gen.rcs.busy"]["kind"], "busy_time");
  EXPECT_EQ(metrics["soc.gen.rcs.busy"]["unit"], "ps");
  const auto j = reg.to_json(1000);
  EXPECT_EQ(j["soc"]["gen"]["rcs"]["commands"], 7);
  EXPECT_EQ(j["soc"]["gen"]["rcs"]["latency_ps"]["count"], 1);
  EXPECT_EQ(j["soc"]["gen"]["rcs"]["busy"]["busy_ps"], 250);
  EXPECT_DOUBLE_EQ(j["soc"]["gen"]["rcs"]["busy"]["utilisation"].get<double>(), 0.25);
}

TEST(StatsGroup, VectorsCountPerLabelAndBelongToTheirGroup) {
  StatsRegistry reg;
  gpuvp::core::StatsGroup eu("soc.gen.eu0", reg);
  auto by_class = eu.vector("instructions", {"alu", "send", "branch"}, "instructions", "instructions issued");
  ASSERT_EQ(by_class.size(), 3u);
  by_class[0] += 10;
  ++by_class[1];
  EXPECT_EQ(by_class.value(0), 10u);
  EXPECT_EQ(by_class.value(2), 0u);
  EXPECT_EQ(by_class.labels()[1], "send");
  const auto j = reg.to_json(0);
  EXPECT_EQ(j["soc"]["gen"]["eu0"]["instructions"]["alu"], 10);
  EXPECT_EQ(j["soc"]["gen"]["eu0"]["instructions"]["send"], 1);
  EXPECT_EQ(reg.metrics_json()["soc.gen.eu0.instructions.send"]["description"], "instructions issued (send)");
  // The summary lists them under the group that owns them, not under "eu0.instructions".
  const auto activity = reg.activity(0);
  ASSERT_EQ(activity.size(), 3u);
  EXPECT_EQ(activity[0].group, "soc.gen.eu0");
  EXPECT_EQ(activity[0].name, "instructions.alu");
  EXPECT_EQ(activity[0].value, 10u);
}

TEST(StatsGroup, FormulasAreComputedWhenWritten) {
  StatsRegistry reg;
  gpuvp::core::StatsGroup port("soc.bus.dram", reg);
  Counter& bytes = port.counter("bytes", "bytes", "bytes transferred");
  port.formula("bandwidth_gbps", "GB/s", "bytes per simulated second", [&bytes](Picoseconds t) {
    return t ? static_cast<double>(bytes.value) * 1e12 / static_cast<double>(t) / 1e9 : 0.0;
  });
  bytes += 4000;
  EXPECT_DOUBLE_EQ(reg.to_json(1'000'000)["soc"]["bus"]["dram"]["bandwidth_gbps"].get<double>(), 4.0);  // 4000 B/us
  bytes += 4000;
  EXPECT_DOUBLE_EQ(reg.to_json(1'000'000)["soc"]["bus"]["dram"]["bandwidth_gbps"].get<double>(), 8.0);
  EXPECT_EQ(reg.metrics_json()["soc.bus.dram.bandwidth_gbps"]["kind"], "formula");
  EXPECT_EQ(reg.metrics_json()["soc.bus.dram.bandwidth_gbps"]["unit"], "GB/s");
}

TEST(StatsGroup, SnapshotsGiveWhatARegionOfInterestDid) {
  StatsRegistry reg;
  gpuvp::core::StatsGroup g("blk", reg);
  Counter& c = g.counter("ops", "events", "operations");
  Histogram& h = g.histogram("size", "bytes", "sizes");
  BusyTime& busy = g.busy_time("busy", "working");
  c += 5;
  h.sample(4);
  busy.add(100);
  const auto before = reg.snapshot(1000);
  c += 3;
  h.sample(64);
  h.sample(64);
  busy.add(400);
  Counter& late = g.counter("late", "events", "registered inside the region");
  late += 2;
  const auto region = reg.since(before, 2000);
  EXPECT_EQ(region["blk"]["ops"], 3);
  EXPECT_EQ(region["blk"]["late"], 2);
  EXPECT_EQ(region["blk"]["size"]["count"], 2);
  EXPECT_EQ(region["blk"]["size"]["sum"], 128);
  EXPECT_EQ(region["blk"]["size"]["buckets"], (nlohmann::json{{"64", 2}}));  // the sample of 4 was before
  EXPECT_EQ(region["blk"]["busy"]["busy_ps"], 400);
  EXPECT_EQ(region["blk"]["busy"]["idle_ps"], 600);  // of the region's 1000 ps
  EXPECT_DOUBLE_EQ(region["blk"]["busy"]["utilisation"].get<double>(), 0.4);
}

// The modules of both GPUs and the SoC declare their statistics through their groups: each with the unit its name
// implies, a description, and in the group of the module that owns it (the summary lists it there).
TEST(StatsGroup, PlatformModulesDeclareUnitsAndDescriptions) {
  gpuvp::platform::Platform soc("soc", gpuvp::platform::PlatformParams{});
  gpuvp::test::run_thread([] {});  // elaborates: the bus declares its per-target statistics at the end of elaboration
  const nlohmann::json metrics = gpuvp::core::stats().metrics_json();
  struct Expected {
    const char* path;
    const char* kind;
    const char* unit;
  };
  const Expected expected[] = {
      {"soc.bus.transactions", "counter", "events"},
      {"soc.bus.dram.bytes", "counter", "bytes"},
      {"soc.bus.dram.contention_wait_ps", "counter", "ps"},
      {"soc.bus.dram.busy", "busy_time", "ps"},
      {"soc.dram.bytes_read", "counter", "bytes"},
      {"soc.dram.errors", "counter", "events"},
      {"soc.gen.mmio_reads", "counter", "events"},  // the Gen BAR's register block
      {"soc.gen.rcs.context_switches", "counter", "events"},
      {"soc.gen.rcs.elsp_submissions", "counter", "events"},
      {"soc.gen.rcs.submit_to_start_ps", "histogram", "ps"},
      {"soc.gen.vecs.events", "counter", "events"},  // GT interrupts, counted in the engine's group
      {"soc.gen.gtt.rcs.hits", "counter", "events"},
      {"soc.gen.gtt.ggtt_tlb_flushes", "counter", "events"},
      {"soc.gen.guc.busy", "busy_time", "ps"},
      {"soc.v3d.l2_cache_clears", "counter", "events"},
      {"soc.v3d.unmapped_accesses", "counter", "events"},
      {"soc.v3d.ptb.bytes_written", "counter", "bytes"},
      {"soc.v3d.renderer.tiles", "counter", "events"},
  };
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.path);
    ASSERT_TRUE(metrics.contains(e.path));
    EXPECT_EQ(metrics[e.path]["kind"], e.kind);
    EXPECT_EQ(metrics[e.path]["unit"], e.unit);
    ASSERT_TRUE(metrics[e.path].contains("description"));
    EXPECT_FALSE(metrics[e.path]["description"].get<std::string>().empty());
  }
  // Every statistic of these modules has a description.
  int described = 0;
  for (const auto& [path, metric] : metrics.items()) {
    for (const char* prefix :
         {"soc.bus.", "soc.dram.", "soc.gen.gtt.", "soc.gen.guc.", "soc.v3d.ptb.", "soc.v3d.renderer."}) {
      if (path.rfind(prefix, 0) != 0) continue;
      EXPECT_TRUE(metric.contains("description")) << path;
      ++described;
    }
  }
  EXPECT_GE(described, 50);
  // The summary's groups: a GT interrupt count under its engine, a GTT client's under the client, a bus target's
  // under the target.
  const auto activity = gpuvp::core::stats().activity(0);
  const auto group_of = [&activity](const std::string& group, const std::string& name) {
    return std::any_of(activity.begin(), activity.end(),
                       [&](const StatsRegistry::Activity& a) { return a.group == group && a.name == name; });
  };
  EXPECT_TRUE(group_of("soc.gen.rcs", "events"));
  EXPECT_TRUE(group_of("soc.gen.gtt.rcs", "walk_reads"));
  EXPECT_TRUE(group_of("soc.bus.dram", "contention_wait_ps"));
  EXPECT_TRUE(group_of("soc.v3d", "slice_cache_clears"));
}
