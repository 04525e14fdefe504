#include "tlm/core/stats.h"

#include <fstream>
#include <stdexcept>
#include <utility>

#include "tlm/core/timeline.h"

namespace gpuvp::core {

void Histogram::sample(std::uint64_t v) {
  ++count_;
  sum_ += v;
  if (v < min_) min_ = v;
  if (v > max_) max_ = v;
  int bucket = v == 0 ? 0 : 64 - __builtin_clzll(v);
  ++buckets_[static_cast<std::size_t>(bucket)];
}

nlohmann::json Histogram::to_json() const {
  nlohmann::json j;
  j["count"] = count_;
  j["sum"] = sum_;
  j["min"] = min();
  j["max"] = max_;
  j["mean"] = count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
  // Only non-empty buckets, keyed by their lower bound.
  nlohmann::json buckets = nlohmann::json::object();
  for (int i = 0; i < kBuckets; ++i) {
    if (buckets_[static_cast<std::size_t>(i)] == 0) continue;
    std::uint64_t low = i == 0 ? 0 : (1ULL << (i - 1));
    buckets[std::to_string(low)] = buckets_[static_cast<std::size_t>(i)];
  }
  j["buckets"] = buckets;
  return j;
}

StatsRegistry::Entry& StatsRegistry::find_or_add(const std::string& path, Kind kind, const std::string& description,
                                                 const std::string& unit, const std::string& group) {
  auto it = entries_.find(path);
  if (it != entries_.end()) {
    if (it->second.kind != kind) {
      throw std::logic_error("statistic '" + path + "' registered twice with different kinds");
    }
    return it->second;
  }
  void* stat = nullptr;
  switch (kind) {
    case Kind::kCounter:
      stat = &counters_.emplace_back();
      break;
    case Kind::kHistogram:
      stat = &histograms_.emplace_back();
      break;
    case Kind::kBusy:
      stat = &busy_.emplace_back();
      break;
    case Kind::kFormula:
      stat = &formulas_.emplace_back();
      break;
  }
  const std::size_t dot = path.rfind('.');
  Entry entry{kind, stat, description, unit.empty() ? unit_of(path) : unit,
              !group.empty()             ? group
              : dot == std::string::npos ? std::string()
                                         : path.substr(0, dot)};
  return entries_.emplace(path, std::move(entry)).first->second;
}

Counter& StatsRegistry::counter(const std::string& path, const std::string& description, const std::string& unit,
                                const std::string& group) {
  return *static_cast<Counter*>(find_or_add(path, Kind::kCounter, description, unit, group).stat);
}

Histogram& StatsRegistry::histogram(const std::string& path, const std::string& description, const std::string& unit,
                                    const std::string& group) {
  return *static_cast<Histogram*>(find_or_add(path, Kind::kHistogram, description, unit, group).stat);
}

BusyTime& StatsRegistry::busy_time(const std::string& path, const std::string& description, const std::string& group) {
  return *static_cast<BusyTime*>(find_or_add(path, Kind::kBusy, description, "ps", group).stat);
}

void StatsRegistry::formula(const std::string& path, const std::string& description, const std::string& unit,
                            const std::string& group, std::function<double(Picoseconds sim_time_ps)> compute) {
  *static_cast<std::function<double(Picoseconds)>*>(find_or_add(path, Kind::kFormula, description, unit, group).stat) =
      std::move(compute);
}

std::uint64_t StatsRegistry::counter_value(const std::string& path) const {
  auto it = entries_.find(path);
  if (it == entries_.end() || it->second.kind != Kind::kCounter) return 0;
  return static_cast<const Counter*>(it->second.stat)->value;
}

namespace {
// "a.b.c" becomes root["a"]["b"]["c"]. Every component is an object key (a json_pointer would turn numeric
// components such as "eu.0" into array indices and misread '~' and '/').
void put_at_path(nlohmann::json& root, const std::string& path, nlohmann::json value) {
  nlohmann::json* node = &root;
  std::size_t start = 0;
  for (std::size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1) {
    node = &(*node)[path.substr(start, dot - start)];
  }
  (*node)[path.substr(start)] = std::move(value);
}

nlohmann::json busy_json(Picoseconds busy, Picoseconds span) {
  nlohmann::json value;
  value["busy_ps"] = busy;
  value["idle_ps"] = span > busy ? span - busy : 0;
  value["utilisation"] = span ? static_cast<double>(busy) / static_cast<double>(span) : 0.0;
  return value;
}
}  // namespace

nlohmann::json StatsRegistry::to_json(Picoseconds sim_time_ps) const {
  nlohmann::json root = nlohmann::json::object();
  for (const auto& [path, entry] : entries_) {
    nlohmann::json value;
    switch (entry.kind) {
      case Kind::kCounter:
        value = static_cast<const Counter*>(entry.stat)->value;
        break;
      case Kind::kHistogram:
        value = static_cast<const Histogram*>(entry.stat)->to_json();
        break;
      case Kind::kBusy:
        value = busy_json(static_cast<const BusyTime*>(entry.stat)->at(sim_time_ps), sim_time_ps);
        break;
      case Kind::kFormula:
        value = (*static_cast<const std::function<double(Picoseconds)>*>(entry.stat))(sim_time_ps);
        break;
    }
    put_at_path(root, path, std::move(value));
  }
  return root;
}

StatsSnapshot StatsRegistry::snapshot(Picoseconds at) const {
  StatsSnapshot snap;
  snap.at_ps = at;
  for (const auto& [path, entry] : entries_) {
    switch (entry.kind) {
      case Kind::kCounter:
        snap.counters[path] = static_cast<const Counter*>(entry.stat)->value;
        break;
      case Kind::kHistogram:
        snap.histograms[path] = *static_cast<const Histogram*>(entry.stat);
        break;
      case Kind::kBusy:
        snap.busy_ps[path] = static_cast<const BusyTime*>(entry.stat)->at(at);
        break;
      case Kind::kFormula:
        break;  // of the whole run only
    }
  }
  return snap;
}

nlohmann::json StatsRegistry::since(const StatsSnapshot& from, Picoseconds at) const {
  const Picoseconds span = at > from.at_ps ? at - from.at_ps : 0;
  nlohmann::json root = nlohmann::json::object();
  for (const auto& [path, entry] : entries_) {
    nlohmann::json value;
    switch (entry.kind) {
      case Kind::kCounter: {
        const auto before = from.counters.find(path);  // registered since: it was 0
        value = static_cast<const Counter*>(entry.stat)->value - (before == from.counters.end() ? 0 : before->second);
        break;
      }
      case Kind::kHistogram: {
        const auto& now = *static_cast<const Histogram*>(entry.stat);
        const auto before_it = from.histograms.find(path);
        const Histogram before = before_it == from.histograms.end() ? Histogram() : before_it->second;
        const std::uint64_t count = now.count() - before.count();
        const std::uint64_t sum = now.sum() - before.sum();
        value["count"] = count;
        value["sum"] = sum;
        value["mean"] = count ? static_cast<double>(sum) / static_cast<double>(count) : 0.0;
        nlohmann::json buckets = nlohmann::json::object();
        for (int i = 0; i < Histogram::kBuckets; ++i) {
          const std::uint64_t n = now.bucket(i) - before.bucket(i);
          if (n != 0) buckets[std::to_string(i == 0 ? 0 : 1ULL << (i - 1))] = n;
        }
        value["buckets"] = buckets;
        break;
      }
      case Kind::kBusy: {
        const auto before = from.busy_ps.find(path);
        const Picoseconds b0 = before == from.busy_ps.end() ? 0 : before->second;
        const Picoseconds b1 = static_cast<const BusyTime*>(entry.stat)->at(at);
        value = busy_json(b1 > b0 ? b1 - b0 : 0, span);
        break;
      }
      case Kind::kFormula:
        continue;
    }
    put_at_path(root, path, std::move(value));
  }
  return root;
}

void StatsRegistry::write_json(const std::string& path, Picoseconds sim_time_ps) const {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write statistics file '" + path + "'");
  nlohmann::json doc;
  doc["sim_time_ps"] = sim_time_ps;
  doc["stats"] = to_json(sim_time_ps);
  out << doc.dump(2) << '\n';
  if (!out) throw std::runtime_error("error writing statistics file '" + path + "'");
}

std::map<std::string, std::uint64_t> StatsRegistry::counters_with_prefix(const std::string& prefix) const {
  std::map<std::string, std::uint64_t> result;
  for (auto it = entries_.lower_bound(prefix); it != entries_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it) {
    if (it->second.kind == Kind::kCounter) result[it->first] = static_cast<const Counter*>(it->second.stat)->value;
  }
  return result;
}

std::map<std::string, Picoseconds> StatsRegistry::busy_times(Picoseconds end) const {
  std::map<std::string, Picoseconds> result;
  for (const auto& [path, entry] : entries_) {
    if (entry.kind == Kind::kBusy) result[path] = static_cast<const BusyTime*>(entry.stat)->at(end);
  }
  return result;
}

std::vector<StatsRegistry::Activity> StatsRegistry::activity(Picoseconds end) const {
  std::vector<Activity> result;
  for (const auto& [path, entry] : entries_) {
    if (entry.kind != Kind::kCounter && entry.kind != Kind::kBusy) continue;
    const std::uint64_t value = entry.kind == Kind::kCounter ? static_cast<const Counter*>(entry.stat)->value
                                                             : static_cast<const BusyTime*>(entry.stat)->at(end);
    const std::string name =
        path.size() > entry.group.size() && !entry.group.empty() ? path.substr(entry.group.size() + 1) : path;
    result.push_back({entry.group, name, entry.kind, value});
  }
  return result;
}

void StatsRegistry::finish_run(Picoseconds end) const {
  if (!timeline().enabled()) return;
  for (const auto& [path, entry] : entries_) {
    if (entry.kind != Kind::kBusy) continue;
    const auto* busy = static_cast<const BusyTime*>(entry.stat);
    if (busy->open && busy->track >= 0 && busy->open_since_ps < end) {
      timeline().span(busy->track, "busy", busy->open_since_ps, end - busy->open_since_ps);
    }
  }
}

StatsRegistry& stats() {
  static StatsRegistry registry;
  return registry;
}

std::string StatsRegistry::unit_of(const std::string& path) {
  const std::string name = path.substr(path.rfind('.') + 1);
  const auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with("_ps")) return "ps";
  if (name.rfind("bytes", 0) == 0 || ends_with("bytes")) return "bytes";
  return "events";
}

