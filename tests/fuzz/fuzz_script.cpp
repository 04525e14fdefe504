// libFuzzer harness: the host script protocol (platform/script_interpreter) on the whole platform. The input is a
// script, at most 64 lines; every command runs from the host CPU's thread as `gpuvp run --script` runs it, waits
// clamped to 200 us each (tests/fuzz/fuzz_platform.h). Every line must get its answer and the platform must survive
// whatever the commands make the GPUs do.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_platform.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<std::string> commands;
  for (std::string line; commands.size() < 64 && std::getline(in, line);) {
    // Host files are not the fuzzer's input: `load` reads one, `dump_png` writes one (the command's first word, as the
    // interpreter splits it, so leading blanks do not slip through).
    std::istringstream first(line.substr(0, line.find('#')));
    std::string op;
    first >> op;
    if (op == "load" || op == "dump_png") continue;
    if (line.rfind("memset ", 0) == 0) {
      // Filling DRAM costs host memory by design (up to kMaxMemsetBytes a line): at most 1 MiB here.
      std::istringstream words(line);
      std::string op, address, bytes, value;
      words >> op >> address >> bytes >> value;
      if (std::strtoull(bytes.c_str(), nullptr, 0) > (1u << 20) || bytes.size() > 20) bytes = "0x100000";
      line = op + " " + address + " " + bytes + " " + value;
    }
    commands.push_back(line);
  }
  gpuvp::fuzz::FuzzPlatform::instance().run(commands);
  return 0;
}
