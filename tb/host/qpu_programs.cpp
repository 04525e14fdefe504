// The project's own QPU user programs (see qpu_programs.h for the FFT's design and sources). The ISA rules the code
// keeps (../shared/docs/reference-vc4-qpu.md section 1.11): a regfile register is read no earlier than the second
// instruction after its write (accumulators at once); one regfile-A and one regfile-B read an instruction (a small
// immediate takes the B read); no branch in a branch's three delay slots; nothing touches the VPM in the program
// end's two; at most 8 TMU requests outstanding, each taken with load_tmu0 into r4 at the end of its instruction.
#include "tb/host/qpu_programs.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace gpuvp::host {

std::string fft_program_source() {
  return R"(
# 256-point complex FFT, forward, radix-2 Stockham (decimation in time), 8 programs x 16 lanes; see qpu_programs.h.
#
# Registers. Regfile A: ra0 src (the buffer this pass reads), ra1 8s (bytes from a to b), ra2 -8s (the mask of j),
# ra3 128g (byte offset of dst[16g]), ra4 128g + 1024 (of dst[128 + 16g]), ra5 the VPM write setup, ra6 the VDW setup
# of the second column pair, ra7 pass pairs left, ra8 the pass's return address.
# Regfile B: rb0 8k (k = 16g + lane), rb1 dst, rb2 the twiddle table, rb3 the VDW setup of the first column pair.
# Semaphores: 1 DONE (slave to master), 2 GO after even passes, 3 GO after odd passes.

    # ---- set-up: uniforms, this lane's butterfly, the first pass's stride ----
    mov r0, uni                         # g: this program's number (0: the master)
    mov ra0, uni                        # src = data: pass 0 reads the input
    mov rb1, uni                        # dst = work
    mov rb2, uni                        # twiddles
    mov ra5, uni                        # VPM write setup: vertical, 32-bit, this program's four columns
    mov rb3, uni                        # VDW setup: 16 rows x 2 words from column X
    mov ra6, uni                        # VDW setup: 16 rows x 2 words from column X + 2
    shl r1, r0, 4                       # 16g
    add r1, r1, elem                    # k = 16g + lane
    shl rb0, r1, 3                      # 8k
    shl r2, r0, 7                       # 128g: dst[16g]'s byte offset
    load_imm r3, 1024                   # 8 x 128: the second half's byte offset; 8s of pass 0 (s = 128)
    mov ra3, r2
    add ra4, r2, r3
    mov ra1, r3
    load_imm ra2, -1024                 # -8s
    load_imm ra7, 4                     # pass pairs
    load_imm vw_setup, 0xc0000000       # VDW stride 0: the 16 rows of a store land back to back
    mov.sf nop, r0                      # Z: the master
    branch.rel.all_zs master
    nop
    nop
    nop

    # ---- a slave: two passes, each followed by the barrier ----
slave:
    branch.rel.always pass, link ra8, nop   # an even pass
    nop
    nop
    nop
    srel 1                              # DONE: stored
    sacq 2                              # GO: every program has stored
    branch.rel.always pass, link ra8, nop   # an odd pass
    nop
    nop
    nop
    srel 1                              # DONE
    sub.sf ra7, ra7, 1
    branch.rel.all_zs slave_end         # after the last pass nobody waits for GO
    nop
    nop
    nop
    sacq 3                              # GO
    branch.rel.always slave
    nop
    nop
    nop
slave_end:
    sig_end nop
    nop
    nop

    # ---- the master: the same passes; it collects the seven DONEs and releases the seven GOs ----
master:
    branch.rel.always pass, link ra8, nop   # an even pass
    nop
    nop
    nop
    sacq 1
    sacq 1
    sacq 1
    sacq 1
    sacq 1
    sacq 1
    sacq 1
    srel 2
    srel 2
    srel 2
    srel 2
    srel 2
    srel 2
    srel 2
    branch.rel.always pass, link ra8, nop   # an odd pass
    nop
    nop
    nop
    sacq 1
    sacq 1
    sacq 1
    sacq 1
    sacq 1
    sacq 1
    sacq 1
    sub.sf ra7, ra7, 1
    branch.rel.all_zs master_end        # the last pass: everyone has stored
    nop
    nop
    nop
    srel 3
    srel 3
    srel 3
    srel 3
    srel 3
    srel 3
    srel 3
    branch.rel.always master
    nop
    nop
    nop
master_end:
    load_imm host_int, 1                # tell the host
    sig_end nop
    nop
    nop

    # ---- one pass: src -> dst with stride s; returns to ra8 with the next pass's src, dst and s ----
pass:
    # addresses: j = k & -s, a = src[k + j], b = src[k + j + s], W^j
    and r0, ra2, rb0                    # 8j
    add r1, ra0, rb0                    # src + 8k
    add r2, r0, rb2                     # &W[j]
    add r1, r1, r0 ; mov tmu0_s, r2     # &a; request W.re
    add tmu0_s, r2, 4                   # W.im
    add r3, r1, ra1                     # &b
    mov tmu0_s, r3                      # b.re
    add tmu0_s, r3, 4                   # b.im
    mov tmu0_s, r1                      # a.re
    add tmu0_s, r1, 4 ; mov vw_setup, ra5   # a.im; VPM writes from this program's first column
    # t = W b; each load_tmu0 puts the next result in r4 at the end of its instruction
    load_tmu0 nop                       # r4 = W.re
    load_tmu0 mov r0, r4                # r0 = W.re; r4 = W.im
    load_tmu0 mov r1, r4                # r1 = W.im; r4 = b.re
    fmul r2, r4, r0                     # b.re W.re
    load_tmu0 nop ; fmul r3, r4, r1     # r3 = b.re W.im; r4 = b.im
    fmul r1, r4, r1                     # b.im W.im
    load_tmu0 fsub r2, r2, r1 ; fmul r0, r4, r0     # r2 = t.re; r0 = b.im W.re; r4 = a.re
    load_tmu0 fadd r3, r3, r0 ; mov r1, r4          # r3 = t.im; r1 = a.re; r4 = a.im
    # the butterfly's outputs to the VPM: lane e to row Y + e of columns X .. X + 3
    fadd vpm, r1, r2                    # dst[k].re = a.re + t.re
    fadd vpm, r4, r3                    # dst[k].im
    fsub vpm, r1, r2                    # dst[k + 128].re = a.re - t.re
    fsub vpm, r4, r3                    # dst[k + 128].im
    # two DMA stores of 16 complex each, waited for
    mov vw_setup, rb3                   # columns X, X + 1
    add vw_addr, ra3, rb1               # to dst[16g]
    mov r0, vpm_st_wait
    mov vw_setup, ra6                   # columns X + 2, X + 3
    add vw_addr, ra4, rb1               # to dst[128 + 16g]
    mov ra0, rb1 ; mov rb1, ra0         # the next pass reads what this one wrote
    branch ra8                          # return; the delay slots finish the pass
    mov r0, vpm_st_wait                 # the store is done
    shr ra1, ra1, 1                     # s / 2
    asr ra2, ra2, 1
)";
}

