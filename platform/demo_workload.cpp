#include "platform/demo_workload.h"

#include <sstream>

#include "tlm/core/report.h"
#include "tlm/vc4/v3d.h"

namespace gpuvp::platform {

namespace {
std::string hex(std::uint64_t v) { return core::format_hex(v); }

// A deterministic pattern so that every read-back has one right answer.
std::uint64_t pattern(std::uint64_t i) { return 0x9E3779B97F4A7C15ULL * (i + 1) ^ (i << 32); }
}  // namespace

std::string demo_script(const PlatformParams& params) {
  std::ostringstream s;
  s << "# gpuvp demo workload\n";
  if (params.vc4.enabled) {
    const std::uint64_t v3d = params.vc4.base;
    s << "# VideoCore IV: identify the V3D block as the vc4 driver's probe does\n"
      << "expectl " << hex(v3d + vc4::kV3dIdent0) << ' ' << hex(vc4::kV3dExpectedIdent0) << '\n'
      << "expectl " << hex(v3d + vc4::kV3dIdent1) << ' ' << hex(vc4::V3d::ident1_for(params.vc4.v3d)) << '\n'
      << "writel " << hex(v3d + vc4::kV3dScratch) << " 0xcafef00d\n"
      << "expectl " << hex(v3d + vc4::kV3dScratch) << " 0xcafef00d\n";
  }
  // A driver clears a buffer, fills it with data and the GPU (later: the host) reads it back. 64 KiB in 64-byte
  // lines exercises the bus and DRAM timing; every line is checked.
  const std::uint64_t buffer = params.dram.base + 0x100000;
  const std::uint64_t size = 0x10000;
  if (params.dram.memory.size >= 0x100000 + size) {
    s << "# DRAM: clear, fill and verify a 64 KiB buffer\n"
      << "memset " << hex(buffer) << ' ' << hex(size) << " 0\n"
      << "expectq " << hex(buffer + size - 8) << " 0\n";
    for (std::uint64_t line = 0; line < size / 64; ++line) {
      s << "writeq " << hex(buffer + line * 64) << ' ' << hex(pattern(line)) << '\n';
    }
    for (std::uint64_t line = 0; line < size / 64; ++line) {
      s << "expectq " << hex(buffer + line * 64) << ' ' << hex(pattern(line)) << '\n';
    }
    s << "clock_step 1000\n";
  }
  return s.str();
}

}  // namespace gpuvp::platform
