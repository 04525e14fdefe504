// The VideoCore IV QPU assembler (tlm/vc4/qpu/qpu_assembler.h): words expected here are packed bit by bit from the
// field layout (../shared/docs/reference-vc4-qpu.md sections 1.2-1.10; gpu_fft's real words where the reference gives
// them); text the disassembler prints assembles back to a word that prints the same; labels; every error with its
// line; random lines never throw.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/qpu_fields.h"
#include "tlm/vc4/qpu/qpu_assembler.h"
#include "tlm/vc4/qpu/qpu_disassembler.h"

using gpuvp::vc4::qpu::assemble;
using gpuvp::vc4::qpu::AssembledProgram;
using gpuvp::vc4::qpu::disassemble;

namespace {

constexpr std::uint32_t kNever = 0;
constexpr std::uint32_t kAlways = 1;
constexpr std::uint32_t kNop = 39;  // the nop read and write address
constexpr std::uint32_t kMuxA = 6;
constexpr std::uint32_t kMuxB = 7;

using Alu = gpuvp::test::AluFields<39>;
using LoadImm = gpuvp::test::LoadImmFields;
using Branch = gpuvp::test::BranchFields;

// One line to one word; a failure names the line and the assembler's error.
std::uint64_t assemble_line(const std::string& line) {
  AssembledProgram program;
  std::string error;
  EXPECT_TRUE(assemble(line, program, error)) << line << "\n" << error;
  EXPECT_EQ(program.code.size(), 1U) << line;
  return program.code.empty() ? 0 : program.code[0];
}

std::string assemble_error(const std::string& source) {
  AssembledProgram program;
  std::string error;
  EXPECT_FALSE(assemble(source, program, error)) << source;
  EXPECT_TRUE(program.code.empty()) << source;
  return error;
}

bool has_undefined_marker(const std::string& text) {
  return text.find("???") != std::string::npos || text.find("<bad") != std::string::npos;
}

// disassemble(assemble(text)) == text for a line the disassembler printed; returns whether it held.
bool round_trips(std::uint64_t word) {
  const std::string text = disassemble(word);
  AssembledProgram program;
  std::string error;
  if (!assemble(text, program, error)) {
    ADD_FAILURE() << std::hex << "0x" << word << ": " << error;
    return false;
  }
  if (program.code.size() != 1 || disassemble(program.code[0]) != text) {
    ADD_FAILURE() << std::hex << "0x" << word << " prints  " << text << "\n assembled 0x"
                  << (program.code.empty() ? 0 : program.code[0]) << " prints "
                  << (program.code.empty() ? "" : disassemble(program.code[0]));
    return false;
  }
  return true;
}

}  // namespace

TEST(QpuAsm, GpuFftSemaphoreAndPerElementWords) {
  // The reference's gpu_fft words: "sacq 1" = 0xe80009e7 / 0x00000011, "srel 1" = 0xe80009e7 / 0x00000001.
  EXPECT_EQ(assemble_line("sacq 1"), 0xe80009e700000011ULL);
  EXPECT_EQ(assemble_line("srel 1"), 0xe80009e700000001ULL);
  LoadImm semaphore;
  semaphore.mode = 4;
  semaphore.imm = 16 | 15;
  EXPECT_EQ(assemble_line("sacq 15"), semaphore.encode());
  // A semaphore that also loads its immediate.
  semaphore.imm = 0x12;
  semaphore.cond_add = kAlways;
  semaphore.waddr_add = 32;
  EXPECT_EQ(assemble_line("sacq 2 ; load_imm r0, nop, 0x00000012 (0.000000)"), semaphore.encode());

  // gpu_fft shader_trans.hex "mov.setf -, [0,0,1,1,0,0,1,1,0...]" = 0xe20229e7 / 0x000000cc: per-element signed,
  // sf, the add condition always (flags update only where it holds) with both writes to nop.
  LoadImm per_element;
  per_element.mode = 1;
  per_element.sf = 1;
  per_element.cond_add = kAlways;
  per_element.imm = 0xcc;
  ASSERT_EQ(per_element.encode(), 0xe20229e7000000ccULL);
  EXPECT_EQ(assemble_line("load_imm.per_elem_signed.sf nop, nop, 0x000000cc [0,0,1,1,0,0,1,1,0,0,0,0,0,0,0,0]"),
            0xe20229e7000000ccULL);
  EXPECT_EQ(assemble_line("load_imm.per_elem_signed.sf nop, nop, [0,0,1,1,0,0,1,1,0,0,0,0,0,0,0,0]"),
            0xe20229e7000000ccULL);
  EXPECT_EQ(assemble_line("load_imm.per_elem_signed.sf nop, nop, 0xcc"), 0xe20229e7000000ccULL);
  // Element i is {imm[16 + i], imm[i]}: unsigned 3, 1, 2 and 2 in element 15.
  LoadImm unsigned_load;
  unsigned_load.mode = 3;
  unsigned_load.cond_add = kAlways;
  unsigned_load.waddr_add = 32;
  unsigned_load.imm = 0x80050003;
  EXPECT_EQ(assemble_line("load_imm.per_elem_unsigned r0, nop, [3,1,2,0,0,0,0,0,0,0,0,0,0,0,0,2]"),
            unsigned_load.encode());
  unsigned_load.mode = 1;
  EXPECT_EQ(assemble_line("load_imm.per_elem_signed r0, [-1,1,-2,0,0,0,0,0,0,0,0,0,0,0,0,-2]"), unsigned_load.encode());
}