nlohmann::json StatsRegistry::metrics_json() const {
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& [path, entry] : entries_) {
    nlohmann::json m;
    switch (entry.kind) {
      case Kind::kCounter:
        m["kind"] = "counter";
        break;
      case Kind::kHistogram:
        m["kind"] = "histogram";  // the unit is of the samples (count, sum, min, max, mean and bucket bounds)
        break;
      case Kind::kBusy:
        m["kind"] = "busy_time";  // busy_ps and idle_ps; utilisation is busy_ps / sim_time_ps
        break;
      case Kind::kFormula:
        m["kind"] = "formula";
        break;
    }
    m["unit"] = entry.unit;
    if (!entry.description.empty()) m["description"] = entry.description;
    metrics[path] = std::move(m);
  }
  return metrics;
}

void StatsSeries::append(std::map<std::string, std::vector<std::uint64_t>>& series, const std::string& path,
                         std::uint64_t value, std::size_t index) {
  std::vector<std::uint64_t>& values = series[path];
  values.resize(index, 0);  // registered since the last sample: it was 0 then
  values.push_back(value);
}

void StatsSeries::sample(const StatsRegistry& registry, Picoseconds at) {
  const std::size_t index = times_.size();
  times_.push_back(at);
  for (const auto& [path, value] : registry.counters_with_prefix("")) append(counters_, path, value, index);
  for (const auto& [path, busy] : registry.busy_times(at)) append(busy_, path, busy, index);
}

nlohmann::json StatsSeries::to_json() const {
  nlohmann::json j;
  j["time_ps"] = times_;
  j["counters"] = counters_;
  j["busy_ps"] = busy_;
  return j;
}

}  // namespace gpuvp::core
