#include "tb/host/host_port.h"

#include <cinttypes>
#include <cstdio>

#include "tlm/core/report.h"
#include "tlm/core/write_clock.h"

namespace gpuvp::host {

using core::format_hex;

// ---- BusHostPort ----

BusHostPort::BusHostPort(core::BusInitiator& cpu, std::uint64_t poll_interval_ns)
    : cpu_(cpu), poll_interval_ns_(poll_interval_ns) {}

void BusHostPort::check(tlm::tlm_response_status status, const char* what, std::uint64_t addr) {
  if (status != tlm::TLM_OK_RESPONSE) failures_.push_back(std::string(what) + " at " + format_hex(addr) + " failed");
}

void BusHostPort::write32(std::uint64_t addr, std::uint32_t value) {
  check(cpu_.write_value(addr, value), "write", addr);
}

void BusHostPort::write64(std::uint64_t addr, std::uint64_t value) {
  check(cpu_.write_value(addr, value), "write", addr);
}

void BusHostPort::write_block(std::uint64_t addr, const void* data, std::size_t len) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  // A CPU copies in cache-line sized bursts.
  for (std::size_t done = 0; done < len;) {
    const auto n = static_cast<unsigned>(std::min<std::size_t>(64 - ((addr + done) & 63), len - done));
    check(cpu_.write(addr + done, bytes + done, n), "write", addr + done);
    done += n;
  }
}

std::uint32_t BusHostPort::read32(std::uint64_t addr) {
  tlm::tlm_response_status status;
  const auto v = cpu_.read_value<std::uint32_t>(addr, &status);
  check(status, "read", addr);
  return v;
}

bool BusHostPort::wait_for32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint64_t timeout_ns) {
  cpu_.sync();
  const core::Picoseconds deadline = core::now_ps() + timeout_ns * core::kPsPerNs;
  for (;;) {
    // A value a decoupled writer stored ahead of the kernel is seen at the first poll at or after its write time,
    // as without decoupling (core/write_clock.h).
    if ((read32(addr) & mask) == value && core::write_clock().latest(addr, 4) <= cpu_.local_time().now()) return true;
    cpu_.sync();
    if (core::now_ps() >= deadline) return false;
    sc_core::wait(core::to_sc_time(poll_interval_ns_ * core::kPsPerNs));
  }
}

bool BusHostPort::expect32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask) {
  const std::uint32_t actual = read32(addr);
  if ((actual & mask) == value) return true;
  failures_.push_back("expect at " + format_hex(addr) + ": expected " + format_hex(value) + ", actual " +
                      format_hex(actual) + (mask != ~0u ? " (mask " + format_hex(mask) + ")" : ""));
  return false;
}

// ---- ScriptHostPort ----

void ScriptHostPort::write32(std::uint64_t addr, std::uint32_t value) {
  out_ << "writel " << format_hex(addr) << ' ' << format_hex(value) << '\n';
}

void ScriptHostPort::write64(std::uint64_t addr, std::uint64_t value) {
  out_ << "writeq " << format_hex(addr) << ' ' << format_hex(value) << '\n';
}

void ScriptHostPort::write_block(std::uint64_t addr, const void* data, std::size_t len) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  // One `write` line per 64 bytes keeps lines readable.
  for (std::size_t done = 0; done < len;) {
    const std::size_t n = std::min<std::size_t>(64, len - done);
    out_ << "write " << format_hex(addr + done) << ' ' << n << " 0x";
    char hex[3];
    for (std::size_t i = 0; i < n; ++i) {
      std::snprintf(hex, sizeof hex, "%02x", bytes[done + i]);
      out_ << hex;
    }
    out_ << '\n';
    done += n;
  }
}

std::uint32_t ScriptHostPort::read32(std::uint64_t addr) {
  out_ << "readl " << format_hex(addr) << '\n';
  return 0;
}

bool ScriptHostPort::wait_for32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask,
                                std::uint64_t timeout_ns) {
  out_ << "clock_step " << timeout_ns << '\n';
  return expect32(addr, value, mask);
}

bool ScriptHostPort::expect32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask) {
  out_ << "expectl " << format_hex(addr) << ' ' << format_hex(value);
  if (mask != ~0u) out_ << ' ' << format_hex(mask);
  out_ << '\n';
  return true;
}

void ScriptHostPort::comment(const std::string& text) { out_ << "# " << text << '\n'; }

}  // namespace gpuvp::host