TEST(QpuAsm, NopInstruction) {
  // Both ops nop with condition never, both writes and both reads nop, signal none.
  EXPECT_EQ(Alu{}.encode(), 0x100009e7009e7000ULL);
  EXPECT_EQ(assemble_line("nop"), 0x100009e7009e7000ULL);
  EXPECT_EQ(assemble_line("nop nop, r0, r0 ; nop nop, r0, r0"), 0x100009e7009e7000ULL);
  EXPECT_EQ(assemble_line("nop ; nop"), 0x100009e7009e7000ULL);
  Alu end;
  end.sig = 3;
  EXPECT_EQ(assemble_line("sig_end nop"), end.encode());
  EXPECT_EQ(assemble_line("sig_end nop nop, r0, r0 ; nop nop, r0, r0"), end.encode());
}

TEST(QpuAsm, AluOpsRegisterFilesAndWriteSwap) {
  Alu alu;
  alu.cond_add = kAlways;
  alu.cond_mul = kAlways;
  alu.op_add = 1;  // fadd
  alu.waddr_add = 5;
  alu.raddr_a = 1;
  alu.raddr_b = 2;
  alu.add_a = kMuxA;
  alu.add_b = kMuxB;
  alu.op_mul = 1;  // fmul
  alu.waddr_mul = 33;
  alu.mul_b = 4;
  EXPECT_EQ(assemble_line("fadd ra5, ra1, rb2 ; fmul r1, r0, r4"), alu.encode());
  // The add op writing regfile B and the mul op regfile A is the write swap.
  alu.ws = 1;
  EXPECT_EQ(assemble_line("fadd rb5, ra1, rb2 ; fmul r1, r0, r4"), alu.encode());
  alu.waddr_add = 49;
  alu.waddr_mul = 50;
  EXPECT_EQ(assemble_line("fadd vw_setup, ra1, rb2 ; fmul vr_addr, r0, r4"), alu.encode());

  // Flags and conditions: .sf on the add op, on the mul op when the add op is nop.
  Alu flags;
  flags.sf = 1;
  flags.op_add = 13;  // sub
  flags.cond_add = 2;
  flags.waddr_add = 32;
  flags.add_b = 1;
  flags.op_mul = 1;
  flags.cond_mul = 5;
  flags.waddr_mul = 33;
  flags.mul_b = 2;
  EXPECT_EQ(assemble_line("sub.sf.zs r0, r0, r1 ; fmul.nc r1, r0, r2"), flags.encode());
  flags.op_add = 0;
  flags.cond_add = kNever;
  EXPECT_EQ(assemble_line("nop r0, r0, r1 ; fmul.sf.nc r1, r0, r2"), flags.encode());

  // The mov idioms: add "or x, x", mul "v8min x, x".
  Alu mov;
  mov.cond_add = kAlways;
  mov.op_add = 21;
  mov.waddr_add = 0;
  mov.raddr_a = 32;
  mov.add_a = kMuxA;
  mov.add_b = kMuxA;
  mov.cond_mul = kAlways;
  mov.op_mul = 4;
  mov.waddr_mul = 35;
  mov.mul_a = 1;
  mov.mul_b = 1;
  EXPECT_EQ(assemble_line("mov ra0, uni ; mov r3, r1"), mov.encode());
  // "or x, x" written out reads the two files, so that it prints as written, not as mov.
  Alu uniform_or;
  uniform_or.cond_add = kAlways;
  uniform_or.op_add = 21;
  uniform_or.waddr_add = 32;
  uniform_or.raddr_a = 32;
  uniform_or.raddr_b = 32;
  uniform_or.add_a = kMuxA;
  uniform_or.add_b = kMuxB;
  EXPECT_EQ(assemble_line("or r0, uni, uni"), uniform_or.encode());
  // One op alone: the other is nop.
  Alu mul_only;
  mul_only.cond_mul = kAlways;
  mul_only.op_mul = 2;  // mul24
  mul_only.waddr_mul = 33;
  mul_only.raddr_a = 38;  // elem: regfile A only
  mul_only.mul_a = kMuxA;
  mul_only.mul_b = 3;
  EXPECT_EQ(assemble_line("mul24 r1, elem, r3"), mul_only.encode());
  EXPECT_EQ(assemble_line("nop ; mul24 r1, elem, r3"), mul_only.encode());
  // A unary op with one source reads it on both inputs.
  Alu unary;
  unary.cond_add = kAlways;
  unary.op_add = 7;  // ftoi
  unary.waddr_add = 33;
  unary.add_a = 2;
  unary.add_b = 2;
  EXPECT_EQ(assemble_line("ftoi r1, r2"), unary.encode());
}

