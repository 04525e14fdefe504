// MI_ATOMIC read-modify-write semantics (Gen8/Gen9). The command streamer decodes the command (see mi_commands.h for
// the DW0 bits and dword layout), fetches the memory value and the operands, calls apply_mi_atomic() and writes
// new_value back; with Return Data Control set it also loads CS_GPR4 with mi_atomic_return_data().
//
// Facts and where they come from (all stored public sources; "genxml" = Mesa src/intel/genxml/gen8.xml and gen9.xml,
// intel/external-mesa and anholt/mesa copies; "MHW" = intel/media-driver media_driver/agnostic/gen{8,9}/hw/
// mhw_mi_hwcmd_g{8,9}_X.h; "NEO" = intel/compute-runtime shared/source/generated/gen9/hw_cmds_generated_gen9.inl):
//
//  * DW0: 31:29 type 0, 28:23 MI opcode 0x2F (47), 22 Memory Type (1 = GGTT), 21 Post-Sync Operation (genxml, NEO;
//    MHW calls it Reserved), 20:19 Data Size (0 DWORD, 1 QWORD, 2 OCTWORD, 3 reserved), 18 Inline Data, 17 CS STALL,
//    16 Return Data Control, 15:8 ATOMIC OPCODE, 7:0 DWord Length (bias 2). [genxml, MHW, NEO]
//  * DW1 bits 31:2 address low, DW2 bits 15:0 address high (48-bit, dword aligned). [genxml 34..79, MHW, NEO]
//  * Inline operands are INTERLEAVED: DW3 Operand1 dword0, DW4 Operand2 dword0, DW5 Operand1 dword1, DW6 Operand2
//    dword1, DW7/8 Op1/Op2 dword2, DW9/10 Op1/Op2 dword3. [genxml bit positions 96..351, MHW, NEO; Mesa blorp
//    blorp_genX_exec.h fills "dwords 3 and 5" for a MOVE8B qword]
//  * DWord Length: 1 without inline data (3 dwords). With inline data the operand dwords are included "based on the
//    Data Size field" (MHW text): i915's gen8 WaRsRestoreWithPerCtxtBb emits MI_ATOMIC(5) for a dword MOVE (length
//    3), Mesa blorp emits 7 dwords for a qword MOVE8B (length 5); NEO always emits 11 dwords
//    (DWORD_LENGTH_INLINE_DATA_1 = 9) for dword and qword. A decoder must take the length from DW0.
//  * Without Inline Data the operands come from the engine's CS_GPRs: Operand1 = [CS_GPR1, CS_GPR0], Operand2 =
//    [CS_GPR3, CS_GPR2] (for dword/qword only GPR0 and GPR2 matter). Return data goes to [CS_GPR5, CS_GPR4]: gen9
//    updates the lower dword of GPR4 for DWORD, GPR4 for QWORD; the gen8 text says GPR4 (whole qword) for DWORD and
//    QWORD. [MHW gen8 and gen9 MI_ATOMIC comment]
//  * ATOMIC OPCODE values: 4B 0x01 AND, 0x02 OR, 0x03 XOR, 0x04 MOVE, 0x05 INC, 0x06 DEC, 0x07 ADD, 0x08 SUB, 0x09
//    RSUB, 0x0A IMAX, 0x0B IMIN, 0x0C UMAX, 0x0D UMIN, 0x0E CMP_WR, 0x0F PREDEC; 8B = 4B | 0x20 (0x21..0x2F); 16B
//    CMP_WR16B = 0x4E. [Mesa genxml-generated enum Atomic_OPCODE MI_ATOMIC_OP_*; NEO gen9 subset: 4B MOVE 0x4, INC 0x5,
//    DEC 0x6, 8B MOVE 0x24, INC 0x25, DEC 0x26, ADD 0x27, CMP_WR 0x2E. The low nibble equals Mesa's dataport BRW_AOP_*
//    numbering, which MHW points to: 'Refer "Atomics" sub-section of "L3 Cache and URB"'.]
//  * Operation semantics (old = memory value before): AND/OR/XOR old op operand1; MOVE operand1; INC old + 1; DEC and
//    PREDEC old - 1; ADD old + operand1; SUB old - operand1; RSUB operand1 - old; IMAX/IMIN signed, UMAX/UMIN
//    unsigned max/min of old and operand1; CMP_WR: old == operand1 ? operand2 : old. All arithmetic wraps at the data
//    size. [Intel C++ Compiler graphics _gfx_atomic_write_i32 table (software.intel.com/en-us/node/522466): ADD, SUB,
//    INC, DEC, MIN/MAX, XCHG = src0, CMPXCHG (src0 == old_dst) ? src1 : old_dst; Mesa brw_fs_nir / vec4_nir pass
//    compare as src0 and the new value as src1 for BRW_AOP_CMPWR; INC/DEC/PREDEC take no operand. RSUB = operand -
//    memory is from the name REVSUB only (no stored source states it).]
//  * Return data: the pre-operation memory value ("data returned from memory", MHW), except PREDEC, whose defining
//    property is returning the decremented value (Mesa lowers GLSL atomicCounterDecrement, which returns the new
//    value, to BRW_AOP_PREDEC and atomicCounterIncrement, which returns the old value, to BRW_AOP_INC). Inferred for
//    MI_ATOMIC, not stated for it by any stored source.
#pragma once

