// The project's 256-point FFT on 8 QPUs (tb/host/qpu_programs.h: radix-2 Stockham passes, TMU direct reads, VPM
// writes, VDW stores, semaphore barriers; issue 20's yardstick), run on the default platform as gpu_fft's direct mode
// runs its programs (Vc4Driver::run_qpu_programs). Checked against a DFT the test computes in double precision
// (relative RMS error, as gpu_fft's hello_fft measures it: ../shared/docs/reference-vc4-qpu.md section 4.4), against
// the program's own float32 arithmetic done on the host bit for bit (the model's fadd, fsub and fmul are the host's
// IEEE single operations, round to nearest even, with denormals flushed: tlm/vc4/qpu/qpu_alu.cpp; the hardware's
// rounding is not published, so this checks the model's choice), with a single frequency, twice in a row (the
// semaphores come back to 0), through the statistics the program's structure predicts, and as a host script through the
// executable.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hw/vc4/v3d_regs.h"
#include "platform/platform.h"
#include "tb/host/qpu_programs.h"
#include "tb/host/vc4_driver.h"
#include "tests/support/run_gpuvp.h"
#include "tests/support/sc_test.h"
#include "tlm/core/stats.h"
#include "tlm/vc4/qpu/qpu_assembler.h"

using namespace gpuvp;
using host::QpuFftShape;
using host::Vc4Driver;

namespace {

// The FFT program assembled (the drivers hand over the source; the test assembles it).
std::vector<std::uint64_t> fft_program() {
  vc4::qpu::AssembledProgram program;
  std::string error;
  EXPECT_TRUE(vc4::qpu::assemble(host::fft_program_source(), program, error)) << error;
  return program.code;
}

constexpr unsigned kN = QpuFftShape::kPoints;
constexpr std::uint64_t kTimeoutNs = 10'000'000;
using Signal = std::vector<std::complex<float>>;

struct Rig {
  Rig() : soc("gpuvp", {}), port(soc.host()), driver(port) {}
  std::string incidents() {
    std::string all;
    for (const auto& i : soc.v3d()->incidents()) all += i + "\n";
    return all;
  }
  platform::Platform soc;
  host::BusHostPort port;
  Vc4Driver driver;
};

// Runs the FFT of each input on the platform, one after the other in one simulation; returns the results (an empty
// one where a run failed, with the incidents reported).
std::vector<Signal> run_ffts(Rig& rig, const std::vector<Signal>& inputs) {
  std::vector<Signal> results(inputs.size());
  test::run_thread([&] {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const host::QpuFft fft = host::prepare_qpu_fft(rig.driver, fft_program(), inputs[i]);
      const bool ok = host::run_qpu_fft(rig.driver, fft, kTimeoutNs);
      EXPECT_TRUE(ok) << "run " << i << ": " << rig.incidents();
      if (ok) results[i] = host::read_qpu_fft_result(rig.port, fft);
    }
  });
  return results;
}

Signal run_fft(Rig& rig, const Signal& input) { return run_ffts(rig, {input})[0]; }

Signal random_input(unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> value(-1.0F, 1.0F);
  Signal x(kN);
  for (auto& v : x) {
    const float re = value(generator);
    v = {re, value(generator)};
  }
  return x;
}

// X[k] = sum_n x[n] exp(-2 pi i n k / N) in double precision.
std::vector<std::complex<double>> dft(const Signal& x) {
  std::vector<std::complex<double>> y(kN);
  for (unsigned k = 0; k < kN; ++k) {
    std::complex<double> sum = 0;
    for (unsigned n = 0; n < kN; ++n) {
      const double angle = -2 * M_PI * static_cast<double>((n * k) % kN) / kN;
      sum += std::complex<double>(x[n]) * std::complex<double>(std::cos(angle), std::sin(angle));
    }
    y[k] = sum;
  }
  return y;
}

// sqrt(sum |y - ref|^2 / sum |ref|^2).
double relative_rms_error(const Signal& y, const std::vector<std::complex<double>>& ref) {
  double error = 0, norm = 0;
  for (unsigned k = 0; k < kN; ++k) {
    error += std::norm(std::complex<double>(y[k]) - ref[k]);
    norm += std::norm(ref[k]);
  }
  return std::sqrt(error / norm);
}

