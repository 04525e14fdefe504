// Prints decoded Gen8/Gen9 EU instructions in the syntax of Intel's IGA (`iga64 -d`), so that traces and error reports
// read like what Intel's compiler dumps. Branch targets print as IGA's labels "L<byte offset>".
#pragma once

#include <cstdint>
#include <string>

#include "tlm/gen/eu/decoder.h"

namespace gpuvp::gen::eu {

struct Disassembly {
  std::string text;   // the instruction, when error is empty
  std::string error;  // a DecodeError's reason, or what this disassembler does not print yet ("unsupported: ...")
  bool unsupported = false;
  bool ok() const { return error.empty(); }
};

// `pc` is the byte offset of the instruction in its kernel (branch labels are relative to it).
Disassembly disassemble(const DecodedInstruction& inst, std::uint32_t pc);
Disassembly disassemble(const std::uint8_t* bytes, Generation gen, std::uint32_t pc);
// A decode's outcome (from decode or decode_at): the instruction's text, or the DecodeError as the error.
Disassembly disassemble(const DecodeResult& result, std::uint32_t pc);

// IGA's text for an immediate of the given type (raw bits as decoded).
std::string format_immediate(std::uint64_t bits, DataType type);

}  // namespace gpuvp::gen::eu
