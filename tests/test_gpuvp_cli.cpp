// End-to-end: the gpuvp executable as a user runs it.
#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <future>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <pty.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw/gen/mi_commands.h"
#include "tb/host/i915_driver.h"
#include "tests/support/run_gpuvp.h"

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

// ---- bad host input: one line naming the problem, exit code 2 ----

namespace {
struct BadHostInput {
  const char* name;
  const char* args;       // "{file}" stands for a temporary file holding `file_text`
  const char* file_text;  // nullptr: no file
  const char* message;    // the whole of stderr after "gpuvp: error: " ("{file}" as in args)
};
// The case name in test listings, not its bytes.
void PrintTo(const BadHostInput& c, std::ostream* os) { *os << c.name; }

std::string with_file(std::string text, const std::string& file) {
  for (std::size_t at; (at = text.find("{file}")) != std::string::npos;) text.replace(at, 6, file);
  return text;
}

class GpuvpCliBadInput : public ::testing::TestWithParam<BadHostInput> {};
}  // namespace

TEST_P(GpuvpCliBadInput, IsAOneLineErrorWithExitCode2) {
  const BadHostInput& c = GetParam();
  const std::string file = c.file_text ? write_temp(std::string(c.name) + ".yaml", c.file_text) : "";
  const std::string args = with_file(c.args, file);
  Result r = run(args);
  EXPECT_EQ(r.exit_code, 2) << args;
  EXPECT_EQ(r.out, "gpuvp: error: " + with_file(c.message, file) + "\n") << args;
}

