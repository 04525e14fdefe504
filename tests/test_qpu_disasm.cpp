// The VideoCore IV QPU disassembler (issue 20): instructions packed here bit by bit from the encoding
// (../shared/docs/reference-vc4-qpu.md sections 1.2-1.10; real gpu_fft words where the reference gives them), checked
// against the text Mesa's vc4_qpu_disasm.c prints for them and against the documented extensions of
// tlm/vc4/qpu/qpu_disassembler.h.
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/qpu_fields.h"
#include "tlm/vc4/qpu/qpu_disassembler.h"

using gpuvp::vc4::qpu::disassemble;

namespace {

using Alu = gpuvp::test::AluFields<0>;
using LoadImm = gpuvp::test::LoadImmFields;
using Branch = gpuvp::test::BranchFields;

// Mux codes: r0-r5 are 0-5.
constexpr std::uint32_t kMuxA = 6;
constexpr std::uint32_t kMuxB = 7;
constexpr std::uint32_t kAlways = 1;
constexpr char kMulNop[] = " ; nop nop, r0, r0";

}  // namespace

TEST(QpuDisasm, NopBothAlus) {
  // The usual nop word: sig 1 (none), both writes to nop (39), cond never.
  EXPECT_EQ(disassemble(0x100009e700000000ULL), "nop nop, r0, r0 ; nop nop, r0, r0");
  EXPECT_EQ(disassemble(Alu{}.encode()), "nop nop, r0, r0 ; nop nop, r0, r0");
}

TEST(QpuDisasm, AddAndMulWithRegisterFilesAndAccumulators) {
  Alu alu;
  alu.cond_add = kAlways;
  alu.cond_mul = kAlways;
  alu.op_add = 1;  // fadd
  alu.waddr_add = 5;
  alu.raddr_a = 1;
  alu.raddr_b = 2;
  alu.add_a = kMuxA;
  alu.add_b = kMuxB;
  alu.op_mul = 1;      // fmul
  alu.waddr_mul = 33;  // r1
  alu.mul_a = 0;
  alu.mul_b = 4;
  EXPECT_EQ(disassemble(alu.encode()), "fadd ra5, ra1, rb2 ; fmul r1, r0, r4");

  alu.op_add = 12;  // add
  alu.op_mul = 2;   // mul24
  alu.add_a = 3;
  alu.add_b = 5;
  alu.mul_a = kMuxB;
  alu.mul_b = kMuxA;
  EXPECT_EQ(disassemble(alu.encode()), "add ra5, r3, r5 ; mul24 r1, rb2, ra1");
}

TEST(QpuDisasm, OpNames) {
  const std::vector<std::pair<std::uint32_t, std::string>> add_ops = {
      {1, "fadd"}, {2, "fsub"}, {3, "fmin"}, {4, "fmax"}, {5, "fminabs"}, {6, "fmaxabs"}, {7, "ftoi"},   {8, "itof"},
      {12, "add"}, {13, "sub"}, {14, "shr"}, {15, "asr"}, {16, "ror"},    {17, "shl"},    {18, "min"},   {19, "max"},
      {20, "and"}, {21, "or"},  {22, "xor"}, {23, "not"}, {24, "clz"},    {30, "v8adds"}, {31, "v8subs"}};
  for (const auto& [code, name] : add_ops) {
    Alu alu;
    alu.cond_add = kAlways;
    alu.op_add = code;
    alu.waddr_add = 32;
    alu.add_b = 1;  // distinct muxes, so "or" is not the mov idiom
    EXPECT_EQ(disassemble(alu.encode()), name + " r0, r0, r1" + kMulNop) << code;
  }
  const std::vector<std::pair<std::uint32_t, std::string>> mul_ops = {
      {1, "fmul"}, {2, "mul24"}, {3, "v8muld"}, {4, "v8min"}, {5, "v8max"}, {6, "v8adds"}, {7, "v8subs"}};
  for (const auto& [code, name] : mul_ops) {
    Alu alu;
    alu.cond_mul = kAlways;
    alu.op_mul = code;
    alu.waddr_mul = 32;
    alu.mul_b = 1;
    EXPECT_EQ(disassemble(alu.encode()), "nop nop, r0, r0 ; " + name + " r0, r0, r1") << code;
  }
}