TEST(QpuAsm, SmallImmediatesAndRotations) {
  Alu alu;
  alu.sig = 13;
  alu.cond_add = kAlways;
  alu.op_add = 12;  // add
  alu.waddr_add = 32;
  alu.add_a = 1;
  alu.add_b = kMuxB;
  const std::vector<std::pair<std::string, std::uint32_t>> values = {
      {"0", 0},    {"15", 15},    {"-16", 16}, {"-1", 31},       {"1.0", 32},
      {"2.0", 33}, {"128.0", 39}, {"0.5", 47}, {"0.003906", 40}, {"0.250000", 46}};
  for (const auto& [text, code] : values) {
    alu.raddr_b = code;
    EXPECT_EQ(assemble_line("sig_small_imm add r0, r1, " + text + " ; nop nop, r0, r0"), alu.encode()) << text;
    // The signal is implied.
    EXPECT_EQ(assemble_line("add r0, r1, " + text), alu.encode()) << text;
  }
  // gpu_fft "mov r2, r0 << 1" = v8min r0, r0 with small immediate 63 (rotate by 15).
  Alu rotate;
  rotate.sig = 13;
  rotate.cond_mul = kAlways;
  rotate.op_mul = 4;
  rotate.waddr_mul = 34;
  rotate.raddr_b = 63;
  EXPECT_EQ(assemble_line("sig_small_imm nop nop, r0, r0 ; mov r2, r0+15"), rotate.encode());
  rotate.raddr_b = 48;  // by r5
  rotate.op_mul = 1;
  rotate.mul_a = 1;
  rotate.mul_b = 3;
  EXPECT_EQ(assemble_line("nop ; fmul r2, r1+r5, r3+r5"), rotate.encode());
  // An unpacked r4 prints its unpack after the rotation.
  rotate.raddr_b = 51;
  rotate.pm = 1;
  rotate.unpack = 4;
  rotate.mul_a = 4;
  EXPECT_EQ(assemble_line("nop ; fmul r2, r4+3.8a, r3+3"), rotate.encode());
  EXPECT_EQ(assemble_line("nop ; fmul r2, r4.8a+3, r3+3"), rotate.encode());
}