namespace {
const BadHostInput kBadHostInput[] = {
    // The command line.
    {"UnknownOption", "--bogus", nullptr, "The following argument was not expected: --bogus (see gpuvp --help)"},
    {"UnknownSubcommand", "frobnicate", nullptr,
     "The following argument was not expected: frobnicate (see gpuvp --help)"},
    {"MissingScript", "run --script /nonexistent/file", nullptr,
     "--script: File does not exist: /nonexistent/file (see gpuvp --help)"},
    {"SetWithoutKeyPath", "run --set nodot", nullptr, "--set 'nodot': expected key.path=value"},
    // Configuration keys: the full path, a guess when there is one.
    {"UnknownKeyWithAGuess", "run --set vc4.v3d.slicez=2", nullptr,
     "config key 'vc4.v3d.slicez': unknown key, did you mean 'vc4.v3d.slices'?"},
    {"UnknownGroupWithAGuess", "info --set gpu.clock_hz=1GHz", nullptr,
     "config key 'gpu': unknown key, did you mean 'gen'?"},
    {"WrongType", "run --set sim.quantum_ns=fast", nullptr,
     "config key 'sim.quantum_ns': expected an unsigned integer, got 'fast'"},
    {"OutOfRange", "run --set vc4.v3d.slices=16", nullptr,
     "config key 'vc4.v3d.slices': value 16 is out of range [1, 15]"},
    // Several keys of the group hold "latency": no guess.
    {"UnknownKeyInAFileWithoutAGuess", "run --config {file}", "dram:\n  size: 1GiB\n  latency: 3\n",
     "config key 'dram.latency': unknown key"},
    {"TypoInAFile", "run --config {file}", "dram:\n  read_latency: 3\n",
     "config key 'dram.read_latency': unknown key, did you mean 'dram.read_latency_cycles'?"},
    {"KeyGivenTwiceInAFile", "run --config {file}", "sim:\n  quantum_ns: 100\n  quantum_ns: 200\n",
     "config file '{file}': key 'sim.quantum_ns' is given twice (line 3)"},
    // DRAM that cannot be placed.
    {"DramNotPageSized", "run --set dram.size=0x80000800", nullptr,
     "config key 'dram.size': 0x80000800 is not a multiple of the 4 KiB page"},
    {"DramBeyondPhysicalAddresses", "run --set dram.size=512GiB", nullptr,
     "config key 'dram.size': 512 GiB of DRAM ends at 0x801fffffff, beyond the Gen GPU's 39-bit physical addresses "
     "(gen.gtt.physical_address_bits)"},
    {"BarOverlapsDram", "run --set dram.size=8GiB --set gen.base=0x100000000", nullptr,
     "config key 'gen.base': the Gen GTTMMADR BAR [0x100000000, 0x100ffffff] overlaps DRAM [0x100000000, "
     "0x21effffff]"},
    {"StolenMemoryDoesNotFit", "info --set dram.size=4MiB", nullptr,
     "config key 'dram.size': the 4 MiB of low DRAM cannot hold the Gen GPU's stolen memory, 8 MiB of GGTT "
     "entries (gen.gtt.ggtt_size 4 GiB); give more DRAM or set gen.enabled=false"},
    // Found by fuzz_config: messages that quoted control characters from the input ran over several lines.
    {"YamlErrorQuotingAControlCharacter", "run --config {file}", "sim:\n  quantum_ns: \"\\\x01\"\n",
     "config file '{file}': yaml-cpp: error at line 2, column 18: unknown escape character: \\x01"},
    {"UnknownKeyWithANewline", "run --config {file}", "sim:\n  \"quantum\\nns\": 1\n",
     "config key 'sim.quantum\\x0ans': unknown key, did you mean 'sim.quantum_ns'?"},
    {"DramOfOnePage", "run --set dram.size=4096", nullptr,
     "config key 'dram.size': the 4 KiB of low DRAM cannot hold the Gen GPU's stolen memory, 8 MiB of GGTT entries "
     "(gen.gtt.ggtt_size 4 GiB); give more DRAM or set gen.enabled=false"},
    // Host files and values that would cost unbounded memory or output (issue 23).
    {"ConfigIsADevice", "run --config /dev/zero", nullptr, "config file '/dev/zero': not a regular file"},
    // Run limits take a duration with its unit.
    {"MaxSimTimeWithoutAUnit", "run --max-sim-time 30", nullptr,
     "--max-sim-time: Missing mandatory unit (see gpuvp --help)"},
    {"MaxSimTimeOfNothing", "run --max-sim-time 0.2ns", nullptr,
     "--max-sim-time: must be at least 1 ns (see gpuvp --help)"},
    {"MaxWallTimeInAnUnknownUnit", "run --max-wall-time 3fortnights", nullptr,
     "--max-wall-time: fortnights unit not recognized. Allowed values: {h,min,ms,s} (see gpuvp --help)"},
    {"HugeValueIsCutShort",
     "run --set "
     "sim.quantum_ns=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
     nullptr,
     "config key 'sim.quantum_ns': expected an unsigned integer, got "
     "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (89 bytes)'"},
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(HostInput, GpuvpCliBadInput, ::testing::ValuesIn(kBadHostInput),
                         [](const ::testing::TestParamInfo<BadHostInput>& info) { return info.param.name; });

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
  const std::string script =
      write_temp("bad.gpuvp", "writel 0x2000 0x12345678\nexpectl 0x2000 0x12340000 0xffff\nreadl 0\n");
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
  // What the run was given and the host's wall time differ by design; the modelled results must not.
  j.erase("command_line");
  j.erase("wall_time_s");
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
  Result b =
      run("run --quiet --set gen.memory_access=transport --set vc4.v3d.memory_access=transport --stats " + transport);
  ASSERT_EQ(b.exit_code, 0) << b.out;
  EXPECT_EQ(a.out, b.out);
  std::ifstream in(timed);
  const nlohmann::json full = nlohmann::json::parse(in)["stats"].flatten();
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
  auto da = nlohmann::json::parse(slurp(a)), db = nlohmann::json::parse(slurp(b));
  // Everything but the host's wall time and the file name on the command line.
  for (auto* d : {&da, &db}) {
    EXPECT_GT((*d)["wall_time_s"].get<double>(), 0.0);
    d->erase("wall_time_s");
    d->erase("command_line");
  }
  EXPECT_FALSE(da["stats"].empty());
  EXPECT_EQ(da.dump(), db.dump());
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
  // frame, the Gen batches and contexts, the firmware's start and the GuC submissions) is about 270 us, and the GPGPU
  // step about 250 us (the host's writes of its buffers and heaps, and the data port's accesses, one lane at a time
  // until the EU timing model).
  const std::uint64_t t = demo_time_ps("");
  EXPECT_GT(t, 500 * kPsPerUs);
  EXPECT_LT(t, 1200 * kPsPerUs);
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
  EXPECT_EQ(text.find("clock_step"), std::string::npos);                      // waits are polls
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

// ---- clean output ----

namespace {
using Split = gpuvp::test::SplitResult;
Split run_split(const std::string& args) { return gpuvp::test::run_gpuvp_split(args); }

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}
}  // namespace

TEST(GpuvpCliOutput, ScriptRunPutsOnlyTheAnswersOnStdoutAndTheSummaryOnStderr) {
  const std::string script = write_temp("answers.gpuvp", "readl 0xe1000000\nclock_step 100\n");
  // progress=on asks for the progress line, but stderr is not a terminal: none appears.
  Split r = run_split("run --set sim.progress=on --script " + script);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "OK 0x0000000002443356\nOK 119\n");
  EXPECT_EQ(r.err.rfind("gpuvp run summary\n", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find(" ms  wall "), std::string::npos) << "progress line on a pipe: " << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
}

TEST(GpuvpCliOutput, DemoSummaryIsOnStdoutAndNothingElse) {
  Split r = run_split("run");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("gpuvp run summary\n", 0), 0u) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(GpuvpCliOutput, ReportsAreOneLineOnStderrWithFileAndLineOnlyWhenVerbose) {
  const std::string script = write_temp("unmapped.gpuvp", "readl 0xf0000000\n");
  Split plain = run_split("run --quiet --script " + script);
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_EQ(plain.out, "ERR read at 0xf0000000 failed: address error\n");
  EXPECT_EQ(plain.err,
            "warning at 0 s: gpuvp.bus: no target at 0xf0000000 (4 bytes, read)\n"
            "gpuvp: " +
                script + ":1: read at 0xf0000000 failed: address error (command: readl 0xf0000000)\n");
  Split verbose = run_split("run --quiet --verbose --script " + script);
  EXPECT_EQ(verbose.out, plain.out);
  ASSERT_EQ(count_lines(verbose.err), 2u) << verbose.err;
  // The file relative to the source tree, the line of the report call, the process that made it.
  const std::string first = verbose.err.substr(0, verbose.err.find('\n'));
  EXPECT_EQ(first.rfind("warning at 0 s: gpuvp.bus: no target at 0xf0000000 (4 bytes, read) [tlm/core/bus.cpp:", 0), 0u)
      << first;
  EXPECT_EQ(first.substr(first.size() - std::string(", process host_cpu.run]").size()), ", process host_cpu.run]")
      << first;
}

// A guest looping forever over one mistake (a batch that branches to itself after an LRI to a register the Gen block
// does not model; 78 ns a round) for 20 ms: the first 10 warnings of that kind are shown, then one notice, then they
// are only counted, in the summary and in the statistics. Output and host memory stay bounded.
TEST(GpuvpCliOutput, GuestReportsOfOneKindAreShownUpToTheLimitThenCounted) {
  const std::string setup =
      "writeq 0xe0800800 0x1000001       # GGTT 0x100000 -> 0x1000000 (status page)\n"
      "writeq 0xe0800808 0x1001001       # GGTT 0x101000 -> 0x1001000 (ring)\n"
      "writeq 0xe0800838 0x1007001       # GGTT 0x107000 -> 0x1007000 (batch)\n"
      "writel 0xe0101008 0x1             # GFX_FLSH_CNTL\n"
      "# batch: MI_LOAD_REGISTER_IMM 0xb000 = 0, MI_BATCH_BUFFER_START 0x107000 (itself, GGTT)\n"
      "write 0x1007000 24 0x0100001100b0000000000000010080180070100000000000\n"
      "write 0x1001000 16 0x01008018007010000000000000000000   # ring: MI_BATCH_BUFFER_START 0x107000\n"
      "writel 0xe000203c 0x0\n"
      "writel 0xe0002034 0x0\n"
      "writel 0xe0002030 0x0\n"
      "writel 0xe0002038 0x101000        # RING_START\n"
      "writel 0xe0002080 0x100000        # HWS_PGA\n"
      "writel 0xe000203c 0x3001          # RING_CTL: 4 pages, enabled\n"
      "writel 0xe0002030 0x10            # RING_TAIL: run\n";
  const std::string script = write_temp("lri_loop.gpuvp", setup + "clock_step 20000000\n");
  const std::string stats = ::testing::TempDir() + "lri_loop_stats.json";
  // A batch looping on itself would be hung after gen.cs.hang_timeout_ns: longer than the run here.
  Split r = run_split("run --script " + script + " --stats " + stats + " --set gen.cs.hang_timeout_ns=1000000000");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string warning =
      "warning at 278 ns: gpuvp.gen: write of unmapped register offset 0xb000 (4 bytes): ignored\n";
  std::string shown;
  for (int i = 0; i < 10; ++i) shown += warning;
  shown +=
      "warning at 278 ns: gpuvp.gen: further reports like this one are suppressed after 10 (sim.guest_report_limit; "
      "the run summary counts them): write of unmapped register offset 0xb000 (4 bytes): ignored\n";
  EXPECT_EQ(r.err.substr(0, r.err.find("gpuvp run summary")), shown);
  EXPECT_NE(r.err.find("  reports:        0 errors, 253173 warnings (253162 not shown, past sim.guest_report_limit)\n"),
            std::string::npos)
      << r.err;
  EXPECT_LT(r.err.size(), 4096u);
  const auto s = nlohmann::json::parse(slurp(stats));
  EXPECT_EQ(s["stats"]["gpuvp"]["reports"]["guest_suppressed"].get<std::uint64_t>(), 253162u);
  EXPECT_EQ(s["config"]["sim"]["guest_report_limit"].get<std::uint64_t>(), 10u);

  // A limit of 3 shows three and the notice; 0 shows them all (here over 3 us: 37 rounds).
  Split three = run_split("run --quiet --script " + script + " --set gen.cs.hang_timeout_ns=1000000000" +
                          " --set sim.guest_report_limit=3");
  EXPECT_EQ(count_lines(three.err), 4u) << three.err;
  const std::string short_script = write_temp("lri_loop_short.gpuvp", setup + "clock_step 3000\n");
  Split all = run_split("run --quiet --script " + short_script + " --set gen.cs.hang_timeout_ns=1000000000" +
                        " --set sim.guest_report_limit=0");
  EXPECT_EQ(count_lines(all.err), 37u) << all.err;
}

// The same through memory: a batch looping over MI_LOAD_REGISTER_MEM from a PPGTT page that maps the Gen BAR's
// unmodelled register 0xb000 (the GPU reading its own MMIO over the bus; 90 ns a round). 20 ms give 222217 reads of
// that register: 10 warnings shown, one notice, the rest counted, and the register loaded reads 0.
TEST(GpuvpCliOutput, GuestReportsFromALoadRegisterMemLoopThroughThePpgttAreCounted) {
  const std::string script = write_temp(
      "lrm_loop.gpuvp",
      "writeq 0xe0800800 0x1000001       # GGTT 0x100000 -> 0x1000000 (status page)\n"
      "writeq 0xe0800808 0x1001001       # GGTT 0x101000 -> 0x1001000 (ring)\n"
      "writeq 0xe0800838 0x1007001       # GGTT 0x107000 -> 0x1007000 (batch)\n"
      "writel 0xe0101008 0x1             # GFX_FLSH_CNTL\n"
      "# 4-level PPGTT: PML4 0x1010000 -> PDP -> PD -> PT; VA 0x1000 -> 0xe000b000 (the BAR, register 0xb000)\n"
      "writeq 0x1010000 0x1011003\n"
      "writeq 0x1011000 0x1012003\n"
      "writeq 0x1012000 0x1013003\n"
      "writeq 0x1013008 0xe000b003\n"
      "writel 0xe0002270 0x1010000       # RCS PDP0: the PML4\n"
      "writel 0xe0002274 0x0\n"
      "writel 0xe000229c 0x2800280       # GFX_MODE: PPGTT enable | 48-bit, masked\n"
      "# batch: MI_LOAD_REGISTER_MEM CS_GPR0 <- PPGTT 0x1000, MI_BATCH_BUFFER_START 0x107000 (itself, GGTT)\n"
      "write 0x1007000 28 0x02008014002600000010000000000000010080180070100000000000\n"
      "write 0x1001000 16 0x01008018007010000000000000000000   # ring: MI_BATCH_BUFFER_START 0x107000\n"
      "writel 0xe000203c 0x0\n"
      "writel 0xe0002034 0x0\n"
      "writel 0xe0002030 0x0\n"
      "writel 0xe0002038 0x101000        # RING_START\n"
      "writel 0xe0002080 0x100000        # HWS_PGA\n"
      "writel 0xe000203c 0x3001          # RING_CTL: 4 pages, enabled\n"
      "writel 0xe0002030 0x10            # RING_TAIL: run\n"
      "clock_step 20000000\n"
      "expectl 0xe0002600 0x0            # CS_GPR0: what the unmodelled register read\n");
  const std::string stats = ::testing::TempDir() + "lrm_loop_stats.json";
  Split r = run_split("run --script " + script + " --stats " + stats + " --set gen.cs.hang_timeout_ns=1000000000");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string notice =
      "warning at 1918 ns: gpuvp.gen: further reports like this one are suppressed after 10 (sim.guest_report_limit; "
      "the run summary counts them): read of unmapped register offset 0xb000 (4 bytes): returns 0\n";
  const std::string warnings = r.err.substr(0, r.err.find("gpuvp run summary"));
  EXPECT_EQ(count_lines(warnings), 11u) << warnings;
  EXPECT_EQ(warnings.rfind(
                "warning at 1018 ns: gpuvp.gen: read of unmapped register offset 0xb000 (4 bytes): returns 0\n", 0),
            0u)
      << warnings;
  EXPECT_EQ(warnings.substr(warnings.size() - notice.size()), notice);
  EXPECT_NE(r.err.find("  reports:        0 errors, 222217 warnings (222206 not shown, past sim.guest_report_limit)\n"),
            std::string::npos)
      << r.err;
  EXPECT_LT(r.err.size(), 4096u);
  const auto s = nlohmann::json::parse(slurp(stats));
  EXPECT_EQ(s["stats"]["gpuvp"]["reports"]["guest_suppressed"].get<std::uint64_t>(), 222206u);
  EXPECT_EQ(s["stats"]["gpuvp"]["gen"]["unmapped_accesses"].get<std::uint64_t>(), 222217u);
}

namespace {
// Runs gpuvp with stdout and stderr on one pseudo-terminal, as in an interactive shell, and returns what the terminal
// received.
std::string run_on_terminal(const std::vector<std::string>& args) {
  int master = -1, slave = -1;
  if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) return "openpty failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(master);
    ::dup2(slave, STDOUT_FILENO);
    ::dup2(slave, STDERR_FILENO);
    ::close(slave);
    ::unsetenv("CI");
    std::vector<char*> argv{const_cast<char*>(GPUVP_EXE)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(GPUVP_EXE, argv.data());
    ::_exit(127);
  }
  ::close(slave);
  std::string text;
  char buf[4096];
  ssize_t n;
  // The read fails (EIO) once the child has closed its side.
  while ((n = ::read(master, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return text;
}
}  // namespace

TEST(GpuvpCliOutput, OnATerminalTheProgressLineIsErasedBeforeEachAnswer) {
  // Four steps of 5 simulated seconds take a second or more of wall time (a check for a stop signal every 1 us
  // quantum): the progress line, refreshed every 0.5 s, shows.
  const std::string script = write_temp("slow.gpuvp",
                                        "clock_step 5000000000\nclock_step 5000000000\n"
                                        "clock_step 5000000000\nclock_step 5000000000\n");
  const std::string text = run_on_terminal({"run", "--quiet", "--script", script});
  EXPECT_NE(text.find(" ms  wall "), std::string::npos) << "no progress line: " << text;
  // What the terminal shows of each line is what follows its last carriage return (the terminal itself ends lines
  // with \r\n): exactly the answers, each from the left margin.
  std::vector<std::string> shown;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    shown.push_back(line.substr(line.rfind('\r') == std::string::npos ? 0 : line.rfind('\r') + 1));
  }
  EXPECT_EQ(shown, (std::vector<std::string>{"OK 5000000000", "OK 10000000000", "OK 15000000000", "OK 20000000000"}))
      << text;
}

// ---- SIGINT / SIGTERM ----

namespace {
// gpuvp as a child process: stdout through a pipe, stderr to a file.
class Child {
 public:
  explicit Child(const std::vector<std::string>& args)
      : err_path_(::testing::TempDir() + "gpuvp-child-" + std::to_string(::getpid()) + ".err") {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], STDOUT_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
      if (std::FILE* err = std::freopen(err_path_.c_str(), "w", stderr); err == nullptr) ::_exit(126);
      std::vector<char*> argv{const_cast<char*>(GPUVP_EXE)};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(GPUVP_EXE, argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    out_fd_ = fds[0];
  }
  ~Child() {
    if (out_fd_ >= 0) ::close(out_fd_);
    ::unlink(err_path_.c_str());
  }