TEST(QpuDisasm, WriteSwapSwapsTheFilesOfTheDestinations) {
  Alu alu;
  alu.cond_add = kAlways;
  alu.cond_mul = kAlways;
  alu.op_add = 12;
  alu.op_mul = 1;
  alu.waddr_add = 5;
  alu.waddr_mul = 7;
  alu.add_b = 1;
  alu.mul_b = 1;
  EXPECT_EQ(disassemble(alu.encode()), "add ra5, r0, r1 ; fmul rb7, r0, r1");
  alu.ws = 1;
  EXPECT_EQ(disassemble(alu.encode()), "add rb5, r0, r1 ; fmul ra7, r0, r1");
  // Special writes that differ by file follow the swap too.
  alu.waddr_add = 49;
  alu.waddr_mul = 50;
  EXPECT_EQ(disassemble(alu.encode()), "add vw_setup, r0, r1 ; fmul vr_addr, r0, r1");
  alu.ws = 0;
  EXPECT_EQ(disassemble(alu.encode()), "add vr_setup, r0, r1 ; fmul vw_addr, r0, r1");
}

TEST(QpuDisasm, ConditionsAndSetFlags) {
  const std::vector<std::pair<std::uint32_t, std::string>> conds = {{0, ".never"}, {1, ""},    {2, ".zs"}, {3, ".zc"},
                                                                    {4, ".ns"},    {5, ".nc"}, {6, ".cs"}, {7, ".cc"}};
  for (const auto& [code, suffix] : conds) {
    Alu alu;
    alu.op_add = 1;
    alu.cond_add = code;
    alu.op_mul = 1;
    alu.cond_mul = code;
    alu.waddr_add = 32;
    alu.waddr_mul = 33;
    alu.add_b = 1;
    alu.mul_b = 2;
    EXPECT_EQ(disassemble(alu.encode()), "fadd" + suffix + " r0, r0, r1 ; fmul" + suffix + " r1, r0, r2") << code;
  }
  // .sf goes to the add op, before the condition; to the mul op only when the add op is nop.
  Alu alu;
  alu.sf = 1;
  alu.op_add = 13;  // sub
  alu.cond_add = 2;
  alu.waddr_add = 32;
  alu.add_b = 1;
  alu.op_mul = 1;
  alu.cond_mul = 5;
  alu.waddr_mul = 33;
  alu.mul_b = 2;
  EXPECT_EQ(disassemble(alu.encode()), "sub.sf.zs r0, r0, r1 ; fmul.nc r1, r0, r2");
  alu.op_add = 0;
  EXPECT_EQ(disassemble(alu.encode()), "nop r0, r0, r1 ; fmul.sf.nc r1, r0, r2");
}

TEST(QpuDisasm, MovIdioms) {
  // Mesa's mov idioms: add "or" with equal muxes (here A, reading a uniform), mul "v8min" with equal muxes.
  Alu alu;
  alu.cond_add = kAlways;
  alu.op_add = 21;  // or
  alu.waddr_add = 0;
  alu.raddr_a = 32;
  alu.add_a = kMuxA;
  alu.add_b = kMuxA;
  alu.cond_mul = kAlways;
  alu.op_mul = 4;  // v8min
  alu.waddr_mul = 35;
  alu.mul_a = 1;
  alu.mul_b = 1;
  EXPECT_EQ(disassemble(alu.encode()), "mov ra0, uni ; mov r3, r1");
  alu.add_b = kMuxB;
  alu.mul_b = 2;
  EXPECT_EQ(disassemble(alu.encode()), "or ra0, uni, rb0 ; v8min r3, r1, r2");
}

