// The project's own QPU user programs for the VideoCore IV (issue 20's yardstick) and the host side that runs them
// through host::Vc4Driver: a 256-point complex FFT on 8 QPUs, written in the assembler's syntax
// (tlm/vc4/qpu/qpu_assembler.h) from the ISA facts of ../shared/docs/reference-vc4-qpu.md (sections 1-3: Linux
// vc4_qpu_defines.h, Mesa's vc4 validator and scheduler, vc4asm's measurements, py-videocore, VC4C's VPM.h) and the
// textbook radix-2 Stockham autosort FFT (T. G. Stockham, "High-speed convolution and correlation", AFIPS 1966; in
// the decimation-in-time form of C. Van Loan, "Computational Frameworks for the Fast Fourier Transform", SIAM 1992,
// section 1.7). It is launched as gpu_fft launches its eight programs (direct mode: SRQUA/SRQPC per program), but its
// code, memory layout and synchronisation are its own.
//
// The FFT (forward, unscaled: X[k] = sum_n x[n] exp(-2 pi i n k / 256)):
//  - Data: 256 complex float32, interleaved {re, im} (8 bytes a point). Two buffers, `data` (the input, and the
//    result after the 8 passes: an even count) and `work`; each pass reads one and writes the other.
//  - Pass p (0..7) with stride s = 128 >> p: lane k (0..127; program g's lane e is k = 16 g + e) computes the
//    butterfly  a = src[k + j], b = src[k + j + s], j = k & -s (k rounded down to a multiple of s),
//    t = W^j b with W = exp(-2 pi i / 256);  dst[k] = a + t, dst[k + 128] = a - t.
//    Inputs are gathered with TMU direct lookups (6 a pass: W.re, W.im, b.re, b.im, a.re, a.im); the outputs of a
//    program are contiguous: dst[16 g .. 16 g + 15] and dst[128 + 16 g .. 128 + 16 g + 15].
//  - Twiddles: the host's table of W^j, j = 0..127, as {cos, -sin} float32 pairs (exact 0, +-1 where they are).
//  - Output: the four results are written to this program's four VPM columns (vertical 32-bit writes: lane e to row
//    Y + e), columns X, X + 1 = dst[k] re, im and X + 2, X + 3 = dst[k + 128] re, im; two VDW stores of 16 rows x 2
//    words each write them to memory as interleaved pairs. Program g's columns: rows 16 (g / 4) .. +15, columns
//    4 (g % 4) .. +3 (VPM rows 0-31).
//  - Synchronisation after each pass (a barrier): program 0 is the master. A slave releases semaphore 1 (DONE) when
//    its pass is stored (after vpm_st_wait) and acquires its go semaphore: 2 after even passes, 3 after odd ones. The
//    master acquires DONE seven times, then releases the go semaphore seven times. Alternating the go semaphore makes
//    the barrier sound: a slave can only be one barrier ahead of another, so it can never take a token meant for a
//    slower slave at the previous barrier. After the last pass the slaves release DONE and end; the master takes the
//    seven DONEs and writes host_int. Every semaphore is back at 0 at the end.
//  - Uniforms of program g: g, data, work, twiddles, the VPM write setup of its columns, the VDW setups of its two
//    column pairs.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "tb/host/host_port.h"
#include "tb/host/vc4_driver.h"

namespace gpuvp::host {

// The FFT's shape and what one run does (for the statistics a test expects).
struct QpuFftShape {
  static constexpr unsigned kPoints = 256;
  static constexpr unsigned kPasses = 8;    // log2(kPoints)
  static constexpr unsigned kPrograms = 8;  // one per QPU
  static constexpr unsigned kLanes = 16;    // butterflies per program and pass
  static constexpr unsigned kTwiddles = kPoints / 2;
  static constexpr unsigned kTmuRequestsPerPass = 6;     // per program: W, b and a, re and im
  static constexpr unsigned kDmaStoreWordsPerPass = 64;  // per program: 32 complex outputs
  static constexpr unsigned kDoneSemaphore = 1;          // slave to master: my pass is stored
  static constexpr unsigned kGoSemaphoreEven = 2;        // master to slaves, after passes 0, 2, 4, 6
  static constexpr unsigned kGoSemaphoreOdd = 3;         // master to slaves, after passes 1, 3, 5
};

// The program's assembly source (one program for all eight QPUs). The drivers see no model, so the caller assembles
// it (vc4::qpu::assemble, tlm/vc4/qpu/qpu_assembler.h), as Intel's kernels are assembled by iga64 outside the
// drivers.
std::string fft_program_source();

// The twiddle table: W^j = exp(-2 pi i j / 256), j = 0..127, as interleaved float32 {cos, -sin}.
std::vector<float> fft_twiddles();

// VPM placement of program g: the generic write setup of its four columns (vertical, 32-bit, stride 1) and the VDW
// store setups of its column pairs (`half` 0: columns X, X + 1; 1: X + 2, X + 3), 16 rows of 2 words each.
std::uint32_t fft_vpm_write_setup(unsigned program);
std::uint32_t fft_vdw_setup(unsigned program, unsigned half);

// One FFT laid out in the driver's memory.
struct QpuFft {
  Vc4Driver::Buffer data;               // the input; the result after the run
  Vc4Driver::Buffer work;               // the ping-pong buffer
  Vc4Driver::Buffer twiddles;           // fft_twiddles()
  std::uint32_t code = 0;               // bus address of the assembled program
  std::vector<std::uint32_t> uniforms;  // bus address of each program's uniforms, program 0 (the master) first
};

// The uniforms of program g (see the header comment).
std::vector<std::uint32_t> fft_uniforms(const QpuFft& fft, unsigned program);

// Allocates and uploads the code (fft_program_source() assembled), the twiddles, the input (kPoints values) and each
// program's uniforms.
QpuFft prepare_qpu_fft(Vc4Driver& driver, const std::vector<std::uint64_t>& code,
                       const std::vector<std::complex<float>>& input);
// Runs the eight programs (Vc4Driver::run_qpu_programs); false on time-out.
bool run_qpu_fft(Vc4Driver& driver, const QpuFft& fft, std::uint64_t timeout_ns);
// Reads the result (kPoints values) back through `port` (a live port: a recording returns zeros).
std::vector<std::complex<float>> read_qpu_fft_result(HostPort& port, const QpuFft& fft);

}  // namespace gpuvp::host
