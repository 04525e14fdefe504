#include "platform/sweep_command.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "platform/report_command.h"
#include "platform/stop_signal.h"
#include "platform/sweep_results.h"
#include "platform/sweep_runner.h"
#include "platform/sweep_slurm.h"

namespace gpuvp::platform {

namespace {

namespace fs = std::filesystem;

nlohmann::json read_stats(const std::string& dir, const std::string& id) {
  std::ifstream file(fs::path(dir) / "points" / id / "stats.json");
  return file ? nlohmann::json::parse(file, nullptr, false) : nlohmann::json();
}

// The metric names against the statistics of the first point that succeeded (all points have the same statistics
// unless a varied key removes a block).
std::string check_metrics_of_finished(const SweepPlan& plan, const std::string& dir) {
  for (const SweepPoint& p : plan.points) {
    PointResult r;
    if (!read_point_result(dir, p.id, r) || r.outcome != "ok") continue;
    const nlohmann::json stats = read_stats(dir, p.id);
    if (stats.is_object()) return check_metric_names(plan.metrics, stats, p.id);
  }
  return "";
}

SweepRunOptions run_options(const SweepOptions& o) {
  SweepRunOptions run;
  run.gpuvp = o.gpuvp;
  run.dir = o.dir;
  run.jobs = o.jobs;
  run.timeout_s = o.point_timeout_s;
  run.retry_failed = o.retry_failed;
  run.summary = o.summary;
  return run;
}

int merge_and_report(const SweepPlan& plan, const std::string& dir, bool summary, std::ostream& out) {
  const std::string error = check_metrics_of_finished(plan, dir);
  const SweepTally tally = merge_sweep_results(plan, dir);
  if (!error.empty()) throw std::runtime_error(error);
  // The plots and the summary page; the CSV is the result, so a summary that cannot be drawn only warns (and an
  // earlier one, which would show other results, goes).
  bool drawn = false;
  if (summary) {
    std::string why;
    try {
      drawn = write_sweep_summary(dir) == 0;
    } catch (const std::runtime_error& e) {
      why = std::string(": ") + e.what();
    }
    if (!drawn) {
      std::error_code ec;
      fs::remove(fs::path(dir) / "summary.html", ec);
      std::cerr << "gpuvp: warning: the sweep summary was not written" << why << '\n';
    }
  }
  out << "sweep: " << plan.points.size() << " points: " << tally.ok << " ok, " << tally.failed << " failed";
  if (tally.pending) out << ", " << tally.pending << " not run";
  out << "; results: " << (fs::path(dir) / "results.csv").string() << (drawn ? ", summary.html\n" : "\n");
  return tally.failed == 0 && tally.pending == 0 ? 0 : 1;
}

}  // namespace

int run_sweep(const SweepOptions& o, std::ostream& out, std::ostream& err, bool terminal) {
  if (o.list_workloads) {
    for (const SweepWorkloadInfo& w : sweep_workloads()) {
      out << std::left << std::setw(16) << w.name << ' ' << w.description << '\n';
    }
    out << std::setw(16) << "FILE"
        << " a host script (gpuvp run --script FILE)\n";
    return 0;
  }
  if (o.dir.empty()) throw std::runtime_error("no sweep directory: give -o DIR");
  if (o.merge_only) return merge_and_report(read_sweep_plan(o.dir), o.dir, o.summary, out);
  if (!o.run_point.empty()) {
    // The point as it was planned (a later plan in the same directory may have replaced plan.json).
    const SweepPlan point = read_sweep_point(o.dir, o.run_point);
    return run_sweep_point(run_options(o), point, 0, out).outcome == "ok" ? 0 : 1;
  }

  const SweepPlan plan = make_sweep_plan(o.spec);
  write_sweep_plan(plan, o.dir);
  err << "sweep: " << plan.points.size() << " points";
  if (plan.points.size() < plan.space_size) err << " of " << plan.space_size;
  err << ", workload " << plan.workload.name << ", in " << o.dir << '\n';

  if (o.slurm || o.slurm_dry_run) {
    const std::vector<std::size_t> pending = unfinished_points(plan, o.dir, o.retry_failed);
    if (pending.empty()) return merge_and_report(plan, o.dir, o.summary, out);
    SlurmSubmitOptions slurm;
    slurm.submit = !o.slurm_dry_run;
    slurm.wait = o.slurm_wait;
    slurm.sbatch_args = o.slurm_args;
    const int code = submit_slurm_sweep(run_options(o), plan, pending, slurm, err);
    if (slurm.submit && slurm.wait) return merge_and_report(plan, o.dir, o.summary, out) != 0 ? 1 : code;
    return code;
  }

  SweepRunOptions run = run_options(o);
  bool checked = false;
  run.on_result = [&](const PointResult& r, const nlohmann::json& stats) -> std::string {
    if (checked || r.outcome != "ok") return "";
    checked = true;
    return check_metric_names(plan.metrics, stats, r.id);
  };
  install_stop_signals();
  const SweepRunSummary summary =
      run_sweep_points(run, plan, unfinished_points(plan, o.dir, o.retry_failed), err, terminal);
  if (!summary.error.empty()) {
    merge_sweep_results(plan, o.dir);  // what has finished stays, merged
    throw std::runtime_error(summary.error);
  }
  if (summary.run > 0) {
    err << "sweep: ran " << summary.run << " points in " << std::fixed << std::setprecision(2) << summary.wall_s
        << " s (their runs add up to " << summary.sum_run_s << " s; -j " << o.jobs << ")";
    if (summary.skipped) err << ", " << summary.skipped << " finished before";
    err << '\n' << std::defaultfloat;
  }
  const int code = merge_and_report(plan, o.dir, o.summary, out);
  if (summary.interrupted) {
    err << "sweep: stopped; run the same command again to finish the points not run\n";
    return 128 + stop_signal();
  }
  return code;
}

}  // namespace gpuvp::platform