TEST(QpuDisasm, SpecialReadsByFile) {
  const std::vector<std::tuple<std::uint32_t, std::string, std::string>> reads = {{32, "uni", "uni"},
                                                                                  {35, "vary", "vary"},
                                                                                  {38, "elem", "qpu"},
                                                                                  {39, "nop", "nop"},
                                                                                  {41, "x_pix", "y_pix"},
                                                                                  {42, "ms_flags", "rev_flag"},
                                                                                  {48, "vpm_read", "vpm_read"},
                                                                                  {49, "vpm_ld_busy", "vpm_st_busy"},
                                                                                  {50, "vpm_ld_wait", "vpm_st_wait"},
                                                                                  {51, "mutex_acq", "mutex_acq"}};
  for (const auto& [raddr, name_a, name_b] : reads) {
    Alu alu;
    alu.cond_add = kAlways;
    alu.op_add = 12;
    alu.waddr_add = 32;
    alu.raddr_a = raddr;
    alu.raddr_b = raddr;
    alu.add_a = kMuxA;
    alu.add_b = kMuxB;
    EXPECT_EQ(disassemble(alu.encode()), "add r0, " + name_a + ", " + name_b + kMulNop) << raddr;
  }
  Alu alu;
  alu.cond_add = kAlways;
  alu.op_add = 12;
  alu.waddr_add = 32;
  alu.raddr_a = 31;
  alu.raddr_b = 17;
  alu.add_a = kMuxA;
  alu.add_b = kMuxB;
  EXPECT_EQ(disassemble(alu.encode()), std::string("add r0, ra31, rb17") + kMulNop);
}

TEST(QpuDisasm, SpecialWritesByFile) {
  const std::vector<std::tuple<std::uint32_t, std::string, std::string>> writes = {
      {32, "r0", "r0"},
      {35, "r3", "r3"},
      {36, "tmu_noswap", "tmu_noswap"},
      {37, "r5quad", "r5rep"},
      {38, "host_int", "host_int"},
      {39, "nop", "nop"},
      {40, "uniforms_addr", "uniforms_addr"},
      {41, "quad_x", "quad_y"},
      {42, "ms_flags", "rev_flag"},
      {43, "tlb_stencil_setup", "tlb_stencil_setup"},
      {44, "tlb_z", "tlb_z"},
      {45, "tlb_color_ms", "tlb_color_ms"},
      {46, "tlb_color_all", "tlb_color_all"},
      {47, "tlb_alpha_mask", "tlb_alpha_mask"},
      {48, "vpm", "vpm"},
      {49, "vr_setup", "vw_setup"},
      {50, "vr_addr", "vw_addr"},
      {51, "mutex_release", "mutex_release"},
      {52, "sfu_recip", "sfu_recip"},
      {53, "sfu_recipsqrt", "sfu_recipsqrt"},
      {54, "sfu_exp", "sfu_exp"},
      {55, "sfu_log", "sfu_log"},
      {56, "tmu0_s", "tmu0_s"},
      {57, "tmu0_t", "tmu0_t"},
      {58, "tmu0_r", "tmu0_r"},
      {59, "tmu0_b", "tmu0_b"},
      {60, "tmu1_s", "tmu1_s"},
      {61, "tmu1_t", "tmu1_t"},
      {62, "tmu1_r", "tmu1_r"},
      {63, "tmu1_b", "tmu1_b"}};
  for (const auto& [waddr, name_a, name_b] : writes) {
    // ws = 0: the add op writes file A, the mul op file B.
    Alu alu;
    alu.waddr_add = waddr;
    alu.waddr_mul = waddr;
    EXPECT_EQ(disassemble(alu.encode()), "nop " + name_a + ", r0, r0 ; nop " + name_b + ", r0, r0") << waddr;
  }
}

