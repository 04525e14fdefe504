// End-to-end: the gpuvp executable as a user runs it.
#include <gtest/gtest.h>

#include "tests/support/run_gpuvp.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

#include <array>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <string>

namespace {
using Result = gpuvp::test::ProcessResult;
Result run(const std::string& args) { return gpuvp::test::run_gpuvp(args); }
std::string write_temp(const std::string& name, const std::string& text) {
  return gpuvp::test::write_temp_file(name, text);
}
}  // namespace

TEST(GpuvpCli, NoArgumentsRunsTheDemoAndPrintsASummary) {
  Result r = run("");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("gpuvp run summary"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("outcome:        completed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 errors, 0 warnings"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("SystemC 2.3"), std::string::npos) << "banner leaked: " << r.out;
}

TEST(GpuvpCli, ScriptAnswersEveryCommandOnStdout) {
  const std::string script = write_temp("ok.gpuvp",
                                        "# identify the V3D block\n"
                                        "readl 0xe1000000\n"
                                        "writel 0x1000 0xdeadbeef\n"
                                        "readw 0x1002\n"
                                        "expectl 0x1000 0xdeadbeef\n"
                                        "clock_step 500\n");
  Result r = run("run --quiet --script " + script);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // clock_step answers the absolute simulated time, as qtest does. The four accesses take 191 ns with the default
  // platform: V3D read 2 hop + 1 port + 4 V3D cycles at 250 MHz = 19 ns; DRAM write 2 + 1 + 40 latency + 1 = 44 ns;
  // each DRAM read 2 + 1 + 60 + 1 = 64 ns. Then 500 ns of stepping.
  EXPECT_EQ(r.out,
            "OK 0x0000000002443356\n"
            "OK\n"
            "OK 0x000000000000dead\n"
            "OK 0x00000000deadbeef\n"
            "OK 691\n")
      << r.out;
}

TEST(GpuvpCli, FailedExpectEndsTheRunNonZeroNamingLineAddressAndValues) {
  const std::string script = write_temp("bad.gpuvp", "writel 0x2000 0x12345678\nexpectl 0x2000 0x12340000 0xffff\nreadl 0\n");
  Result r = run("run --quiet --script " + script);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("bad.gpuvp:2: expect failed at 0x2000: expected 0x12340000, actual 0x12345678 (mask 0xffff)"),
            std::string::npos)
      << r.out;
  // The run stopped at the failing line: readl 0 never ran.
  EXPECT_EQ(r.out.find("OK 0x0000000000000000"), std::string::npos) << r.out;
}

TEST(GpuvpCli, MalformedCommandAnswersErrAndEndsTheScript) {
  const std::string script = write_temp("malformed.gpuvp", "writel 0x10\n");
  Result r = run("run --quiet --script " + script);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("ERR usage: writel ADDR VALUE"), std::string::npos) << r.out;
}

TEST(GpuvpCli, BadCommandLineIsAOneLineErrorWithExitCode2) {
  for (const char* args : {"--bogus", "run --script /nonexistent/file", "run --set nodot", "frobnicate"}) {
    Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << args << ": not one line: " << r.out;
    EXPECT_EQ(r.out.rfind("gpuvp: error: ", 0), 0u) << args << ": " << r.out;
  }
}

TEST(GpuvpCli, ConfigErrorsNameTheFullKeyPath) {
  Result unknown = run("run --set vc4.v3d.slicez=2");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.out,
            "gpuvp: error: config key 'vc4.v3d.slicez': unknown key, did you mean 'vc4.v3d.slices'?\n");
  Result type = run("run --set sim.quantum_ns=fast");
  EXPECT_EQ(type.out, "gpuvp: error: config key 'sim.quantum_ns': expected an unsigned integer, got 'fast'\n");
  Result range = run("run --set vc4.v3d.slices=16");
  EXPECT_EQ(range.out, "gpuvp: error: config key 'vc4.v3d.slices': value 16 is out of range [1, 15]\n");
  const std::string file = write_temp("bad.yaml", "dram:\n  size: 1GiB\n  latency: 3\n");
  Result yaml = run("run --config " + file);
  EXPECT_EQ(yaml.out, "gpuvp: error: config key 'dram.latency': unknown key\n");
}

