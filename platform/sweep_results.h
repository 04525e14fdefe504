// A sweep's merged results: one CSV row per point of the plan (id, each varied key's value, each metric, the
// outcome and its error), read from the points' result and statistics files. Points not finished have the outcome
// "pending" and empty metrics, so a merge can run at any time (the Slurm merge job runs it after every task).
#pragma once

#include <string>
#include <vector>

#include "platform/sweep_plan.h"

namespace gpuvp::platform {

struct SweepTally {
  std::size_t ok = 0;
  std::size_t failed = 0;  // any outcome other than ok
  std::size_t pending = 0;
};

// Writes DIR/results.csv. Throws std::runtime_error naming the file it cannot write.
SweepTally merge_sweep_results(const SweepPlan& plan, const std::string& dir);

// A metric's value in a point's statistics document: a number of its "stats" tree by dotted path
// (gpuvp.v3d.qpus.busy.utilisation, gpuvp.gen.rcs.submit_to_start_ps.mean), or sim_time_ps / wall_time_s at the top,
// as the CSV prints it; empty when the document has no such number.
std::string metric_text(const nlohmann::json& stats, const std::string& metric);

// The metrics a statistics document offers, for checking --metric names.
std::vector<std::string> metric_names(const nlohmann::json& stats);

// Empty when every --metric names a metric of a point's statistics; else a one-line error naming the first that does
// not, with the nearest known name.
std::string check_metric_names(const std::vector<std::string>& metrics, const nlohmann::json& stats,
                               const std::string& point_id);

// RFC 4180 quoting where a field needs it.
std::string csv_field(const std::string& text);

}  // namespace gpuvp::platform
