#include "tb/host/host_port.h"

#include <cinttypes>
#include <cstring>

#include "tlm/core/report.h"

namespace gpuvp::host {

using core::format_hex;

// ---- BusHostPort ----

BusHostPort::BusHostPort(core::Initiator& cpu, std::uint64_t poll_interval_ns,
                         std::vector<const core::InterruptLine*> irq_lines)
    : cpu_(cpu), poll_interval_ns_(poll_interval_ns), irq_lines_(std::move(irq_lines)) {}

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

std::uint64_t BusHostPort::read64(std::uint64_t addr) {
  tlm::tlm_response_status status;
  const auto v = cpu_.read_value<std::uint64_t>(addr, &status);
  check(status, "read", addr);
  return v;
}

void BusHostPort::read_block(std::uint64_t addr, void* data, std::size_t len) {
  auto* bytes = static_cast<unsigned char*>(data);
  // Cache-line sized bursts, as write_block.
  for (std::size_t done = 0; done < len;) {
    const auto n = static_cast<unsigned>(std::min<std::size_t>(64 - ((addr + done) & 63), len - done));
    check(cpu_.read(addr + done, bytes + done, n), "read", addr + done);
    done += n;
  }
}

bool BusHostPort::wait_for32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint64_t timeout_ns,
                             std::uint32_t* last) {
  core::PollRequest request;
  request.addr = addr;
  request.value = value;
  request.mask = mask;
  request.timeout = timeout_ns * core::kPsPerNs;
  request.interval = poll_interval_ns_ * core::kPsPerNs;
  const core::PollResult r = core::poll(cpu_, request);
  check(r.status, "poll", addr);
  if (last) *last = static_cast<std::uint32_t>(r.last);
  return r.matched;
}

bool BusHostPort::check32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint32_t* actual) {
  const std::uint32_t v = read32(addr);
  if (actual) *actual = v;
  return (v & mask) == value;
}

bool BusHostPort::expect32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask) {
  const std::uint32_t actual = read32(addr);
  if ((actual & mask) == value) return true;
  failures_.push_back("expect at " + format_hex(addr) + ": expected " + format_hex(value) + ", actual " +
                      format_hex(actual) + (mask != ~0u ? " (mask " + format_hex(mask) + ")" : ""));
  return false;
}

bool BusHostPort::wait_irq(unsigned line, std::uint64_t timeout_ns) {
  if (line >= irq_lines_.size() || irq_lines_[line] == nullptr) {
    failures_.push_back("irq_wait: no interrupt line " + std::to_string(line));
    return false;
  }
  return core::wait_for_interrupt(cpu_, *irq_lines_[line], timeout_ns * core::kPsPerNs);
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
    // Digits from a table: a firmware upload is thousands of lines, and snprintf per byte dominated recording it.
    static const char* const kDigits = "0123456789abcdef";
    char hex[2 * 64];
    for (std::size_t i = 0; i < n; ++i) {
      hex[2 * i] = kDigits[bytes[done + i] >> 4];
      hex[2 * i + 1] = kDigits[bytes[done + i] & 15];
    }
    out_.write(hex, static_cast<std::streamsize>(2 * n));
    out_ << '\n';
    done += n;
  }
}

std::uint32_t ScriptHostPort::read32(std::uint64_t addr) {
  ++unknown_reads_;
  out_ << "readl " << format_hex(addr) << "  # value unknown to the recording\n";
  return 0;
}

std::uint64_t ScriptHostPort::read64(std::uint64_t addr) {
  ++unknown_reads_;
  out_ << "readq " << format_hex(addr) << "  # value unknown to the recording\n";
  return 0;
}

void ScriptHostPort::read_block(std::uint64_t addr, void* data, std::size_t len) {
  ++unknown_reads_;
  for (std::size_t done = 0; done < len;) {
    const std::size_t n = std::min<std::size_t>(64, len - done);
    out_ << "read " << format_hex(addr + done) << ' ' << n << "  # value unknown to the recording\n";
    done += n;
  }
  std::memset(data, 0, len);
}

bool ScriptHostPort::wait_for32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint64_t timeout_ns,
                                std::uint32_t* last) {
  out_ << "polll " << format_hex(addr) << ' ' << format_hex(value);
  if (mask != ~0u) out_ << ' ' << format_hex(mask);
  out_ << ' ' << timeout_ns << '\n';
  if (last) *last = value;
  return true;
}

bool ScriptHostPort::check32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint32_t* actual) {
  if (actual) *actual = value;
  return expect32(addr, value, mask);
}

bool ScriptHostPort::expect32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask) {
  out_ << "expectl " << format_hex(addr) << ' ' << format_hex(value);
  if (mask != ~0u) out_ << ' ' << format_hex(mask);
  out_ << '\n';
  return true;
}

bool ScriptHostPort::wait_irq(unsigned line, std::uint64_t timeout_ns) {
  out_ << "irq_wait " << line << ' ' << timeout_ns << '\n';
  return true;
}

void ScriptHostPort::comment(const std::string& text) { out_ << "# " << text << '\n'; }

}  // namespace gpuvp::host
