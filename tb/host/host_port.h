// HostPort: how a host driver model reaches the platform. The same driver code runs live against a simulation
// (BusHostPort: timed accesses from the host initiator, inside a SystemC thread) or is turned into a host script
// (ScriptHostPort: every access becomes a protocol line), so one workload is both a C++ testbench and a script that
// `gpuvp run --script` replays.
//
// A recording cannot know what the GPU will have written, so a driver meant to be recorded states what it waits for
// and what it needs to read instead of reading values: wait_for32 (a poll), wait_irq (an interrupt), check32 (a read
// it branches on, stated as the value its normal path needs) and expect32 (a check of a result). read32/read64/
// read_block return values only live; a recording emits the read and returns zeros (ScriptHostPort::unknown_reads
// counts them).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tlm/core/host_poll.h"
#include "tlm/core/initiator.h"
#include "tlm/core/interrupt_line.h"

namespace gpuvp::host {

class HostPort {
 public:
  virtual ~HostPort() = default;
  virtual void write32(std::uint64_t addr, std::uint32_t value) = 0;
  virtual void write64(std::uint64_t addr, std::uint64_t value) = 0;
  virtual void write_block(std::uint64_t addr, const void* data, std::size_t len) = 0;
  // Reads whose value the driver uses (live only, see above).
  virtual std::uint32_t read32(std::uint64_t addr) = 0;
  virtual std::uint64_t read64(std::uint64_t addr) = 0;
  virtual void read_block(std::uint64_t addr, void* data, std::size_t len) = 0;
  // Waits by polling (core::poll: a read every poll interval) until (dword at addr & mask) == value; false when
  // timeout_ns passes first. *last, if given, receives the last value read. A recording emits a `polll` line (the
  // replay ends with ERR if it times out), returns true and knows only the polled bits: *last = value.
  virtual bool wait_for32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint64_t timeout_ns,
                          std::uint32_t* last = nullptr) = 0;
  // A read the driver branches on, stated as the value its normal path needs: true when (dword & mask) == value,
  // *actual the value read; a mismatch is not a failure (the driver handles it). A recording follows the normal
  // path: an `expectl` line (the replay stops there if the model disagrees), true, *actual = value.
  virtual bool check32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask,
                       std::uint32_t* actual = nullptr) = 0;
  // A check of a result: (dword at addr & mask) must equal value.
  virtual bool expect32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask = ~0u) = 0;
  // Waits until host interrupt line `line` (the platform's numbering: 0 gen, 1 vc4) is high or rises; false when
  // timeout_ns passes first. A recording emits an `irq_wait` line (the replay ends with ERR if it times out) and
  // returns true.
  virtual bool wait_irq(unsigned line, std::uint64_t timeout_ns) = 0;
  virtual void comment(const std::string& text) = 0;
};

// Live: accesses go through a Initiator; call from a SystemC thread process. irq_lines are the host interrupt lines
// wait_irq observes, by number (e.g. the platform's host_irqs() in order).
class BusHostPort : public HostPort {
 public:
  explicit BusHostPort(core::Initiator& cpu, std::uint64_t poll_interval_ns = core::kDefaultPollIntervalNs,
                       std::vector<const core::InterruptLine*> irq_lines = {});
  void write32(std::uint64_t addr, std::uint32_t value) override;
  void write64(std::uint64_t addr, std::uint64_t value) override;
  void write_block(std::uint64_t addr, const void* data, std::size_t len) override;
  std::uint32_t read32(std::uint64_t addr) override;
  std::uint64_t read64(std::uint64_t addr) override;
  void read_block(std::uint64_t addr, void* data, std::size_t len) override;
  bool wait_for32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint64_t timeout_ns,
                  std::uint32_t* last = nullptr) override;
  bool check32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint32_t* actual = nullptr) override;
  bool expect32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask = ~0u) override;
  bool wait_irq(unsigned line, std::uint64_t timeout_ns) override;
  void comment(const std::string&) override {}

  // Failed expectations and bus errors, in order ("expect at 0x...: expected ..., actual ...").
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  void check(tlm::tlm_response_status status, const char* what, std::uint64_t addr);
  core::Initiator& cpu_;
  std::uint64_t poll_interval_ns_;
  std::vector<const core::InterruptLine*> irq_lines_;
  std::vector<std::string> failures_;
};

// Recording: every access becomes a line of the host script protocol (platform/script_interpreter.h).
class ScriptHostPort : public HostPort {
 public:
  void write32(std::uint64_t addr, std::uint32_t value) override;
  void write64(std::uint64_t addr, std::uint64_t value) override;
  void write_block(std::uint64_t addr, const void* data, std::size_t len) override;
  std::uint32_t read32(std::uint64_t addr) override;
  std::uint64_t read64(std::uint64_t addr) override;
  void read_block(std::uint64_t addr, void* data, std::size_t len) override;
  bool wait_for32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint64_t timeout_ns,
                  std::uint32_t* last = nullptr) override;
  bool check32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask, std::uint32_t* actual = nullptr) override;
  bool expect32(std::uint64_t addr, std::uint32_t value, std::uint32_t mask = ~0u) override;
  bool wait_irq(unsigned line, std::uint64_t timeout_ns) override;
  void comment(const std::string& text) override;

  std::string script() const { return out_.str(); }
  // Reads recorded whose value the driver used without knowing it (read32/read64/read_block): a recording meant to
  // be replayed should have none.
  std::uint64_t unknown_reads() const { return unknown_reads_; }

 private:
  std::ostringstream out_;
  std::uint64_t unknown_reads_ = 0;
};

}  // namespace gpuvp::host