TEST(QpuAsm, PackAndUnpack) {
  // pm = 0: the regfile-A write is packed, regfile-A reads unpacked.
  Alu alu;
  alu.cond_add = kAlways;
  alu.cond_mul = kAlways;
  alu.op_add = 1;
  alu.waddr_add = 3;
  alu.raddr_a = 1;
  alu.raddr_b = 2;
  alu.add_a = kMuxA;
  alu.add_b = kMuxB;
  alu.op_mul = 1;
  alu.waddr_mul = 4;
  alu.mul_a = 4;
  alu.mul_b = kMuxA;
  alu.pack = 9;  // 16a saturated
  alu.unpack = 4;
  EXPECT_EQ(assemble_line("fadd ra3.16a.sat, ra1.8a, rb2 ; fmul rb4, r4, ra1.8a"), alu.encode());
  // pm = 1: the mul output gets the colour pack, r4 reads are unpacked.
  Alu colour;
  colour.pm = 1;
  colour.cond_add = kAlways;
  colour.cond_mul = kAlways;
  colour.op_add = 1;
  colour.waddr_add = 3;
  colour.raddr_a = 1;
  colour.add_a = kMuxA;
  colour.add_b = 4;
  colour.op_mul = 1;
  colour.waddr_mul = 32;
  colour.mul_a = 4;
  colour.mul_b = kMuxA;
  colour.pack = 3;
  colour.unpack = 2;
  EXPECT_EQ(assemble_line("fadd ra3, ra1, r4.16b ; fmul r0.8888, r4.16b, ra1"), colour.encode());
}

TEST(QpuAsm, LoadImmediates) {
  LoadImm load;
  load.cond_add = kAlways;
  load.waddr_add = 1;
  load.imm = 0x3f800000;
  EXPECT_EQ(assemble_line("load_imm ra1, nop, 0x3f800000 (1.000000)"), load.encode());
  EXPECT_EQ(assemble_line("load_imm ra1, nop, 1.0"), load.encode());
  load.imm = 0x3fc00000;  // 1.5
  EXPECT_EQ(assemble_line("load_imm ra1, nop, 1.5"), load.encode());
  load.imm = 0xbe800000;  // -0.25
  EXPECT_EQ(assemble_line("load_imm ra1, -0.25"), load.encode());
  load.imm = 0xffffffff;
  EXPECT_EQ(assemble_line("load_imm ra1, nop, -1"), load.encode());
  load.imm = 1234;
  EXPECT_EQ(assemble_line("load_imm ra1, nop, 1234"), load.encode());
  // Conditions after the destinations; the write swap, pack and flags.
  load.cond_add = kNever;
  load.cond_mul = 2;
  load.waddr_mul = 32;
  load.imm = 0xc0400000;
  EXPECT_EQ(assemble_line("load_imm ra1.never, r0.zs, 0xc0400000 (-3.000000)"), load.encode());
  LoadImm swapped;
  swapped.sf = 1;
  swapped.ws = 1;
  swapped.cond_add = kAlways;
  swapped.waddr_add = 1;
  swapped.pack = 8;
  swapped.imm = 16;
  EXPECT_EQ(assemble_line("load_imm.sf rb1, nop.sat, 0x00000010 (0.000000)"), swapped.encode());
}

TEST(QpuAsm, Branches) {
  Branch branch;
  branch.cond = 0;
  branch.imm = 256;
  EXPECT_EQ(assemble_line("branch.all_zs 256"), branch.encode());
  // gpu_fft "brr ra_link, r:label": relative, the link in the add destination.
  Branch link;
  link.rel = 1;
  link.waddr_add = 3;
  link.imm = 0xfffffe98;  // -360 bytes
  EXPECT_EQ(assemble_line("branch.rel -360, link ra3, nop"), link.encode());
  link.ws = 1;
  link.cond = 3;
  EXPECT_EQ(assemble_line("branch.rel.any_zc -360, link rb3, nop"), link.encode());
  // gpu_fft "bra -, ra_link": to a register.
  Branch to_register;
  to_register.reg = 1;
  to_register.raddr_a = 3;
  EXPECT_EQ(assemble_line("branch ra3 + 0"), to_register.encode());
  EXPECT_EQ(assemble_line("branch ra3"), to_register.encode());
  to_register.rel = 1;
  to_register.raddr_a = 31;
  to_register.imm = 0x80000000;
  EXPECT_EQ(assemble_line("branch.rel ra31 - 2147483648"), to_register.encode());

  // To labels: the offset is from the address after the three delay slots.
  AssembledProgram program;
  std::string error;
  ASSERT_TRUE(
      assemble("top:\n"
               "  branch.rel.always done, link ra3, nop\n"
               "  nop\n"
               "  nop\n"
               "  nop\n"
               "  branch.rel.any_zs top\n"
               "  nop\n"
               "  nop\n"
               "  nop\n"
               "done: sig_end nop\n",
               program, error))
      << error;
  ASSERT_EQ(program.code.size(), 9U);
  EXPECT_EQ(program.labels.at("top"), 0U);
  EXPECT_EQ(program.labels.at("done"), 64U);
  Branch forward;
  forward.rel = 1;
  forward.waddr_add = 3;
  forward.imm = 64 - (0 + 32);
  EXPECT_EQ(program.code[0], forward.encode());
  Branch backward;
  backward.rel = 1;
  backward.cond = 2;
  backward.imm = static_cast<std::uint32_t>(0 - (32 + 32));
  EXPECT_EQ(program.code[4], backward.encode());
  EXPECT_EQ(disassemble(program.code[4]), "branch.rel.any_zs -64");
}