TEST(QpuDisasm, SmallImmediates) {
  const std::vector<std::pair<std::uint32_t, std::string>> values = {
      {0, "0"},    {1, "1"},    {15, "15"},    {16, "-16"},      {17, "-15"},      {31, "-1"},
      {32, "1.0"}, {33, "2.0"}, {39, "128.0"}, {40, "0.003906"}, {46, "0.250000"}, {47, "0.500000"}};
  for (const auto& [code, text] : values) {
    Alu alu;
    alu.sig = 13;
    alu.cond_add = kAlways;
    alu.op_add = 12;
    alu.waddr_add = 32;
    alu.raddr_b = code;
    alu.add_a = 1;
    alu.add_b = kMuxB;
    EXPECT_EQ(disassemble(alu.encode()), "sig_small_imm add r0, r1, " + text + kMulNop) << code;
  }
}

TEST(QpuDisasm, SmallImmediateRotations) {
  // gpu_fft "mov r2, r0 << 1" = mul v8min r0, r0 with small immediate 63 (rotate by 15).
  Alu alu;
  alu.sig = 13;
  alu.cond_mul = kAlways;
  alu.op_mul = 4;
  alu.waddr_mul = 34;
  alu.raddr_b = 63;
  EXPECT_EQ(disassemble(alu.encode()), "sig_small_imm nop nop, r0, r0 ; mov r2, r0+15");
  alu.raddr_b = 49;
  EXPECT_EQ(disassemble(alu.encode()), "sig_small_imm nop nop, r0, r0 ; mov r2, r0+1");
  alu.raddr_b = 48;  // rotate by r5
  EXPECT_EQ(disassemble(alu.encode()), "sig_small_imm nop nop, r0, r0 ; mov r2, r0+r5");
  // Both mul inputs are rotated; the add ALU's are not.
  alu.cond_add = kAlways;
  alu.op_add = 12;
  alu.waddr_add = 33;
  alu.add_a = 1;
  alu.add_b = 3;
  alu.op_mul = 1;
  alu.mul_a = 1;
  alu.mul_b = 3;
  alu.raddr_b = 52;
  EXPECT_EQ(disassemble(alu.encode()), "sig_small_imm add r1, r1, r3 ; fmul r2, r1+4, r3+4");
  // A rotation code read as a value is not one of the defined immediates.
  alu.mul_b = kMuxB;
  EXPECT_EQ(disassemble(alu.encode()), "sig_small_imm add r1, r1, r3 ; fmul r2, r1+4, <bad imm 52>");
  // Without sig 13 the field is raddr_b.
  alu.sig = 1;
  EXPECT_EQ(disassemble(alu.encode()), "add r1, r1, r3 ; fmul r2, r1, ???");
}

TEST(QpuDisasm, PackAndUnpackWithPm0) {
  // pm = 0: pack applies to the regfile-A write, unpack to regfile-A reads.
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
  alu.pack = 1;
  alu.unpack = 4;
  EXPECT_EQ(disassemble(alu.encode()), "fadd ra3.16a, ra1.8a, rb2 ; fmul rb4, r4, ra1.8a");
  const std::vector<std::pair<std::uint32_t, std::string>> packs = {
      {0, ""},         {1, ".16a"},     {2, ".16b"},     {3, ".8888"},    {4, ".8a"},       {5, ".8b"},
      {6, ".8c"},      {7, ".8d"},      {8, ".sat"},     {9, ".16a.sat"}, {10, ".16b.sat"}, {11, ".8888.sat"},
      {12, ".8a.sat"}, {13, ".8b.sat"}, {14, ".8c.sat"}, {15, ".8d.sat"}};
  alu.unpack = 0;
  for (const auto& [code, suffix] : packs) {
    alu.pack = code;
    EXPECT_EQ(disassemble(alu.encode()), "fadd ra3" + suffix + ", ra1, rb2 ; fmul rb4, r4, ra1") << code;
  }
  const std::vector<std::pair<std::uint32_t, std::string>> unpacks = {
      {0, ""}, {1, ".16a"}, {2, ".16b"}, {3, ".8d_rep"}, {4, ".8a"}, {5, ".8b"}, {6, ".8c"}, {7, ".8d"}};
  alu.pack = 0;
  for (const auto& [code, suffix] : unpacks) {
    alu.unpack = code;
    EXPECT_EQ(disassemble(alu.encode()), "fadd ra3, ra1" + suffix + ", rb2 ; fmul rb4, r4, ra1" + suffix) << code;
  }
  // With ws the mul op writes file A and takes the pack.
  alu.unpack = 0;
  alu.pack = 8;
  alu.ws = 1;
  EXPECT_EQ(disassemble(alu.encode()), "fadd rb3, ra1, rb2 ; fmul ra4.sat, r4, ra1");
}

