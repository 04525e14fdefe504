// The VideoCore IV QPU assembler: text to 64-bit instructions, in the syntax tlm/vc4/qpu/qpu_disassembler.h prints
// (Mesa's vc4_qpu_disasm.c syntax and its documented extensions), so that any line the disassembler prints without an
// undefined-encoding marker ("???", "<bad ...>") assembles back to an instruction that prints the same line. Encodings:
// hw/vc4/qpu_isa.h and ../shared/docs/reference-vc4-qpu.md sections 1.2-1.10.
//
// A source has one instruction per line, "label:" definitions (alone or before an instruction), comments from '#' or
// "//" to the end of the line, and blank lines. Beyond the disassembler's syntax it accepts:
//  - branch targets given as a label of the program: "branch.rel.always loop", "branch.rel.any_zc loop, link ra3,
//    nop". The offset is the label's byte offset minus (the branch's byte offset + 32), the address after the three
//    delay slots; a label needs a relative branch (the program's load address is unknown). ".always" may be written;
//    a register target may omit "+ 0" ("branch ra3");
//  - load immediates given as a decimal or hex integer (-2147483648 .. 0xffffffff) or a float literal ("1.5",
//    "-0.25", "1e-3"; its IEEE single bits); the disassembler's " (float)" after the hex word is optional and not
//    compared with the word; a single destination ("load_imm r0, 1.5" writes nop with the mul destination); per-element
//    loads given as the raw word, the 16-element list, or both (then they must agree);
//  - "nop" alone as a whole instruction: both ops nop with condition never, both writes to nop, read addresses nop,
//    signal none (0x100009e7009e7000); after a signal, the same with that signal ("sig_end nop");
//  - one op alone: "add r0, r1, r2" (the mul op is nop) or "fmul r0, r1, r2" (the add op is nop); v8adds, v8subs,
//    mov and nop alone are add ops. "nop" alone in an op's place: "nop ; fmul r0, r1, r2";
//  - the unary add ops (not, clz, ftoi, itof) with one source, read by both inputs;
//  - small immediates as the values printed for them (0..15, -16..-1, 1.0..128.0, 0.003906..0.5, matched to the
//    printed precision) and the mul rotations "r0+3", "r0+r5"; either implies sig_small_imm when no signal is written;
//    a rotated r4's unpack may come before the rotation ("r4.8a+3") as well as after it, as printed ("r4+3.8a");
//  - ".always" as an op's condition and ".sf" after the condition as well as before.
// Choices the text leaves open: a read of a name both register files have (uni, vary, nop, vpm_read, mutex_acq)
// goes to regfile A when free, else B, except that "or x, x" / "v8min x, x" written with two operands get different
// files (the same mux prints "mov"); unused read addresses are nop (39); an op without a condition is always, a nop
// op or a nop load destination never, except where the flags come from (a mul nop after an add nop with .sf, the add
// destination of load_imm.sf: flags update only where the condition holds; gpu_fft's 0xe20229e7000000cc); a
// ".8888" / ".8a"-".8d" pack on the mul destination is the mul colour pack (pm = 1) unless that destination is a
// regfile-A register (ra0-ra31).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpuvp::vc4::qpu {

struct AssembledProgram {
  std::vector<std::uint64_t> code;
  std::map<std::string, std::uint32_t> labels;  // byte offsets from the program's start
};

// Assembles `source`. On error returns false, leaves `program` empty and sets `error` to
// "line N: <what is wrong>: <the line>". Never throws for any input.
bool assemble(const std::string& source, AssembledProgram& program, std::string& error);

}  // namespace gpuvp::vc4::qpu
