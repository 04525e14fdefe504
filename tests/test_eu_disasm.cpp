// EU ISA decoder and disassembler (issue 17): field decoding on encodings written out here (from iga64 -Xprint-bits
// and Mesa's gen8 assembler vectors), and differential tests against Intel's own disassembler iga64: the project's IGA
// corpus (tests/eu/*.asm), the OpenCL kernel corpus (tests/eu/*.cl, compiled by ocloc), random instruction words, and
// the Mesa gen8 vectors when present on the machine; `gpuvp disasm`.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/eu_oracle.h"
#include "tests/support/run_gpuvp.h"
#include "tlm/gen/eu/decoder.h"
#include "tlm/gen/eu/device_binary.h"
#include "tlm/gen/eu/disassembler.h"

namespace eu = gpuvp::gen::eu;
namespace fs = std::filesystem;
using eu::Generation;
using namespace gpuvp::test::eu_oracle;  // NOLINT(google-build-using-namespace): the shared oracle helpers

namespace {

eu::DecodedInstruction decode_ok(const Word& w, Generation gen = Generation::kGen9) {
  eu::DecodeResult r = eu::decode(w.data(), gen);
  if (const auto* e = std::get_if<eu::DecodeError>(&r)) ADD_FAILURE() << "decode error: " << e->reason;
  return std::holds_alternative<eu::DecodedInstruction>(r) ? std::get<eu::DecodedInstruction>(r)
                                                           : eu::DecodedInstruction{};
}

}  // namespace

TEST(EuDecode, Align1MovFields) {
  // iga64 -Xprint-bits: "mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f" = 00600001 20403AE8 008D0060 00000000 (dwords).
  const auto d = decode_ok(word_from_hex("01 00 60 00 e8 3a 40 20 60 00 8d 00 00 00 00 00"));
  EXPECT_EQ(d.op->name, "mov");
  EXPECT_EQ(d.exec_size, 8);
  EXPECT_FALSE(d.align16);
  EXPECT_EQ(d.dst.file, eu::RegFile::kGrf);
  EXPECT_EQ(d.dst.reg, 2);
  EXPECT_EQ(d.dst.type, eu::DataType::kF);
  EXPECT_EQ(d.dst.region.hstride, 1);
  EXPECT_EQ(d.src[0].reg, 3);
  EXPECT_EQ(d.src[0].region.vstride, 8);
  EXPECT_EQ(d.src[0].region.width, 8);
  EXPECT_EQ(d.src[0].region.hstride, 1);
  EXPECT_EQ(d.sources, 1U);
}

TEST(EuDecode, MesaGen8MovWeAll) {
  // Mesa src/intel/tools/tests/gen8: "mov(8) g123<1>UD g1<8,8,1>UD {align1 WE_all 1Q}".
  const auto d = decode_ok(word_from_hex("01 00 60 00 0c 02 60 2f 20 00 8d 00 00 00 00 00"), Generation::kGen8);
  EXPECT_TRUE(d.no_mask);
  EXPECT_EQ(d.dst.reg, 123);
  EXPECT_EQ(d.dst.type, eu::DataType::kUd);
  EXPECT_EQ(d.src[0].reg, 1);
  EXPECT_EQ(d.src[0].type, eu::DataType::kUd);
}

