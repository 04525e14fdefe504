// Runs a platform: what `gpuvp run` and `gpuvp info` do, separated from argument parsing so tests can call it.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace gpuvp::platform {

struct PlatformParams;

// Produces the host script of the workload that runs without --script or --qtest, for a platform's configuration.
using WorkloadScript = std::function<std::string(const PlatformParams&)>;

struct RunOptions {
  std::vector<std::string> config_files;  // applied in order
  std::vector<std::string> overrides;     // "a.b.c=value", applied after the files
  std::string script;                     // host script file; empty = default_workload (unless qtest)
  std::string script_base;                // where the script's relative paths resolve; empty = the script's directory
  std::string qtest;                      // "tcp:HOST:PORT" or "unix:PATH"
  std::string tbx;                        // TBX server for NEO: "tcp:HOST:PORT"
  std::string aub;                        // AUB file to replay (NEO's AUB mode output)
  std::vector<std::string> aub_dumps;     // --aub-dump [phys:|ggtt:]ADDRESS:SIZE:FILE, written after an AUB replay
  std::string aub_dump_dir;               // where the AUB's binary dump records write (NEO AUBDumpBufferFormat=BIN)
  std::vector<std::string> exec_command;  // gpuvp exec: PROGRAM ARGS, run against a TBX server on a free port
  std::string stats_file;                 // "-" = stdout (the summary then goes to stderr)
  std::string trace_file;
  std::uint64_t stats_interval_ns = 0;    // > 0: the stats file gets a time series sampled this often
  std::uint64_t max_sim_time_ns = 0;      // --max-sim-time: > 0 ends the run there (as sim.time_limit_ns does)
  double max_wall_time_s = 0;             // --max-wall-time: > 0 ends the run after this much host time
  std::vector<std::string> command_line;  // as typed, recorded in the stats file
  std::string dump_demo;                  // write the demo script for this configuration here instead of running
  std::string dump_fb;                    // after the run: the vc4 tile renderer's last stored frame as a PNG file
  // The embedded demo (run without --script or --qtest, and what --dump-demo writes). The gpuvp executable sets it
  // (platform/demo/); without it such a run is an error.
  WorkloadScript default_workload;
  bool quiet = false;    // no summary
  bool verbose = false;  // report lines name the source file and line
};

// Exit codes of the gpuvp executable.
constexpr int kExitOk = 0;
// A script check failed, the model reported errors, a time limit (simulated or wall) was reached.
constexpr int kExitRunFailed = 1;
constexpr int kExitBadInput = 2;  // bad command line, configuration or host file
// A run stopped by SIGINT or SIGTERM exits 128 + the signal number (130, 143), as a shell reports such a process.
constexpr int kExitSignalBase = 128;

// Runs one simulation and prints its summary to out (to stderr when out carries script answers or the statistics,
// so that stdout holds one kind of output). Host-input problems throw std::runtime_error (core::ConfigError
// included) with a one-line message; the caller turns them into exit code 2.
int run_simulation(const RunOptions& options, std::ostream& out);

// The environment that points NEO at a TBX server on 127.0.0.1:port and describes the platform's GPU to it (product,
// GT configuration, a device memory size that fits the DRAM NEO may use). Throws std::runtime_error when the
// platform cannot host NEO (no Gen GPU, DRAM not at 0 or too small).
std::vector<std::pair<std::string, std::string>> neo_environment(const PlatformParams& params, int port);
// Empty, or a one-line note when the DRAM does not cover the physical addresses NEO's page tables use.
std::string neo_memory_note(const PlatformParams& params);

// Prints the platform (memory map, blocks, registers, interrupts, configuration) as text or JSON.
int print_platform_info(const std::vector<std::string>& config_files, const std::vector<std::string>& overrides,
                        bool json, std::ostream& out);

}  // namespace gpuvp::platform