// The QPU's float ALU ops: IEEE single, round to nearest, denormals flushed to zero on input and output.
float flush(float v) { return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0F, v) : v; }
float fmul(float a, float b) { return flush(flush(a) * flush(b)); }
float fadd(float a, float b) { return flush(flush(a) + flush(b)); }
float fsub(float a, float b) { return flush(flush(a) - flush(b)); }

// The program's arithmetic, op for op, on the host: the same passes, the same twiddle table, the same rounding.
Signal program_in_float32(const Signal& input) {
  const std::vector<float> w = host::fft_twiddles();
  Signal src = input, dst(kN);
  for (unsigned s = kN / 2; s >= 1; s /= 2) {
    for (unsigned k = 0; k < kN / 2; ++k) {
      const unsigned j = k & ~(s - 1);
      const std::complex<float> a = src[k + j], b = src[k + j + s];
      const float w_re = w[2 * j], w_im = w[2 * j + 1];
      const float t_re = fsub(fmul(b.real(), w_re), fmul(b.imag(), w_im));
      const float t_im = fadd(fmul(b.real(), w_im), fmul(b.imag(), w_re));
      dst[k] = {fadd(a.real(), t_re), fadd(a.imag(), t_im)};
      dst[k + kN / 2] = {fsub(a.real(), t_re), fsub(a.imag(), t_im)};
    }
    std::swap(src, dst);
  }
  return src;
}

std::uint32_t bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

std::uint64_t counter(const std::string& name) { return core::stats().counter_value("gpuvp.v3d.qpus." + name); }

// ---- the host side, no platform ----

// The twiddles are exact where the unit circle has exact points; the uniforms and VPM areas are as documented; the
// program assembles.
TEST(Vc4QpuFft, TheHostTablesAndTheProgram) {
  const std::vector<float> w = host::fft_twiddles();
  ASSERT_EQ(w.size(), 2U * QpuFftShape::kTwiddles);
  EXPECT_EQ(w[0], 1.0F);
  EXPECT_EQ(w[1], -0.0F);
  EXPECT_EQ(w[2 * 64], 0.0F);  // W^64 = -i
  EXPECT_EQ(w[2 * 64 + 1], -1.0F);
  EXPECT_EQ(w[2 * 32], -w[2 * 32 + 1]);  // W^32 = (1 - i) / sqrt 2
  EXPECT_EQ(w[2 * 96], w[2 * 96 + 1]);   // W^96 = (-1 - i) / sqrt 2
  for (unsigned j = 0; j < QpuFftShape::kTwiddles; ++j) {
    EXPECT_NEAR(w[2 * j], std::cos(2 * M_PI * j / kN), 1e-7) << j;
    EXPECT_NEAR(w[2 * j + 1], -std::sin(2 * M_PI * j / kN), 1e-7) << j;
  }
  // Program 5: rows 16-31, columns 4-7; vertical 32-bit writes with stride 1; stores of 16 rows x 2 words.
  EXPECT_EQ(host::fft_vpm_write_setup(5), 0x1214U);
  EXPECT_EQ(host::fft_vdw_setup(5, 0), 0x88024000U | (((16U << 4) | 4U) << 3));
  EXPECT_EQ(host::fft_vdw_setup(5, 1), 0x88024000U | (((16U << 4) | 6U) << 3));
  host::QpuFft fft;
  fft.data.addr = 0x1000;
  fft.work.addr = 0x2000;
  fft.twiddles.addr = 0x3000;
  EXPECT_EQ(host::fft_uniforms(fft, 5),
            (std::vector<std::uint32_t>{5, 0x1000, 0x2000, 0x3000, 0x1214, host::fft_vdw_setup(5, 0),
                                        host::fft_vdw_setup(5, 1)}));
  EXPECT_FALSE(fft_program().empty());
  // The host's float32 model of the program is an FFT (it is the reference of the bit-exact test below).
  EXPECT_LT(relative_rms_error(program_in_float32(random_input(7)), dft(random_input(7))), 1e-6);
}