TEST(EuDecode, PredicationConditionAndImmediates) {
  // "(~f1.1.any4h) mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f": pred ctrl 6, inverted, flag f1.1.
  auto d = decode_ok(word_from_hex("01 00 76 00 eb 3a 40 20 60 00 8d 00 00 00 00 00"));
  EXPECT_EQ(d.pred_ctrl, 6);
  EXPECT_TRUE(d.pred_inv);
  EXPECT_EQ(d.flag_reg, 1);
  EXPECT_EQ(d.flag_subreg, 1);
  // "cmp (8|M0) (lt)f0.0 null<1>:f r3.0<8;8,1>:f 0.0:f": cond mod 5, ARF null destination, F immediate.
  d = decode_ok(word_from_hex("10 00 60 05 e0 3a 00 20 60 00 8d 3e 00 00 00 00"));
  EXPECT_EQ(d.cond_mod, 5);
  EXPECT_EQ(d.dst.file, eu::RegFile::kArf);
  EXPECT_EQ(d.src[1].file, eu::RegFile::kImm);
  EXPECT_EQ(d.src[1].type, eu::DataType::kF);
  // "mov (8|M0) r2.0<1>:q 4886718345:q": a 64-bit immediate in bits 127:64.
  d = decode_ok(word_from_hex("01 00 60 00 28 4f 40 20 89 67 45 23 01 00 00 00"));
  EXPECT_EQ(d.src[0].type, eu::DataType::kQ);
  EXPECT_EQ(d.src[0].imm, 0x123456789ULL);
}

TEST(EuDecode, IndirectAndTernary) {
  // "mov (8|M0) r2.0<1>:f r[a0.1,4]<1,0>:f": VxH region, a0.1, immediate offset 4.
  auto d = decode_ok(word_from_hex("01 00 60 00 e8 3a 40 20 04 82 e0 01 00 00 00 00"));
  EXPECT_TRUE(d.src[0].indirect);
  EXPECT_TRUE(d.src[0].region.vxh);
  EXPECT_EQ(d.src[0].addr_subreg, 1);
  EXPECT_EQ(d.src[0].addr_imm, 4);
  // "lrp (8|M0) r10.0<1>:f -r11.0<4;1>:f r12.0<4;1>:f (abs)r13.0<1>:f" (Align16 three-source).
  d = decode_ok(word_from_hex("5c 01 60 00 40 02 1e 0a c8 b1 00 39 18 20 47 03"));
  EXPECT_EQ(d.op->name, "lrp");
  EXPECT_TRUE(d.align16);
  EXPECT_EQ(d.dst.reg, 10);
  EXPECT_EQ(d.src[0].reg, 11);
  EXPECT_TRUE(d.src[0].negate);
  EXPECT_EQ(d.src[1].reg, 12);
  EXPECT_EQ(d.src[2].reg, 13);
  EXPECT_TRUE(d.src[2].abs);
  // The same at SIMD4 writing only channel y (write mask 52:49 = 2): decoded as is, printed as iga64 converts it.
  d = decode_ok(word_from_hex("5c 01 40 00 40 02 04 0a c8 b1 00 39 18 20 47 03"));
  EXPECT_EQ(d.exec_size, 4);
  EXPECT_EQ(d.write_mask, 2);
  EXPECT_EQ(d.dst.subreg, 0);
  EXPECT_EQ(eu::disassemble(d, 0).text, "lrp (1|M0) r10.1<1>:f -r11.0<2;1>:f r12.0<2;1>:f (abs)r13.0<1>:f");
}

TEST(EuDecode, BranchOffsets) {
  // "if (8|M0) L112 L128" at offset 80: JIP +32 in bits 127:96, UIP +48 in bits 95:64.
  const auto d = decode_ok(word_from_hex("22 00 60 00 00 0e 00 20 30 00 00 00 20 00 00 00"));
  EXPECT_EQ(d.jip, 32);
  EXPECT_EQ(d.uip, 48);
  EXPECT_EQ(eu::disassemble(d, 80).text, "if (8|M0) L112 L128");
  // Bit 28 is BranchCtrl on if/else/goto ("if.b", as iga64 prints it), and iga64 ignores it on endif/while/join.
  Word w = word_from_hex("22 00 60 10 00 0e 00 20 30 00 00 00 20 00 00 00");
  EXPECT_EQ(eu::disassemble(w.data(), Generation::kGen9, 80).text, "if.b (8|M0) L112 L128");
  w = word_from_hex("25 00 60 10 00 00 00 20 00 00 00 0e 10 00 00 00");
  EXPECT_EQ(eu::disassemble(w.data(), Generation::kGen9, 64).text, "endif (8|M0) L80");
}

