// Runs a platform: what `gpuvp run` and `gpuvp info` do, separated from argument parsing so tests can call it.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace gpuvp::platform {

struct RunOptions {
  std::string config_file;
  std::vector<std::string> overrides;  // "a.b.c=value"
  std::string script;                  // host script file; empty = the embedded demo (unless qtest)
  std::string qtest;                   // "tcp:HOST:PORT" or "unix:PATH"
  std::string stats_file;
  std::string trace_file;
  std::string dump_demo;               // write the demo script for this configuration here instead of running
  bool quiet = false;  // no summary
};

// Exit codes of the gpuvp executable.
constexpr int kExitOk = 0;
constexpr int kExitRunFailed = 1;  // a script check failed or the model reported errors
constexpr int kExitBadInput = 2;   // bad command line, configuration or host file

// Runs one simulation and prints its summary to out. Host-input problems throw std::runtime_error (core::ConfigError
// included) with a one-line message; the caller turns them into exit code 2.
int run_simulation(const RunOptions& options, std::ostream& out);

// Prints the platform (memory map, blocks, registers, interrupts, configuration) as text or JSON.
int print_platform_info(const std::string& config_file, const std::vector<std::string>& overrides, bool json,
                        std::ostream& out);

}  // namespace gpuvp::platform
