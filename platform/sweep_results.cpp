#include "platform/sweep_results.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "platform/sweep_runner.h"
#include "tlm/core/config.h"

namespace gpuvp::platform {

namespace {
namespace fs = std::filesystem;
const char* const kTopLevelMetrics[] = {"sim_time_ps", "wall_time_s"};
}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + '"';
}

namespace {
// The statistics tree's numbers by dotted path (a block's busy time is a group: busy.busy_ps, busy.utilisation; a
// histogram's bucket counts are left out, its count, min, max, mean and sum stay).
void flatten(const nlohmann::json& node, const std::string& path, std::map<std::string, const nlohmann::json*>& out) {
  if (node.is_number()) {
    out[path] = &node;
    return;
  }
  if (!node.is_object()) return;
  for (const auto& item : node.items()) {
    if (item.key() == "buckets") continue;
    flatten(item.value(), path.empty() ? item.key() : path + "." + item.key(), out);
  }
}

std::map<std::string, const nlohmann::json*> numbers_of(const nlohmann::json& stats) {
  std::map<std::string, const nlohmann::json*> numbers;
  for (const char* top : kTopLevelMetrics) {
    if (stats.contains(top) && stats[top].is_number()) numbers[top] = &stats[top];
  }
  if (stats.contains("stats")) flatten(stats["stats"], "", numbers);
  return numbers;
}
}  // namespace

std::string metric_text(const nlohmann::json& stats, const std::string& metric) {
  const auto numbers = numbers_of(stats);
  const auto it = numbers.find(metric);
  return it == numbers.end() ? "" : it->second->dump();  // integers exactly, doubles in shortest round-trip form
}

std::vector<std::string> metric_names(const nlohmann::json& stats) {
  std::vector<std::string> names;
  for (const auto& [name, value] : numbers_of(stats)) names.push_back(name);
  return names;
}

std::string check_metric_names(const std::vector<std::string>& metrics, const nlohmann::json& stats,
                               const std::string& point_id) {
  const std::vector<std::string> known = metric_names(stats);
  for (const std::string& m : metrics) {
    if (std::find(known.begin(), known.end(), m) != known.end()) continue;
    std::string nearest;
    std::size_t best = 4;  // suggest only near names
    for (const std::string& k : known) {
      const std::size_t d = core::edit_distance(m, k);
      if (d < best) best = d, nearest = k;
    }
    return "--metric '" + m + "': no such statistic in point " + point_id + "'s statistics" +
           (nearest.empty() ? " (metrics are the numbers of a --stats file's \"stats\" tree by dotted path, e.g. "
                              "gpuvp.v3d.qpus.busy.utilisation, or sim_time_ps, wall_time_s)"
                            : ", did you mean '" + nearest + "'?");
  }
  return "";
}

SweepTally merge_sweep_results(const SweepPlan& plan, const std::string& dir) {
  SweepTally tally;
  std::ostringstream csv;
  csv << "id";
  for (const SweepAxis& a : plan.axes) csv << ',' << csv_field(a.key);
  for (const std::string& m : plan.metrics) csv << ',' << csv_field(m);
  csv << ",outcome,error\n";
  for (const SweepPoint& p : plan.points) {
    PointResult r;
    const bool finished = read_point_result(dir, p.id, r);
    // The metrics the point recorded when it ended; its statistics only for metrics asked for since.
    bool recorded = finished;
    for (const std::string& m : plan.metrics) recorded = recorded && r.metrics.count(m) != 0;
    nlohmann::json stats;
    // A run stopped at its host-time limit got as far as the host's speed let it: its figures are not results.
    if (finished && !recorded && r.outcome != "timeout") {
      std::ifstream file(fs::path(dir) / "points" / p.id / "stats.json");
      if (file) stats = nlohmann::json::parse(file, nullptr, false);  // a point that died mid-write: no metrics
    }
    csv << p.id;
    for (const std::string& v : p.values) csv << ',' << csv_field(v);
    for (const std::string& m : plan.metrics) {
      csv << ',' << (recorded ? r.metrics[m] : stats.is_object() ? metric_text(stats, m) : "");
    }
    if (!finished) {
      ++tally.pending;
      csv << ",pending,\n";
      continue;
    }
    ++(r.outcome == "ok" ? tally.ok : tally.failed);
    csv << ',' << r.outcome << ',' << csv_field(r.error) << '\n';
  }
  write_file_atomically((fs::path(dir) / "results.csv").string(), csv.str());
  return tally;
}

}  // namespace gpuvp::platform