std::vector<float> fft_twiddles() {
  constexpr unsigned kN = QpuFftShape::kPoints;
  constexpr unsigned kQuarter = kN / 4;
  // cos(2 pi m / N) for m = 0..N/4, with the exact 0 at N/4; every other value comes from these by symmetry, so that
  // W^32 has equal parts and W^64 is exactly -i.
  std::vector<double> cosine(kQuarter + 1);
  for (unsigned m = 0; m <= kQuarter; ++m) cosine[m] = std::cos(2 * M_PI * m / kN);
  cosine[kQuarter] = 0;
  std::vector<float> table(2 * QpuFftShape::kTwiddles);
  for (unsigned j = 0; j < QpuFftShape::kTwiddles; ++j) {
    // cos(2 pi j / N) and sin(2 pi j / N) for j in [0, N/2).
    const double c = j <= kQuarter ? cosine[j] : -cosine[kN / 2 - j];
    const double s = j <= kQuarter ? cosine[kQuarter - j] : cosine[j - kQuarter];
    table[2 * j] = static_cast<float>(c);
    table[2 * j + 1] = static_cast<float>(-s);
  }
  return table;
}

std::uint32_t fft_vpm_write_setup(unsigned program) {
  // Guide table 32: STRIDE 1 (17:12), vertical (HORIZ 0), SIZE 32-bit (2 in 9:8), ADDR {Y[5:4], X[3:0]}.
  return (1U << 12) | (2U << 8) | ((program / 4) << 4) | (4 * (program % 4));
}