TEST(QpuAsm, ProgramWithLabelsCommentsAndBlankLines) {
  const std::string source =
      "# Doubles the first uniform twice, then ends.\n"
      "start:\n"
      "    mov r0, uni              // the first uniform\n"
      "    load_imm ra1, nop, 2     # the loop count\n"
      "\n"
      "loop:\n"
      "    sub.sf ra1, ra1, 1\n"
      "    fadd r0, r0, r0 ; nop\n"
      "    branch.rel.any_zc loop\n"
      "    nop\n"
      "    nop\n"
      "    nop\n"
      "   \t\n"
      "end:  // program end and its two delay slots\n"
      "    sig_end nop\n"
      "    nop\n"
      "    nop\n";
  AssembledProgram program;
  std::string error;
  ASSERT_TRUE(assemble(source, program, error)) << error;

  Alu mov;
  mov.cond_add = kAlways;
  mov.op_add = 21;
  mov.waddr_add = 32;
  mov.raddr_a = 32;
  mov.add_a = kMuxA;
  mov.add_b = kMuxA;
  LoadImm count;
  count.cond_add = kAlways;
  count.waddr_add = 1;
  count.imm = 2;
  Alu decrement;
  decrement.sig = 13;
  decrement.sf = 1;
  decrement.cond_add = kAlways;
  decrement.op_add = 13;
  decrement.waddr_add = 1;
  decrement.raddr_a = 1;
  decrement.raddr_b = 1;  // the small immediate 1
  decrement.add_a = kMuxA;
  decrement.add_b = kMuxB;
  Alu twice;
  twice.cond_add = kAlways;
  twice.op_add = 1;
  twice.waddr_add = 32;
  Branch loop;
  loop.rel = 1;
  loop.cond = 3;
  loop.imm = static_cast<std::uint32_t>(16 - (32 + 32));
  Alu end;
  end.sig = 3;
  const std::vector<std::uint64_t> expected = {mov.encode(),  count.encode(), decrement.encode(), twice.encode(),
                                               loop.encode(), Alu{}.encode(), Alu{}.encode(),     Alu{}.encode(),
                                               end.encode(),  Alu{}.encode(), Alu{}.encode()};
  EXPECT_EQ(program.code, expected);
  EXPECT_EQ(program.labels.size(), 3U);
  EXPECT_EQ(program.labels.at("start"), 0U);
  EXPECT_EQ(program.labels.at("loop"), 16U);
  EXPECT_EQ(program.labels.at("end"), 64U);
}

TEST(QpuAsm, RandomWordsRoundTripThroughTheDisassembler) {
  std::mt19937_64 random(20240621);
  int checked = 0;
  int failures = 0;
  for (int i = 0; i < 20000 && failures < 20; ++i) {
    const std::uint64_t word = random();
    if (has_undefined_marker(disassemble(word))) continue;
    ++checked;
    if (!round_trips(word)) ++failures;
  }
  // Enough words of every form get through the filter.
  EXPECT_GT(checked, 5000);
}

