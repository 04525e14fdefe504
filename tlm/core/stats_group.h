// StatsGroup: the statistics one module owns, under the module's hierarchical name. Each statistic is declared once,
// in the module's constructor, with its unit and a description: counters, vectors of counters (one per label, e.g.
// instructions by class), histograms, busy times and formulas computed from them at the end of a run (utilisation,
// bandwidth). The registry (stats.h) keeps the values; the run's JSON, its metrics table and the summary read them
// from there, group by group. Updating a statistic stays a plain integer add.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tlm/core/stats.h"

namespace gpuvp::core {

// Counters indexed by a small enumeration (an instruction class, a stall reason, an exec size), each reported under
// its label: GROUP.NAME.LABEL.
class CounterVector {
 public:
  Counter& operator[](std::size_t i) { return *counters_.at(i); }
  std::uint64_t value(std::size_t i) const { return counters_.at(i)->value; }
  std::size_t size() const { return counters_.size(); }
  const std::vector<std::string>& labels() const { return labels_; }

 private:
  friend class StatsGroup;
  std::vector<std::string> labels_;
  std::vector<Counter*> counters_;
};

class StatsGroup {
 public:
  // path: the owner's hierarchical name (sc_object::name()); its statistics are "path.NAME".
  explicit StatsGroup(std::string path, StatsRegistry& registry = stats());

  const std::string& path() const { return path_; }
  // A group for a part of the owner ("path.name"), in the same registry.
  StatsGroup subgroup(const std::string& name) const { return StatsGroup(path_ + "." + name, registry_); }

  // Units name what one count is ("events", "bytes", "ps", "commands", ...); for histograms, the unit of a sample.
  Counter& counter(const std::string& name, const std::string& unit, const std::string& description);
  CounterVector vector(const std::string& name, const std::vector<std::string>& labels, const std::string& unit,
                       const std::string& description);
  Histogram& histogram(const std::string& name, const std::string& unit, const std::string& description);
  // Busy and idle time in ps, and utilisation over the run.
  BusyTime& busy_time(const std::string& name, const std::string& description);
  // A value computed when the statistics are written (from the other statistics and the simulated time).
  void formula(const std::string& name, const std::string& unit, const std::string& description,
               std::function<double(Picoseconds sim_time_ps)> compute);

 private:
  std::string full(const std::string& name) const { return path_ + "." + name; }

  std::string path_;
  StatsRegistry& registry_;
};

}  // namespace gpuvp::core