// ---- on the platform ----

TEST(Vc4QpuFft, RandomInputMatchesADoublePrecisionDft) {
  Rig rig;
  const Signal x = random_input(2024);
  const Signal y = run_fft(rig, x);
  ASSERT_EQ(y.size(), kN);
  const double error = relative_rms_error(y, dft(x));
  std::cout << "relative RMS error against the double-precision DFT: " << error << "\n";
  RecordProperty("relative_rms_error", std::to_string(error));
  EXPECT_LT(error, 1e-6);
}

TEST(Vc4QpuFft, RandomInputMatchesTheProgramsFloat32ArithmeticBitForBit) {
  Rig rig;
  const Signal x = random_input(99);
  const Signal y = run_fft(rig, x);
  ASSERT_EQ(y.size(), kN);
  const Signal expected = program_in_float32(x);
  for (unsigned k = 0; k < kN; ++k) {
    EXPECT_EQ(bits(y[k].real()), bits(expected[k].real())) << k;
    EXPECT_EQ(bits(y[k].imag()), bits(expected[k].imag())) << k;
  }
}

// x[n] = exp(2 pi i 37 n / N): X[37] = N, every other bin 0.
TEST(Vc4QpuFft, ASingleFrequencyGivesItsSpike) {
  Rig rig;
  constexpr unsigned kFrequency = 37;
  Signal x(kN);
  for (unsigned n = 0; n < kN; ++n) {
    const double angle = 2 * M_PI * static_cast<double>((kFrequency * n) % kN) / kN;
    x[n] = {static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle))};
  }
  const Signal y = run_fft(rig, x);
  ASSERT_EQ(y.size(), kN);
  for (unsigned k = 0; k < kN; ++k) {
    const std::complex<double> expected = k == kFrequency ? double{kN} : 0.0;
    EXPECT_LT(std::abs(std::complex<double>(y[k]) - expected), 1e-4) << k << ": " << y[k];
  }
}

// Two transforms one after the other on the same platform: the barrier leaves every semaphore at 0, so the second
// run synchronises as the first did.
TEST(Vc4QpuFft, TwoTransformsInARow) {
  Rig rig;
  const Signal x1 = random_input(1), x2 = random_input(2);
  const std::vector<Signal> y = run_ffts(rig, {x1, x2});
  const Signal& y1 = y[0];
  const Signal& y2 = y[1];
  ASSERT_EQ(y1.size(), kN);
  ASSERT_EQ(y2.size(), kN);
  EXPECT_LT(relative_rms_error(y1, dft(x1)), 1e-6);
  EXPECT_LT(relative_rms_error(y2, dft(x2)), 1e-6);
  EXPECT_EQ(counter("programs_completed"), 2U * QpuFftShape::kPrograms);
}