TEST(QpuAsm, EveryFieldValueRoundTrips) {
  // Each field of each form swept over all its values on a few base words (an ALU word with every mux, a small
  // immediate word, a load immediate, a semaphore, a branch).
  struct FieldRange {
    unsigned lo, width;
  };
  const std::vector<FieldRange> fields = {{60, 4}, {57, 3}, {56, 1}, {52, 4}, {49, 3}, {46, 3}, {45, 1},
                                          {44, 1}, {38, 6}, {32, 6}, {29, 3}, {24, 5}, {18, 6}, {12, 6},
                                          {9, 3},  {6, 3},  {3, 3},  {0, 3},  {0, 32}};
  Alu alu;
  alu.op_add = 21;
  alu.op_mul = 4;
  alu.raddr_a = 32;
  alu.raddr_b = 32;
  alu.add_a = kMuxA;
  alu.add_b = kMuxB;
  alu.mul_a = 4;
  alu.mul_b = 0;
  Alu small = alu;
  small.sig = 13;
  small.raddr_b = 52;
  small.add_b = 0;
  small.mul_b = kMuxA;
  LoadImm load;
  load.waddr_add = 5;
  load.imm = 0x12345678;
  LoadImm semaphore = load;
  semaphore.mode = 4;
  Branch branch;
  branch.reg = 1;
  branch.waddr_mul = 17;
  const std::vector<std::uint64_t> bases = {alu.encode(), small.encode(), load.encode(), semaphore.encode(),
                                            branch.encode()};
  int failures = 0;
  for (const std::uint64_t base : bases) {
    for (const FieldRange& field : fields) {
      const std::uint64_t values = field.width == 32 ? 64 : std::uint64_t{1} << field.width;
      for (std::uint64_t value = 0; value < values && failures < 20; ++value) {
        // The 32-bit field gets a spread of values rather than all of them.
        const std::uint64_t field_value = field.width == 32 ? value * 0x04104105ULL : value;
        const std::uint64_t mask = ((std::uint64_t{1} << field.width) - 1) << field.lo;
        const std::uint64_t word = (base & ~mask) | ((field_value << field.lo) & mask);
        if (has_undefined_marker(disassemble(word))) continue;
        if (!round_trips(word)) ++failures;
      }
    }
  }
}

