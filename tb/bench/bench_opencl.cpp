// bench_opencl: host speed of real OpenCL programs on the model against a CPU OpenCL platform (issue 18). Each row runs
// one of the corpus's heavier cases (tests/opencl/cl_corpus.c, the project's own host program) twice in the same run:
// on pocl (Debian pocl-opencl-icd, a CPU OpenCL platform) and under `gpuvp exec` through Intel's NEO and IGC, each as
// a fresh process as a user runs it (runtime start-up and kernel compilation included on both sides).
// Reported: pocl_s and model_s (wall seconds of one run each), ratio = model_s / pocl_s (target: <= 20 in the
// functional configuration), eu_instr_per_s (the EU instructions the model executed, from its statistics, per wall
// second of the model's run). The row's time is the model's wall time. A run that fails or whose output differs from
// pocl's in length skips the row with the reason. BM_KernelLoop measures the EU inside a kernel, BM_ArrayHostSpeed the
// EU array's timing (below).
#include <cstdio>
#include <fstream>
#include <string>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "tests/support/shell_command.h"

namespace {

using gpuvp::test::run_shell;

// A counter of the GPGPU pipe in a run's statistics file (removed once read with `remove`); 0 when it cannot be read.
double gpgpu_counter(const std::string& stats, const char* name, bool remove = true) {
  std::ifstream in(stats);
  const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
  double value = 0;
  if (!json.is_discarded()) {
    const auto& counter = json["stats"]["gpuvp"]["gen"]["rcs"]["gpgpu"][name];
    if (counter.is_number()) value = counter.get<double>();
  }
  if (remove) std::remove(stats.c_str());
  return value;
}

double eu_instructions(const std::string& stats) { return gpgpu_counter(stats, "eu_instructions"); }

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

// Host speed of the EU array (issue 19) on GT2 (platform/configs/gen9-gt2.yaml, 1150 MHz): an FPU-bound kernel at full
// occupancy (cl_scenarios fma: 10,752 work items, 336 SIMD32 threads, two waves of the array's 168 slots, 16
// independent mads per turn) and a memory-bound one (cl_scenarios stream: 4 M floats, 48 MB per pass). Each runs small
// and large (fma: 1 and 10001 turns, so that the functional rule's extra time stands well above NEO's start-up
// noise; stream: 1 and 3 passes) under the functional rule and under the array's timing;
// the differences leave out NEO's start-up and the buffers' upload. Reported: functional_instr_per_s and
// array_instr_per_s (extra EU instructions per extra wall second in each mode), timed_cost = the array's extra wall
// time over the functional rule's (target <= 2), cycles_per_s = the array's extra GPU cycles per extra wall second,
// slowdown = 1.15e9 / cycles_per_s (target for fma: <= 150). The row's time is the array's extra wall time.
void BM_ArrayHostSpeed(benchmark::State& state, const char* small, const char* large) {
  const auto stats = [](const std::string& tag) {
    return "/tmp/bench_opencl_" + std::to_string(getpid()) + "_" + tag + ".json";
  };
  const auto model = [&](const char* timing, const char* args, const std::string& tag) {
    return run_shell(std::string(GPUVP_EXE) + " exec --quiet --config " GPUVP_GT2_CONFIG " --set gen.gpgpu.timing=" +
                     timing + " --stats " + stats(tag) +
                     " -- env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD " " GPUVP_CL_SCENARIOS " " + args + " 2>/dev/null");
  };
  struct Extra {
    double seconds = 0, instructions = 0, cycles = 0;
    bool ok = false;
  };
  const auto extra = [&](const char* timing) {
    const gpuvp::test::ShellResult a = model(timing, small, "small"), b = model(timing, large, "large");
    Extra e;
    e.ok = a.status == 0 && b.status == 0;
    e.seconds = b.seconds - a.seconds;
    e.cycles =
        gpgpu_counter(stats("large"), "array_cycles", false) - gpgpu_counter(stats("small"), "array_cycles", false);
    e.instructions = eu_instructions(stats("large")) - eu_instructions(stats("small"));
    return e;
  };
  Extra functional, array;
  for (auto _ : state) {
    functional = extra("functional");
    array = extra("array");
    state.SetIterationTime(array.seconds);
  }
  if (!functional.ok || !array.ok) return state.SkipWithError("the scenario failed under gpuvp exec");
  if (functional.instructions != array.instructions || array.seconds <= 0 || functional.seconds <= 0) {
    return state.SkipWithError("the two modes ran different work, or the larger run was not slower");
  }
  state.counters["functional_instr_per_s"] = functional.instructions / functional.seconds;
  state.counters["array_instr_per_s"] = array.instructions / array.seconds;
  state.counters["timed_cost"] = array.seconds / functional.seconds;
  state.counters["cycles_per_s"] = array.cycles / array.seconds;
  state.counters["slowdown"] = 1.15e9 / (array.cycles / array.seconds);
}
BENCHMARK_CAPTURE(BM_ArrayHostSpeed, fma, "fma 10752 1", "fma 10752 10001")
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_ArrayHostSpeed, stream, "stream 4194304 1", "stream 4194304 3")
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
// Host cost follows work: the FPU-bound kernel on one work-group (256 items, 8 threads on 8 of the 24 EUs) costs
// per instruction what it costs on the whole array.
BENCHMARK_CAPTURE(BM_ArrayHostSpeed, fma_one_group, "fma 256 1", "fma 256 20001")
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

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
