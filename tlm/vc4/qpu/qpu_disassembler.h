// The VideoCore IV QPU disassembler: one 64-bit instruction to one line of text for traces and error reports.
// The syntax is the one Mesa's vc4 disassembler prints (src/gallium/drivers/vc4/vc4_qpu_disasm.c): op names, register
// and special register names, conditions, .sf, pack/unpack suffixes, small immediates, "sig_*" signal prefixes and
// its markers for undefined encodings ("???", "<bad imm N>"). Encodings: hw/vc4/qpu_isa.h and
// ../shared/docs/reference-vc4-qpu.md sections 1.2-1.10.
//
// Mesa's printer has no syntax for a few things the hardware defines; this one extends it (and only there):
//  - mul inputs rotated by r5 (small immediate 48) print "r0+r5", as Mesa prints "r0+3" for a rotation by 3;
//  - write address 47 prints "tlb_alpha_mask" (Mesa's table has no entry and prints "a47?"), and the writes Mesa names
//    the same in both files get their file's name: 37 "r5quad" (A) / "r5rep" (B) (gpu_fft's names), 42 "ms_flags" (A)
//    / "rev_flag" (B) (Mesa's names of the reads);
//  - a load immediate that sets flags prints "load_imm.sf";
//  - per-element loads print "load_imm.per_elem_signed" / "load_imm.per_elem_unsigned" with the raw word and the 16
//    element values, e.g. "load_imm.per_elem_unsigned r0, nop, 0x000000cc [0,0,1,1,0,0,1,1,0,0,0,0,0,0,0,0]";
//  - semaphores print "sacq N" / "srel N" (vc4asm's names), followed by " ; load_imm ..." when the instruction also
//    writes its immediate somewhere or sets flags;
//  - undefined load-immediate modes (2, 5, 6, 7) print "load_imm<bad mode N>" and the 32-bit form's operands;
//  - branches keep Mesa's "branch<cond> <offset>" (a signed byte offset) and add ".rel" before the condition for a
//    relative branch, "ra<n> + " / "ra<n> - " before the offset's magnitude for a register branch and
//    ", link <add dst>, <mul dst>" when a link address is written: "branch.rel.any_zc -360, link ra3, nop",
//    "branch ra3 + 0".
#pragma once

#include <cstdint>
#include <string>

namespace gpuvp::vc4::qpu {

// One 64-bit QPU instruction as one line (no newline). Never throws for any value; never returns an empty string.
std::string disassemble(std::uint64_t instruction);

}  // namespace gpuvp::vc4::qpu
