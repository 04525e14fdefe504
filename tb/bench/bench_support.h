// What every gpuvp benchmark program does before running: parse Google Benchmark's flags (remembering whether the
// console format is in use, so summaries can go to stdout) and prepare the SystemC kernel the way the simulator does.
#pragma once

#include <cstring>

#include <benchmark/benchmark.h>
#include <systemc>

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

}  // namespace gpuvp::bench