TEST(EuDecode, FlowFormsAndMathMacros) {
  // iga64 -Xprint-bits "call (8|M0) r10.0 L80" at offset 64: return address in r10 (D), JIP +16 in src1's immediate.
  auto d = decode_ok(word_from_hex("2c 00 60 00 28 00 40 21 00 00 45 0e 10 00 00 00"));
  EXPECT_EQ(d.dst.reg, 10);
  EXPECT_EQ(d.jip, 16);
  EXPECT_EQ(d.sources, 0U);
  EXPECT_EQ(eu::disassemble(d, 64).text, "call (8|M0) r10.0 L80");
  // "(W) jmpi r2.0": the target in a register (src1), ip implicit in dst and src0.
  d = decode_ok(word_from_hex("20 00 00 00 04 00 00 34 00 14 00 0a 40 00 00 00"));
  EXPECT_EQ(d.sources, 1U);
  EXPECT_EQ(d.src[0].reg, 2);
  EXPECT_EQ(eu::disassemble(d, 0).text, "(W) jmpi r2.0");
  // "madm (8|M0) r4.mme0:df r5.mme1:df r6.mme2:df r7.mme3:df": write mask and swizzles name the accumulators.
  d = decode_ok(word_from_hex("5d 01 60 00 00 d8 00 04 02 50 80 00 0c 18 c0 01"));
  EXPECT_EQ(d.dst.mme, 0);
  EXPECT_EQ(d.src[0].mme, 1);
  EXPECT_EQ(d.src[1].mme, 2);
  EXPECT_EQ(d.src[2].mme, 3);
  EXPECT_EQ(d.src[2].reg, 7);
}

TEST(EuDecode, SplitSendAndRegisterDescriptors) {
  // iga64 -Xprint-bits "sends (8|M0) r10:ud r2 r4 0x8A 0x04205E00": src1 r4 in 51:44, src1 length 2 in 67:64.
  auto d = decode_ok(word_from_hex("33 00 60 0a 18 40 40 01 42 00 00 00 00 5e 20 04"));
  EXPECT_EQ(d.dst.reg, 10);
  EXPECT_EQ(d.src[0].reg, 2);
  EXPECT_EQ(d.src[1].reg, 4);
  EXPECT_EQ(d.ex_desc, 0x8AU);
  EXPECT_EQ(d.desc, 0x04205E00U);
  EXPECT_EQ(eu::disassemble(d, 0).text, "sends (8|M0) r10:ud r2 r4 0x8A 0x04205E00 // wr:2+2, rd:2; hdc.dc0");
  // "sends (8|M0) r10:ud r2 r4 a0.2 0x04205E00": the extended descriptor in a0.2 (bit 61, subregister 82:80).
  d = decode_ok(word_from_hex("33 00 60 00 18 40 40 21 40 00 02 00 00 5e 20 04"));
  EXPECT_EQ(d.ex_desc_subreg, 2);
  EXPECT_EQ(eu::disassemble(d, 0).text,
            "sends (8|M0) r10:ud r2 r4 a0.2 0x04205E00 // wr:2+a0.2[10:6], rd:2; sfid a0.2[3:0]");
  // "send (8|M0) r10 r2 0xA a0.0": the descriptor in a0.0 (src1 the ARF a0).
  d = decode_ok(word_from_hex("31 00 60 0a 08 02 40 21 40 00 00 00 00 02 00 00"));
  EXPECT_TRUE(d.desc_in_register);
  EXPECT_EQ(eu::disassemble(d, 0).text, "send (8|M0) r10 r2 0xA a0.0 // wr:a0.0[28:25]+0, rd:a0.0[24:20]; hdc.dc0");
}

