// What an OpenCL program sees of the model beyond its buffers, through Intel's real runtime (NEO over TBX under
// `gpuvp exec`) running the project's tests/opencl/cl_scenarios.c: profiling events report simulated time, a kernel
// that never ends is stopped by the model (which stays up) and the waiting program is ended with a diagnostic, and a
// program that leaves while its kernel runs ends the session cleanly.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/run_gpuvp.h"

namespace {

using gpuvp::test::run_gpuvp_split;
using gpuvp::test::SplitResult;

std::string scenario(const std::string& args) {
  return std::string("env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD " " GPUVP_CL_SCENARIOS " ") + args;
}

// The number after "KEY: " in the program's output; -1 when absent.
long long printed(const std::string& out, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(key + ": ([0-9]+)"))) return -1;
  return std::stoll(m[1]);
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, false);
}

std::string temp_path(const std::string& name) { return gpuvp::test::write_temp_file(name, ""); }

}  // namespace

// NEO takes a kernel's profiling START and END from the timestamps the GPU writes around its walker (PIPE_CONTROL
// timestamp post-syncs of the CS TIMESTAMP, 12 MHz on Gen9): under the model they are simulated time. The interval is
// whole 83.3 ns ticks, lies inside the render engine's busy time and takes most of it (the rest is NEO's state
// commands and flushes), and two kernels that differ only in their loop's length differ by the time the model gives
// the extra work, to within a tick at each end: the EU array's cycles at the GPU clock (gen.gpgpu.timing=array, the
// default: docs/gen-eu-timing.md), or instructions x gen.gpgpu.instruction_cycles / EUs engine cycles under the
// functional rule (docs/gen-gpgpu.md).
TEST(OpenClRuntime, ProfilingEventsReportSimulatedTime) {
  struct Run {
    long long ns;
    double busy_ns;
    double model_ns;  // the walkers' time as the configured timing gives it
    double instructions;
  };
  const auto profile = [](const std::string& iterations) {
    const std::string stats = temp_path("profile" + iterations + ".json");
    const SplitResult r = run_gpuvp_split("exec --stats " + stats + " -- " + scenario("profile " + iterations));
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    const nlohmann::json json = read_json(stats);
    Run run{printed(r.out, "profile.start_end_ns"), 0, 0, 0};
    if (json.is_discarded()) return run;
    const auto& rcs = json["stats"]["gpuvp"]["gen"]["rcs"];
    run.busy_ns = rcs["busy"]["busy_ps"].get<double>() / 1000.0;
    run.instructions = rcs["gpgpu"]["eu_instructions"].get<double>();
    const auto& gen = json["config"]["gen"];
    const auto& gpgpu = gen["gpgpu"];
    const double ns_per_cycle = 1e9 / gen["clock_hz"].get<double>();
    if (gpgpu["timing"] == "array") {
      run.model_ns = rcs["gpgpu"]["array_cycles"].get<double>() * ns_per_cycle;
    } else {
      const double eus = gpgpu["slices"].get<double>() * gpgpu["subslices_per_slice"].get<double>() *
                         gpgpu["eus_per_subslice"].get<double>();
      run.model_ns = run.instructions * gpgpu["instruction_cycles"].get<double>() / eus * ns_per_cycle;
    }
    return run;
  };
  const Run shorter = profile("200"), longer = profile("1600");
  for (const Run& run : {shorter, longer}) {
    ASSERT_GT(run.ns, 0);
    EXPECT_LE(static_cast<double>(run.ns), run.busy_ns + 84);
    EXPECT_GE(static_cast<double>(run.ns), 0.8 * run.busy_ns);
    // Whole ticks of the 12 MHz timestamp (NEO converts at its 83.333 ns resolution and truncates).
    const double ticks = static_cast<double>(run.ns) * 12.0 / 1000.0;
    EXPECT_NEAR(ticks, std::round(ticks), 0.02) << run.ns;
  }
  ASSERT_GT(longer.instructions, 7 * shorter.instructions);
  ASSERT_GT(longer.model_ns, shorter.model_ns);
  EXPECT_NEAR(static_cast<double>(longer.ns - shorter.ns), longer.model_ns - shorter.model_ns, 2 * 83.34)
      << shorter.ns << " ns, " << longer.ns << " ns";
}