TEST(QpuDisasm, PackAndUnpackWithPm1) {
  // pm = 1: pack applies to the mul output (colour pack), unpack to r4 reads.
  Alu alu;
  alu.pm = 1;
  alu.cond_add = kAlways;
  alu.cond_mul = kAlways;
  alu.op_add = 1;
  alu.waddr_add = 3;
  alu.raddr_a = 1;
  alu.add_a = kMuxA;
  alu.add_b = 4;
  alu.op_mul = 1;
  alu.waddr_mul = 32;
  alu.mul_a = 4;
  alu.mul_b = kMuxA;
  alu.pack = 3;
  alu.unpack = 2;
  EXPECT_EQ(disassemble(alu.encode()), "fadd ra3, ra1, r4.16b ; fmul r0.8888, r4.16b, ra1");
  const std::vector<std::pair<std::uint32_t, std::string>> packs = {{0, ""},    {3, ".8888"}, {4, ".8a"},
                                                                    {5, ".8b"}, {6, ".8c"},   {7, ".8d"}};
  alu.unpack = 0;
  for (const auto& [code, suffix] : packs) {
    alu.pack = code;
    EXPECT_EQ(disassemble(alu.encode()), "fadd ra3, ra1, r4 ; fmul r0" + suffix + ", r4, ra1") << code;
  }
}

TEST(QpuDisasm, LoadImmediate32) {
  LoadImm ldi;
  ldi.cond_add = kAlways;
  ldi.waddr_add = 1;
  ldi.imm = 0x3f800000;
  EXPECT_EQ(disassemble(ldi.encode()), "load_imm ra1, nop, 0x3f800000 (1.000000)");
  ldi.cond_mul = 2;
  ldi.waddr_mul = 32;
  ldi.imm = 0xc0400000;
  EXPECT_EQ(disassemble(ldi.encode()), "load_imm ra1, r0.zs, 0xc0400000 (-3.000000)");
  // The condition prints after the destination even when it is never; nop destinations print none.
  ldi.cond_add = 0;
  ldi.cond_mul = 7;
  ldi.waddr_mul = 39;
  EXPECT_EQ(disassemble(ldi.encode()), "load_imm ra1.never, nop, 0xc0400000 (-3.000000)");
  ldi.sf = 1;
  ldi.ws = 1;
  ldi.cond_add = kAlways;
  ldi.pack = 8;
  ldi.imm = 16;
  EXPECT_EQ(disassemble(ldi.encode()), "load_imm.sf rb1, nop.sat, 0x00000010 (0.000000)");
}

