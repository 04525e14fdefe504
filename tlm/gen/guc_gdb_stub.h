// GucGdbStub: a GDB remote-serial-protocol server for the GuC's x86 core, so that Debian's gdb can debug the running
// firmware with the symbols of guc.elf: registers, WOPCM memory, software breakpoints and single steps.
//
// It listens on 127.0.0.1:gen.guc.gdb_port. When the boot ROM jumps to the firmware the core stops before its first
// instruction and the stub waits for gdb (the simulation waits with it: the debugger owns time while the core is
// stopped). `continue` runs the core until a breakpoint; `stepi` runs one instruction; `detach` or `kill` lets the
// firmware run on without the debugger. Interrupting a running core from gdb (Ctrl-C) is not supported; memory
// packets reach WOPCM only (the register window and graphics memory have side effects and cost simulated time).
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>

struct uc_struct;

namespace gpuvp::gen {

class GucGdbStub {
 public:
  // What the core should do after the stub hands control back.
  enum class Resume { kContinue, kStep, kDetach };

  // sram/sram_size: the WOPCM the stub reads and writes for gdb's memory packets.
  GucGdbStub(std::uint16_t port, std::uint8_t* sram, std::size_t sram_size);
  ~GucGdbStub();
  GucGdbStub(const GucGdbStub&) = delete;
  GucGdbStub& operator=(const GucGdbStub&) = delete;

  // Binds and listens; returns an error message, or an empty string.
  std::string listen();
  // Waits for gdb (the first time), reports the stop (signal 5, SIGTRAP) and serves packets until gdb resumes.
  Resume stopped(uc_struct* uc);
  bool attached() const { return client_ >= 0; }
  bool has_breakpoint(std::uint32_t address) const { return breakpoints_.count(address) != 0; }
  // How long the stub waits for gdb to connect, and for each packet of a session.
  static constexpr int kAttachTimeoutMs = 60'000;

 private:
  bool send_packet(const std::string& payload);
  bool read_packet(std::string& payload);
  std::string handle(uc_struct* uc, const std::string& packet, Resume& resume, bool& done);
  std::string read_registers(uc_struct* uc);
  std::string write_registers(uc_struct* uc, const std::string& hex);
  std::string read_memory(const std::string& args);
  std::string write_memory(const std::string& args);
  void close_client();

  std::uint16_t port_;
  std::uint8_t* sram_;
  std::size_t sram_size_;
  int listener_ = -1;
  int client_ = -1;
  bool detached_ = false;
  std::set<std::uint32_t> breakpoints_;
};

}  // namespace gpuvp::gen
