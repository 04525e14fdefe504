// Timeline: Chrome-trace / Perfetto JSON output, tracks, spans, instants and counters; off by default.
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "tlm/core/bandwidth_trace.h"
#include "tlm/core/timeline.h"

using gpuvp::core::Timeline;

namespace {

std::string temp_path(const std::string& tag) {
  return ::testing::TempDir() + "gpuvp_test_timeline_" + tag + "_" + std::to_string(::getpid()) + ".json";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Events of a phase ("M", "X", "i", "C").
std::vector<nlohmann::json> events(const nlohmann::json& doc, const std::string& ph) {
  std::vector<nlohmann::json> out;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") == ph) out.push_back(e);
  }
  return out;
}

// The thread_name metadata: tid -> name.
std::map<int, std::string> thread_names(const nlohmann::json& doc) {
  std::map<int, std::string> names;
  for (const auto& e : events(doc, "M")) {
    if (e.at("name") == "thread_name") names[e.at("tid").get<int>()] = e.at("args").at("name").get<std::string>();
  }
  return names;
}

}  // namespace

TEST(Timeline, DisabledByDefaultTracksStillWorkAndNothingIsRecorded) {
  Timeline t;
  EXPECT_FALSE(t.enabled());
  const int a = t.track("gpu.rcs");
  const int b = t.track("gpu.bcs");
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2);
  EXPECT_EQ(t.track("gpu.rcs"), 1);
  t.span(a, "batch", 0, 1000);
  t.instant(b, "irq", 10);
  t.value(a, "depth", 20, 3.0);
  EXPECT_EQ(t.events_written(), 0u);
  t.close();  // harmless when never opened
  EXPECT_FALSE(t.enabled());
}

TEST(Timeline, NothingIsWrittenAfterClose) {
  const std::string path = temp_path("closed");
  Timeline t;
  const int tr = t.track("blk");
  t.open(path);
  t.span(tr, "one", 0, 1);
  t.close();
  EXPECT_FALSE(t.enabled());
  const std::string before = slurp(path);
  t.span(tr, "two", 5, 1);
  t.instant(tr, "three", 6);
  t.value(tr, "four", 7, 1.0);
  t.track("new-track");
  EXPECT_EQ(t.events_written(), 1u);
  EXPECT_EQ(slurp(path), before);
  const nlohmann::json doc = nlohmann::json::parse(before);
  EXPECT_EQ(events(doc, "X").size(), 1u);
  std::remove(path.c_str());
}