TEST(EuDecode, Align16TwoSourceAsIgaConvertsIt) {
  // Align16 "add (8) r2.xyzw:f r3.xyzw:f r4.xyzw:f" (write mask 51:48, vertical stride 4, swizzles in 65:64/67:66/
  // 81:80/83:82): iga64 prints the Align1 equivalent.
  Word w = word_from_hex("40 01 60 00 e8 3a 4f 20 64 00 6e 3a 84 00 6e 00");
  auto d = decode_ok(w);
  EXPECT_TRUE(d.align16);
  EXPECT_EQ(d.src[1].reg, 4);
  EXPECT_EQ(eu::disassemble(d, 0).text, "add (8|M0) r2.0<1>:f r3.0<1;1,0>:f r4.0<1;1,0>:f");
  EXPECT_EQ(d.src[0].swizzle, 0xE4);
  // Subregister bit 68 counts 16-byte halves: r3.4 in floats.
  w[8] |= 0x10;
  EXPECT_EQ(eu::disassemble(w.data(), Generation::kGen9, 0).text, "add (8|M0) r2.0<1>:f r3.4<1;1,0>:f r4.0<1;1,0>:f");
  // Swizzle wzyx moves every channel: no Align1 region, iga64 rejects it.
  w[8] = 0x7B;   // src0 x=3, y=2 (with the subregister bit set)
  w[10] = 0x61;  // z=1, w=0, vertical stride 4
  EXPECT_FALSE(eu::disassemble(w.data(), Generation::kGen9, 0).ok());
  // xxxx keeps channel x in place: decoded with its swizzle, printed as iga64 does (<1;1,0>).
  w[8] = 0x70;   // x=0, y=0, subregister bit set
  w[10] = 0x60;  // z=0, w=0
  d = decode_ok(w);
  EXPECT_EQ(d.src[0].swizzle, 0x00);
  EXPECT_EQ(eu::disassemble(d, 0).text, "add (8|M0) r2.0<1>:f r3.4<1;1,0>:f r4.0<1;1,0>:f");
}

TEST(EuDecode, ErrorsNotUndefinedBehaviour) {
  Word w = word_from_hex("7f 00 60 00 e8 3a 40 20 60 00 8d 00 00 00 00 00");
  auto r = eu::decode(w.data(), Generation::kGen9);
  ASSERT_TRUE(std::holds_alternative<eu::DecodeError>(r));
  EXPECT_EQ(std::get<eu::DecodeError>(r).reason, "unknown opcode 127");
  // sends (51) is a Gen9 opcode only.
  w = word_from_hex("33 00 60 00 e8 3a 40 20 60 00 8d 00 00 00 00 00");
  r = eu::decode(w.data(), Generation::kGen8);
  ASSERT_TRUE(std::holds_alternative<eu::DecodeError>(r));
  EXPECT_EQ(std::get<eu::DecodeError>(r).reason, "unknown opcode 51");
}

TEST(EuDisasm, ImmediateFormatsAsIga) {
  EXPECT_EQ(eu::format_immediate(0x3DCCCCCD, eu::DataType::kF), "0.1");
  EXPECT_EQ(eu::format_immediate(0x3DCCCCCE, eu::DataType::kF), "0x3DCCCCCE");
  EXPECT_EQ(eu::format_immediate(0x4B000000, eu::DataType::kF), "8.388608e+06");
  EXPECT_EQ(eu::format_immediate(0x7FC00000, eu::DataType::kF), "qnan(0x0)");
  EXPECT_EQ(eu::format_immediate(0xFF800000, eu::DataType::kF), "-inf");
  EXPECT_EQ(eu::format_immediate(0x80000000, eu::DataType::kF), "-0.0");
  EXPECT_EQ(eu::format_immediate(0x1234, eu::DataType::kHf), "7.572174e-04");
  EXPECT_EQ(eu::format_immediate(0xFFFFFFFB, eu::DataType::kD), "-5");
  EXPECT_EQ(eu::format_immediate(0x123456789ULL, eu::DataType::kUq), "0x123456789");
}

// Every instruction of the project's IGA corpus (tests/eu/*.asm), assembled by iga64, disassembles to iga64's text.
TEST(EuDisasm, CorpusMatchesIga) {
  const Tally t = check_corpus("");
  EXPECT_EQ(t.compacted, 0U) << "iga64 -a compacts only when asked";
}

