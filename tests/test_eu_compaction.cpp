// Compacted (64-bit) Gen8/Gen9 EU instructions (issue 17): expansions to the native form checked against iga64's own
// encodings, decode_at over mixed streams, and differential tests against iga64: the project's IGA corpus assembled
// with compaction, and random compacted words.
#include <array>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/eu_oracle.h"
#include "tlm/gen/eu/compaction.h"
#include "tlm/gen/eu/decoder.h"
#include "tlm/gen/eu/device_binary.h"
#include "tlm/gen/eu/disassembler.h"

namespace eu = gpuvp::gen::eu;
namespace fs = std::filesystem;
using eu::Generation;
using namespace gpuvp::test::eu_oracle;  // NOLINT(google-build-using-namespace): the shared oracle helpers

namespace {

// The native word a compacted one expands to (a failure when it has none).
Word expand_ok(const std::string& compacted_hex, Generation gen = Generation::kGen9) {
  const Bytes bytes = bytes_from_hex(compacted_hex);
  EXPECT_EQ(bytes.size(), 8U);
  const auto r = eu::expand_compacted(bytes.data(), gen);
  if (const auto* e = std::get_if<eu::DecodeError>(&r)) ADD_FAILURE() << "no expansion: " << e->reason;
  return std::holds_alternative<eu::NativeWord>(r) ? std::get<eu::NativeWord>(r) : Word{};
}

std::string text_of(const std::string& hex, Generation gen = Generation::kGen9, std::uint32_t pc = 0) {
  const Bytes bytes = bytes_from_hex(hex);
  const eu::DecodedAt at = eu::decode_at(bytes.data(), bytes.size(), gen);
  if (const auto* e = std::get_if<eu::DecodeError>(&at.result)) return "error: " + e->reason;
  return eu::disassemble(std::get<eu::DecodedInstruction>(at.result), pc).text;
}

}  // namespace

// The expected native words are iga64's encodings (-Xprint-bits) of the same text assembled without compaction.
TEST(EuCompaction, ExpandsBasicForm) {
  // "mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f {Compacted}" = 00030207`20010B01: control index 11, data type index 8,
  // subregister index 0, src0 index 28 (<8;8,1>), registers 2 and 3.
  EXPECT_EQ(expand_ok("01 0b 01 20 07 02 03 00"), word_from_hex("01 00 60 00 e8 3a 40 20 60 00 8d 00 00 00 00 00"));
  // "cmp (8|M0) (lt)f0.0 null<1>:f r3.0<8;8,1>:f 0.0:f {Compacted}": condition modifier, an immediate src1 of 0.
  EXPECT_EQ(expand_ok("10 6b 02 25 07 00 03 00"), word_from_hex("10 00 60 05 e0 3a 00 20 60 00 8d 3e 00 00 00 00"));
  // "add (8|M0) r4.0<1>:d r6.0<8;8,1>:d -7:d {Compacted}" = F90604FF`2001CB40: the 13-bit immediate (src1 index and
  // register) sign-extended into DW3 = 0xFFFFFFF9.
  EXPECT_EQ(expand_ok("40 cb 01 20 ff 04 06 f9"), word_from_hex("40 00 60 00 28 0a 80 20 c0 00 8d 0e f9 ff ff ff"));
}

TEST(EuCompaction, ExpandsThreeSourceForm) {
  // "mad (8|M0) r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f {Compacted}" = 1A305800`2000A15B: 3-src control
  // index 1 (Align16, 8 channels), source index 0 (types F, swizzles xyzw, write mask xyzw), 7-bit registers.
  const Word native = word_from_hex("5b 01 60 00 00 00 1e 0a c8 b1 00 39 18 20 47 03");
  EXPECT_EQ(expand_ok("5b a1 00 20 00 58 30 1a"), native);
  // Gen8 shares the tables (iga64 -p=8 assembles the same text to the same words).
  EXPECT_EQ(expand_ok("5b a1 00 20 00 58 30 1a", Generation::kGen8), native);
}

