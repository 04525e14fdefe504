// bench_eu: host speed of the functional EU (issue 17), single host thread, no SystemC.
//   mad   : tb/bench/eu/mad_loop.asm, 16 SIMD16 float mad per loop iteration plus add/cmp/while (19 instructions);
//   int   : tb/bench/eu/int_loop.asm, 16 SIMD16 dword add/mul/xor/and/shl/or per iteration plus the loop;
//   each with the fast forms (the default) and with the generic interpreter only;
//   floor : a plain C++ loop doing the same lane arithmetic (16 x 16 fused multiply-adds or dword operations per
//           iteration) in the same run, compiled for the same host features the EU's fast forms use.
// Reported (kIsRate): eu_instr = EU instructions executed per host second; simd16_ops = the 16 arithmetic
// instructions of each iteration per second (the floor reports the same unit). Targets (issue 17): mad >= 200 M
// SIMD16 instructions/s and within 3x of the floor.
// Correctness (fails the row): the thread ends with EOT and the accumulators hold the values the arithmetic gives.
//   mad_timed: the mad kernel on seven threads of one EU, executed in chunks of 256 instructions and timed by the
//   issue model (eu::EuCore, issue 19) as it runs; eu_instr beside the functional row is timed mode's host cost
//   (target: within 2x of functional); cycles_per_iteration is the model's answer (FPU bound: 7 threads x 72 FPU
//   cycles / 2 FPUs = 252), and the FPUs' busy cycles must be exactly 7 x iterations x 72.
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "tlm/gen/eu/eu_core.h"
#include "tlm/gen/eu/executor.h"
#include "tlm/gen/eu/fast_path.h"

namespace eu = gpuvp::gen::eu;