std::uint32_t fft_vdw_setup(unsigned program, unsigned half) {
  // Guide table 34: ID 10, UNITS 16 rows (29:23), DEPTH 2 words (22:16), HORIZ (14), VPMBASE {Y[6:0], X[3:0]} (13:3),
  // MODEW 32-bit (0).
  const std::uint32_t row = 16 * (program / 4), column = 4 * (program % 4) + 2 * half;
  return 0x80000000U | (16U << 23) | (2U << 16) | (1U << 14) | (((row << 4) | column) << 3);
}

std::vector<std::uint32_t> fft_uniforms(const QpuFft& fft, unsigned program) {
  return {program,
          fft.data.addr,
          fft.work.addr,
          fft.twiddles.addr,
          fft_vpm_write_setup(program),
          fft_vdw_setup(program, 0),
          fft_vdw_setup(program, 1)};
}

namespace {

std::vector<std::uint8_t> bytes_of(const std::vector<float>& values) {
  std::vector<std::uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

}  // namespace

QpuFft prepare_qpu_fft(Vc4Driver& driver, const std::vector<std::uint64_t>& code,
                       const std::vector<std::complex<float>>& input) {
  if (input.size() != QpuFftShape::kPoints) {
    throw std::invalid_argument("the QPU FFT takes " + std::to_string(QpuFftShape::kPoints) + " points, not " +
                                std::to_string(input.size()));
  }
  constexpr std::uint32_t kBytes = QpuFftShape::kPoints * 8;
  QpuFft fft;
  fft.data = driver.alloc(kBytes);
  fft.work = driver.alloc(kBytes);
  const std::vector<float> twiddles = fft_twiddles();
  fft.twiddles = driver.alloc(static_cast<std::uint32_t>(twiddles.size() * sizeof(float)));
  std::vector<float> interleaved(2 * input.size());
  for (std::size_t i = 0; i < input.size(); ++i) {
    interleaved[2 * i] = input[i].real();
    interleaved[2 * i + 1] = input[i].imag();
  }
  driver.upload(fft.data, 0, bytes_of(interleaved));
  driver.upload(fft.twiddles, 0, bytes_of(twiddles));
  fft.code = driver.upload_qpu_code(code);
  for (unsigned g = 0; g < QpuFftShape::kPrograms; ++g) {
    fft.uniforms.push_back(driver.upload_uniforms(fft_uniforms(fft, g)));
  }
  return fft;
}

bool run_qpu_fft(Vc4Driver& driver, const QpuFft& fft, std::uint64_t timeout_ns) {
  return driver.run_qpu_programs(fft.code, fft.uniforms, timeout_ns);
}

std::vector<std::complex<float>> read_qpu_fft_result(HostPort& port, const QpuFft& fft) {
  std::vector<float> interleaved(2 * QpuFftShape::kPoints);
  port.read_block(fft.data.addr, interleaved.data(), interleaved.size() * sizeof(float));
  std::vector<std::complex<float>> result(QpuFftShape::kPoints);
  for (unsigned i = 0; i < QpuFftShape::kPoints; ++i) result[i] = {interleaved[2 * i], interleaved[2 * i + 1]};
  return result;
}

}  // namespace gpuvp::host