TEST(QpuAsm, ErrorsNameTheLineAndWhatIsWrong) {
  EXPECT_EQ(assemble_error("nop\nfadd2 r0, r1, r2\n"), "line 2: unknown op 'fadd2': fadd2 r0, r1, r2");
  EXPECT_EQ(assemble_error("  add r0, r1, rq3  # comment"),
            "line 1: unknown register 'rq3': add r0, r1, rq3  # comment");
  EXPECT_EQ(assemble_error("add ra32, r1, r2"), "line 1: unknown register 'ra32': add ra32, r1, r2");
  EXPECT_EQ(assemble_error("fmul r0, r1, r2 ; nop"),
            "line 1: 'fmul' is a mul op: the add op comes first, before ';': fmul r0, r1, r2 ; nop");
  // One regfile-A and one regfile-B read address per instruction.
  EXPECT_EQ(assemble_error("nop\n\nadd r0, ra1, ra2"),
            "line 3: the regfile-A reads need two different addresses (ra1, ra2): an instruction has one raddr_a: "
            "add r0, ra1, ra2");
  EXPECT_EQ(assemble_error("fadd r0, rb1, r2 ; fmul r1, rb2, r3"),
            "line 1: the regfile-B reads need two different addresses (rb1, rb2): an instruction has one raddr_b: "
            "fadd r0, rb1, r2 ; fmul r1, rb2, r3");
  EXPECT_EQ(assemble_error("add r0, uni, vary ; fmul r1, ra3, r0"),
            "line 1: the reads (uni, vary, ra3) need more than the one regfile-A and one regfile-B read address of an "
            "instruction: add r0, uni, vary ; fmul r1, ra3, r0");
  // A small immediate is in the raddr_b field.
  EXPECT_EQ(assemble_error("add r0, rb1, 3"),
            "line 1: the small immediate is in the raddr_b field: it cannot be read together with regfile-B read "
            "'rb1': add r0, rb1, 3");
  EXPECT_EQ(assemble_error("add r0, r1, 3 ; fmul r1, r2, 4"),
            "line 1: two different small immediates (3, 4): an instruction has one: add r0, r1, 3 ; fmul r1, r2, 4");
  // Labels.
  EXPECT_EQ(assemble_error("start:\n  branch.rel nowhere\n  nop"),
            "line 2: undefined label 'nowhere': branch.rel nowhere");
  EXPECT_EQ(assemble_error("a:\nnop\n a: nop"), "line 3: label 'a' is defined twice (first on line 1): a: nop");
  EXPECT_EQ(assemble_error("a:\nbranch a"), "line 2: a branch to a label is relative: write branch.rel: branch a");
  // Immediates out of range.
  EXPECT_EQ(assemble_error("add r0, r1, 16"),
            "line 1: small immediate 16 is out of range (0..15, -16..-1, 1.0, 2.0 .. 128.0, 1/256 .. 1/2): "
            "add r0, r1, 16");
  EXPECT_EQ(assemble_error("add r0, r1, 0.3"),
            "line 1: small immediate 0.3 is out of range (0..15, -16..-1, 1.0, 2.0 .. 128.0, 1/256 .. 1/2): "
            "add r0, r1, 0.3");
  EXPECT_EQ(assemble_error("load_imm r0, nop, 0x100000000"),
            "line 1: immediate 0x100000000 is out of range (-2147483648 .. 0xffffffff): load_imm r0, nop, 0x100000000");
  EXPECT_EQ(assemble_error("load_imm r0, nop, 1e39"),
            "line 1: immediate 1e39 is out of range of a 32-bit float: load_imm r0, nop, 1e39");
  EXPECT_EQ(assemble_error("sacq 16"), "line 1: semaphore 16 is out of range (0..15): sacq 16");
  EXPECT_EQ(assemble_error("nop ; mov r0, r1+16"),
            "line 1: rotation 16 is out of range (1..15 or r5): nop ; mov r0, r1+16");
  EXPECT_EQ(assemble_error("branch 2147483648"),
            "line 1: branch offset 2147483648 is out of range of 32 bits: branch 2147483648");
  EXPECT_EQ(assemble_error("load_imm.per_elem_unsigned r0, nop, [0,1,2,4,0,0,0,0,0,0,0,0,0,0,0,0]"),
            "line 1: element value 4 is out of range (0..3): "
            "load_imm.per_elem_unsigned r0, nop, [0,1,2,4,0,0,0,0,0,0,0,0,0,0,0,0]");
  // Trailing garbage.
  EXPECT_EQ(assemble_error("add r0, r1, r2 ; fmul r0, r1, r2 extra"),
            "line 1: unexpected 'extra' after the instruction: add r0, r1, r2 ; fmul r0, r1, r2 extra");
  EXPECT_EQ(assemble_error("nop nop, r0, r0 ; nop nop, r0, r0 ;"),
            "line 1: unexpected ';' after the instruction: nop nop, r0, r0 ; nop nop, r0, r0 ;");
  EXPECT_EQ(assemble_error("load_imm r0, nop, 1 2"),
            "line 1: unexpected '2' after the instruction: load_imm r0, nop, 1 2");
  EXPECT_EQ(assemble_error("sacq 1 2"), "line 1: unexpected '2' after the instruction: sacq 1 2");
  EXPECT_EQ(assemble_error("load_imm<bad mode 2> r0, nop, 0x40000000 (2.000000)"),
            "line 1: expected a destination, found '<': load_imm<bad mode 2> r0, nop, 0x40000000 (2.000000)");
  // Encodings the fields cannot hold.
  EXPECT_EQ(assemble_error("add ra1, r0, r1 ; fmul ra2, r0, r1"),
            "line 1: both destinations are in regfile A (ra1, ra2): one op writes regfile A and the other regfile B: "
            "add ra1, r0, r1 ; fmul ra2, r0, r1");
  EXPECT_EQ(assemble_error("sig_end add r0, r1, 1"),
            "line 1: a small immediate or rotation needs the signal field (sig_small_imm): it cannot go with sig_end: "
            "sig_end add r0, r1, 1");
  EXPECT_EQ(assemble_error("sig_end load_tmu0 nop"),
            "line 1: two signals (sig_end, load_tmu0): an instruction has one signal field: sig_end load_tmu0 nop");
  EXPECT_EQ(assemble_error("add r0, r1, r2 ; fmul.sf r1, r1, r2"),
            "line 1: the flags come from the add op unless it is nop: write .sf on 'add': "
            "add r0, r1, r2 ; fmul.sf r1, r1, r2");
  EXPECT_EQ(assemble_error("fadd r0, ra1.8a, ra1"),
            "line 1: every regfile-A read of the instruction is unpacked: 'ra1' has no unpack, 'ra1.8a' has: "
            "fadd r0, ra1.8a, ra1");
  EXPECT_EQ(assemble_error("fadd ra0.16a, r4.16a, r1"),
            "line 1: the pack of 'ra0.16a' and the unpack of the reads need different pm values (pm = 0 packs the "
            "regfile-A write and unpacks regfile-A reads, pm = 1 packs the mul output and unpacks r4): "
            "fadd ra0.16a, r4.16a, r1");
  EXPECT_EQ(assemble_error("fadd rb0.16a, r1, r1"),
            "line 1: cannot pack 'rb0.16a': only the regfile-A write or the mul output (.8888, .8a-.8d) is packed: "
            "fadd rb0.16a, r1, r1");
  EXPECT_EQ(assemble_error("sacq 1 ; load_imm r0, nop, 0x10"),
            "line 1: the immediate's low five bits must be the semaphore's (17): sacq 1 ; load_imm r0, nop, 0x10");
  EXPECT_EQ(assemble_error("sig_end"), "line 1: expected an instruction after 'sig_end': sig_end");
  EXPECT_EQ(assemble_error("r0: nop"), "line 1: label 'r0' is a register name: r0: nop");
}

