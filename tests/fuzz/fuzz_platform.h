// The platform a libFuzzer harness drives. SystemC elaborates once per process, so the platform is built on the first
// input and kept: each input is a list of host script commands (platform/script_interpreter.h) run by the host CPU's
// thread, for at most a bounded simulated time, after which the platform is brought back to power-on as far as the
// hardware allows (GDRST full reset of the Gen GPU and its GuC, CTRSTA of both vc4 control list threads, DRAM cleared)
// and the report log is cleared. State no reset touches carries over to the next input, so a finding is confirmed by
// running its input alone (`fuzz_NAME CRASH-FILE`) before it becomes a regression test.
//
// A crash is what libFuzzer sees as one: a sanitizer report, an uncaught exception (a SystemC error of the model's own
// message type is a bug and throws), a time-out (-timeout) or host memory past -rss_limit_mb.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tlm/core/timing.h"

namespace gpuvp::platform {
class Platform;
class TbxServer;
class AubReplay;
}  // namespace gpuvp::platform

namespace gpuvp::fuzz {

struct FuzzRunLimits {
  // Simulated time the input's commands may take, and time the platform runs on after them (engines finishing).
  core::Picoseconds commands = 200 * core::kPsPerUs;
  core::Picoseconds settle = 50 * core::kPsPerUs;
};

class FuzzPlatform {
 public:
  // The process's platform, built on first use (default configuration, with short hang watchdogs so a hang is seen
  // within one input).
  static FuzzPlatform& instance();

  // Runs `commands` (host script lines) and then `limits.settle` of simulated time; resets the platform afterwards.
  // Waits inside commands (clock_step, poll*, irq_wait) are clamped to limits.commands so every input ends.
  void run(const std::vector<std::string>& commands, const FuzzRunLimits& limits = {});
  // The same with a script's text (one command per line; what tb/host's ScriptHostPort records).
  void run(const std::string& script, const FuzzRunLimits& limits = {});
  // Runs the simulation until `done` holds (a workload the harness started: a TBX session, an AUB trace), then
  // `limits.settle`, then resets the platform. Not done within `limits.commands` of simulated time is a crash (a
  // workload that never ends).
  void run_until(const std::function<bool()>& done, const FuzzRunLimits& limits = {});

  platform::Platform& platform();
  // The in-process TBX server and AUB replay (platform/tbx_server.h, aub_replay.h), idle until given input.
  platform::TbxServer& tbx();
  platform::AubReplay& aub();
  std::uint64_t gen_base() const;
  std::uint64_t v3d_base() const;

 private:
  FuzzPlatform();
  struct Impl;
  Impl* impl_;
};

// Script helpers: a command line writing bytes as `write ADDR SIZE 0xHEX` (at most 1 MiB per line), and a number in
// the protocol's hex form.
std::string write_command(std::uint64_t address, const std::uint8_t* bytes, std::size_t size);
std::string hex(std::uint64_t value);

// Splits fuzzer input into parts: reads fixed-size values and byte runs, giving zeros past the end.
class InputReader {
 public:
  InputReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(byte()) << (8 * i);
    return v;
  }
  // The next `n` bytes, or fewer at the end.
  std::vector<std::uint8_t> bytes(std::size_t n) {
    const std::size_t take = std::min(n, size_ - pos_);
    std::vector<std::uint8_t> out(data_ + pos_, data_ + pos_ + take);
    pos_ += take;
    return out;
  }
  std::vector<std::uint8_t> rest() { return bytes(size_ - pos_); }
  std::size_t remaining() const { return size_ - pos_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace gpuvp::fuzz
