// HostPort: how a host driver model reaches the platform. The same driver code runs live against a simulation
// (BusHostPort: timed accesses from the host initiator, inside a SystemC thread) or is turned into a host script
// (ScriptHostPort: every access becomes a protocol line), so one workload is both a C++ testbench and a script that
// `gpuvp run --script` replays.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tlm/core/bus_initiator.h"
#include "tlm/core/interrupt_line.h"

namespace gpuvp::host {

class HostPort {
 public:
  virtual ~HostPort() = default;
  virtual void write32(std::uint64_t addr, std::uint32_t value) = 0;
  virtual void write64(std::uint64_t addr, std::uint64_t value) = 0;
  virtual void write_block(std::uint64_t addr, const void* data, std::size_t len) = 0;
  // A read whose value the driver needs. A script cannot branch on it: ScriptHostPort emits the read and returns 0.
  virtual std::uint32_t read32(std::uint64_t addr) = 0;
  // Waits until (dword at addr & mask) == value or timeout_ns passes; false on time-out. A script waits the whole
  // budget and then checks, which gives the same answer for a deterministic model.
  virtual bool wait_for32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint64_t timeout_ns) = 0;
  // A check of a result: (dword at addr & mask) must equal value.
  virtual bool expect32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask = ~0u) = 0;
  virtual void comment(const std::string& text) = 0;
};

// Live: accesses go through a BusInitiator; call from a SystemC thread process.
class BusHostPort : public HostPort {
 public:
  explicit BusHostPort(core::BusInitiator& cpu, std::uint64_t poll_interval_ns = 100);
  void write32(std::uint64_t addr, std::uint32_t value) override;
  void write64(std::uint64_t addr, std::uint64_t value) override;
  void write_block(std::uint64_t addr, const void* data, std::size_t len) override;
  std::uint32_t read32(std::uint64_t addr) override;
  bool wait_for32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint64_t timeout_ns) override;
  bool expect32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask = ~0u) override;
  void comment(const std::string&) override {}

  // Failed expectations and bus errors, in order ("expect at 0x...: expected ..., actual ...").
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  void check(tlm::tlm_response_status status, const char* what, std::uint64_t addr);
  core::BusInitiator& cpu_;
  std::uint64_t poll_interval_ns_;
  std::vector<std::string> failures_;
};

// Recording: every access becomes a line of the host script protocol (platform/script_interpreter.h).
class ScriptHostPort : public HostPort {
 public:
  void write32(std::uint64_t addr, std::uint32_t value) override;
  void write64(std::uint64_t addr, std::uint64_t value) override;
  void write_block(std::uint64_t addr, const void* data, std::size_t len) override;
  std::uint32_t read32(std::uint64_t addr) override;
  bool wait_for32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint64_t timeout_ns) override;
  bool expect32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask = ~0u) override;
  void comment(const std::string& text) override;

  std::string script() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

}  // namespace gpuvp::host