// The timeline shows each kernel as a span on the gen.gpgpu track, which lasts at least the EU array's cycles (plus
// the first fetch of the kernel's instructions), and per subslice the share of EU cycles that were active during it (a
// counter in [0, 1], back to 0 at the kernel's end).
TEST(OpenClRuntime, TheTimelineHasASpanPerKernelAndSubsliceActivity) {
  const std::string trace = temp_path("profile_trace.json");
  const std::string stats = temp_path("profile_trace_stats.json");
  const SplitResult r =
      run_gpuvp_split("exec --trace " + trace + " --stats " + stats + " -- " + scenario("profile 200"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json events = read_json(trace)["traceEvents"];
  const nlohmann::json json = read_json(stats);
  if (json["config"]["gen"]["gpgpu"]["timing"] != "array") GTEST_SKIP() << "functional timing has no array tracks";
  const double array_us = json["stats"]["gpuvp"]["gen"]["rcs"]["gpgpu"]["array_cycles"].get<double>() * 1e6 /
                          json["config"]["gen"]["clock_hz"].get<double>();
  std::map<int, std::string> tracks;
  for (const auto& e : events) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name") tracks[e["tid"]] = e["args"]["name"];
  }
  unsigned kernels = 0, samples = 0;
  for (const auto& e : events) {
    if (!e.contains("tid") || tracks.count(e["tid"]) == 0) continue;
    const std::string& track = tracks[e["tid"]];
    if (track == "gen.gpgpu" && e.value("ph", "") == "X") {
      ++kernels;
      EXPECT_EQ(e.value("name", "").rfind("kernel 0x", 0), 0u) << e.dump();
      EXPECT_GE(e["dur"].get<double>(), array_us - 0.001);
    }
    if (track.rfind("gen.gpgpu.subslice", 0) == 0 && e.value("ph", "") == "C") {
      ++samples;
      const double v = e["args"]["value"].get<double>();
      EXPECT_GE(v, 0.0);
      EXPECT_LE(v, 1.0);
    }
  }
  EXPECT_EQ(kernels, 1u);
  EXPECT_EQ(samples, 3u * 2);  // GT2: three subslices, a sample at the start and one at the end
}

// A kernel that never ends: the EU stops the thread group at gen.gpgpu.thread_group_instruction_limit and the render
// engine stops with the error; NEO, which no kernel driver tells of a hang in TBX mode, would poll its tag for ever,
// so the TBX server ends the session once the stopped GPU has stayed idle for host.tbx_stall_timeout_ns: the program
// is ended, the summary names the error, gpuvp exits 1.
TEST(OpenClRuntime, AKernelThatNeverEndsIsStoppedAndTheWaitingProgramIsEnded) {
  const SplitResult r = run_gpuvp_split(
      "exec --set gen.gpgpu.thread_group_instruction_limit=200000 --set host.tbx_stall_timeout_ns=2000000 -- " +
      scenario("forever"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("forever: submitted"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("clFinish returned"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("a kernel that never ends"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gpuvp: tbx: the GPU stopped on an error or hang (rcs: see the incidents) and has been idle "
                       "for 2000 us while the client still reads"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("outcome:        FAILED: tbx: the GPU stopped"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exited with status 143"), std::string::npos) << r.err;  // ended with SIGTERM
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

// A program that exits while its kernel runs: its connections close mid-kernel, the GPU finishes the work it was
// given (the statistics cover the whole kernel), the model reports no error and gpuvp exits with the program's status.
TEST(OpenClRuntime, AProgramThatLeavesWhileItsKernelRunsEndsTheSessionCleanly) {
  const std::string stats = temp_path("abandon.json");
  const SplitResult r = run_gpuvp_split("exec --stats " + stats + " -- " + scenario("abandon"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("abandon: submitted"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("outcome:        completed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("reports:        0 errors"), std::string::npos) << r.err;
  const nlohmann::json json = read_json(stats);
  ASSERT_FALSE(json.is_discarded());
  const auto& gpgpu = json["stats"]["gpuvp"]["gen"]["rcs"]["gpgpu"];
  EXPECT_EQ(gpgpu["walkers"], 1);
  EXPECT_EQ(gpgpu["thread_groups"], 16);  // 1024 items in groups of 64: the whole kernel ran
  EXPECT_GT(json["stats"]["tbx"]["drain_ps"].get<double>(), 0.0);
}

// Device memory is sparse on the host: a 64 MiB buffer of which a kernel writes two dwords, 64 MiB apart, costs the
// model's DRAM a few pages (NEO's own writes of the buffer are zeros, which allocate nothing), in a DRAM of 520 GiB.
TEST(OpenClRuntime, ABigBufferCostsTheHostOnlyThePagesWritten) {
  const std::string stats = temp_path("sparse.json");
  const SplitResult r = run_gpuvp_split("exec --stats " + stats + " -- " + scenario("sparse 64"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(printed(r.out, "sparse.bytes"), 64 << 20) << r.out;
  EXPECT_NE(r.out.find("sparse.first: 0x600df00d"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sparse.last: 0xfeedface"), std::string::npos) << r.out;
  const nlohmann::json json = read_json(stats);
  ASSERT_FALSE(json.is_discarded());
  const double host_bytes = json["stats"]["gpuvp"]["dram"]["host_bytes"].get<double>();
  EXPECT_GT(host_bytes, 0.0);
  EXPECT_LT(host_bytes, 8.0 * (1 << 20)) << "the buffer's untouched pages cost host memory";
}

// The calibration's micro-benchmarks (tb/calibration/calibrate.sh micro) run on the model and give the results the
// program computes itself (it exits 1 on any difference): 16 independent multiply-adds per turn, a dependent chain
// in one SIMD8 thread, shared local memory reads after a barrier, and reads of a 64 KiB buffer from the L3; under
// the array's timing each takes longer with more turns. Then the small streaming kernel, enqueued twice.
TEST(OpenClRuntime, TheCalibrationMicroBenchmarksRunAndGiveTheirResults) {
  for (const std::string name : {"fma 512", "chain", "slm", "l3"}) {
    SCOPED_TRACE(name);
    const auto ns = [&](const std::string& turns) {
      const SplitResult r = run_gpuvp_split("exec --quiet -- " + scenario(name + " " + turns));
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      const std::string key = name.substr(0, name.find(' ')) + ".start_end_ns";
      return printed(r.out, key);
    };
    const long long few = ns("4"), more = ns("16");
    EXPECT_GT(few, 0);
    EXPECT_GT(more, few);
  }
  const SplitResult r = run_gpuvp_split("exec --quiet -- " + scenario("stream 4096 2"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_GT(printed(r.out, "stream.start_end_ns"), 0);
}