TEST(Timeline, WritesValidChromeTraceJson) {
  const std::string path = temp_path("full");
  {
    Timeline t;
    const int early = t.track("platform.bus");  // registered before open: named when the file opens
    EXPECT_EQ(early, 1);
    t.open(path);
    EXPECT_TRUE(t.enabled());
    const int late = t.track("platform.v3d");  // registered while open: named at once
    EXPECT_EQ(late, 2);
    t.span(late, "render", 1'500'000, 250);
    t.span(early, "xfer \"quoted\"", 1, 999'999'999);
    t.instant(late, "irq", 2'000'001);
    t.value(early, "queue_depth", 3'000'000, 42.5);
    EXPECT_EQ(t.events_written(), 4u);
    t.close();
    EXPECT_FALSE(t.enabled());
  }
  const std::string text = slurp(path);
  std::remove(path.c_str());
  nlohmann::json doc;
  ASSERT_NO_THROW(doc = nlohmann::json::parse(text)) << text;
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  ASSERT_TRUE(doc["traceEvents"].is_array());
  EXPECT_EQ(doc["traceEvents"].size(), 1u + 2u + 4u);  // process name, two track names, four events

  // Metadata: the process and one thread_name per track.
  bool process_named = false;
  for (const auto& e : events(doc, "M")) {
    if (e["name"] == "process_name") {
      process_named = true;
      EXPECT_EQ(e["args"]["name"], "gpuvp");
      EXPECT_EQ(e["pid"], 1);
    }
  }
  EXPECT_TRUE(process_named);
  EXPECT_EQ(thread_names(doc), (std::map<int, std::string>{{1, "platform.bus"}, {2, "platform.v3d"}}));

  // Spans: microseconds with the picoseconds as a fraction.
  const auto spans = events(doc, "X");
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0]["name"], "render");
  EXPECT_EQ(spans[0]["tid"], 2);
  EXPECT_EQ(spans[0]["pid"], 1);
  EXPECT_DOUBLE_EQ(spans[0]["ts"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(spans[0]["dur"].get<double>(), 0.00025);
  EXPECT_EQ(spans[1]["name"], "xfer \"quoted\"");
  EXPECT_EQ(spans[1]["tid"], 1);
  EXPECT_DOUBLE_EQ(spans[1]["ts"].get<double>(), 0.000001);
  EXPECT_DOUBLE_EQ(spans[1]["dur"].get<double>(), 999.999999);
  // Exact text: no rounding of the picoseconds.
  EXPECT_NE(text.find("\"ts\":1.500000,\"dur\":0.000250"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\":0.000001,\"dur\":999.999999"), std::string::npos) << text;

  const auto instants = events(doc, "i");
  ASSERT_EQ(instants.size(), 1u);
  EXPECT_EQ(instants[0]["name"], "irq");
  EXPECT_EQ(instants[0]["tid"], 2);
  EXPECT_EQ(instants[0]["s"], "t");
  EXPECT_DOUBLE_EQ(instants[0]["ts"].get<double>(), 2.000001);
  EXPECT_NE(text.find("\"ts\":2.000001"), std::string::npos);

  const auto counters = events(doc, "C");
  ASSERT_EQ(counters.size(), 1u);
  EXPECT_EQ(counters[0]["name"], "queue_depth");
  EXPECT_EQ(counters[0]["tid"], 1);
  EXPECT_DOUBLE_EQ(counters[0]["ts"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(counters[0]["args"]["value"].get<double>(), 42.5);
}

TEST(Timeline, EmptyTraceIsValidJson) {
  const std::string path = temp_path("empty");
  {
    Timeline t;
    t.open(path);
  }  // the destructor finishes the document
  const nlohmann::json doc = nlohmann::json::parse(slurp(path));
  std::remove(path.c_str());
  ASSERT_EQ(doc["traceEvents"].size(), 1u);
  EXPECT_EQ(doc["traceEvents"][0]["name"], "process_name");
}

TEST(Timeline, ReopeningStartsANewFileNamingEveryTrack) {
  const std::string first = temp_path("first"), second = temp_path("second");
  Timeline t;
  const int a = t.track("a");
  t.open(first);
  const int b = t.track("b");
  t.instant(a, "one", 1000);
  t.open(second);  // closes the first
  EXPECT_EQ(t.events_written(), 0u);
  t.span(b, "two", 0, 1'000'000);
  t.close();
  const nlohmann::json d1 = nlohmann::json::parse(slurp(first));
  const nlohmann::json d2 = nlohmann::json::parse(slurp(second));
  std::remove(first.c_str());
  std::remove(second.c_str());
  EXPECT_EQ(events(d1, "i").size(), 1u);
  EXPECT_EQ(events(d1, "X").size(), 0u);
  EXPECT_EQ(events(d2, "i").size(), 0u);
  ASSERT_EQ(events(d2, "X").size(), 1u);
  EXPECT_DOUBLE_EQ(events(d2, "X")[0]["dur"].get<double>(), 1.0);
  EXPECT_EQ(thread_names(d1), (std::map<int, std::string>{{1, "a"}, {2, "b"}}));
  EXPECT_EQ(thread_names(d2), (std::map<int, std::string>{{1, "a"}, {2, "b"}}));
}

TEST(Timeline, UnwritablePathThrowsNamingTheFile) {
  Timeline t;
  const std::string path = "/nonexistent-gpuvp-dir/trace.json";
  try {
    t.open(path);
    FAIL() << "opening " << path << " succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'" + path + "'"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(t.enabled());
  t.span(t.track("x"), "after failure", 0, 1);
  EXPECT_EQ(t.events_written(), 0u);
}

TEST(Timeline, GlobalTimelineIsASingletonAndOffByDefault) {
  EXPECT_EQ(&gpuvp::core::timeline(), &gpuvp::core::timeline());
  EXPECT_FALSE(gpuvp::core::timeline().enabled());
}

TEST(OpenSpan, WritesWhenItEndsAndAtTheCloseOfTheTimeline) {
  const std::string path = temp_path("open_span");
  Timeline t;
  gpuvp::core::OpenSpan span(t);
  span.begin(t.track("blk"), "never", 5);  // the timeline is off: nothing opens
  EXPECT_FALSE(span.open());
  t.open(path);
  span.begin(1, "a", 1'000'000);
  span.begin(1, "b", 3'000'000);  // ends "a" here
  EXPECT_TRUE(span.open());
  span.end(4'000'000);
  EXPECT_FALSE(span.open());
  span.end(5'000'000);  // not open: nothing
  span.begin(1, "c", 0);
  t.close();  // "c" ends at the kernel's time (0: no simulation ran)
  const nlohmann::json doc = nlohmann::json::parse(slurp(path));
  std::remove(path.c_str());
  const auto spans = events(doc, "X");
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0]["name"], "a");
  EXPECT_DOUBLE_EQ(spans[0]["ts"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(spans[0]["dur"].get<double>(), 2.0);
  EXPECT_EQ(spans[1]["name"], "b");
  EXPECT_DOUBLE_EQ(spans[1]["dur"].get<double>(), 1.0);
  EXPECT_EQ(spans[2]["name"], "c");
  EXPECT_DOUBLE_EQ(spans[2]["dur"].get<double>(), 0.0);
}

TEST(BandwidthTrace, OneSamplePerWindowInBytesPerMicrosecondAndZeroWhereTrafficStops) {
  const std::string path = temp_path("bandwidth");
  Timeline t;
  {
    gpuvp::core::BandwidthTrace bw("dram", t);
    bw.add_at(false, 64, 0);  // not recorded: the timeline is off
    t.open(path);
    bw.add_at(false, 64, 0);
    bw.add_at(true, 16, 500'000);
    bw.add_at(false, 32, 999'999);      // still window 0
    bw.add_at(false, 8, 1'000'000);     // window 1
    bw.add_at(false, 100, 5'500'000);   // window 5, after a gap
    EXPECT_EQ(t.events_written(), 0u);  // held back: the kernel's time (0) has not passed any window
    t.close();
  }
  const nlohmann::json doc = nlohmann::json::parse(slurp(path));
  std::remove(path.c_str());
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  for (const auto& e : events(doc, "C")) {
    series[e["name"].get<std::string>()].emplace_back(e["ts"].get<double>(), e["args"]["value"].get<double>());
  }
  using Samples = std::vector<std::pair<double, double>>;
  EXPECT_EQ(series["dram read B/us"], (Samples{{0.0, 96.0}, {1.0, 8.0}, {2.0, 0.0}, {5.0, 100.0}, {6.0, 0.0}}));
  EXPECT_EQ(series["dram write B/us"], (Samples{{0.0, 16.0}, {1.0, 0.0}}));
  EXPECT_EQ(series.size(), 2u);
}
