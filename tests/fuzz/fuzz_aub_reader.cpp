// libFuzzer harness: the AUB reader (platform/aub_reader), which frames and decodes every record of a trace before
// replay touches the platform. A malformed trace must end in AubError (its one-line message names the offset), never
// in a crash, an unbounded allocation or another exception.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "platform/aub_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuvp::platform::aub;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  AubReader reader(in, "fuzz.aub");
  Record record;
  try {
    while (reader.next(record)) {
    }
  } catch (const AubError& e) {
    const std::string what = e.what();
    if (what.empty() || what.find('\n') != std::string::npos || what.size() > 512) {
      std::fprintf(stderr, "fuzz: AubError is not one line: %s\n", what.c_str());
      std::abort();
    }
  }
  return 0;
}
