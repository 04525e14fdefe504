// Scale-out on Slurm: a sweep's unfinished points become job arrays (`sbatch --array`), each task running one
// point with `gpuvp sweep --run-point ID`, and a merge job that depends on the arrays (afterany) writes
// results.csv and the summary. The scripts are written to DIR/slurm/ either way; --slurm-dry-run stops there. The
// sweep directory and the gpuvp executable must be on storage every node sees.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "platform/sweep_plan.h"
#include "platform/sweep_runner.h"

namespace gpuvp::platform {

struct SlurmSubmitOptions {
  bool submit = true;                    // false: --slurm-dry-run
  bool wait = false;                     // block until the merge job has ended (sbatch --wait)
  std::vector<std::string> sbatch_args;  // --slurm-arg: e.g. --partition=debug, given to both submissions
};

// Points per job array: Slurm's default MaxArraySize (1001) bounds a task's index to 1000.
constexpr std::size_t kSlurmArrayTasks = 1000;

// Writes DIR/slurm/array-N.sh (a job array each, up to kSlurmArrayTasks points, each task running the point whose
// id its script lists at the task's index), merge.sh and submit.sh (the sbatch commands: the arrays, then the merge
// with --dependency=afterany on all of them; --output and --array go on the command line, so no path is parsed as
// a script directive) for the pending points and, unless a dry run, submits them. Prints what it did to out. Returns
// the exit code for gpuvp (0; with wait, the merge's outcome). Throws std::runtime_error with a one-line message naming
// the command when sbatch cannot run or refuses (an unreachable controller included).
int submit_slurm_sweep(const SweepRunOptions& run, const SweepPlan& plan, const std::vector<std::size_t>& pending,
                       const SlurmSubmitOptions& options, std::ostream& out);

}  // namespace gpuvp::platform