  // The next line of stdout, waiting at most timeout; empty at the end or on timeout.
  std::string read_line(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const std::size_t eol = out_.find('\n', consumed_);
      if (eol != std::string::npos) {
        std::string line = out_.substr(consumed_, eol - consumed_);
        consumed_ = eol + 1;
        return line;
      }
      if (!read_some(deadline)) return {};
    }
  }
  void signal(int sig) { ::kill(pid_, sig); }
  // Waits for the exit (killing the child if it takes longer than timeout) and returns the exit code, or -signal
  // when a signal ended it.
  int wait(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (read_some(deadline)) {
    }
    int status = 0;
    if (std::chrono::steady_clock::now() >= deadline) ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }
  const std::string& out() const { return out_; }
  std::string err() const { return slurp(err_path_); }

 private:
  // Appends what stdout has; false at its end or at the deadline.
  bool read_some(std::chrono::steady_clock::time_point deadline) {
    using std::chrono::milliseconds;
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{out_fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buf[4096];
    const ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n <= 0) return false;
    out_.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  std::string err_path_;
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string out_;
  std::size_t consumed_ = 0;
};
}  // namespace

TEST(GpuvpCliSignals, SigtermAndSigintStopTheRunAndKeepSummaryStatisticsAndTrace) {
  // Two DRAM writes, an answer that tells the test the run is under way, then a step of 10^5 simulated seconds
  // (hours of wall time): only the signal ends it.
  const std::string script =
      write_temp("long.gpuvp", "writel 0x1000 1\nwritel 0x1004 2\nreadl 0xe1000000\nclock_step 100000000000000\n");
  for (const auto& [sig, code, name] : {std::tuple{SIGTERM, 143, "SIGTERM"}, std::tuple{SIGINT, 130, "SIGINT"}}) {
    const std::string tag = std::to_string(::getpid()) + "-" + name;
    const std::string stats = ::testing::TempDir() + "gpuvp-sig-stats-" + tag + ".json";
    const std::string trace = ::testing::TempDir() + "gpuvp-sig-trace-" + tag + ".json";
    ::unlink(stats.c_str());
    ::unlink(trace.c_str());
    Child child({"run", "--script", script, "--stats", stats, "--trace", trace});
    EXPECT_EQ(child.read_line(), "OK");
    EXPECT_EQ(child.read_line(), "OK");
    EXPECT_EQ(child.read_line(), "OK 0x0000000002443356");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // well into the clock_step
    child.signal(sig);
    EXPECT_EQ(child.wait(), code) << name;
    const std::string err = child.err();
    EXPECT_EQ(child.out(), "OK\nOK\nOK 0x0000000002443356\n") << "clock_step never answered";
    EXPECT_NE(err.find(std::string("  outcome:        interrupted by ") + name), std::string::npos) << err;
    EXPECT_NE(err.find(std::string("gpuvp: interrupted by ") + name + " at "), std::string::npos) << err;
    const std::string stats_text = slurp(stats);
    ASSERT_FALSE(stats_text.empty()) << name << ": no statistics file";
    const auto s = nlohmann::json::parse(stats_text);
    EXPECT_EQ(s["stats"]["gpuvp"]["dram"]["bytes_written"], 8);
    // Stopped at a quantum boundary well past the accesses.
    EXPECT_GT(s["sim_time_ps"].get<std::uint64_t>(), 1'000'000u);
    EXPECT_EQ(s["sim_time_ps"].get<std::uint64_t>() % 1'000'000u, 0u) << "not a 1 us quantum boundary";
    const auto t = nlohmann::json::parse(slurp(trace));  // throws (fails the test) unless the trace is closed JSON
    bool host_track = false;
    for (const auto& e : t["traceEvents"]) {
      if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "host_cpu") host_track = true;
    }
    EXPECT_TRUE(host_track);
    ::unlink(stats.c_str());
    ::unlink(trace.c_str());
  }
}

TEST(GpuvpCliSignals, SigtermWhileAQtestServerWaitsForItsPeerEndsTheRunWith143) {
  const std::string path = ::testing::TempDir() + "gpuvp-qtest-sig-" + std::to_string(::getpid()) + ".sock";
  ::unlink(path.c_str());
  Child child({"run", "--qtest", "unix:" + path});
  for (int attempt = 0; attempt < 400 && ::access(path.c_str(), F_OK) != 0; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_EQ(::access(path.c_str(), F_OK), 0) << "no socket";
  child.signal(SIGTERM);
  EXPECT_EQ(child.wait(std::chrono::seconds(10)), 143);
  EXPECT_NE(child.out().find("  outcome:        interrupted by SIGTERM"), std::string::npos) << child.out();
  ::unlink(path.c_str());
}

// ---- configuration from the command line ----

namespace {
nlohmann::json stats_on_stdout(const std::string& args, int expected_exit = 0) {
  Split r = run_split("run --stats - " + args);
  EXPECT_EQ(r.exit_code, expected_exit) << r.err;
  // The summary went to stderr: stdout is one JSON document.
  if (args.find("--quiet") == std::string::npos) {
    EXPECT_NE(r.err.find("gpuvp run summary"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("statistics:     stdout"), std::string::npos) << r.err;
  }
  return nlohmann::json::parse(r.out);
}
}  // namespace

TEST(GpuvpCliConfig, StatsDashWritesTheStatisticsAsJsonOnStdout) {
  const auto s = stats_on_stdout("");
  EXPECT_EQ(s["config"]["sim"]["quantum_ns"], 1000);
  EXPECT_GT(s["stats"]["gpuvp"]["gen"]["rcs"]["commands"].get<int>(), 0);
  // With a script, stdout is the answers': refused before anything runs.
  const std::string script = write_temp("one.gpuvp", "readl 0\n");
  Result both = run("run --stats - --script " + script);
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.out, "gpuvp: error: --stats - and --script both write to stdout: give --stats a file name\n");
}

TEST(GpuvpCliConfig, ClockValuesTakeUnitsAndSizesDecimalSuffixes) {
  const auto s = stats_on_stdout(
      "--quiet --set gen.clock_hz=1.2GHz --set vc4.v3d.clock_hz=800MHz --set dram.size=2048MB "
      "--set gen.guc.clock_hz=400_000_000");
  EXPECT_EQ(s["config"]["gen"]["clock_hz"], 1'200'000'000);
  EXPECT_EQ(s["config"]["vc4"]["v3d"]["clock_hz"], 800'000'000);
  EXPECT_EQ(s["config"]["dram"]["size"], 2'048'000'000);
  EXPECT_EQ(s["config"]["gen"]["guc"]["clock_hz"], 400'000'000);
  Result bad = run("run --set gen.clock_hz=1.2");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out,
            "gpuvp: error: config key 'gen.clock_hz': expected a whole number of Hz or a frequency with a unit "
            "(100kHz, 800MHz, 1.2GHz), got '1.2'\n");
}

TEST(GpuvpCliConfig, SeveralConfigFilesAreLayeredInOrderThenTheSets) {
  const std::string base = write_temp("base.yaml", "sim:\n  quantum_ns: 100\n  seed: 7\ngen:\n  clock_hz: 1GHz\n");
  const std::string fast = write_temp("fast.yaml", "sim:\n  quantum_ns: 5000\n");
  const auto s = stats_on_stdout("--quiet --config " + base + " --config " + fast + " --set sim.seed=9");
  EXPECT_EQ(s["config"]["sim"]["quantum_ns"], 5000);         // the later file
  EXPECT_EQ(s["config"]["sim"]["seed"], 9);                  // --set after every file
  EXPECT_EQ(s["config"]["gen"]["clock_hz"], 1'000'000'000);  // only in the first file
  const auto reversed = stats_on_stdout("--quiet --config " + fast + " --config " + base);
  EXPECT_EQ(reversed["config"]["sim"]["quantum_ns"], 100);
  EXPECT_EQ(reversed["config"]["sim"]["seed"], 7);
}

TEST(GpuvpCliConfig, RunOptionsWorkWithoutTheRunSubcommand) {
  Split implicit = run_split("--quiet --set sim.quantum_ns=100 --stats -");
  EXPECT_EQ(implicit.exit_code, 0) << implicit.err;
  EXPECT_EQ(nlohmann::json::parse(implicit.out)["config"]["sim"]["quantum_ns"], 100);
  Split explicit_run = run_split("run --quiet --set sim.quantum_ns=100 --stats -");
  // The same run: everything but the command line as typed and the host's wall time.
  auto a = nlohmann::json::parse(implicit.out), b = nlohmann::json::parse(explicit_run.out);
  EXPECT_EQ(a["command_line"][1], "--quiet");
  EXPECT_EQ(b["command_line"][1], "run");
  for (auto* d : {&a, &b}) {
    d->erase("command_line");
    d->erase("wall_time_s");
  }
  EXPECT_EQ(a.dump(), b.dump());
  // Unknown options still fail as such.
  Result bogus = run("--bogus");
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_EQ(bogus.out.rfind("gpuvp: error: ", 0), 0u) << bogus.out;
}

TEST(GpuvpCliConfig, ARunStoppedByTheTimeLimitExitsOneAndSaysSo) {
  Split r = run_split("run --set sim.time_limit_ns=30000");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(
      r.out.find("  outcome:        stopped at the time limit (sim.time_limit_ns = 30000), workload unfinished\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  simulated time: 30.000 us\n"), std::string::npos) << r.out;
}

// ---- the statistics file (README "Statistics and timeline") ----

TEST(GpuvpStatsFile, SaysWhatProducedItHowTheRunEndedAndWhatEachValueIs) {
  const std::string path = ::testing::TempDir() + "schema.json";
  ASSERT_EQ(run("run --quiet --set sim.seed=3 --stats " + path).exit_code, 0);
  const auto d = nlohmann::json::parse(slurp(path));
  EXPECT_EQ(d["schema"], "gpuvp-stats");
  EXPECT_EQ(d["schema_version"], 2);
  EXPECT_FALSE(d["gpuvp_version"].get<std::string>().empty());
  const auto command = d["command_line"].get<std::vector<std::string>>();
  ASSERT_EQ(command.size(), 7u);  // the executable, then the six arguments
  EXPECT_EQ(command[1], "run");
  EXPECT_EQ(command[3], "--set");
  EXPECT_EQ(command[4], "sim.seed=3");
  EXPECT_EQ(d["config"]["sim"]["seed"], 3);
  EXPECT_EQ(d["outcome"], (nlohmann::json{{"result", "completed"}, {"exit_code", 0}, {"detail", "completed"}}));
  EXPECT_GT(d["sim_time_ps"].get<std::uint64_t>(), 0u);
  // Every statistic has its kind and unit.
  const auto& m = d["metrics"];
  EXPECT_EQ(m["gpuvp.bus.dram.bytes"]["unit"], "bytes");
  EXPECT_EQ(m["gpuvp.bus.dram.bytes"]["kind"], "counter");
  EXPECT_EQ(m["gpuvp.bus.dram.contention_wait_ps"]["unit"], "ps");
  EXPECT_EQ(m["gpuvp.bus.dram.transactions"]["unit"], "events");
  EXPECT_EQ(m["gpuvp.bus.dram.busy"]["kind"], "busy_time");
  EXPECT_EQ(m["gpuvp.gen.rcs.submit_to_start_ps"]["kind"], "histogram");
  EXPECT_EQ(m["gpuvp.gen.rcs.submit_to_start_ps"]["unit"], "ps");
  for (const auto& [path, metric] : m.items()) {
    EXPECT_TRUE(metric.contains("kind") && metric.contains("unit")) << path;
  }
  EXPECT_NE(d["histogram_buckets"].get<std::string>().find("[2^(i-1), 2^i)"), std::string::npos);
}

TEST(GpuvpStatsFile, OutcomeOfAFailedAndOfATimeLimitedRun) {
  const std::string path = ::testing::TempDir() + "outcome.json";
  const std::string script = write_temp("fails.gpuvp", "writel 0x1000 0x5\nexpectl 0x1000 0x6\n");
  EXPECT_EQ(run("run --quiet --script " + script + " --stats " + path).exit_code, 1);
  auto d = nlohmann::json::parse(slurp(path));
  EXPECT_EQ(d["outcome"]["result"], "failed");
  EXPECT_EQ(d["outcome"]["exit_code"], 1);
  EXPECT_EQ(d["outcome"]["detail"].get<std::string>().rfind("FAILED: ", 0), 0u) << d["outcome"];
  EXPECT_EQ(run("run --quiet --set sim.time_limit_ns=30000 --stats " + path).exit_code, 1);
  d = nlohmann::json::parse(slurp(path));
  EXPECT_EQ(d["outcome"]["result"], "time_limit");
  EXPECT_EQ(d["sim_time_ps"], 30'000'000);
}

TEST(GpuvpStatsFile, IntervalAddsATimeSeriesOfEveryCounterEndingAtTheTotals) {
  const std::string path = ::testing::TempDir() + "series.json";
  ASSERT_EQ(run("run --quiet --stats-interval 50000 --stats " + path).exit_code, 0);
  const auto d = nlohmann::json::parse(slurp(path));
  const auto& series = d["series"];
  EXPECT_EQ(series["interval_ps"], 50'000'000);
  const auto times = series["time_ps"].get<std::vector<std::uint64_t>>();
  const std::uint64_t end = d["sim_time_ps"];
  // Samples at 0, 50 us, 100 us, ... and one at the end of the run.
  ASSERT_EQ(times.size(), (end + 49'999'999) / 50'000'000 + 1);
  for (std::size_t i = 0; i + 1 < times.size(); ++i) EXPECT_EQ(times[i], i * 50'000'000) << i;
  EXPECT_EQ(times.back(), end);
  // Every counter: cumulative (never decreasing), as long as the times, and its last value is the total.
  ASSERT_GT(series["counters"].size(), 50u);
  for (const auto& [path_, values] : series["counters"].items()) {
    const auto v = values.get<std::vector<std::uint64_t>>();
    ASSERT_EQ(v.size(), times.size()) << path_;
    for (std::size_t i = 1; i < v.size(); ++i) EXPECT_LE(v[i - 1], v[i]) << path_ << " at " << i;
  }
  EXPECT_EQ(series["counters"]["gpuvp.bus.dram.bytes"].back(), d["stats"]["gpuvp"]["bus"]["dram"]["bytes"]);
  EXPECT_EQ(series["counters"]["gpuvp.bus.dram.bytes"].front(), 0);
  EXPECT_EQ(series["busy_ps"]["gpuvp.gen.rcs.busy"].back(), d["stats"]["gpuvp"]["gen"]["rcs"]["busy"]["busy_ps"]);
  // The series does not change the run.
  const std::string plain = ::testing::TempDir() + "plain.json";
  ASSERT_EQ(run("run --quiet --stats " + plain).exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(slurp(plain))["stats"], d["stats"]);
}

TEST(GpuvpStatsFile, IntervalWithoutAStatsFileIsAOneLineError) {
  Result r = run("run --stats-interval 1000");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "gpuvp: error: --stats-interval needs --stats FILE (the time series goes into the statistics)\n");
  r = run("run --stats-interval 0 --stats x.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("--stats-interval"), std::string::npos) << r.out;
}

// ---- regions of interest ----

TEST(GpuvpStatsFile, RegionsOfInterestReportWhatChangedBetweenTheirMarks) {
  // 16 KiB of DRAM writes inside "fill" (memset issues 4 KiB bursts), 3 register writes inside "regs", which nests
  // inside "all"; "tail" stays open to the end.
  const std::string script = write_temp("roi.gpuvp",
                                        "stats_begin all\n"
                                        "stats_begin fill\n"
                                        "memset 0x100000 0x4000 0xab\n"
                                        "stats_end fill\n"
                                        "stats_begin regs\n"
                                        "writel 0xe1000010 1\n"
                                        "writel 0xe1000010 2\n"
                                        "writel 0xe1000010 3\n"
                                        "stats_end regs\n"
                                        "stats_end all\n"
                                        "stats_begin tail\n"
                                        "clock_step 1000\n");
  const std::string stats = ::testing::TempDir() + "gpuvp-roi-" + std::to_string(::getpid()) + ".json";
  Result r = run("run --quiet --script " + script + " --stats " + stats);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream f(stats);
  const auto doc = nlohmann::json::parse(f);
  const auto& regions = doc["regions"];
  ASSERT_EQ(regions.size(), 4u) << regions.dump(1);
  EXPECT_EQ(regions[0]["name"], "fill");
  EXPECT_EQ(regions[1]["name"], "regs");
  EXPECT_EQ(regions[2]["name"], "all");
  EXPECT_EQ(regions[3]["name"], "tail");
  const auto& fill = regions[0]["stats"]["gpuvp"]["bus"];
  EXPECT_EQ(fill["dram"]["bytes"], 0x4000);
  EXPECT_EQ(fill["dram"]["transactions"], 4);
  EXPECT_EQ(fill["v3d"]["transactions"], 0);
  const auto& regs = regions[1]["stats"]["gpuvp"]["bus"];
  EXPECT_EQ(regs["dram"]["bytes"], 0);
  EXPECT_EQ(regs["v3d"]["transactions"], 3);
  EXPECT_EQ(regs["v3d"]["bytes"], 12);
  // The enclosing region holds both.
  EXPECT_EQ(regions[2]["stats"]["gpuvp"]["bus"]["transactions"],
            fill["transactions"].get<int>() + regs["transactions"].get<int>());
  EXPECT_EQ(regions[2]["begin_ps"], regions[0]["begin_ps"]);
  EXPECT_EQ(regions[2]["end_ps"], regions[1]["end_ps"]);
  EXPECT_LT(regions[0]["begin_ps"].get<std::uint64_t>(), regions[0]["end_ps"].get<std::uint64_t>());
  // The open region ends with the run.
  EXPECT_EQ(regions[3]["open_at_end"], true);
  EXPECT_EQ(regions[3]["end_ps"], doc["sim_time_ps"]);
  EXPECT_EQ(regions[3]["end_ps"].get<std::uint64_t>() - regions[3]["begin_ps"].get<std::uint64_t>(), 1'000'000u);
  EXPECT_FALSE(regions[0].contains("open_at_end"));
  std::remove(stats.c_str());
}

TEST(GpuvpStatsFile, RegionMistakesAreErrAnswers) {
  const std::string script = write_temp("roi-bad.gpuvp", "stats_begin a\nstats_begin a\n");
  Result twice = run("run --quiet --script " + script);
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.out.find("ERR region 'a' is already open"), std::string::npos) << twice.out;
  Result unknown = run("run --quiet --script " + write_temp("roi-bad2.gpuvp", "stats_end b\n"));
  EXPECT_NE(unknown.out.find("ERR no open region 'b'"), std::string::npos) << unknown.out;
  Result name = run("run --quiet --script " + write_temp("roi-bad3.gpuvp", "stats_begin a/b\n"));
  EXPECT_NE(name.out.find("ERR bad region name 'a/b' (letters, digits, _ - .)"), std::string::npos) << name.out;
  // Without regions the statistics have no "regions" key (the demo's statistics do not change).
  EXPECT_FALSE(stats_on_stdout("--quiet").contains("regions"));
}

// A script that never ends its first line (/dev/zero) is rejected at the protocol's 4 MiB line limit: one answer, one
// line naming the place, exit 1, and host memory bounded.
TEST(GpuvpCli, AScriptLineLongerThanTheLimitEndsTheRun) {
  Result r = run("run --quiet --script /dev/zero");
  EXPECT_EQ(r.exit_code, 1) << r.out.substr(0, 500);
  EXPECT_NE(r.out.find("ERR line longer than 4 MiB (the protocol's limit): rejected"), std::string::npos)
      << r.out.substr(0, 500);
  EXPECT_NE(r.out.find("/dev/zero:1: line longer than 4 MiB"), std::string::npos) << r.out.substr(0, 500);
  EXPECT_LT(r.out.size(), 2000u);
}

// Deterministic (issue 23): the demo, which drives every engine through rings, the GPGPU pipe and the EU, execlists,
// GuC submission and vc4 binning and rendering, run twice gives byte-identical statistics (with interval series) and
// traces; only the wall time and the command line (the file names) differ.
TEST(GpuvpCli, TheDemoRunTwiceGivesIdenticalStatisticsAndTraces) {
  std::string stats[2], traces[2];
  for (int i = 0; i < 2; ++i) {
    const std::string s = write_temp("det" + std::to_string(i) + ".json", "");
    const std::string t = write_temp("det" + std::to_string(i) + ".trace.json", "");
    Result r = run("run --quiet --stats " + s + " --trace " + t + " --stats-interval 10000");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    nlohmann::json doc = nlohmann::json::parse(slurp(s));
    ASSERT_TRUE(doc.contains("wall_time_s") && doc.contains("command_line") && doc.contains("series"));
    doc.erase("wall_time_s");
    doc.erase("command_line");
    stats[i] = doc.dump();
    traces[i] = slurp(t);
  }
  EXPECT_EQ(stats[0], stats[1]);
  EXPECT_FALSE(traces[0].empty());
  EXPECT_EQ(traces[0], traces[1]);
}

// ---- run limits: --max-sim-time, --max-wall-time; a run a watchdog stopped (issue 23) ----

TEST(GpuvpCliLimits, MaxSimTimeEndsTheRunWithItsSummaryAndStatistics) {
  const std::string path = ::testing::TempDir() + "max-sim-time.json";
  Split r = run_split("run --max-sim-time 30us --stats " + path);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("  outcome:        stopped at the time limit (--max-sim-time 30.000 us), workload unfinished\n"),
            std::string::npos)
      << r.out;
  auto d = nlohmann::json::parse(slurp(path));
  EXPECT_EQ(d["outcome"]["result"], "time_limit");
  EXPECT_EQ(d["sim_time_ps"], 30'000'000);
  // The earlier of sim.time_limit_ns and --max-sim-time applies, and the outcome names it.
  r = run_split("run --set sim.time_limit_ns=20000 --max-sim-time 0.03ms");
  EXPECT_NE(r.out.find("stopped at the time limit (sim.time_limit_ns = 20000)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  simulated time: 20.000 us\n"), std::string::npos) << r.out;
  r = run_split("run --set sim.time_limit_ns=40000 --max-sim-time 25000ns");
  EXPECT_NE(r.out.find("  simulated time: 25.000 us\n"), std::string::npos) << r.out;
  // A limit the workload does not reach changes nothing.
  EXPECT_EQ(run("run --quiet --max-sim-time 1s").exit_code, 0);
  ::unlink(path.c_str());
}

// A run whose workload asks for far more simulated time than the host gives it: the wall-time limit stops it where
// it is, and the statistics and trace are complete documents.
TEST(GpuvpCliLimits, MaxWallTimeStopsALongRunAndKeepsStatisticsAndTrace) {
  const std::string script = write_temp("long.gpuvp", "clock_step 100000000000000\n");  // 100 s of simulated time
  const std::string stats = ::testing::TempDir() + "max-wall-time.json";
  const std::string trace = ::testing::TempDir() + "max-wall-time.trace.json";
  Split r = run_split("run --script " + script + " --max-wall-time 300ms --stats " + stats + " --trace " + trace);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(
      r.err.find("  outcome:        stopped at the wall-time limit (--max-wall-time 0.3 s of host time), workload "
                 "unfinished (results up to the stop)\n"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("gpuvp: stopped at the wall-time limit at "), std::string::npos) << r.err;
  const auto d = nlohmann::json::parse(slurp(stats));
  EXPECT_EQ(d["outcome"]["result"], "wall_time_limit");
  EXPECT_EQ(d["outcome"]["exit_code"], 1);
  EXPECT_GT(d["sim_time_ps"].get<std::uint64_t>(), 0u);
  EXPECT_LT(d["sim_time_ps"].get<std::uint64_t>(), 100'000'000'000'000ULL);
  EXPECT_TRUE(nlohmann::json::accept(slurp(trace)));  // a closed JSON document
  ::unlink(stats.c_str());
  ::unlink(trace.c_str());
}

// A qtest server whose peer never comes: the wall-time limit ends the wait as a stop signal does.
TEST(GpuvpCliLimits, MaxWallTimeEndsAWaitForAQtestPeer) {
  const std::string path = ::testing::TempDir() + "gpuvp-qtest-wall-" + std::to_string(::getpid()) + ".sock";
  ::unlink(path.c_str());
  Child child({"run", "--qtest", "unix:" + path, "--max-wall-time", "500ms"});
  EXPECT_EQ(child.wait(std::chrono::seconds(30)), 1);
  EXPECT_NE(child.out().find("  outcome:        stopped at the wall-time limit"), std::string::npos) << child.out();
  ::unlink(path.c_str());
}

// An engine's watchdog declares a hang: the run goes on to its end, fails, and its statistics name the hang.
TEST(GpuvpCliLimits, ARunWithAHangWritesStatisticsNamingIt) {
  const std::string script = write_temp("hang.gpuvp",
                                        "write 0x10000 5 0x1000000100     # BRANCH 0x10000\n"
                                        "writel 0xe1000110 0x10000        # CT0CA\n"
                                        "writel 0xe1000108 0x10005        # CT0EA: starts CT0\n"
                                        "clock_step 3000000\n");
  const std::string stats = ::testing::TempDir() + "hang.json";
  EXPECT_EQ(
      run("run --quiet --script " + script + " --set vc4.v3d.cle.hang_timeout_ns=1000000 --stats " + stats).exit_code,
      1);
  const auto d = nlohmann::json::parse(slurp(stats));
  EXPECT_EQ(d["outcome"]["result"], "failed");
  EXPECT_EQ(d["outcome"]["detail"], "completed with model errors");
  ASSERT_EQ(d["outcome"]["incidents"].size(), 1u) << d["outcome"];
  EXPECT_NE(d["outcome"]["incidents"][0].get<std::string>().find("CT0 (binning) hung: no progress for 1000000 ns"),
            std::string::npos)
      << d["outcome"];
  EXPECT_EQ(d["sim_time_ps"], 3'000'082'000ULL);  // the script's own 3 ms plus its register accesses
  // A run without incidents has no such key.
  EXPECT_EQ(run("run --quiet --stats " + stats).exit_code, 0);
  EXPECT_FALSE(nlohmann::json::parse(slurp(stats))["outcome"].contains("incidents"));
  ::unlink(stats.c_str());
}
