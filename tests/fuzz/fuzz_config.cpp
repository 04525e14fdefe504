// libFuzzer harness: the configuration loader (YAML files and --set overrides, then the memory map). Bad host input
// must be a std::exception whose message is one line naming the problem (what gpuvp prints after "gpuvp: error: "),
// never a crash or any other exception.
// Input: a YAML file's text; when it starts with '=', each further line is a --set override instead.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "platform/platform_params.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string kPath = "/tmp/gpuvp-fuzz-config-" + std::to_string(::getpid()) + ".yaml";
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> files, overrides;
  if (!text.empty() && text[0] == '=') {
    std::istringstream lines(text.substr(1));
    for (std::string line; std::getline(lines, line);) overrides.push_back(line);
  } else {
    std::ofstream(kPath, std::ios::binary | std::ios::trunc) << text;
    files.push_back(kPath);
  }
  try {
    (void)gpuvp::platform::load_platform_params(files, overrides);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    if (what.empty() || what.find('\n') != std::string::npos || what.size() > 1024) {
      std::fprintf(stderr, "fuzz: the configuration error is not one line: %s\n", what.c_str());
      std::abort();
    }
  }
  return 0;
}
