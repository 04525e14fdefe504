// Differential testing of the EU decoder/disassembler against Intel's iga64 (issue 17), shared by
// tests/test_eu_disasm.cpp and tests/test_eu_compaction.cpp: kernels are byte streams mixing native (16-byte) and
// compacted (8-byte) instructions, walked as iga64 and the hardware walk them (bit 29 gives the length).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tlm/gen/eu/decoder.h"

namespace gpuvp::test::eu_oracle {

namespace eu = gpuvp::gen::eu;

using Word = std::array<std::uint8_t, 16>;
using Bytes = std::vector<std::uint8_t>;

// The hexadecimal bytes of a line such as "01 00 60 00 ..." (any count).
Bytes bytes_from_hex(const std::string& text);
Word word_from_hex(const std::string& text);  // exactly 16 bytes
Bytes join(const std::vector<Word>& words);
std::string hex_bytes(const std::uint8_t* bytes, std::size_t count);

// Runs a shell command (the oracles are command-line tools) and returns its exit status.
int run(const std::string& command);
std::string collapse_spaces(const std::string& s);
std::string read_file(const std::filesystem::path& path);
// A path in the test's temporary directory, unique to the test and process.
std::filesystem::path temp_path(const std::string& name);
Bytes read_bytes(const std::filesystem::path& path);
// The project's corpus files tests/eu/*<extension> (".asm", ".cl"), sorted.
std::vector<std::filesystem::path> corpus_files(const std::string& extension);
// Compiles an OpenCL source with ocloc for Skylake (Gen9) or Broadwell (Gen8) and returns the device binary's path (a
// compilation failure fails the test).
std::filesystem::path ocloc_compile(const std::filesystem::path& source, eu::Generation gen = eu::Generation::kGen9);

// Byte offsets of the instructions of a kernel (8 bytes when bit 29 is set, else 16; a truncated tail is left out).
std::vector<std::uint32_t> instruction_offsets(const Bytes& kernel);

// What iga64 makes of each instruction of a kernel (in instruction_offsets order): its text (whitespace collapsed, a
// send's comment "// wr:.., rd:..; <function>; <message description>" cut after the function: the description, which
// iga64 also cuts at a column, is not reproduced by the disassembler), or nullopt where it rejects the instruction.
std::vector<std::optional<std::string>> iga_disassemble(const Bytes& kernel, eu::Generation gen);
// `iga64 -a -p=9 OPTIONS source`: the kernel's bytes (an assembly failure fails the test).
Bytes iga_assemble(const std::filesystem::path& source, const std::string& options = "");

struct Tally {
  std::size_t instructions = 0, compacted = 0;
  std::size_t matched = 0, both_rejected = 0, skipped = 0, branches_outside = 0;
  std::map<std::string, std::size_t> skip_reasons;
  std::vector<std::string> failures;
};

// Compares every instruction of one kernel with iga64 and adds the outcome to `t`; failures name `file` when it is
// not empty. A branch whose JIP or UIP is not an instruction of the kernel is counted apart: iga64 rejects the
// kernel's labels, a property of the kernel rather than of the instruction.
void compare_with_iga(const Bytes& kernel, eu::Generation gen, Tally& t, const std::string& file = "");
void report(const Tally& t);
// Every tests/eu/*.asm assembled by iga64 with `options`, compared and reported: every instruction must be decoded by
// both and match (a failure of the test otherwise).
Tally check_corpus(const std::string& options);

}  // namespace gpuvp::test::eu_oracle