namespace {

// Random words for an opcode our disassembler prints (compaction bit and opcode bit 7 clear). Half of them keep the
// fields that otherwise make almost every word illegal (register files, types, strides, exec size, thread control)
// in range, so that the comparison covers accepted instructions as well as rejected ones.
std::vector<Word> random_words(std::size_t count, Generation gen, std::uint32_t seed) {
  std::vector<unsigned> opcodes;
  for (unsigned n = 0; n < 128; ++n) {
    const eu::OpcodeInfo* op = eu::find_opcode(n, gen);
    if (op == nullptr) continue;
    opcodes.push_back(n);
  }
  std::mt19937_64 rng(seed);
  std::vector<Word> words(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::array<std::uint64_t, 2> q{rng(), rng()};
    const unsigned opcode = opcodes[rng() % opcodes.size()];
    const eu::OpcodeInfo* op = eu::find_opcode(opcode, gen);
    q[0] = (q[0] & ~0x7FULL & ~(1ULL << 7) & ~(1ULL << 29)) | opcode;
    if (i % 2 == 0) {
      auto set = [&](unsigned hi, unsigned lo, std::uint64_t v) {
        const std::uint64_t mask = ((1ULL << (hi - lo + 1)) - 1) << (lo % 64);
        q[lo / 64] = (q[lo / 64] & ~mask) | (v << (lo % 64));
      };
      set(8, 8, op->op_class == eu::OpClass::kTernary ? 1 : 0);  // access mode
      set(15, 14, 0);                                            // thread control
      set(19, 16, rng() % 4 == 0 ? rng() % 8 : 0);               // predication
      set(23, 21, rng() % 6);                                    // exec size
      set(27, 24, rng() % 7);                                    // cond mod / math function
      set(30, 28, 0);
      set(36, 35, 1);  // dst GRF
      set(40, 37, rng() % 11);
      set(42, 41, rng() % 4 == 0 ? 3 : 1);  // src0 GRF or immediate
      set(46, 43, rng() % 11);
      set(63, 61, 1);  // direct dst, stride 1
      set(79, 79, 0);
      set(90, 89, rng() % 3 == 0 ? 3 : 1);
      set(94, 91, rng() % 11);
      set(111, 111, 0);
      if (op->op_class == eu::OpClass::kTernary) {
        // Align16 three-source: xyzw swizzles (or a replicated scalar), in-range types, reserved bits clear.
        set(45, 43, rng() % 5);
        set(48, 46, rng() % 5);
        set(52, 49, rng() % 4 == 0 ? rng() % 16 : 0xF);
        for (unsigned base : {64U, 85U, 106U}) set(base + 8, base + 1, rng() % 8 == 0 ? rng() % 256 : 0xE4);
        set(84, 84, 0);
        set(105, 105, 0);
        set(127, 126, 0);
      }
      if ((op->op_class == eu::OpClass::kAlu || op->op_class == eu::OpClass::kMath) && rng() % 8 == 0) {
        // Align16 one- and two-source forms: write mask xyzw, vertical stride 4, swizzles mostly xyzw.
        set(8, 8, 1);
        set(51, 48, rng() % 4 == 0 ? rng() % 16 : 0xF);
        for (unsigned base : {64U, 96U}) {
          set(base + 24, base + 21, 3);
          const std::uint64_t swizzle = rng() % 4 == 0 ? rng() % 256 : 0xE4;
          set(base + 3, base, swizzle & 0xF);
          set(base + 19, base + 16, swizzle >> 4);
        }
      }
      // A split send keeps src1's file in bit 36 (GRF), its descriptors in registers when bits 61 and 77 are set.
      if (op->op_class == eu::OpClass::kSend && op->sources == 2) set(36, 36, 1);
      if (op->op_class == eu::OpClass::kBranch) {
        // JIP and UIP on instructions of the file, so that most branches are compared.
        const auto target = [&]() {
          return static_cast<std::uint64_t>(16 *
                                            (static_cast<std::int64_t>(rng() % count) - static_cast<std::int64_t>(i)));
        };
        set(127, 96, target() & 0xFFFFFFFF);
        set(95, 64, target() & 0xFFFFFFFF);
      }
    }
    for (int b = 0; b < 16; ++b) words[i][b] = static_cast<std::uint8_t>(q[b / 8] >> (8 * (b % 8)));
  }
  return words;
}

}  // namespace

