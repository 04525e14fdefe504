// bench_opencl: host speed of real OpenCL programs on the model against a CPU OpenCL platform (issue 18). Each row runs
// one of the corpus's heavier cases (tests/opencl/cl_corpus.c, the project's own host program) twice in the same run:
// on pocl (Debian pocl-opencl-icd, a CPU OpenCL platform) and under `gpuvp exec` through Intel's NEO and IGC, each as
// a fresh process as a user runs it (runtime start-up and kernel compilation included on both sides).
// Reported: pocl_s and model_s (wall seconds of one run each), ratio = model_s / pocl_s (target: <= 20 in the
// functional configuration), eu_instr_per_s (the EU instructions the model executed, from its statistics, per wall
// second of the model's run). The row's time is the model's wall time. A run that fails or whose output differs from
// pocl's in length skips the row with the reason.
#include <cstdio>
#include <fstream>
#include <string>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "tests/support/shell_command.h"

namespace {

using gpuvp::test::run_shell;

void BM_CorpusCase(benchmark::State& state, const char* name) {
  const std::string program = std::string(GPUVP_CL_CORPUS) + " " + name;
  const std::string stats = "/tmp/bench_opencl_" + std::to_string(getpid()) + "_" + name + ".json";
  gpuvp::test::ShellResult pocl, model;
  for (auto _ : state) {
    pocl = run_shell("OCL_ICD_VENDORS=" GPUVP_POCL_ICD " " + program);
    model = run_shell(std::string(GPUVP_EXE) + " exec --quiet --stats " + stats +
                      " -- env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD + " " + program + " 2>/dev/null");
    state.SetIterationTime(model.seconds);
  }
  if (pocl.status != 0) return state.SkipWithError("the case failed on pocl");
  if (model.status != 0) return state.SkipWithError("the case failed under gpuvp exec");
  if (model.out.size() != pocl.out.size()) return state.SkipWithError("the outputs differ in length");
  std::ifstream in(stats);
  const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
  double instructions = 0;
  if (!json.is_discarded()) {
    const auto& counter = json["stats"]["gpuvp"]["gen"]["rcs"]["gpgpu"]["eu_instructions"];
    if (counter.is_number()) instructions = counter.get<double>();
  }
  std::remove(stats.c_str());
  state.counters["pocl_s"] = pocl.seconds;
  state.counters["model_s"] = model.seconds;
  state.counters["ratio"] = model.seconds / pocl.seconds;
  state.counters["eu_instr_per_s"] = instructions / model.seconds;
}

// The heavier cases: many dispatch waves, a tiled matrix multiply in local memory, double-precision builtins, a
// kernel that spills to scratch.
BENCHMARK_CAPTURE(BM_CorpusCase, waves, "waves")->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_CorpusCase, matmul_tiled, "matmul_tiled")
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_CorpusCase, math_double, "math_double")->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_CorpusCase, spill, "spill")->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
