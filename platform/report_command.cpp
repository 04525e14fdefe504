#include "platform/report_command.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "platform/child_process.h"

namespace gpuvp::platform {

namespace {

namespace fs = std::filesystem;

// Debian's interpreter, where python3-matplotlib installs (another python3 may come first on PATH).
std::string python() {
  if (const char* chosen = std::getenv("GPUVP_PYTHON"); chosen && *chosen) return chosen;
  return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

// Runs an embedded script with arguments (`python3 - ARGS`, the source on stdin: no file to leave behind); its
// output goes where gpuvp's does.
int run_python(const char* source, const std::vector<std::string>& args) {
  std::vector<std::string> argv{python(), "-"};
  argv.insert(argv.end(), args.begin(), args.end());
  const std::string text = source;
  try {
    ChildProcess child(argv, {{"PYTHONDONTWRITEBYTECODE", "1"}}, {}, &text);
    return child.wait_for_exit();
  } catch (const std::runtime_error&) {
    throw std::runtime_error("report: cannot run " + argv[0] +
                             " (Python 3 with matplotlib: Debian python3-matplotlib)");
  }
}

void copy_beside(const std::string& file, const fs::path& target) {
  std::error_code ec;
  if (fs::exists(target, ec) && fs::equivalent(file, target, ec)) return;
  fs::copy_file(file, target, fs::copy_options::overwrite_existing, ec);
  if (ec) throw std::runtime_error("report: cannot copy '" + file + "' to '" + target.string() + "': " + ec.message());
}

}  // namespace

int write_report(const std::string& stats_file, const std::string& trace_file, const std::string& dir) {
  std::vector<std::string> args{stats_file};
  if (!trace_file.empty()) args.push_back(trace_file);
  args.insert(args.end(), {"-o", dir});
  const int code = run_python(report_generator_source(), args);
  if (code != 0) return code;
  copy_beside(stats_file, fs::path(dir) / "stats.json");
  if (!trace_file.empty()) copy_beside(trace_file, fs::path(dir) / "trace.json");
  return 0;
}

int write_sweep_summary(const std::string& dir) { return run_python(sweep_summary_source(), {dir}); }

}  // namespace gpuvp::platform
