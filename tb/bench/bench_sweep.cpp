// bench_sweep: what `gpuvp sweep`'s local pool costs over its runs, and how -j scales (issue 22: overhead under 5 %
// of the sum of the runs, -j N scaling with the cores). Each iteration sweeps 8 points of the whole embedded demo
// (dram.read_latency_cycles varied) into a fresh directory, without the summary page (--no-summary: drawing it is a
// fixed second of matplotlib, not pool cost).
// BM_PlainRuns is the floor: the same 8 runs as `gpuvp run` processes one after the other, as a shell loop would.
// Reported by BM_SweepPool/jobs: sum_of_runs_s (the points' own process times, from their result files),
// overhead = wall / (sum_of_runs / jobs) - 1, fixed_s (the wall time beyond the runs) and per_point_s; compare its wall
// time with BM_PlainRuns' for the pool against a plain loop, and /jobs:2 with /jobs:1 for the scaling (2 cores here: at
// most 2x).
#include <filesystem>
#include <fstream>
#include <string>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "tests/support/shell_command.h"

namespace {

namespace fs = std::filesystem;
using gpuvp::test::run_shell;

constexpr int kPoints = 8;
constexpr const char* kValues = "100,110,120,130,140,150,160,170";

void BM_SweepPool(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  const fs::path dir = fs::temp_directory_path() / ("gpuvp-bench-sweep-" + std::to_string(jobs));
  double sum_of_runs = 0, wall = 0;
  for (auto _ : state) {
    fs::remove_all(dir);
    const auto r = run_shell(std::string(GPUVP_EXE) + " sweep --vary dram.read_latency_cycles=" + kValues +
                             " --workload demo --metric sim_time_ps --no-summary -j " + std::to_string(jobs) + " -o " +
                             dir.string() + " 2>/dev/null");
    if (r.status != 0) {
      state.SkipWithError("the sweep failed");
      return;
    }
    wall += r.seconds;
    for (const auto& point : fs::directory_iterator(dir / "points")) {
      std::ifstream file(point.path() / "result.json");
      sum_of_runs += nlohmann::json::parse(file).at("run_s").get<double>();
    }
    state.SetIterationTime(r.seconds);
  }
  fs::remove_all(dir);
  const double iterations = static_cast<double>(state.iterations());
  state.counters["sum_of_runs_s"] = sum_of_runs / iterations;
  state.counters["per_point_s"] = wall / iterations / kPoints;
  state.counters["overhead"] = wall / (sum_of_runs / jobs) - 1;
  // What the sweep costs beyond its runs, in seconds: its own start, the plan (each point's configuration loaded and
  // hashed) and the merge; constant in the runs' length, so the ratio falls as the points grow.
  state.counters["fixed_s"] = (wall - sum_of_runs / jobs) / iterations;
}
BENCHMARK(BM_SweepPool)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_PlainRuns(benchmark::State& state) {
  for (auto _ : state) {
    double seconds = 0;
    for (int p = 0; p < kPoints; ++p) {
      const auto r = run_shell(std::string(GPUVP_EXE) + " run --quiet --set dram.read_latency_cycles=" +
                               std::to_string(100 + 10 * p) + " 2>/dev/null");
      if (r.status != 0) {
        state.SkipWithError("a run failed");
        return;
      }
      seconds += r.seconds;
    }
    state.SetIterationTime(seconds);
  }
  state.counters["per_point_s"] = benchmark::Counter(
      static_cast<double>(kPoints), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_PlainRuns)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
