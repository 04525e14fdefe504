// What every gpuvp benchmark program does before running: parse Google Benchmark's flags (remembering whether the
// console format is in use, so summaries can go to stdout) and prepare the SystemC kernel the way the simulator does.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <systemc>

#include <benchmark/benchmark.h>

#include "tlm/core/report.h"
#include "tlm/core/timing.h"

namespace gpuvp::bench {

// Returns false (the caller exits with 2) on an unrecognised argument; console tells whether output is the console
// format (machine-readable formats keep stdout clean).
inline bool start(int& argc, char** argv, bool& console) {
  console = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_format=", 19) == 0 && std::strcmp(argv[i] + 19, "console") != 0) {
      console = false;
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return false;
  core::ensure_picosecond_resolution();
  core::ReportLog::install(true);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  return true;
}

// Prints the number of SystemC warnings and errors the run raised and returns the process exit code (any is a
// failure: a benchmark whose model complained measured something else).
inline int finish(std::FILE* out = stdout) {
  const std::size_t problems = core::ReportLog::count(sc_core::SC_WARNING) + core::ReportLog::count(sc_core::SC_ERROR);
  std::fprintf(out, "SystemC warnings/errors: %zu\n", problems);
  return problems == 0 ? 0 : 1;
}

// The body of every benchmark's main(): no SystemC banner, then the kernel calls sc_main.
inline int run(int argc, char** argv) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}

}  // namespace gpuvp::bench