TEST(QpuAsm, RandomLinesNeverThrowAndAssembleToPrintableWords) {
  const std::vector<std::string> pieces = {"nop",
                                           "fadd",
                                           "fadd.sf.zs",
                                           "add",
                                           "or",
                                           "mov",
                                           "not",
                                           "v8min",
                                           "fmul",
                                           "mul24",
                                           "v8adds",
                                           "load_imm",
                                           "load_imm.per_elem_signed",
                                           "sacq",
                                           "srel",
                                           "branch",
                                           "branch.rel.any_zc",
                                           "link",
                                           "sig_small_imm",
                                           "sig_end",
                                           "load_tmu0",
                                           "r0",
                                           "r1",
                                           "r4",
                                           "r4.16a",
                                           "r5",
                                           "ra1",
                                           "ra1.8a",
                                           "rb31",
                                           "uni",
                                           "vary",
                                           "elem",
                                           "qpu",
                                           "r5quad",
                                           "r5rep",
                                           "tmu0_s",
                                           "ra3.16a.sat",
                                           "r0.8888",
                                           "vpm",
                                           "0",
                                           "1",
                                           "-1",
                                           "15",
                                           "-16",
                                           "1.0",
                                           "0.5",
                                           "0.003906",
                                           "0x3f800000",
                                           "-360",
                                           "2147483648",
                                           "1e40",
                                           "-0.25",
                                           ",",
                                           ",",
                                           ",",
                                           ";",
                                           "+",
                                           "-",
                                           "[",
                                           "]",
                                           "(",
                                           ")",
                                           ":",
                                           "<",
                                           "?",
                                           "#",
                                           "loop",
                                           "loop:",
                                           "x:",
                                           ".sf",
                                           "r0+3",
                                           "r1+r5",
                                           "ra3 + 0",
                                           "//"};
  std::mt19937_64 random(7);
  int assembled = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string source;
    const int lines = 1 + static_cast<int>(random() % 3);
    for (int line = 0; line < lines; ++line) {
      const int tokens = static_cast<int>(random() % 12);
      for (int t = 0; t < tokens; ++t) {
        source += pieces[random() % pieces.size()];
        source += random() % 3 == 0 ? "" : " ";
      }
      source += "\n";
    }
    AssembledProgram program;
    std::string error;
    bool ok = false;
    EXPECT_NO_THROW(ok = assemble(source, program, error)) << source;
    if (!ok) {
      EXPECT_EQ(error.rfind("line ", 0), 0U) << source << "\n" << error;
      continue;
    }
    // What assembles prints without undefined-encoding markers, and that text assembles back to the same text.
    for (const std::uint64_t word : program.code) {
      ++assembled;
      EXPECT_FALSE(has_undefined_marker(disassemble(word))) << source;
      round_trips(word);
    }
  }
  EXPECT_GT(assembled, 0);
}