TEST(EuCompaction, OpcodesWithoutCompactedForm) {
  // iga64 reports "no compacted form" for control flow and nop (Gen8/9) and for sends on Gen9; on Gen8 a compacted
  // send expands. Unknown opcodes are decode errors as in the native form.
  auto error_of = [](const std::string& hex, Generation gen) {
    const Bytes bytes = bytes_from_hex(hex);
    const auto r = eu::expand_compacted(bytes.data(), gen);
    return std::holds_alternative<eu::DecodeError>(r) ? std::get<eu::DecodeError>(r).reason : std::string("none");
  };
  EXPECT_EQ(error_of("7e 00 00 20 00 00 00 00", Generation::kGen9), "unsupported: compacted nop");
  EXPECT_EQ(error_of("25 0b 01 20 00 00 00 02", Generation::kGen9), "unsupported: compacted endif");
  EXPECT_EQ(error_of("22 0b 01 20 00 00 00 02", Generation::kGen8), "unsupported: compacted if");
  EXPECT_EQ(error_of("2c 0b 01 20 00 00 00 02", Generation::kGen9), "unsupported: compacted call");
  EXPECT_EQ(error_of("31 0b 01 20 07 02 03 00", Generation::kGen9), "unsupported: compacted send");
  EXPECT_EQ(error_of("31 0b 01 20 07 02 03 00", Generation::kGen8), "none");
  EXPECT_EQ(error_of("7f 0b 01 20 07 02 03 00", Generation::kGen9), "unknown opcode 127");
}

TEST(EuCompaction, CompactedWordsDecodeAndPrintAsIga) {
  EXPECT_EQ(text_of("01 0b 01 20 07 02 03 00"), "mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f {Compacted}");
  EXPECT_EQ(text_of("10 6b 02 25 07 00 03 00"), "cmp (8|M0) (lt)f0.0 null<1>:f r3.0<8;8,1>:f 0.0:f {Compacted}");
  EXPECT_EQ(text_of("5b a1 00 20 00 58 30 1a"),
            "mad (8|M0) r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f {Compacted}");
  // The debug bit of the basic form is bit 7 (the opcode's reserved bit in the native form): Breakpoint.
  EXPECT_EQ(text_of("81 0b 01 20 07 02 03 00"), "mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f {Breakpoint,Compacted}");
  EXPECT_EQ(text_of("7e 00 00 20 00 00 00 00"), "error: unsupported: compacted nop");
}

TEST(EuCompaction, DecodeAtWalksMixedStreams) {
  // A compacted mov, then a native mov: lengths 8 and 16.
  const Bytes kernel = bytes_from_hex(
      "01 0b 01 20 07 02 03 00 "
      "01 00 60 00 e8 3a 40 20 60 00 8d 00 00 00 00 00");
  eu::DecodedAt at = eu::decode_at(kernel.data(), kernel.size(), Generation::kGen9);
  EXPECT_EQ(at.length, 8U);
  ASSERT_TRUE(std::holds_alternative<eu::DecodedInstruction>(at.result));
  EXPECT_TRUE(std::get<eu::DecodedInstruction>(at.result).compacted);
  at = eu::decode_at(kernel.data() + 8, kernel.size() - 8, Generation::kGen9);
  EXPECT_EQ(at.length, 16U);
  ASSERT_TRUE(std::holds_alternative<eu::DecodedInstruction>(at.result));
  EXPECT_FALSE(std::get<eu::DecodedInstruction>(at.result).compacted);
  // A native instruction cut short, and a compacted one with only 8 bytes left, which is whole.
  at = eu::decode_at(kernel.data() + 8, 12, Generation::kGen9);
  EXPECT_EQ(at.length, 12U);
  ASSERT_TRUE(std::holds_alternative<eu::DecodeError>(at.result));
  EXPECT_EQ(std::get<eu::DecodeError>(at.result).reason, "truncated instruction: 12 of 16 bytes");
  at = eu::decode_at(kernel.data(), 8, Generation::kGen9);
  EXPECT_TRUE(std::holds_alternative<eu::DecodedInstruction>(at.result));
  at = eu::decode_at(kernel.data(), 5, Generation::kGen9);
  EXPECT_EQ(std::get<eu::DecodeError>(at.result).reason, "truncated instruction: 5 of 8 bytes");
}