// Random instruction words, 100,000 in ten files of 10,000 (issue 17): where iga64 decodes one our text is the same;
// where it rejects one ours is an error.
TEST(EuDisasm, RandomWordsMatchIga) {
  constexpr std::size_t kBatches = 10;
  constexpr std::size_t kWords = 10000;
  Tally total;
  for (std::size_t batch = 0; batch < kBatches; ++batch) {
    const std::vector<Word> words = random_words(kWords, Generation::kGen9, static_cast<std::uint32_t>(17 + batch));
    compare_with_iga(join(words), Generation::kGen9, total);
  }
  report(total);
  // Bit 29 is clear in every word: the stream splits into 16-byte instructions for iga64 and for us alike (random
  // compacted words are tests/test_eu_compaction.cpp's).
  EXPECT_EQ(total.instructions, kBatches * kWords);
  EXPECT_EQ(total.compacted, 0U);
  EXPECT_TRUE(total.failures.empty());
  // Not vacuous: with these seeds about 18% of the words are accepted by iga64 and compared.
  EXPECT_GT(total.matched, kBatches * kWords / 8) << "too few accepted words compared";
  EXPECT_GT(total.both_rejected, kBatches * kWords / 2) << "too few rejected words compared";
}

// Mesa's Gen8 assembler vectors (src/intel/tools/tests/gen8, .expected = bytes of each instruction), read from the
// machine's shared conformance directory (not part of this repository): disassembled as Gen8 by iga64 and by us.
TEST(EuDisasm, MesaGen8VectorsMatchIga) {
  const fs::path dir = "/work/shared/conformance/mesa-eu-asm/gen8";
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " not present";
  Tally total;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".expected") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    // One instruction a line, 16 bytes native or 8 compacted: the file is one kernel.
    const Bytes kernel = bytes_from_hex(read_file(file));
    compare_with_iga(kernel, Generation::kGen8, total, file.filename().string());
  }
  report(total);
  EXPECT_TRUE(total.failures.empty());
  EXPECT_GT(total.instructions, 2000U) << "the Mesa vectors were read";
  EXPECT_GT(total.matched, total.instructions / 2) << "too few Mesa vectors compared";
}

namespace {

// The project's OpenCL kernel corpus (tests/eu/*.cl), compiled by ocloc at test time: every instruction of every
// kernel, native or compacted (8 bytes, most of a real kernel's moves and adds), disassembles to iga64's text for the
// same heap bytes.
void compare_kernel_corpus(Generation gen) {
  Tally t;
  std::size_t kernels = 0;
  for (const fs::path& source : corpus_files(".cl")) {
    const eu::DeviceProgram program = eu::parse_device_binary(read_bytes(ocloc_compile(source, gen)));
    EXPECT_EQ(program.device_family, eu::device_family(gen));
    for (const eu::DeviceKernel& kernel : program.kernels) {
      ++kernels;
      compare_with_iga(kernel.heap, gen, t, source.filename().string() + " " + kernel.name);
    }
  }
  std::printf("%zu kernels: ", kernels);
  report(t);
  EXPECT_TRUE(t.failures.empty());
  EXPECT_EQ(t.matched, t.instructions) << "every kernel instruction is decoded by both and matches";
  EXPECT_GE(kernels, 15U) << "the corpus files were compiled";
  EXPECT_GE(t.instructions, 2000U);
  EXPECT_GT(t.compacted, t.instructions / 5) << "IGC compacts";
}

}  // namespace

TEST(EuDisasm, OpenClKernelCorpusMatchesIga) { compare_kernel_corpus(Generation::kGen9); }

// The same kernels built for Broadwell, disassembled as Gen8 by both.
TEST(EuDisasm, OpenClKernelCorpusMatchesIgaGen8) { compare_kernel_corpus(Generation::kGen8); }