namespace {

constexpr unsigned kIterations = 2000;
constexpr unsigned kPerIteration = 19;
constexpr unsigned kArithmeticPerIteration = 16;
constexpr std::uint64_t kBase = 0x10000;

std::vector<std::uint8_t> kernel(const std::string& name) {
  std::ifstream in(std::string(GPUVP_EU_BENCH_KERNEL_DIR) + "/" + name + ".bin", std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class EndOfThread : public eu::SharedFunctions {
 public:
  eu::MessageResult send(const eu::Message& m, eu::ThreadState&) override {
    return m.eot ? eu::MessageResult{} : eu::MessageResult{eu::MessageStatus::kError, "not an EOT"};
  }
};

void set_inputs(eu::ThreadState& t, bool is_float) {
  for (unsigned lane = 0; lane < 16; ++lane) {
    for (unsigned k = 0; k < 16; ++k) {
      if (is_float) {
        t.grf_write<float>((10 + 2 * k) * 32 + 4 * lane, 0.0F);
      } else {
        t.grf_write<std::uint32_t>((10 + 2 * k) * 32 + 4 * lane, lane + k);
      }
    }
    if (is_float) {
      t.grf_write<float>(60 * 32 + 4 * lane, 0.5F + static_cast<float>(lane) / 64);
    } else {
      t.grf_write<std::uint32_t>(60 * 32 + 4 * lane, 0x9E3779B9U + lane);
    }
    t.grf_write<std::uint32_t>(100 * 32 + 4 * lane, 0);
    t.grf_write<std::uint32_t>(102 * 32 + 4 * lane, kIterations);
  }
  if (is_float) t.grf_write<float>(62 * 32, 0.25F);
}

void run_kernel(benchmark::State& state, const char* name, bool is_float) {
  const bool fast = state.range(0) != 0;
  eu::set_fast_paths_enabled(fast);
  eu::BufferInstructionMemory memory(kBase, kernel(name));
  eu::Program program(memory, kBase, eu::Generation::kGen9);
  EndOfThread shared;
  eu::Executor executor(program, shared);
  std::uint64_t instructions = 0;
  eu::ThreadState t;
  for (auto _ : state) {
    state.PauseTiming();
    set_inputs(t, is_float);
    t.reset_control_flow(0, 0xFFFF);
    state.ResumeTiming();
    const eu::RunResult r = executor.run(t, ~std::uint64_t{0});
    if (r.reason != eu::StopReason::kEndOfThread) {
      state.SkipWithError(r.fault.c_str());
      break;
    }
    instructions += r.instructions;
  }
  eu::set_fast_paths_enabled(true);
  // Lane 0 of the first accumulator: mad adds 0.5 * 0.25 per iteration (exact in binary32 up to 2000 iterations).
  if (is_float && t.grf_read<float>(10 * 32) != 0.125F * kIterations) state.SkipWithError("wrong mad result");
  state.counters["eu_instr"] = benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
  state.counters["simd16_ops"] = benchmark::Counter(
      static_cast<double>(instructions) * kArithmeticPerIteration / kPerIteration, benchmark::Counter::kIsRate);
}

void BM_EuMadKernel(benchmark::State& state) { run_kernel(state, "mad_loop", true); }

void BM_EuMadKernelTimed(benchmark::State& state) {
  constexpr unsigned kThreads = 7;
  eu::BufferInstructionMemory memory(kBase, kernel("mad_loop"));
  eu::Program program(memory, kBase, eu::Generation::kGen9);
  EndOfThread shared;
  eu::Executor executor(program, shared);
  std::uint64_t instructions = 0;
  std::uint64_t cycles = 0;
  std::array<eu::ThreadState, kThreads> threads;
  std::vector<const eu::TimingOp*> trace;
  trace.reserve(256);
  for (auto _ : state) {
    state.PauseTiming();
    eu::EuCore core(eu::EuCoreParams{});
    std::array<unsigned, kThreads> thread_of{};
    for (unsigned t = 0; t < kThreads; ++t) {
      set_inputs(threads[t], true);
      threads[t].reset_control_flow(0, 0xFFFF);
      thread_of[core.start(0)] = t;
    }
    state.ResumeTiming();
    while (const auto slot = core.issue()) {
      trace.clear();
      const eu::RunResult r = executor.run(threads[thread_of[*slot]], 256, &trace);
      if (r.reason != eu::StopReason::kEndOfThread && r.reason != eu::StopReason::kBudget) {
        state.SkipWithError(r.fault.c_str());
        return;
      }
      instructions += r.instructions;
      for (const eu::TimingOp* x : trace) core.append(*slot, *x);
    }
    cycles += core.last_cycle();
    if (core.stats().fpu_busy[0] + core.stats().fpu_busy[1] != std::uint64_t{kThreads} * kIterations * 72) {
      state.SkipWithError("FPU busy cycles differ from the kernel's 72 per iteration and thread");
      return;
    }
  }
  for (const auto& t : threads) {
    if (t.grf_read<float>(10 * 32) != 0.125F * kIterations) state.SkipWithError("wrong mad result");
  }
  state.counters["eu_instr"] = benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
  state.counters["cycles_per_iteration"] =
      static_cast<double>(cycles) / static_cast<double>(state.iterations()) / kIterations;
}
void BM_EuIntKernel(benchmark::State& state) { run_kernel(state, "int_loop", false); }

#if defined(__x86_64__) && defined(__GNUC__)
#define GPUVP_HOST_FMA __attribute__((target("avx2,fma")))
#else
#define GPUVP_HOST_FMA
#endif

// The floor: the same lane arithmetic as plain C++.
GPUVP_HOST_FMA void floor_mad(std::array<std::array<float, 16>, 16>& acc, const std::array<float, 16>& a, float b) {
  for (unsigned i = 0; i < kIterations; ++i) {
    for (auto& r : acc) {
      for (unsigned lane = 0; lane < 16; ++lane) r[lane] = std::fma(a[lane], b, r[lane]);
    }
    benchmark::ClobberMemory();
  }
}

void floor_int(std::array<std::array<std::uint32_t, 16>, 16>& acc, const std::array<std::uint32_t, 16>& a) {
  for (unsigned i = 0; i < kIterations; ++i) {
    for (unsigned k = 0; k < 16; ++k) {
      auto& r = acc[k];
      for (unsigned lane = 0; lane < 16; ++lane) {
        switch (k % 8) {
          case 0:
          case 6:
            r[lane] += a[lane];
            break;
          case 1:
          case 7:
            r[lane] *= a[lane];
            break;
          case 2:
            r[lane] ^= a[lane];
            break;
          case 3:
            r[lane] &= a[lane];
            break;
          case 4:
            r[lane] <<= 3;
            break;
          default:
            r[lane] |= a[lane];
            break;
        }
      }
    }
    benchmark::ClobberMemory();
  }
}

void BM_FloorMad(benchmark::State& state) {
  std::array<std::array<float, 16>, 16> acc{};
  std::array<float, 16> a{};
  for (unsigned lane = 0; lane < 16; ++lane) a[lane] = 0.5F + static_cast<float>(lane) / 64;
  for (auto _ : state) {
    for (auto& r : acc) r.fill(0.0F);
    floor_mad(acc, a, 0.25F);
    benchmark::DoNotOptimize(acc);
  }
  if (acc[0][0] != 0.125F * kIterations) state.SkipWithError("wrong floor result");
  state.counters["simd16_ops"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kIterations * kArithmeticPerIteration, benchmark::Counter::kIsRate);
}

void BM_FloorInt(benchmark::State& state) {
  std::array<std::array<std::uint32_t, 16>, 16> acc{};
  std::array<std::uint32_t, 16> a{};
  for (unsigned lane = 0; lane < 16; ++lane) a[lane] = 0x9E3779B9U + lane;
  for (auto _ : state) {
    for (unsigned k = 0; k < 16; ++k) {
      for (unsigned lane = 0; lane < 16; ++lane) acc[k][lane] = lane + k;
    }
    floor_int(acc, a);
    benchmark::DoNotOptimize(acc);
  }
  state.counters["simd16_ops"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kIterations * kArithmeticPerIteration, benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_EuMadKernel)->ArgName("fast")->Arg(1)->Arg(0);
BENCHMARK(BM_EuMadKernelTimed);
BENCHMARK(BM_FloorMad);
BENCHMARK(BM_EuIntKernel)->ArgName("fast")->Arg(1)->Arg(0);
BENCHMARK(BM_FloorInt);

BENCHMARK_MAIN();