// Every instruction of the corpus assembled with compaction (iga64 -Xautocompact: a stream mixing 8- and 16-byte
// instructions, with branch labels at 8-byte offsets) disassembles to iga64's text.
TEST(EuCompaction, CompactedCorpusMatchesIga) {
  const Tally t = check_corpus("-Xautocompact");
  EXPECT_GE(t.compacted, 45U) << "iga64 compacted the corpus";
}

// Kernels Intel's OpenCL compiler builds for Skylake (tests/eu/kernels_gen9.cl, compiled by ocloc at test time): the
// kernel heaps mix compacted and native instructions, with branch targets after compacted ones.
TEST(EuCompaction, OclocKernelsMatchIga) {
  const fs::path source = fs::path(GPUVP_SOURCE_DIR) / "tests/eu/kernels_gen9.cl";
  Tally t;
  std::size_t kernels = 0;
  for (const eu::DeviceKernel& kernel : eu::parse_device_binary(read_bytes(ocloc_compile(source))).kernels) {
    ++kernels;
    compare_with_iga(kernel.heap, Generation::kGen9, t, kernel.name);
  }
  report(t);
  EXPECT_EQ(kernels, 3U);
  EXPECT_TRUE(t.failures.empty());
  // Every instruction, sends and jmpi included, is decoded and printed as iga64 prints it.
  EXPECT_EQ(t.matched, t.instructions);
  EXPECT_GT(t.matched, 150U);
  EXPECT_GT(t.compacted, 60U) << "IGC compacts";
}

namespace {

// Random compacted words (bit 29 set). Half are fully random; the other half carry an opcode of the generation, so
// that the comparison covers accepted instructions as well as rejected ones.
Bytes random_compacted(std::size_t count, Generation gen, std::uint32_t seed) {
  std::vector<unsigned> opcodes;
  for (unsigned n = 0; n < 128; ++n) {
    if (eu::find_opcode(n, gen) != nullptr) opcodes.push_back(n);
  }
  std::mt19937_64 rng(seed);
  Bytes bytes;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t w = rng() | (1ULL << 29);
    if (i % 2 == 0) w = (w & ~0x7FULL) | opcodes[rng() % opcodes.size()];
    for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<std::uint8_t>(w >> (8 * b)));
  }
  return bytes;
}

Tally compare_random(Generation gen, std::size_t batches, std::size_t words, std::uint32_t seed) {
  Tally total;
  for (std::size_t batch = 0; batch < batches; ++batch) {
    compare_with_iga(random_compacted(words, gen, static_cast<std::uint32_t>(seed + batch)), gen, total);
  }
  report(total);
  EXPECT_EQ(total.instructions, batches * words);
  EXPECT_EQ(total.compacted, batches * words);
  EXPECT_TRUE(total.failures.empty());
  return total;
}

}  // namespace

// 100,000 random compacted Gen9 words in ten files: where iga64 decodes one our text is the same; where it rejects
// one ours is an error.
TEST(EuCompaction, RandomCompactedWordsMatchIgaGen9) {
  const Tally t = compare_random(Generation::kGen9, 10, 10000, 29);
  EXPECT_GT(t.matched, 10000U) << "too few accepted words compared";
  EXPECT_GT(t.both_rejected, 10000U) << "too few rejected words compared";
}

TEST(EuCompaction, RandomCompactedWordsMatchIgaGen8) {
  const Tally t = compare_random(Generation::kGen8, 2, 10000, 829);
  EXPECT_GT(t.matched, 2000U) << "too few accepted words compared";
  EXPECT_GT(t.both_rejected, 2000U) << "too few rejected words compared";
}
