// Reports people look at: `gpuvp report STATS.json [TRACE.json] -o DIR` and `gpuvp run --report DIR` write a
// self-contained HTML page (platform/report/gpuvp_report.py: matplotlib charts as inline SVG) with the statistics
// and the trace beside it; a sweep's summary page (platform/report/sweep_summary.py) plots each metric against the
// varied keys. The Python generators are embedded in the executable and run with Debian's python3 and
// python3-matplotlib (GPUVP_PYTHON names another interpreter).
#pragma once

#include <string>

namespace gpuvp::platform {

// The generators' Python sources (embedded at build time).
const char* report_generator_source();
const char* sweep_summary_source();

// Writes DIR/index.html from a statistics file and, if not empty, a trace file, and copies both into DIR as
// stats.json and trace.json (unless they are already there). Returns the generator's exit code: 0, or 2 after its
// one-line error on stderr. Throws std::runtime_error when the generator cannot run.
int write_report(const std::string& stats_file, const std::string& trace_file, const std::string& dir);

// Writes DIR/summary.html (a plot of each metric against each varied key, and the table) from DIR/results.csv and
// DIR/plan.json. Returns the generator's exit code; throws std::runtime_error when it cannot run.
int write_sweep_summary(const std::string& dir);

}  // namespace gpuvp::platform