TEST(QpuDisasm, LoadImmediatePerElement) {
  // gpu_fft shader_trans.hex: "mov.setf -, [0,0,1,1,0,0,1,1,0...]" = hi 0xe20229e7, lo 0x000000cc (signed mode).
  EXPECT_EQ(disassemble(0xe20229e7000000ccULL),
            "load_imm.per_elem_signed.sf nop, nop, 0x000000cc [0,0,1,1,0,0,1,1,0,0,0,0,0,0,0,0]");
  // Element i is {imm[16 + i], imm[i]}: 0 -> 3, 1 -> 1, 2 -> 2, 15 -> 2.
  LoadImm ldi;
  ldi.mode = 3;
  ldi.cond_add = kAlways;
  ldi.waddr_add = 32;
  ldi.imm = 0x80050003;
  EXPECT_EQ(disassemble(ldi.encode()),
            "load_imm.per_elem_unsigned r0, nop, 0x80050003 [3,1,2,0,0,0,0,0,0,0,0,0,0,0,0,2]");
  ldi.mode = 1;
  EXPECT_EQ(disassemble(ldi.encode()),
            "load_imm.per_elem_signed r0, nop, 0x80050003 [-1,1,-2,0,0,0,0,0,0,0,0,0,0,0,0,-2]");
}

TEST(QpuDisasm, Semaphores) {
  // gpu_fft: "sacq 1" = hi 0xe80009e7, lo 0x00000011; "srel 1" = hi 0xe80009e7, lo 0x00000001.
  EXPECT_EQ(disassemble(0xe80009e700000011ULL), "sacq 1");
  EXPECT_EQ(disassemble(0xe80009e700000001ULL), "srel 1");
  LoadImm sem;
  sem.mode = 4;
  sem.imm = 0x1f;
  EXPECT_EQ(disassemble(sem.encode()), "sacq 15");
  sem.imm = 0xffffffe0;  // bits 31:5 are not part of the semaphore
  EXPECT_EQ(disassemble(sem.encode()), "srel 0");
  // It also loads its immediate like a 32-bit load immediate.
  sem.imm = 0x12;
  sem.cond_add = kAlways;
  sem.waddr_add = 32;
  EXPECT_EQ(disassemble(sem.encode()), "sacq 2 ; load_imm r0, nop, 0x00000012 (0.000000)");
}

TEST(QpuDisasm, Branches) {
  // Mesa's form: the condition and the signed offset.
  Branch br;
  br.cond = 0;
  br.imm = 256;
  EXPECT_EQ(disassemble(br.encode()), "branch.all_zs 256");
  const std::vector<std::pair<std::uint32_t, std::string>> conds = {
      {0, ".all_zs"}, {1, ".all_zc"}, {2, ".any_zs"}, {3, ".any_zc"},  {4, ".all_ns"},  {5, ".all_nc"}, {6, ".any_ns"},
      {7, ".any_nc"}, {8, ".all_cs"}, {9, ".all_cc"}, {10, ".any_cs"}, {11, ".any_cc"}, {15, ""}};
  for (const auto& [code, suffix] : conds) {
    br.cond = code;
    EXPECT_EQ(disassemble(br.encode()), "branch" + suffix + " 256") << code;
  }
  // gpu_fft "brr ra_link, r:label": relative, link written to the add destination.
  br.cond = 15;
  br.rel = 1;
  br.waddr_add = 3;
  br.imm = 0xfffffe98;  // -360 bytes
  EXPECT_EQ(disassemble(br.encode()), "branch.rel -360, link ra3, nop");
  br.ws = 1;
  br.cond = 3;
  EXPECT_EQ(disassemble(br.encode()), "branch.rel.any_zc -360, link rb3, nop");
  // gpu_fft "bra -, ra_link": to a register (regfile A address in bits 49:45).
  Branch reg;
  reg.reg = 1;
  reg.raddr_a = 3;
  EXPECT_EQ(disassemble(reg.encode()), "branch ra3 + 0");
  reg.raddr_a = 31;
  reg.imm = 0xfffffff8;
  reg.rel = 1;
  EXPECT_EQ(disassemble(reg.encode()), "branch.rel ra31 - 8");
  reg.imm = 0x80000000;
  EXPECT_EQ(disassemble(reg.encode()), "branch.rel ra31 - 2147483648");
}

