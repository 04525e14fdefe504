// `gpuvp disasm [--gen 9|8] FILE`: prints the EU instructions of raw instruction bytes or of an ocloc device binary
// (one header line per kernel) in IGA syntax, one instruction per line (issue 17).
#pragma once

#include <ostream>
#include <string>

namespace gpuvp::platform {

// Returns the exit code: 0, or throws std::runtime_error with a one-line message for bad input (a missing or
// truncated file, a binary for another generation), which the command line reports with exit code 2. An instruction
// that does not decode prints a line "// 0x<offset>: decode error: <reason>" and the listing goes on.
int run_disasm(const std::string& path, int gen, std::ostream& out);

}  // namespace gpuvp::platform
