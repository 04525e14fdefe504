// bench_opencl: host speed of real OpenCL programs on the model against a CPU OpenCL platform (issue 18). Each row runs
// one of the corpus's heavier cases (tests/opencl/cl_corpus.c, the project's own host program) twice in the same run:
// on pocl (Debian pocl-opencl-icd, a CPU OpenCL platform) and under `gpuvp exec` through Intel's NEO and IGC, each as
// a fresh process as a user runs it (runtime start-up and kernel compilation included on both sides).
// Reported: pocl_s and model_s (wall seconds of one run each), ratio = model_s / pocl_s (target: <= 20 in the
// functional configuration), eu_instr_per_s (the EU instructions the model executed, from its statistics, per wall
// second of the model's run). The row's time is the model's wall time. A run that fails or whose output differs from
// pocl's in length skips the row with the reason. BM_KernelLoop measures the EU inside a kernel (below).
#include <cstdio>
#include <fstream>
#include <string>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "tests/support/shell_command.h"

namespace {

using gpuvp::test::run_shell;

// The EU instructions a run's statistics file counts (then removed); 0 when it cannot be read.
double eu_instructions(const std::string& stats) {
  std::ifstream in(stats);
  const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
  double instructions = 0;
  if (!json.is_discarded()) {
    const auto& counter = json["stats"]["gpuvp"]["gen"]["rcs"]["gpgpu"]["eu_instructions"];
    if (counter.is_number()) instructions = counter.get<double>();
  }
  std::remove(stats.c_str());
  return instructions;
}

void BM_CorpusCase(benchmark::State& state, const char* name) {
  const std::string program = std::string(GPUVP_CL_CORPUS) + " " + name;
  const std::string stats = "/tmp/bench_opencl_" + std::to_string(getpid()) + "_" + name + ".json";
  gpuvp::test::ShellResult pocl, model;
  for (auto _ : state) {
    pocl = run_shell("OCL_ICD_VENDORS=" GPUVP_POCL_ICD " " + program);
    model = run_shell(std::string(GPUVP_EXE) + " exec --quiet --set gen.gpgpu.timing=functional --stats " + stats +
                      " -- env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD + " " + program + " 2>/dev/null");
    state.SetIterationTime(model.seconds);
  }
  if (pocl.status != 0) return state.SkipWithError("the case failed on pocl");
  if (model.status != 0) return state.SkipWithError("the case failed under gpuvp exec");
  if (model.out.size() != pocl.out.size()) return state.SkipWithError("the outputs differ in length");
  const double instructions = eu_instructions(stats);
  state.counters["pocl_s"] = pocl.seconds;
  state.counters["model_s"] = model.seconds;
  state.counters["ratio"] = model.seconds / pocl.seconds;
  state.counters["eu_instr_per_s"] = instructions / model.seconds;
}

// EU speed inside a kernel: the profile scenario (tests/opencl/cl_scenarios.c: 1024 work items, each a dependent
// integer loop) with no loop and with `iterations` turns, each on pocl and under gpuvp exec. The differences between
// the two runs leave out everything but the loop: eu_instr_per_s = the extra EU instructions / the extra wall seconds
// of the model's run; ratio = the model's extra wall time / pocl's.
void BM_KernelLoop(benchmark::State& state) {
  const std::string iterations = std::to_string(state.range(0));
  const auto stats = [](const std::string& tag) {
    return "/tmp/bench_opencl_" + std::to_string(getpid()) + "_" + tag + ".json";
  };
  const auto model = [&](const std::string& n) {
    return run_shell(std::string(GPUVP_EXE) + " exec --quiet --set gen.gpgpu.timing=functional --stats " + stats(n) +
                     " -- env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD " " GPUVP_CL_SCENARIOS " profile " + n +
                     " 2>/dev/null");
  };
  const auto pocl = [&](const std::string& n) {
    return run_shell("OCL_ICD_VENDORS=" GPUVP_POCL_ICD " " GPUVP_CL_SCENARIOS " profile " + n);
  };
  gpuvp::test::ShellResult model_base, model_loop, pocl_base, pocl_loop;
  pocl("0");  // pocl caches the compiled kernel (~/.cache/pocl): warm it, so that neither measured run compiles
  for (auto _ : state) {
    pocl_base = pocl("0");
    pocl_loop = pocl(iterations);
    model_base = model("0");
    model_loop = model(iterations);
    state.SetIterationTime(model_loop.seconds - model_base.seconds);
  }
  if (pocl_base.status != 0 || pocl_loop.status != 0) return state.SkipWithError("the scenario failed on pocl");
  if (model_base.status != 0 || model_loop.status != 0) return state.SkipWithError("the scenario failed under exec");
  const auto checksum = [](const std::string& out) {
    const auto at = out.find("profile.checksum:");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  if (checksum(model_loop.out).empty() || checksum(model_loop.out) != checksum(pocl_loop.out)) {
    return state.SkipWithError("the checksums differ");
  }
  const double extra = eu_instructions(stats(iterations)) - eu_instructions(stats("0"));
  const double model_extra_s = model_loop.seconds - model_base.seconds;
  state.counters["eu_instr_per_s"] = extra / model_extra_s;
  state.counters["model_s"] = model_extra_s;
  state.counters["pocl_s"] = pocl_loop.seconds - pocl_base.seconds;
  state.counters["ratio"] = model_extra_s / (pocl_loop.seconds - pocl_base.seconds);
}
BENCHMARK(BM_KernelLoop)->Arg(50000)->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);

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
