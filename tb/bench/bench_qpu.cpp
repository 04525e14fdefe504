// bench_qpu: the QPU interpreter's host speed (issue 20): QPU instructions per host second on a dual-issue float loop
// (an fadd and an fmul per instruction over 16 lanes, a counter and a branch) of the project's own, beside a plain C++
// loop doing the same 16-lane arithmetic in the same run (the floor). Targets: at least 100 M QPU instructions per
// second, within 3x of the floor's instruction rate.
#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "tlm/vc4/qpu/qpu_assembler.h"
#include "tlm/vc4/qpu/qpu_core.h"

namespace {

using gpuvp::vc4::qpu::Qpu;

constexpr unsigned kLoopIterations = 1000;
constexpr unsigned kBodyInstructions = 17;  // 12 + sub + branch + 3 delay slots (15 with arithmetic)
constexpr unsigned kArithmeticPerIteration = 15;

// 1.0 + 2^-20 per add and a multiply by 1 keep the values finite however long it runs.
const char* const kLoop = R"(
    load_imm ra0, 1000
    load_imm r1, 0x35800000          # 2^-20
    load_imm r3, 1.0
    load_imm r0, 0
    load_imm r2, 1.0
  loop:
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    sub.sf ra0, ra0, 1
    branch.rel.any_zc loop
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    fadd r0, r0, r1 ; fmul r2, r2, r3
    sig_end nop
    nop
    nop
)";

class BenchEnvironment : public gpuvp::vc4::qpu::QpuEnvironment {
 public:
  explicit BenchEnvironment(std::vector<std::uint64_t> code) : code_(std::move(code)) {}
  bool fetch_instruction(std::uint32_t address, std::uint64_t& instruction) override {
    const std::uint32_t index = address / 8;
    if (index >= code_.size()) return false;
    instruction = code_[index];
    return true;
  }
  bool read_uniform(std::uint32_t, std::uint32_t&) override { return false; }
  bool semaphore(unsigned, bool) override { return true; }
  bool mutex_acquire(unsigned) override { return true; }
  void mutex_release(unsigned) override {}
  void host_interrupt(unsigned) override {}
  gpuvp::vc4::qpu::Vpm& vpm() override { return vpm_; }
  bool read_memory(std::uint32_t, void*, std::uint32_t) override { return false; }
  bool write_memory(std::uint32_t, const void*, std::uint32_t) override { return false; }

 private:
  std::vector<std::uint64_t> code_;
  gpuvp::vc4::qpu::Vpm vpm_;
};

std::vector<std::uint64_t> loop_code() {
  gpuvp::vc4::qpu::AssembledProgram program;
  std::string error;
  if (!gpuvp::vc4::qpu::assemble(kLoop, program, error)) throw std::runtime_error(error);
  return program.code;
}

void BM_QpuInterpreter(benchmark::State& state) {
  BenchEnvironment env(loop_code());
  Qpu qpu(0, env);
  std::uint64_t per_program = 0;
  for (auto _ : state) {
    const std::uint64_t before = qpu.instructions();
    qpu.start(0, 0);
    Qpu::Step s = Qpu::Step::kIssued;
    while (s == Qpu::Step::kIssued) s = qpu.step();
    if (s != Qpu::Step::kEnded) {
      state.SkipWithError(qpu.error().c_str());
      return;
    }
    per_program = qpu.instructions() - before;
  }
  if (per_program != 5 + kLoopIterations * kBodyInstructions + 3) state.SkipWithError("wrong instruction count");
  state.counters["qpu_instr"] =
      benchmark::Counter(static_cast<double>(per_program * state.iterations()), benchmark::Counter::kIsRate);
}

// The floor: the loop's arithmetic as plain C++ over 16 lanes, one "instruction" an add and a multiply per lane.
void BM_QpuFloor(benchmark::State& state) {
  std::array<float, 16> r0{}, r1{}, r2{}, r3{};
  r1.fill(1.0F / (1 << 20));
  r3.fill(1.0F);
  for (auto _ : state) {
    r0.fill(0.0F);
    r2.fill(1.0F);
    for (unsigned i = 0; i < kLoopIterations * kArithmeticPerIteration; ++i) {
      for (unsigned lane = 0; lane < 16; ++lane) {
        r0[lane] += r1[lane];
        r2[lane] *= r3[lane];
      }
      benchmark::ClobberMemory();
    }
    benchmark::DoNotOptimize(r0);
    benchmark::DoNotOptimize(r2);
  }
  state.counters["qpu_instr"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kLoopIterations * kArithmeticPerIteration, benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_QpuInterpreter);
BENCHMARK(BM_QpuFloor);

BENCHMARK_MAIN();