// `gpuvp disasm` on an ocloc binary of a project kernel: a header line per kernel, then iga64's text of every
// instruction, native or compacted ("{Compacted}"), walked as iga64 walks the heap.
TEST(EuDisasm, CommandListsAnOclocBinary) {
  const fs::path bin = ocloc_compile(fs::path(GPUVP_SOURCE_DIR) / "tests/eu/arith.cl");
  const auto result = gpuvp::test::run_gpuvp_split("disasm " + bin.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  std::vector<std::string> expected;
  std::size_t compacted = 0;
  for (const eu::DeviceKernel& kernel : eu::parse_device_binary(read_bytes(bin)).kernels) {
    expected.push_back("// kernel " + kernel.name + ": " + std::to_string(kernel.heap.size()) + " bytes");
    const auto iga = iga_disassemble(kernel.heap, Generation::kGen9);
    const std::vector<std::uint32_t> offsets = instruction_offsets(kernel.heap);
    ASSERT_EQ(iga.size(), offsets.size());
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      ASSERT_TRUE(iga[i].has_value()) << kernel.name << " @" << offsets[i];
      expected.push_back(*iga[i]);
      if (iga[i]->find("Compacted") != std::string::npos) ++compacted;
    }
  }
  std::vector<std::string> printed;
  std::istringstream lines(result.out);
  std::string line;
  while (std::getline(lines, line)) printed.push_back(collapse_spaces(line));
  EXPECT_EQ(printed, expected);
  EXPECT_EQ(printed.front(), "// kernel saxpy: 272 bytes");
  EXPECT_GT(compacted, 0U) << "the listing includes compacted instructions";
}

TEST(EuDisasm, CommandRejectsBadInput) {
  const fs::path bin = ocloc_compile(fs::path(GPUVP_SOURCE_DIR) / "tests/eu/arith.cl");
  auto result = gpuvp::test::run_gpuvp_split("disasm /nonexistent/k.bin");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "gpuvp: error: /nonexistent/k.bin: cannot open\n");
  // A Gen9 binary disassembled as Gen8.
  result = gpuvp::test::run_gpuvp_split("disasm --gen 8 " + bin.string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("device binary for GPU family 12, not Gen8"), std::string::npos) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1);
  // The binary cut short, and raw bytes ending inside an instruction.
  const std::string bytes = read_file(bin);
  const fs::path cut = temp_path("cut.bin");
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  result = gpuvp::test::run_gpuvp_split("disasm " + cut.string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find(": truncated "), std::string::npos) << result.err;
  const fs::path raw = temp_path("raw.bin");
  std::ofstream(raw, std::ios::binary) << std::string(
                                              "\x01\x00\x60\x00\xe8\x3a\x40\x20\x60\x00\x8d\x00\x00\x00\x00\x00", 16)
                                       << std::string(12, '\0');
  result = gpuvp::test::run_gpuvp_split("disasm " + raw.string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f\n");
  EXPECT_EQ(result.err,
            "gpuvp: error: " + raw.string() + ": truncated instruction at offset 0x00000010 (12 of 16 bytes)\n");
  result = gpuvp::test::run_gpuvp_split("disasm --gen 7 " + raw.string());
  EXPECT_EQ(result.exit_code, 2);
  // An unknown opcode: a decode-error line with the offset, and the listing goes on.
  std::ofstream(raw, std::ios::binary) << std::string(
                                              "\x7f\x00\x60\x00\xe8\x3a\x40\x20\x60\x00\x8d\x00\x00\x00\x00\x00", 16)
                                       << std::string(
                                              "\x01\x00\x60\x00\xe8\x3a\x40\x20\x60\x00\x8d\x00\x00\x00\x00\x00", 16);
  result = gpuvp::test::run_gpuvp_split("disasm " + raw.string());
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "// 0x00000000: decode error: unknown opcode 127\nmov (8|M0) r2.0<1>:f r3.0<8;8,1>:f\n");
}
