#include "tlm/core/stats_group.h"

#include <utility>

namespace gpuvp::core {

StatsGroup::StatsGroup(std::string path, StatsRegistry& registry) : path_(std::move(path)), registry_(registry) {}

Counter& StatsGroup::counter(const std::string& name, const std::string& unit, const std::string& description) {
  return registry_.counter(full(name), description, unit, path_);
}

CounterVector StatsGroup::vector(const std::string& name, const std::vector<std::string>& labels,
                                 const std::string& unit, const std::string& description) {
  CounterVector v;
  v.labels_ = labels;
  for (const std::string& label : labels) {
    v.counters_.push_back(&registry_.counter(full(name) + "." + label, description + " (" + label + ")", unit, path_));
  }
  return v;
}

Histogram& StatsGroup::histogram(const std::string& name, const std::string& unit, const std::string& description) {
  return registry_.histogram(full(name), description, unit, path_);
}

BusyTime& StatsGroup::busy_time(const std::string& name, const std::string& description) {
  return registry_.busy_time(full(name), description, path_);
}

void StatsGroup::formula(const std::string& name, const std::string& unit, const std::string& description,
                         std::function<double(Picoseconds sim_time_ps)> compute) {
  registry_.formula(full(name), description, unit, path_, std::move(compute));
}

}  // namespace gpuvp::core
