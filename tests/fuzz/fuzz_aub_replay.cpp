// libFuzzer harness: AUB replay on the platform (platform/aub_replay), what `gpuvp run --aub FILE` does with a trace
// NEO wrote in AUB mode: register writes and ELSP submission, GGTT entries, memory writes through the GGTT and the
// trace's PPGTT, polls that let the model run, compares, binary dumps (counted: the harness gives no directory). The
// input is the trace; it is replayed as it is read (the CLI checks a file whole first, so a malformed record here
// fails the trace where it stands, which must be a one-line AubError too), on the platform kept across inputs.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "platform/aub_replay.h"
#include "tests/fuzz/fuzz_platform.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuvp;
  fuzz::FuzzPlatform& fp = fuzz::FuzzPlatform::instance();
  platform::AubReplay& replay = fp.aub();
  replay.start(std::string(reinterpret_cast<const char*>(data), size), "fuzz.aub");
  // Every poll ends when its condition holds or the GPU is idle, and engine watchdogs (100 us here) stop work that
  // never ends: a trace of a few thousand records stays well within this.
  fuzz::FuzzRunLimits limits;
  limits.commands = 2'000 * core::kPsPerUs + size * 100 * core::kPsPerUs;
  fp.run_until([&] { return !replay.replaying(); }, limits);
  const std::string& failure = replay.failure();
  if (!replay.finished() || failure.find('\n') != std::string::npos || failure.size() > 1024) {
    std::fprintf(stderr, "fuzz_aub_replay: the replay did not finish with a one-line outcome: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
