// Statistics registry: named counters, histograms and busy-time trackers that every block registers once and the run
// writes as JSON. Updating a statistic is a plain integer add, so keeping them always on costs next to nothing; only
// writing them out is optional.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tlm/core/timing.h"

namespace gpuvp::core {

struct Counter {
  std::uint64_t value = 0;
  Counter& operator+=(std::uint64_t n) {
    value += n;
    return *this;
  }
  Counter& operator++() {
    ++value;
    return *this;
  }
};

// Histogram with power-of-two buckets: bucket i counts samples in [2^(i-1), 2^i), bucket 0 counts zeros.
class Histogram {
 public:
  static constexpr int kBuckets = 65;
  void sample(std::uint64_t v);
  std::uint64_t count() const { return count_; }
  std::uint64_t sum() const { return sum_; }
  std::uint64_t min() const { return count_ ? min_ : 0; }
  std::uint64_t max() const { return max_; }
  std::uint64_t bucket(int i) const { return buckets_.at(static_cast<std::size_t>(i)); }
  nlohmann::json to_json() const;

 private:
  std::uint64_t count_ = 0, sum_ = 0, min_ = UINT64_MAX, max_ = 0;
  std::array<std::uint64_t, kBuckets> buckets_{};
};

// Busy time of a block; idle time is the rest of the simulated time. A block either adds spans as it books them
// (bus ports, memories) or opens and closes its busy span (engines: begin/end at its local time). Reading it at the
// end of a run (at()) counts a span still open up to that time, and leaves out what a decoupled block booked past it
// (its local time runs up to a quantum ahead of the kernel), so utilisation is never above 100 %.
struct BusyTime {
  Picoseconds busy_ps = 0;  // closed spans
  void add(Picoseconds ps) { busy_ps += ps; }
  void begin(Picoseconds start) {
    open = true;
    open_since_ps = start;
  }
  void end(Picoseconds end_ps) {
    if (!open) return;
    open = false;
    busy_ps += end_ps > open_since_ps ? end_ps - open_since_ps : 0;
    if (end_ps > latest_end_ps) latest_end_ps = end_ps;
  }
  // Busy time within [0, t].
  Picoseconds at(Picoseconds t) const {
    Picoseconds b = busy_ps;
    if (latest_end_ps > t) b -= std::min(b, latest_end_ps - t);
    if (open && open_since_ps < t) b += t - open_since_ps;
    return std::min(b, t);
  }

  bool open = false;
  Picoseconds open_since_ps = 0;
  Picoseconds latest_end_ps = 0;  // end of the latest closed span (begin/end users)
  int track = -1;                 // timeline track of the block's busy spans (-1: none), closed by finish_run()
};

// The values of every statistic at one simulated time, to report what a region of interest did (StatsRegistry::since).
struct StatsSnapshot {
  Picoseconds at_ps = 0;
  std::map<std::string, std::uint64_t> counters;
  std::map<std::string, Histogram> histograms;
  std::map<std::string, Picoseconds> busy_ps;
};

class StatsRegistry {
 public:
  enum class Kind { kCounter, kHistogram, kBusy, kFormula };

  // Registering the same path twice returns the same statistic, so blocks may look theirs up again. Modules declare
  // their statistics through a StatsGroup (stats_group.h), which gives each its group, unit and description; an
  // empty unit is unit_of(path), an empty group the path up to its last component.
  Counter& counter(const std::string& path, const std::string& description = {}, const std::string& unit = {},
                   const std::string& group = {});
  Histogram& histogram(const std::string& path, const std::string& description = {}, const std::string& unit = {},
                       const std::string& group = {});
  BusyTime& busy_time(const std::string& path, const std::string& description = {}, const std::string& group = {});
  void formula(const std::string& path, const std::string& description, const std::string& unit,
               const std::string& group, std::function<double(Picoseconds sim_time_ps)> compute);

  // Value of a counter, or 0 if it was never registered.
  std::uint64_t counter_value(const std::string& path) const;
  bool has(const std::string& path) const { return entries_.count(path) != 0; }

  // Nested JSON object keyed by the dotted path; busy times also report utilisation over sim_time_ps.
  nlohmann::json to_json(Picoseconds sim_time_ps) const;
  // Writes to_json() to a file; throws std::runtime_error naming the file on failure.
  void write_json(const std::string& path, Picoseconds sim_time_ps) const;

  // Paths and values of all counters whose path starts with prefix, in path order.
  std::map<std::string, std::uint64_t> counters_with_prefix(const std::string& prefix) const;
  // Busy time of every tracker within [0, end] (see BusyTime::at).
  std::map<std::string, Picoseconds> busy_times(Picoseconds end) const;
  // One line of the run summary's activity table: a counter's value or a busy time within [0, end], with the group
  // that owns it and its name within the group.
  struct Activity {
    std::string group;
    std::string name;
    Kind kind;
    std::uint64_t value;  // a counter's value, or busy ps
  };
  // Counters and busy times, in path order.
  std::vector<Activity> activity(Picoseconds end) const;
  // The end of a run at simulated time end: busy spans still open are written to the timeline up to end.
  void finish_run(Picoseconds end) const;
  // What every statistic is: {path: {"kind": counter | histogram | busy_time | formula, "unit": ..., "description":
  // ...}}.
  nlohmann::json metrics_json() const;
  // The unit of a counter's value or a histogram's samples when its declaration gives none: "ps" for a name ending
  // in _ps, "bytes" for a name that starts or ends with "bytes", "events" otherwise.
  static std::string unit_of(const std::string& path);

  // Regions of interest: the values now, and what changed since (counters and busy times as differences, histograms
  // as the samples taken since: count, sum, mean and buckets), as a nested object like to_json().
  StatsSnapshot snapshot(Picoseconds at) const;
  nlohmann::json since(const StatsSnapshot& from, Picoseconds at) const;

 private:
  struct Entry {
    Kind kind;
    void* stat;
    std::string description;
    std::string unit;
    std::string group;
  };
  Entry& find_or_add(const std::string& path, Kind kind, const std::string& description, const std::string& unit,
                     const std::string& group);

  std::deque<Counter> counters_;
  std::deque<Histogram> histograms_;
  std::deque<BusyTime> busy_;
  std::deque<std::function<double(Picoseconds)>> formulas_;
  std::map<std::string, Entry> entries_;
};

// A time series of every counter and busy time, sampled at fixed simulated times (--stats-interval): the values
// are cumulative, each series as long as the list of sample times (a statistic registered later reads 0 before).
// Sampled at kernel time: a decoupled block may already have counted work up to one quantum ahead of a sample.
class StatsSeries {
 public:
  void sample(const StatsRegistry& registry, Picoseconds at);
  Picoseconds last_sample_ps() const { return times_.empty() ? 0 : times_.back(); }
  std::size_t samples() const { return times_.size(); }
  // {"time_ps": [...], "counters": {path: [...]}, "busy_ps": {path: [...]}}
  nlohmann::json to_json() const;

 private:
  static void append(std::map<std::string, std::vector<std::uint64_t>>& series, const std::string& path,
                     std::uint64_t value, std::size_t index);
  std::vector<Picoseconds> times_;
  std::map<std::string, std::vector<std::uint64_t>> counters_;
  std::map<std::string, std::vector<std::uint64_t>> busy_;
};

// The registry of this simulation (one SystemC kernel per process, so one registry).
StatsRegistry& stats();

}  // namespace gpuvp::core