TEST(QpuDisasm, Signals) {
  const std::vector<std::pair<std::uint32_t, std::string>> signals = {{0, "sig_brk "},
                                                                      {1, ""},
                                                                      {2, "sig_switch "},
                                                                      {3, "sig_end "},
                                                                      {4, "sig_wait_score "},
                                                                      {5, "sig_unlock_score "},
                                                                      {6, "sig_thread_switch "},
                                                                      {7, "sig_coverage_load "},
                                                                      {8, "sig_color_load "},
                                                                      {9, "sig_color_load_end "},
                                                                      {10, "load_tmu0 "},
                                                                      {11, "load_tmu1 "},
                                                                      {12, "sig_alpha_mask_load "},
                                                                      {13, "sig_small_imm "}};
  for (const auto& [code, prefix] : signals) {
    Alu alu;
    alu.sig = code;
    EXPECT_EQ(disassemble(alu.encode()), prefix + "nop nop, r0, r0 ; nop nop, r0, r0") << code;
  }
  // A program end on a nop.
  EXPECT_EQ(disassemble(0x300009e700000000ULL), "sig_end nop nop, r0, r0 ; nop nop, r0, r0");
}

TEST(QpuDisasm, UndefinedEncodingsAreMarked) {
  for (std::uint32_t op : {9U, 10U, 11U, 25U, 26U, 27U, 28U, 29U}) {
    Alu alu;
    alu.cond_add = kAlways;
    alu.op_add = op;
    alu.waddr_add = 32;
    alu.add_b = 1;
    EXPECT_EQ(disassemble(alu.encode()), std::string("??? r0, r0, r1") + kMulNop) << op;
  }
  for (std::uint32_t raddr : {33U, 34U, 36U, 37U, 40U, 43U, 47U, 52U, 63U}) {
    Alu alu;
    alu.raddr_a = raddr;
    alu.raddr_b = raddr;
    alu.add_a = kMuxA;
    alu.add_b = kMuxB;
    EXPECT_EQ(disassemble(alu.encode()), std::string("nop nop, ???, ???") + kMulNop) << raddr;
  }
  for (std::uint32_t cond : {12U, 13U, 14U}) {
    Branch br;
    br.cond = cond;
    br.imm = 16;
    EXPECT_EQ(disassemble(br.encode()), "branch??? 16") << cond;
  }
  for (std::uint32_t mode : {2U, 5U, 6U, 7U}) {
    LoadImm ldi;
    ldi.mode = mode;
    ldi.cond_add = kAlways;
    ldi.waddr_add = 32;
    ldi.imm = 0x40000000;
    EXPECT_EQ(disassemble(ldi.encode()),
              "load_imm<bad mode " + std::to_string(mode) + "> r0, nop, 0x40000000 (2.000000)")
        << mode;
  }
  // The mul colour pack (pm = 1) defines only 0 and 3-7.
  for (std::uint32_t pack : {1U, 2U, 8U, 15U}) {
    Alu alu;
    alu.pm = 1;
    alu.pack = pack;
    alu.waddr_mul = 32;
    EXPECT_EQ(disassemble(alu.encode()), "nop nop, r0, r0 ; nop r0???, r0, r0") << pack;
  }
}

TEST(QpuDisasm, RandomWordsNeverThrowAndNeverPrintNothing) {
  std::mt19937_64 random(20240620);
  for (int i = 0; i < 5000; ++i) {
    const std::uint64_t word = random();
    std::string text;
    EXPECT_NO_THROW(text = disassemble(word)) << std::hex << word;
    EXPECT_FALSE(text.empty()) << std::hex << word;
    EXPECT_EQ(text.find('\n'), std::string::npos) << std::hex << word;
  }
  // Every signal and load mode with all other bits set.
  for (std::uint64_t top = 0; top < 128; ++top) {
    const std::uint64_t word = (top << 57) | ((std::uint64_t{1} << 57) - 1);
    EXPECT_FALSE(disassemble(word).empty()) << std::hex << word;
  }
}
