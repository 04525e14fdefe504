// Runs a sweep's points: each point is a `gpuvp run` child process with the point's full configuration, its
// statistics and log in points/ID/, and a result file written when it has finished (ok or not), so that a sweep run
// again skips what is done. The local pool keeps -j children running and shows progress; a Slurm task runs one point.
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/sweep_plan.h"

namespace gpuvp::platform {

struct PointResult {
  std::string id;
  std::string outcome;  // ok | failed | timeout | error (bad input) | crashed
  int exit_code = 0;
  std::string error;  // one line: why the point did not succeed
  double run_s = 0;   // host time of the point's process
  // The plan's metrics as the CSV prints them, taken from the statistics when the point ended (a merge then reads
  // no statistics file unless --metric has changed since).
  std::map<std::string, std::string> metrics;
};

struct SweepRunOptions {
  std::string gpuvp;          // the gpuvp executable each point runs
  std::string dir;            // the sweep directory
  unsigned jobs = 1;          // points run at once
  double timeout_s = 0;       // > 0: a point's host-time limit (its run's --max-wall-time)
  bool retry_failed = false;  // run points again whose result is not ok
  bool summary = true;        // the Slurm merge job draws the summary too
  // Called with each result the pool records; a non-empty answer stops the pool (SweepRunSummary::error): the sweep
  // checks the metrics' names against the first point that succeeds.
  std::function<std::string(const PointResult&, const nlohmann::json& stats)> on_result;
};

// The result a finished point left, if any.
bool read_point_result(const std::string& dir, const std::string& id, PointResult& result);

// Runs one point (whatever it left before) and records its result (what a Slurm task does), with a progress line.
PointResult run_sweep_point(const SweepRunOptions& options, const SweepPlan& plan, std::size_t index,
                            std::ostream& progress);

// The plan's points without a result (with retry_failed, also those whose outcome is not ok).
std::vector<std::size_t> unfinished_points(const SweepPlan& plan, const std::string& dir, bool retry_failed);

struct SweepRunSummary {
  std::size_t run = 0;      // points run now
  std::size_t skipped = 0;  // finished before
  std::size_t failed = 0;   // points (run now or before) whose outcome is not ok
  double wall_s = 0;        // host time of the whole pool
  double sum_run_s = 0;     // host time of the points run now, added up
  bool interrupted = false;
  std::string error;  // on_result's answer that stopped the pool
};

// Runs the plan's points at indices `pending` (each from scratch), -j at a time, printing progress to `progress` (a
// line per point, or one line rewritten in place on a terminal). A point that cannot start is recorded as an error. A
// SIGINT or SIGTERM stops the pool: running points end without a result, so a later sweep runs them again.
SweepRunSummary run_sweep_points(const SweepRunOptions& options, const SweepPlan& plan,
                                 const std::vector<std::size_t>& pending, std::ostream& progress, bool terminal);

// The command line of a point's run (the executable first).
std::vector<std::string> point_command(const SweepRunOptions& options, const SweepPlan& plan, const SweepPoint& point);

}  // namespace gpuvp::platform