TEST(GpuvpCli, ShippedDefaultConfigRunsTheDemo) {
  Result r = run(std::string("run --quiet --config ") + GPUVP_SOURCE_DIR + "/platform/configs/default.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(GpuvpCli, DemoPassesItsChecksWithGpuMemoryThroughPlainDmi) {
  // memory_access=dmi trades bus contention and DRAM statistics for speed; what the GPUs write must not change (the
  // demo checks every result with expect lines, which end the run non-zero on a mismatch).
  Result r = run("run --set gen.memory_access=dmi --set vc4.v3d.memory_access=dmi");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("outcome:        completed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 errors, 0 warnings"), std::string::npos) << r.out;
}

// The statistics of a run without the counters that say how memory was reached (DMI grants and accesses) and
// without the configuration echo.
static nlohmann::json stats_without_access_path(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json j = nlohmann::json::parse(in);
  nlohmann::json flat = j.flatten();
  nlohmann::json kept = nlohmann::json::object();
  for (auto it = flat.begin(); it != flat.end(); ++it) {
    const std::string& key = it.key();
    if (key.find("memory_access") != std::string::npos || key.find("dmi_grants") != std::string::npos ||
        key.find("dmi_accesses") != std::string::npos) {
      continue;
    }
    kept[key] = it.value();
  }
  return kept;
}

TEST(GpuvpCli, TimedDmiGivesTheStatisticsOfABusTransactionPerAccess) {
  // The default (timed_dmi) and transport differ only in host cost: every simulated time, contention wait, byte and
  // busy time in the statistics must be the same, while the default really served accesses through DMI.
  const std::string timed = ::testing::TempDir() + "gpuvp-stats-timed-" + std::to_string(::getpid()) + ".json";
  const std::string transport = ::testing::TempDir() + "gpuvp-stats-transport-" + std::to_string(::getpid()) + ".json";
  Result a = run("run --quiet --stats " + timed);
  ASSERT_EQ(a.exit_code, 0) << a.out;
  Result b = run("run --quiet --set gen.memory_access=transport --set vc4.v3d.memory_access=transport --stats " +
                 transport);
  ASSERT_EQ(b.exit_code, 0) << b.out;
  EXPECT_EQ(a.out, b.out);
  std::ifstream in(timed);
  const nlohmann::json full = nlohmann::json::parse(in).flatten();
  std::uint64_t dmi_accesses = 0;
  for (auto it = full.begin(); it != full.end(); ++it) {
    if (it.key().find("dmi_accesses") != std::string::npos) dmi_accesses += it.value().get<std::uint64_t>();
  }
  EXPECT_GT(dmi_accesses, 1000u);
  const nlohmann::json sa = stats_without_access_path(timed);
  const nlohmann::json sb = stats_without_access_path(transport);
  EXPECT_GT(sa.size(), 100u);
  for (auto it = sa.begin(); it != sa.end(); ++it) {
    EXPECT_EQ(it.value(), sb.value(it.key(), nlohmann::json())) << it.key();
  }
  EXPECT_EQ(sa.size(), sb.size());
  ::unlink(timed.c_str());
  ::unlink(transport.c_str());
}

TEST(GpuvpCli, VersionAndHelp) {
  Result v = run("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out.rfind("gpuvp ", 0), 0u) << v.out;
  Result h = run("--help");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("examples:"), std::string::npos) << h.out;
}

TEST(GpuvpCli, InfoJsonListsTheMemoryMap) {
  Result r = run("info --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"base\": \"0xe0000000\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"base\": \"0xe1000000\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"name\": \"IDENT0\""), std::string::npos) << r.out;
}