// Every program completes; the TMU lookups, DMA words and instructions are those the program's structure gives; the
// slaves wait at the barriers; only the master raises the host interrupt.
TEST(Vc4QpuFft, EveryProgramCompletesAndTheStatisticsFollowTheDesign) {
  Rig rig;
  const Signal y = run_fft(rig, random_input(5));
  ASSERT_EQ(y.size(), kN);
  EXPECT_EQ(rig.port.read32(rig.driver.layout().v3d + vc4::kV3dSrqcs), (8U << 16) | (8U << 8));
  EXPECT_EQ(rig.port.read32(rig.driver.layout().v3d + vc4::kV3dDbqitc), 1U);  // program 0 ran on QPU 0
  EXPECT_EQ(counter("programs_completed"), QpuFftShape::kPrograms);
  EXPECT_EQ(counter("programs_failed"), 0U);
  // Per program and pass: 6 lookups (W, b, a: re and im) and two stores of 16 rows x 2 words.
  EXPECT_EQ(counter("tmu_requests"),
            std::uint64_t{QpuFftShape::kPrograms} * QpuFftShape::kPasses * QpuFftShape::kTmuRequestsPerPass);
  EXPECT_EQ(counter("tmu_requests"), 384U);
  EXPECT_EQ(counter("dma_store_words"),
            std::uint64_t{QpuFftShape::kPrograms} * QpuFftShape::kPasses * QpuFftShape::kDmaStoreWordsPerPass);
  EXPECT_EQ(counter("dma_store_words"), 4096U);  // every pass writes all 256 points
  EXPECT_EQ(counter("dma_load_words"), 0U);

  // Instructions from the program's labels: the set-up (to the first label, with the role branch's delay slots),
  // eight passes, and per pass pair the code between the loop's labels; the last pair skips the GO releases or
  // acquire and the loop branch (4 instructions with its delay slots) and ends through its end label.
  vc4::qpu::AssembledProgram program;
  std::string error;
  ASSERT_TRUE(vc4::qpu::assemble(host::fft_program_source(), program, error)) << error;
  const auto at = [&](const char* label) { return program.labels.at(label) / 8; };
  const std::uint64_t setup = at("slave");
  const std::uint64_t pass = program.code.size() - at("pass");
  const std::uint64_t slave_pair = at("slave_end") - at("slave");
  const std::uint64_t master_pair = at("master_end") - at("master");
  const std::uint64_t slave_end = 3, master_end = at("pass") - at("master_end");
  const std::uint64_t slave_skips = 1 + 4;   // sacq 3; the loop branch and its delay slots
  const std::uint64_t master_skips = 7 + 4;  // seven srel 3; the loop branch and its delay slots
  const std::uint64_t slave_instructions = setup + 8 * pass + 4 * slave_pair - slave_skips + slave_end;
  const std::uint64_t master_instructions = setup + 8 * pass + 4 * master_pair - master_skips + master_end;
  for (unsigned q = 0; q < QpuFftShape::kPrograms; ++q) {
    const std::string qpu = "qpu" + std::to_string(q) + ".";
    EXPECT_EQ(counter(qpu + "programs"), 1U) << q;
    EXPECT_EQ(counter(qpu + "instructions"), q == 0 ? master_instructions : slave_instructions) << q;
    EXPECT_GT(counter(qpu + "semaphore_stall_cycles"), 0U) << q;
    std::cout << "QPU " << q << ": " << counter(qpu + "instructions") << " instructions, "
              << counter(qpu + "semaphore_stall_cycles") << " cycles waiting on semaphores\n";
  }
  EXPECT_EQ(counter("qpu8.programs"), 0U);
}

// The FFT as a host script (register writes, the SRQCS poll, checks of the result) through `gpuvp run --script`. The
// input (-1)^n has the single frequency N/2, and every product of the program is exact for it (each nonzero b meets
// W^0 = 1): X[128] = 256 and every other value +0, exactly.
TEST(Vc4QpuFft, TheSameFftAsAHostScriptThroughTheExecutable) {
  host::ScriptHostPort port;
  Vc4Driver d(port);
  Signal x(kN);
  for (unsigned n = 0; n < kN; ++n) x[n] = {n % 2 == 0 ? 1.0F : -1.0F, 0.0F};
  const Signal expected = program_in_float32(x);
  ASSERT_EQ(bits(expected[kN / 2].real()), bits(256.0F));
  const host::QpuFft fft = host::prepare_qpu_fft(d, fft_program(), x);
  host::run_qpu_fft(d, fft, kTimeoutNs);
  for (unsigned k = 0; k < kN; ++k) {
    const float re = k == kN / 2 ? 256.0F : 0.0F;
    ASSERT_EQ(bits(expected[k].real()), bits(re)) << k;
    ASSERT_EQ(bits(expected[k].imag()), 0U) << k;
    port.expect32(fft.data.addr + 8 * k, bits(re));
    port.expect32(fft.data.addr + 8 * k + 4, 0);
  }
  EXPECT_EQ(port.unknown_reads(), 0U);
  const std::string path = ::testing::TempDir() + "vc4_qpu_fft.gpuvp";
  std::ofstream(path) << port.script();
  test::ProcessResult r = test::run_gpuvp("run --script " + path);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("ERR"), std::string::npos) << r.out;
}

}  // namespace
