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
std::string sbatch(const std::vector<std::string>& argv, const fs::path& output, int& code) {
  std::string shown;
  for (const std::string& a : argv) shown += (shown.empty() ? "" : " ") + a;
  try {
    ChildProcess child(argv, {}, output.string());
    code = child.wait_for_exit();
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

int submit_slurm_sweep(const SweepRunOptions& run, const SweepPlan& plan, const std::vector<std::size_t>& pending,
                       const SlurmSubmitOptions& options, std::ostream& out) {
  const fs::path slurm = fs::absolute(run.dir) / "slurm";
  std::error_code ec;
  fs::create_directories(slurm / "logs", ec);
  if (ec) throw std::runtime_error("sweep: cannot create '" + (slurm / "logs").string() + "': " + ec.message());
  const std::string dir = fs::absolute(run.dir).string();
  // sbatch reads % in --output as a pattern (%a: the array index): a literal one is %%.
  const auto pattern_safe = [](const std::string& path) {
    std::string out;
    for (char c : path) out += c == '%' ? std::string("%%") : std::string(1, c);
    return out;
  };
  std::string timeout;
  if (run.timeout_s > 0) timeout = " --point-timeout " + std::to_string(run.timeout_s) + "s";

  // One array per kSlurmArrayTasks points (Slurm's default MaxArraySize, 1001, bounds the task index): each task
  // finds its point's id in its own script, so a later plan in the same directory cannot change what it runs.
  std::vector<std::vector<std::string>> commands;
  std::string dependency = "afterany";
  for (std::size_t first = 0, chunk = 0; first < pending.size(); first += kSlurmArrayTasks, ++chunk) {
    const std::size_t n = std::min(kSlurmArrayTasks, pending.size() - first);
    std::ostringstream script;
    script << "#!/bin/sh\n"
           << "# gpuvp sweep: " << n << " of the " << plan.points.size() << " points of " << dir
           << ", one per array task (task N runs the N-th id below)\n"
           << "set --";
    for (std::size_t k = 0; k < n; ++k) script << ' ' << plan.points[pending[first + k]].id;
    script << "\nshift \"$SLURM_ARRAY_TASK_ID\"\n"
           << "exec " << sh_quote(run.gpuvp) << " sweep --run-point \"$1\" -o " << sh_quote(dir) << timeout << '\n';
    const fs::path path = slurm / ("array-" + std::to_string(chunk) + ".sh");
    write_script(path, script.str());
    std::vector<std::string> argv{
        "sbatch", "--parsable", "--job-name=gpuvp-sweep", "--array=0-" + std::to_string(n - 1),
        "--output=" + pattern_safe((slurm / "logs").string()) + "/point-" + std::to_string(chunk) + "-%a.out"};
    argv.insert(argv.end(), options.sbatch_args.begin(), options.sbatch_args.end());
    argv.push_back(path.string());
    commands.push_back(argv);
  }
  std::ostringstream merge;
  merge << "#!/bin/sh\n"
        << "# gpuvp sweep: merge the points' results into results.csv and the summary once the arrays have ended\n"
        << "exec " << sh_quote(run.gpuvp) << " sweep --merge -o " << sh_quote(dir)
        << (run.summary ? "" : " --no-summary") << '\n';
  write_script(slurm / "merge.sh", merge.str());
  std::vector<std::string> merge_argv{"sbatch", "--parsable", "--job-name=gpuvp-sweep-merge",
                                      "--output=" + pattern_safe((slurm / "logs").string()) + "/merge.out"};
  merge_argv.insert(merge_argv.end(), options.sbatch_args.begin(), options.sbatch_args.end());

  // submit.sh: the same submissions for a shell (what --slurm-dry-run leaves to run by hand).
  std::ostringstream submit;
  submit << "#!/bin/sh\n# gpuvp sweep: submit the point arrays, then the merge after all of them\nset -e\n";
  std::string dependency_sh = "afterany";
  for (std::size_t c = 0; c < commands.size(); ++c) {
    submit << "a" << c << "=$(";
    for (std::size_t k = 0; k < commands[c].size(); ++k) submit << (k ? " " : "") << sh_quote(commands[c][k]);
    submit << ")\na" << c << "=${a" << c << "%%;*}\n";
    dependency_sh += ":$a" + std::to_string(c);
  }
  for (const std::string& a : merge_argv) submit << sh_quote(a) << ' ';
  submit << "--dependency=" << dependency_sh << ' ' << sh_quote((slurm / "merge.sh").string()) << '\n';
  write_script(slurm / "submit.sh", submit.str());
  if (!options.submit) {
    out << "sweep: wrote " << (slurm / "submit.sh").string() << " (" << pending.size() << " points in "
        << commands.size() << (commands.size() == 1 ? " array" : " arrays") << ", then the merge); submit with: sh "
        << (slurm / "submit.sh").string() << '\n';
    return 0;
  }
  int code = 0;
  std::string ids;
  for (std::size_t c = 0; c < commands.size(); ++c) {
    const std::string id = sbatch(commands[c], slurm / ("sbatch-array-" + std::to_string(c) + ".out"), code);
    dependency += ":" + id;
    ids += (ids.empty() ? "" : ", ") + id;
  }
  merge_argv.push_back("--dependency=" + dependency);
  if (options.wait) merge_argv.emplace_back("--wait");
  merge_argv.push_back((slurm / "merge.sh").string());
  out << "sweep: submitted job array " << ids << " (" << pending.size() << " points); the merge job "
      << (options.wait ? "runs" : "will run") << " after it" << std::endl;
  const std::string merge_id = sbatch(merge_argv, slurm / "sbatch-merge.out", code);
  out << "sweep: merge job " << merge_id << (options.wait ? " has ended" : " submitted")
      << "; results: " << (fs::path(dir) / "results.csv").string() << '\n';
  return options.wait ? code : 0;
}

}  // namespace gpuvp::platform
