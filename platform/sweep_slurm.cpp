#include "platform/sweep_slurm.h"

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include <sys/stat.h>
#include <unistd.h>

#include "platform/child_process.h"

namespace gpuvp::platform {

namespace {

namespace fs = std::filesystem;

// A word for sh: single quotes, with each ' closed, escaped and reopened.
std::string sh_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

void write_script(const fs::path& path, const std::string& text) {
  write_file_atomically(path.string(), text);
  ::chmod(path.c_str(), 0755);
}

// Runs sbatch with its output in a file; returns the job id it prints (--parsable: "ID" or "ID;CLUSTER"). With
// --wait sbatch's exit code is the job's, set in `code`.
std::string sbatch(const std::vector<std::string>& args, const fs::path& output, int& code) {
  std::vector<std::string> argv{"sbatch", "--parsable"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string shown;
  for (const std::string& a : argv) shown += (shown.empty() ? "" : " ") + a;
  try {
    ChildProcess child(argv, {}, output.string());
    while (!child.exited()) ::usleep(10'000);
    code = child.exit_code();
  } catch (const std::runtime_error&) {
    throw std::runtime_error("sweep: cannot run sbatch (is Slurm's client installed and on PATH?): " + shown);
  }
  std::ifstream file(output);
  std::string line, last, id;
  while (std::getline(file, line)) {
    if (line.empty()) continue;
    last = line;
    const std::string head = line.substr(0, line.find(';'));
    if (!head.empty() && head.find_first_not_of("0123456789") == std::string::npos) id = head;
  }
  if (code == 127) throw std::runtime_error("sweep: cannot run sbatch (is Slurm's client installed?): " + shown);
  if (id.empty()) {
    throw std::runtime_error("sweep: `" + shown + "` failed (exit " + std::to_string(code) + ")" +
                             (last.empty() ? "" : ": " + last));
  }
  return id;
}

}  // namespace

std::string slurm_array_ranges(const std::vector<std::size_t>& indices) {
  std::ostringstream out;
  for (std::size_t i = 0; i < indices.size();) {
    std::size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    out << (i ? "," : "") << indices[i];
    if (j > i) out << '-' << indices[j];
    i = j + 1;
  }
  return out.str();
}

int submit_slurm_sweep(const SweepRunOptions& run, const SweepPlan& plan, const std::vector<std::size_t>& pending,
                       const SlurmSubmitOptions& options, std::ostream& out) {
  const fs::path slurm = fs::path(run.dir) / "slurm";
  std::error_code ec;
  fs::create_directories(slurm / "logs", ec);
  if (ec) throw std::runtime_error("sweep: cannot create '" + (slurm / "logs").string() + "': " + ec.message());
  const std::string dir = fs::absolute(run.dir).string();
  const std::string logs = fs::absolute(slurm / "logs").string();
  std::string timeout;
  if (run.timeout_s > 0) timeout = " --point-timeout " + std::to_string(run.timeout_s) + "s";

  std::ostringstream array;
  array << "#!/bin/sh\n"
        << "# gpuvp sweep: one of the " << plan.points.size() << " points of " << dir
        << " per array task (the task id is the point's index in plan.json)\n"
        << "#SBATCH --job-name=gpuvp-sweep\n"
        << "#SBATCH --output=" << logs << "/point-%a.out\n"
        << "#SBATCH --array=" << slurm_array_ranges(pending) << '\n'
        << "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
        << "exec " << sh_quote(run.gpuvp) << " sweep --run-point \"$SLURM_ARRAY_TASK_ID\" -o " << sh_quote(dir)
        << timeout << '\n';
  std::ostringstream merge;
  merge << "#!/bin/sh\n"
        << "# gpuvp sweep: merge the points' results into results.csv and the summary once the array has ended\n"
        << "#SBATCH --job-name=gpuvp-sweep-merge\n"
        << "#SBATCH --output=" << logs << "/merge.out\n"
        << "#SBATCH --ntasks=1\n"
        << "exec " << sh_quote(run.gpuvp) << " sweep --merge -o " << sh_quote(dir) << '\n';
  write_script(slurm / "array.sh", array.str());
  write_script(slurm / "merge.sh", merge.str());
  if (!options.submit) {
    out << "sweep: wrote " << (slurm / "array.sh").string() << " (" << pending.size() << " points) and "
        << (slurm / "merge.sh").string() << "; submit with: sbatch --parsable " << (slurm / "array.sh").string()
        << ", then sbatch --dependency=afterany:JOBID " << (slurm / "merge.sh").string() << '\n';
    return 0;
  }
  std::vector<std::string> array_args = options.sbatch_args;
  array_args.push_back((slurm / "array.sh").string());
  int code = 0;
  const std::string array_id = sbatch(array_args, slurm / "sbatch-array.out", code);
  std::vector<std::string> merge_args = options.sbatch_args;
  merge_args.emplace_back("--dependency=afterany:" + array_id);
  if (options.wait) merge_args.emplace_back("--wait");
  merge_args.push_back((slurm / "merge.sh").string());
  out << "sweep: submitted job array " << array_id << " (" << pending.size() << " points); the merge job "
      << (options.wait ? "runs" : "will run") << " after it" << std::endl;
  const std::string merge_id = sbatch(merge_args, slurm / "sbatch-merge.out", code);
  out << "sweep: merge job " << merge_id << (options.wait ? " has ended" : " submitted")
      << "; results: " << (fs::path(dir) / "results.csv").string() << '\n';
  return options.wait ? code : 0;
}

}  // namespace gpuvp::platform
