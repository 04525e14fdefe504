#include "platform/sweep_runner.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "platform/child_process.h"
#include "platform/stop_signal.h"
#include "platform/sweep_results.h"

namespace gpuvp::platform {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

fs::path point_dir(const std::string& dir, const std::string& id) { return fs::path(dir) / "points" / id; }

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The line that says why a run failed: its own `gpuvp: error:` line, else the last line it wrote.
std::string last_error_line(const fs::path& log) {
  std::ifstream file(log);
  std::string line, error, last;
  while (std::getline(file, line)) {
    if (line.empty()) continue;
    last = line;
    if (line.rfind("gpuvp: error:", 0) == 0 || line.rfind("error at", 0) == 0) error = line;
  }
  std::string out = error.empty() ? last : error;
  if (out.size() > 300) {
    // Cut at a character boundary: never inside a UTF-8 sequence (its continuation bytes are 10xxxxxx).
    std::size_t cut = 300;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = out.substr(0, cut) + "...";
  }
  return out;
}

void write_point_result(const std::string& dir, const PointResult& r) {
  const nlohmann::json doc{{"id", r.id},       {"outcome", r.outcome}, {"exit_code", r.exit_code},
                           {"error", r.error}, {"run_s", r.run_s},     {"metrics", r.metrics}};
  // A run's own output may hold bytes that are not UTF-8: replaced, never a reason to lose the result.
  write_file_atomically((point_dir(dir, r.id) / "result.json").string(),
                        doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

// What a point's exit says, with its statistics file's outcome when it wrote one.
PointResult classify(const std::string& dir, const std::string& id, int exit_code, bool killed, double run_s) {
  PointResult r{id, "ok", exit_code, "", run_s, {}};
  if (exit_code == 0) return r;
  std::string result;
  std::ifstream stats(point_dir(dir, id) / "stats.json");
  if (stats) {
    try {
      const nlohmann::json doc = nlohmann::json::parse(stats);
      result = doc.at("outcome").at("result").get<std::string>();
    } catch (const nlohmann::json::exception&) {
      result.clear();  // a run that died while writing: classified by its exit code
    }
  }
  r.error = last_error_line(point_dir(dir, id) / "log.txt");
  if (killed || result == "wall_time_limit") {
    r.outcome = "timeout";
  } else if (exit_code == 2) {
    r.outcome = "error";
  } else if (exit_code >= 128 && result.empty()) {
    r.outcome = "crashed";
    if (r.error.empty()) r.error = "ended by signal " + std::to_string(exit_code - 128);
  } else {
    r.outcome = "failed";
  }
  if (r.error.empty()) r.error = "exit code " + std::to_string(exit_code);
  return r;
}

// A point's process has ended: its result, with the plan's metrics from its statistics (parsed once, also handed to
// the caller), written to result.json.
PointResult record(const std::string& dir, const SweepPlan& plan, const std::string& id, int exit_code, bool killed,
                   double run_s, nlohmann::json& stats) {
  PointResult r = classify(dir, id, exit_code, killed, run_s);
  std::ifstream file(point_dir(dir, id) / "stats.json");
  stats = file ? nlohmann::json::parse(file, nullptr, false) : nlohmann::json();
  // A run stopped at its host-time limit got as far as the host's speed let it: its figures are not results.
  if (stats.is_object() && r.outcome != "timeout") {
    for (const std::string& m : plan.metrics) r.metrics[m] = metric_text(stats, m);
  }
  write_point_result(dir, r);
  return r;
}

std::string format_duration(double s) {
  const long total = std::lround(s);
  char text[32];
  std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  return text;
}

// One point's process in the pool.
struct Running {
  std::size_t index;
  std::unique_ptr<ChildProcess> process;
  Clock::time_point start;
  bool killed = false;
};

// A point still running this long past its own --max-wall-time is hung: killed.
constexpr double kKillGraceS = 10;

}  // namespace

bool read_point_result(const std::string& dir, const std::string& id, PointResult& result) {
  std::ifstream file(point_dir(dir, id) / "result.json");
  if (!file) return false;
  try {
    const nlohmann::json doc = nlohmann::json::parse(file);
    result.id = doc.at("id").get<std::string>();
    result.outcome = doc.at("outcome").get<std::string>();
    result.exit_code = doc.at("exit_code").get<int>();
    result.error = doc.at("error").get<std::string>();
    result.run_s = doc.at("run_s").get<double>();
    result.metrics = doc.value("metrics", std::map<std::string, std::string>{});
  } catch (const nlohmann::json::exception&) {
    return false;  // not a whole result (the rename makes this rare): the point runs again
  }
  return result.id == id;
}

std::vector<std::string> point_command(const SweepRunOptions& options, const SweepPlan& plan, const SweepPoint& point) {
  const fs::path here = point_dir(options.dir, point.id);
  std::vector<std::string> argv{options.gpuvp,
                                "run",
                                "--quiet",
                                "--config",
                                (here / "config.json").string(),
                                "--stats",
                                (here / "stats.json").string()};
  if (plan.workload.script_text.empty()) {
    argv.insert(argv.end(), {"--workload", plan.workload.name});
  } else {
    argv.insert(argv.end(), {"--script", (fs::path(options.dir) / plan.workload.script_file).string()});
    if (!plan.workload.base_dir.empty()) argv.insert(argv.end(), {"--script-base", plan.workload.base_dir});
  }
  if (options.timeout_s > 0) {
    argv.insert(argv.end(), {"--max-wall-time", std::to_string(options.timeout_s) + "s"});
  }
  return argv;
}

PointResult run_sweep_point(const SweepRunOptions& options, const SweepPlan& plan, std::size_t index,
                            std::ostream& progress) {
  run_sweep_points(options, plan, {index}, progress, false);
  PointResult r;
  if (!read_point_result(options.dir, plan.points[index].id, r)) {
    r.id = plan.points[index].id;
    r.outcome = "error";
    r.error = "stopped before it ended";
  }
  return r;
}

std::vector<std::size_t> unfinished_points(const SweepPlan& plan, const std::string& dir, bool retry_failed) {
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    PointResult r;
    if (!read_point_result(dir, plan.points[i].id, r) || (retry_failed && r.outcome != "ok")) pending.push_back(i);
  }
  return pending;
}

SweepRunSummary run_sweep_points(const SweepRunOptions& options, const SweepPlan& plan,
                                 const std::vector<std::size_t>& pending, std::ostream& progress, bool terminal) {
  SweepRunSummary summary;
  // The rest of the plan finished before: counted in the progress (and as failures where they failed).
  std::vector<bool> runs(plan.points.size(), false);
  for (std::size_t i : pending) runs[i] = true;
  const std::size_t total = plan.points.size();
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    PointResult before;
    if (runs[i] || !read_point_result(options.dir, plan.points[i].id, before)) continue;
    ++summary.skipped;
    if (before.outcome != "ok") ++summary.failed;
  }
  const unsigned jobs = options.jobs == 0 ? 1 : options.jobs;
  const Clock::time_point start = Clock::now();
  std::vector<Running> running;
  std::size_t next = 0;
  auto show = [&](const std::string& line) {
    const std::size_t done = summary.skipped + summary.run;
    const double per_point = summary.run ? summary.sum_run_s / static_cast<double>(summary.run) : 0;
    const double eta = per_point * static_cast<double>(total - done) / jobs;
    std::ostringstream status;
    status << "sweep: " << done << '/' << total << " done, " << summary.failed << " failed, " << running.size()
           << " running";
    if (summary.run) status << ", ETA " << format_duration(eta);
    if (terminal) {
      progress << "\r\033[K";
      if (!line.empty()) progress << line << '\n';
      progress << status.str() << std::flush;
    } else if (!line.empty()) {
      progress << "sweep: [" << done << '/' << total << "] " << line << '\n' << std::flush;
    }
  };
  show("");
  std::vector<std::pair<std::size_t, std::string>> cannot_start;
  // Starts points until -j are running (none once the pool is stopping).
  const auto top_up = [&] {
    while (running.size() < jobs && next < pending.size() && summary.error.empty() && stop_signal() == 0) {
      const std::size_t index = pending[next++];
      const SweepPoint& p = plan.points[index];
      const fs::path here = point_dir(options.dir, p.id);
      // Nothing of an earlier run of the point may be taken for this one's.
      for (const char* stale : {"result.json", "stats.json", "log.txt"}) {
        std::error_code ec;
        fs::remove(here / stale, ec);
      }
      try {
        running.push_back({index,
                           std::make_unique<ChildProcess>(point_command(options, plan, p),
                                                          std::vector<std::pair<std::string, std::string>>{},
                                                          (here / "log.txt").string()),
                           Clock::now()});
      } catch (const std::runtime_error& e) {
        // A point that cannot start (its directory unwritable, the executable being replaced) is that point's
        // failure, not the sweep's.
        cannot_start.emplace_back(index, std::string("cannot start the point's run: ") + e.what());
      }
    }
  };
  struct Ended {
    std::size_t index;
    int exit_code;
    bool killed;
    double run_s;
  };
  const auto report = [&](const SweepPoint& p, const PointResult& r) {
    ++summary.run;
    summary.sum_run_s += r.run_s;
    if (r.outcome != "ok") ++summary.failed;
    std::ostringstream line;
    line << p.id << ' ' << r.outcome;
    for (std::size_t a = 0; a < plan.axes.size(); ++a) line << ' ' << plan.axes[a].key << '=' << p.values[a];
    if (r.outcome != "ok") line << ": " << r.error;
    show(line.str());
  };
  while ((next < pending.size() || !running.empty() || !cannot_start.empty()) && stop_signal() == 0) {
    top_up();
    std::vector<Ended> ended;
    for (auto it = running.begin(); it != running.end();) {
      const double elapsed = seconds_since(it->start);
      if (options.timeout_s > 0 && elapsed > options.timeout_s + kKillGraceS && !it->killed) {
        it->process->signal(SIGKILL);
        it->killed = true;
      }
      if (!it->process->exited()) {
        ++it;
        continue;
      }
      ended.push_back({it->index, it->process->exit_code(), it->killed, elapsed});
      it = running.erase(it);
    }
    if (stop_signal() != 0) break;  // ended by the same stop: not results
    // The next points start before these are recorded: reading their statistics overlaps the new runs.
    top_up();
    for (const Ended& e : ended) {
      const SweepPoint& p = plan.points[e.index];
      nlohmann::json stats;
      const PointResult r = record(options.dir, plan, p.id, e.exit_code, e.killed, e.run_s, stats);
      report(p, r);
      if (options.on_result && summary.error.empty()) summary.error = options.on_result(r, stats);
    }
    for (const auto& [index, why] : cannot_start) {
      PointResult r{plan.points[index].id, "error", -1, why, 0, {}};
      write_point_result(options.dir, r);
      report(plan.points[index], r);
    }
    const bool none_ended = ended.empty() && cannot_start.empty();
    cannot_start.clear();
    if (!summary.error.empty()) next = pending.size();  // the running points finish; no new one starts
    // A point's process lives for tens of milliseconds at least: a millisecond's poll costs the pool little.
    if (none_ended) ::usleep(1000);
  }
  if (stop_signal() != 0) {
    summary.interrupted = true;
    for (Running& r : running) r.process->signal(SIGTERM);
    for (Running& r : running) r.process->wait(5000);
  }
  if (terminal) progress << "\r\033[K" << std::flush;
  summary.wall_s = seconds_since(start);
  return summary;
}

}  // namespace gpuvp::platform