TEST(GpuvpCli, QtestServesAHarnessOverAUnixSocket) {
  const std::string path = ::testing::TempDir() + "gpuvp-qtest-" + std::to_string(::getpid()) + ".sock";
  ::unlink(path.c_str());
  auto server = std::async(std::launch::async, [&] { return run("run --quiet --qtest unix:" + path); });
  // Connect once the server listens.
  int fd = -1;
  for (int attempt = 0; attempt < 200 && fd < 0; ++attempt) {
    int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      fd = s;
    } else {
      ::close(s);
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
  ASSERT_GE(fd, 0) << "could not connect to " << path;
  auto ask = [&](const std::string& line) {
    const std::string out = line + "\n";
    EXPECT_EQ(::send(fd, out.data(), out.size(), 0), static_cast<ssize_t>(out.size()));
    std::string answer;
    char c;
    while (::recv(fd, &c, 1, 0) == 1 && c != '\n') answer += c;
    return answer;
  };
  EXPECT_EQ(ask("readl 0xe1000000"), "OK 0x0000000002443356");
  EXPECT_EQ(ask("writel 0xe1000010 0x600d"), "OK");
  EXPECT_EQ(ask("expectl 0xe1000010 0x600e"), "ERR expect failed at 0xe1000010: expected 0x600e, actual 0x600d");
  // An interactive peer decides what an ERR means: the session goes on.
  EXPECT_EQ(ask("expectl 0xe1000010 0x600d"), "OK 0x000000000000600d");
  EXPECT_EQ(ask("bogus"), "ERR unknown command 'bogus'");
  ::close(fd);
  Result r = server.get();
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("qtest listening on unix:" + path), std::string::npos) << r.out;
}

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST(GpuvpCli, StatsAndTraceFilesAreWrittenAsJson) {
  const std::string stats = ::testing::TempDir() + "stats.json";
  const std::string trace = ::testing::TempDir() + "trace.json";
  Result r = run("run --stats " + stats + " --trace " + trace);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("statistics:     " + stats), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(open in ui.perfetto.dev or chrome://tracing)"), std::string::npos) << r.out;
  const auto s = nlohmann::json::parse(slurp(stats));
  EXPECT_EQ(s["config"]["sim"]["quantum_ns"], 1000);
  EXPECT_GT(s["stats"]["gpuvp"]["gen"]["rcs"]["commands"].get<int>(), 0);
  EXPECT_GT(s["stats"]["gpuvp"]["gen"]["rcs"]["busy"]["busy_ps"].get<long long>(), 0);
  const auto t = nlohmann::json::parse(slurp(trace));
  int rcs_track = -1, busy_spans = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "gpuvp.gen.rcs") rcs_track = e["tid"];
  }
  ASSERT_GE(rcs_track, 0);
  std::set<std::string> context_spans;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "X" && e["tid"] == rcs_track && e["name"] == "busy") ++busy_spans;
    // The demo's execlist contexts on the render engine: one span each (IDs 1..3 from the driver model).
    if (e["ph"] == "X" && e["tid"] == rcs_track && e["name"].get<std::string>().rfind("ctx ", 0) == 0) {
      EXPECT_GT(e["dur"].get<double>(), 0.0);
      context_spans.insert(e["name"].get<std::string>());
    }
  }
  EXPECT_GE(busy_spans, 1);
  // Plus the two contexts the GuC part submits: the firmware gives each its LRCA page number as context ID.
  EXPECT_EQ(context_spans.size(), 5u);
  for (const char* id : {"ctx 0x1", "ctx 0x2", "ctx 0x3"}) EXPECT_EQ(context_spans.count(id), 1u) << id;
}

TEST(GpuvpCli, SameConfigGivesBitIdenticalStatistics) {
  const std::string a = ::testing::TempDir() + "a.json", b = ::testing::TempDir() + "b.json";
  EXPECT_EQ(run("run --quiet --stats " + a).exit_code, 0);
  EXPECT_EQ(run("run --quiet --stats " + b).exit_code, 0);
  const std::string sa = slurp(a), sb = slurp(b);
  EXPECT_FALSE(sa.empty());
  EXPECT_EQ(sa, sb);
}

TEST(GpuvpCli, UnwritableStatsFileIsAOneLineError) {
  Result r = run("run --quiet --stats /nonexistent/dir/s.json");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.out, "gpuvp: error: cannot write statistics file '/nonexistent/dir/s.json'\n");
}