#include <cstdint>
#include <string>

namespace gpuvp::gen {

namespace atomic_op {
constexpr std::uint32_t kAnd = 0x01;
constexpr std::uint32_t kOr = 0x02;
constexpr std::uint32_t kXor = 0x03;
constexpr std::uint32_t kMove = 0x04;
constexpr std::uint32_t kInc = 0x05;
constexpr std::uint32_t kDec = 0x06;
constexpr std::uint32_t kAdd = 0x07;
constexpr std::uint32_t kSub = 0x08;
constexpr std::uint32_t kRsub = 0x09;
constexpr std::uint32_t kImax = 0x0A;
constexpr std::uint32_t kImin = 0x0B;
constexpr std::uint32_t kUmax = 0x0C;
constexpr std::uint32_t kUmin = 0x0D;
constexpr std::uint32_t kCmpWr = 0x0E;
constexpr std::uint32_t kPredec = 0x0F;
constexpr std::uint32_t k8B = 0x20;        // OR into a 4B opcode for its 8B form (0x21..0x2F)
constexpr std::uint32_t kCmpWr16B = 0x4E;  // octword compare-and-write, not modelled
}  // namespace atomic_op

// MI_ATOMIC Data Size (DW0 bits 20:19).
namespace atomic_size {
constexpr std::uint32_t kDword = 0;
constexpr std::uint32_t kQword = 1;
constexpr std::uint32_t kOctword = 2;
}  // namespace atomic_size

struct AtomicResult {
  bool ok;
  std::uint64_t new_value;  // value to write back to memory (dword results are zero-extended)
  std::string error;        // set when !ok; the command streamer reports it as a command error
};

// Applies MI_ATOMIC `opcode` (bits 15:8 of DW0) of data size `size` (0 dword, 1 qword; octword -> error "not
// modelled") to the memory value `old_value`, with operands (from inline data or the GPRs, decided by the caller).
// For a dword, only the low 32 bits of old_value and the operands are used and the result wraps at 32 bits.
// Errors: reserved size 3, an opcode outside 0x01..0x0F / 0x21..0x2F ("unknown MI_ATOMIC opcode 0x..."), and an
// opcode whose width does not match the data size (the PRM text in MHW: "Data size must match with the Atomic
// Opcode").
AtomicResult apply_mi_atomic(std::uint32_t opcode, std::uint32_t size, std::uint64_t old_value, std::uint64_t operand1,
                             std::uint64_t operand2);

// The value Return Data Control loads into CS_GPR4 (see the facts above): old_value, or new_value for PREDEC.
std::uint64_t mi_atomic_return_data(std::uint32_t opcode, std::uint64_t old_value, std::uint64_t new_value);

// Mnemonic of a valid opcode ("ADD", "ADD8B", ...), or an empty string.
std::string mi_atomic_opcode_name(std::uint32_t opcode);

}  // namespace gpuvp::gen
