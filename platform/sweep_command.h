// `gpuvp sweep`: plans a sweep, runs its points in a local process pool or submits them to Slurm, and merges the
// results; also the two halves a Slurm job runs (one point; the merge) and the workload list.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "platform/sweep_plan.h"

namespace gpuvp::platform {

struct SweepOptions {
  SweepSpec spec;
  std::string dir;    // -o
  std::string gpuvp;  // the executable the points run (this one)
  unsigned jobs = 1;  // -j
  double point_timeout_s = 0;
  bool retry_failed = false;
  bool summary = true;  // draw summary.html and the plots after merging (--no-summary: the CSV only)
  bool list_workloads = false;
  bool merge_only = false;  // --merge: merge what DIR holds
  std::string run_point;    // --run-point ID: run one point of DIR's plan (what a Slurm task does)
  bool slurm = false;
  bool slurm_dry_run = false;
  bool slurm_wait = false;
  std::vector<std::string> slurm_args;
};

// Returns gpuvp's exit code: 0 every point ok; 1 a point failed or is unfinished, or the sweep was stopped (130/143
// for a signal); host-input problems throw std::runtime_error with a one-line message (exit code 2).
int run_sweep(const SweepOptions& options, std::ostream& out, std::ostream& err, bool terminal);

}  // namespace gpuvp::platform
