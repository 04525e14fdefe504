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
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tb/host/i915_driver.h"
#include "tlm/gen/mi_commands.h"

namespace {
constexpr std::uint64_t kPsPerUs = 1'000'000;
using Result = gpuvp::test::ProcessResult;
Result run(const std::string& args) { return gpuvp::test::run_gpuvp(args); }
// Connects to a qtest server on a unix socket once it listens (tries for 5 s); -1 if it never does.
int connect_unix(const std::string& path) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return s;
    ::close(s);
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return -1;
}
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
  EXPECT_EQ(unknown.out, "gpuvp: error: config key 'vc4.v3d.slicez': unknown key\n");
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
  const int fd = connect_unix(path);
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

// ---- DRAM around the MMIO windows (README "Platform map") ----

TEST(GpuvpCli, TheReadmeDramExampleRunsTheDemoWithFourAndSixteenGib) {
  // The README's example, with 4 GiB and with 16 GiB: the MMIO windows stay at 0xE000_0000 and 0xE100_0000, the DRAM
  // they hide is remapped above 4 GiB, and the demo (which checks every result with expect lines) passes.
  for (const auto& [size, bytes] : {std::pair{"4GiB", 4ULL << 30}, std::pair{"16GiB", 16ULL << 30}}) {
    SCOPED_TRACE(size);
    const std::string stats = ::testing::TempDir() + "dram_stats.json";
    const std::string trace = ::testing::TempDir() + "dram_trace.json";
    Result r = run(std::string("run --set dram.size=") + size + " --set sim.quantum_ns=100 --stats " + stats +
                   " --trace " + trace);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("outcome:        completed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("0 errors, 0 warnings"), std::string::npos) << r.out;
    const auto s = nlohmann::json::parse(slurp(stats));
    EXPECT_EQ(s["config"]["dram"]["size"].get<std::uint64_t>(), bytes);
    EXPECT_EQ(s["config"]["sim"]["quantum_ns"], 100);
    EXPECT_GT(s["stats"]["gpuvp"]["bus"]["dram"]["transactions"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(s["stats"]["gpuvp"]["bus"]["address_errors"].get<std::uint64_t>(), 0u);
    EXPECT_FALSE(nlohmann::json::parse(slurp(trace))["traceEvents"].empty());
  }
}

TEST(GpuvpCli, InfoShowsTheDramRemappedAboveFourGib) {
  Result r = run("info --set dram.size=16GiB");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("memory map (gpuvp.bus, 1000 MHz):\n"
                       "  0x0-0xdfffffff            dram     size 0xe0000000, hop 2 cycles, 32 B/cycle\n"
                       "  0xe0000000-0xe0ffffff     gen      size 0x1000000, hop 2 cycles, 4 B/cycle\n"
                       "  0xe1000000-0xe1000fff     v3d      size 0x1000, hop 2 cycles, 4 B/cycle\n"
                       "  0x100000000-0x41fffffff   dram_hi  size 0x320000000, dram from 0xe0000000, hop 2 cycles, "
                       "32 B/cycle\n\n"),
            std::string::npos)
      << r.out;
}

TEST(GpuvpCli, DramThatCannotBePlacedIsAOneLineErrorWithExitCode2) {
  const std::pair<const char*, const char*> cases[] = {
      {"run --set dram.size=0x80000800", "config key 'dram.size': 0x80000800 is not a multiple of the 4 KiB page"},
      {"run --set dram.size=512GiB",
       "config key 'dram.size': 512 GiB of DRAM ends at 0x801fffffff, beyond the Gen GPU's 39-bit physical addresses "
       "(gen.gtt.physical_address_bits)"},
      {"run --set dram.size=8GiB --set gen.base=0x100000000",
       "config key 'gen.base': the Gen GTTMMADR BAR [0x100000000, 0x100ffffff] overlaps DRAM [0x100000000, "
       "0x21effffff]"},
      {"info --set dram.size=4MiB",
       "config key 'gen.gtt.gsm_base': the 8 MiB of GGTT entries do not fit in the 4 MiB of low DRAM"},
  };
  for (const auto& [args, message] : cases) {
    Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.out, std::string("gpuvp: error: ") + message + "\n") << args;
  }
}

namespace {
// The demo's simulated time in picoseconds (from --stats), or 0 if the run failed.
std::uint64_t demo_time_ps(const std::string& args) {
  const std::string stats = ::testing::TempDir() + "gpuvp-demo-time-" + std::to_string(::getpid()) + ".json";
  Result r = run("run --quiet --stats " + stats + " " + args);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.out;
  if (r.exit_code != 0) return 0;
  const auto s = nlohmann::json::parse(slurp(stats));
  ::unlink(stats.c_str());
  return s["sim_time_ps"].get<std::uint64_t>();
}
}  // namespace

TEST(GpuvpCli, DemoPassesWithTenTimesTheDramLatency) {
  // Every wait of the demo is a poll with a time-out budget, not a fixed step followed by a check.
  for (const char* args : {"--set dram.write_latency_cycles=400", "--set dram.read_latency_cycles=600",
                           "--set dram.read_latency_cycles=600 --set dram.write_latency_cycles=400 "
                           "--set bus.hop_latency_cycles=20 --set gen.mmio_latency_cycles=20 "
                           "--set vc4.v3d.mmio_latency_cycles=40"}) {
    Result r = run(std::string("run ") + args);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.out;
    EXPECT_NE(r.out.find("outcome:        completed"), std::string::npos) << args << ": " << r.out;
  }
}

TEST(GpuvpCli, DemoSimulatedTimeIsTheWorkItWaitsFor) {
  // Before polling, the demo stepped fixed budgets (5.6 ms in all, most of it the GuC's: 2 ms each for the firmware
  // DMA and READY, 200 us per mailbox action). Now it ends when the work does. The largest piece is the boot ROM's
  // RSA check (gen.guc.rsa_verify_cycles: 200000 GuC cycles at 400 MHz = 500 us); the rest (host uploads, the vc4
  // frame, the Gen batches and contexts, the firmware's start and the GuC submissions) is about 270 us.
  const std::uint64_t t = demo_time_ps("");
  EXPECT_GT(t, 500 * kPsPerUs);
  EXPECT_LT(t, 1000 * kPsPerUs);
  // The host waits exactly as long as the GPU works: 500 us more RSA check, 500 us more demo, to within the polls
  // that wait for it (one poll interval, 100 ns, each way).
  const std::uint64_t longer = demo_time_ps("--set gen.guc.rsa_verify_cycles=400000");
  EXPECT_GE(longer, t + 500 * kPsPerUs - 100'000);
  EXPECT_LE(longer, t + 500 * kPsPerUs + 100'000);
}

TEST(GpuvpCli, DumpedDemoIsAnEditableScriptThatRunsLikeTheDemo) {
  const std::string path = ::testing::TempDir() + "gpuvp-demo-" + std::to_string(::getpid()) + ".gpuvp";
  Result dump = run("run --dump-demo " + path);
  EXPECT_EQ(dump.exit_code, 0) << dump.out;
  EXPECT_EQ(dump.out, "demo script written to " + path + " (run it: gpuvp run --script FILE)\n");
  const std::string text = slurp(path);
  EXPECT_EQ(text.rfind("# gpuvp demo workload", 0), 0u) << text.substr(0, 200);
  EXPECT_NE(text.find("# GuC: load and authenticate the firmware"), std::string::npos);
  EXPECT_NE(text.find("\npolll "), std::string::npos);
  EXPECT_EQ(text.find("clock_step"), std::string::npos);  // waits are polls
  EXPECT_EQ(text.find("value unknown to the recording"), std::string::npos);  // no reads the driver guessed
  // The same commands as the embedded demo: the same simulated time.
  const std::uint64_t embedded = demo_time_ps("");
  const std::uint64_t replayed = demo_time_ps("--script " + path);
  EXPECT_GT(replayed, 0u);
  EXPECT_EQ(replayed, embedded);
  Result both = run("run --dump-demo " + path + " --script " + path);
  EXPECT_EQ(both.exit_code, 2) << both.out;
  EXPECT_EQ(both.out, "gpuvp: error: --dump-demo cannot be used with --script or --qtest\n");
  Result unwritable = run("run --dump-demo /nonexistent/dir/demo.gpuvp");
  EXPECT_EQ(unwritable.exit_code, 2) << unwritable.out;
  EXPECT_EQ(unwritable.out, "gpuvp: error: cannot write demo script '/nonexistent/dir/demo.gpuvp'\n");
  ::unlink(path.c_str());
}

TEST(GpuvpCli, QtestSendsIrqNoticesAsWholeLinesBetweenAnswers) {
  // The render engine raises its user interrupt; the host acknowledges it in GEN8_GT_IIR(0), which lowers the line.
  gpuvp::host::ScriptHostPort recording;
  gpuvp::host::I915Driver driver(recording);
  driver.enable_interrupts(gpuvp::gen::Engine::kRcs);
  auto& ring = driver.create_ring(gpuvp::gen::Engine::kRcs, 4096);
  driver.emit(ring, gpuvp::gen::mi::user_interrupt());
  driver.submit(ring);
  std::vector<std::string> commands = {"irq_intercept_in"};
  std::istringstream recorded(recording.script());
  for (std::string line; std::getline(recorded, line);) {
    if (!line.empty() && line[0] != '#') commands.push_back(line);
  }
  commands.push_back("clock_step 10000");
  commands.push_back("writel 0xe0044308 0x1");  // GEN8_GT_IIR(0): RCS user interrupt, write 1 to clear
  commands.push_back("clock_step 100");

  const std::string path = ::testing::TempDir() + "gpuvp-qtest-irq-" + std::to_string(::getpid()) + ".sock";
  ::unlink(path.c_str());
  auto server = std::async(std::launch::async, [&] { return run("run --quiet --qtest unix:" + path); });
  const int fd = connect_unix(path);
  ASSERT_GE(fd, 0) << "could not connect to " << path;
  std::string all;
  for (const auto& c : commands) all += c + "\n";
  ASSERT_EQ(::send(fd, all.data(), all.size(), 0), static_cast<ssize_t>(all.size()));
  ::shutdown(fd, SHUT_WR);
  std::string received;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) received.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  Result r = server.get();
  EXPECT_EQ(r.exit_code, 0) << r.out;

  std::vector<std::string> lines;
  std::istringstream in(received);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  // Every line is a whole answer or a whole notice; the answers come one per command, in order.
  std::vector<std::string> answers, transcript;
  for (const auto& line : lines) {
    const bool notice = line == "IRQ raise 0" || line == "IRQ lower 0";
    EXPECT_TRUE(notice || line == "OK" || line.rfind("OK ", 0) == 0) << line;
    if (!notice) answers.push_back(line);
    transcript.push_back(notice ? line : "answer");
  }
  ASSERT_EQ(answers.size(), commands.size()) << received;
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "IRQ raise 0"), 1) << received;
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "IRQ lower 0"), 1) << received;
  // The raise comes during the submission or the clock step after it, before the step's answer; the lower during
  // the acknowledging write, before its answer.
  const auto raise = std::find(lines.begin(), lines.end(), "IRQ raise 0") - lines.begin();
  const auto lower = std::find(lines.begin(), lines.end(), "IRQ lower 0") - lines.begin();
  const std::size_t n = lines.size();
  EXPECT_EQ(lines[n - 1].rfind("OK ", 0), 0u);  // clock_step 100
  EXPECT_EQ(lines[n - 2], "OK");                // the IIR write
  EXPECT_EQ(static_cast<std::size_t>(lower), n - 3);
  EXPECT_EQ(lines[n - 4].rfind("OK ", 0), 0u);  // clock_step 10000
  EXPECT_LT(static_cast<std::size_t>(raise), n - 4);
  EXPECT_EQ(lines[0], "OK");  // irq_intercept_in
}
