// A sweep's plan: the points of a configuration space (the cross product of --vary lists, or a seeded random or
// Latin hypercube sample of it), each with its full configuration and a content-hashed id, plus the workload and the
// metrics. The plan is written to the sweep directory (plan.json) so that a point can be run from it alone, by
// another process or on another machine (a Slurm task), and give the same result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuvp::platform {

// What `gpuvp sweep` was asked for.
struct SweepSpec {
  std::vector<std::string> config_files;  // the base configuration, applied in order
  std::vector<std::string> overrides;     // --set, after the files
  std::vector<std::string> varies;        // --vary KEY=V1,V2,...
  std::uint64_t sample = 0;               // > 0: this many points sampled from the cross product
  std::uint64_t seed = 1;
  std::string sample_method = "random";  // random | lhs (Latin hypercube over each key's list)
  std::string workload;                  // a named workload (sweep_workloads()) or a host script file
  std::vector<std::string> metrics;  // numbers of the stats file's "stats" tree by path, or sim_time_ps / wall_time_s
};

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;  // as given on the command line
};

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's constructors are not noexcept; nothing here throws.
struct SweepPoint {
  std::string id;                   // content hash of the configuration and the workload
  std::vector<std::string> values;  // one per axis
  nlohmann::json config;            // the full configuration the point runs with
};

// The workload each point runs: a named part of the embedded demo, or a host script (copied into the sweep
// directory so the points keep running what was planned).
struct SweepWorkload {
  std::string name;         // "demo-vc4" or "script:<file name>"
  std::string script_text;  // a script's text; empty for a named workload
  std::string identity;     // what the point ids hash: the name, or the script's SHA-256 (not the files it loads)
  std::string base_dir;     // a script's own directory, against which its relative paths resolve
  std::string script_file;  // the copy the points run, relative to the sweep directory: workloads/SHA256.gpuvp
};

struct SweepPlan {
  std::vector<SweepAxis> axes;
  std::vector<SweepPoint> points;
  SweepWorkload workload;
  std::vector<std::string> metrics;
  std::uint64_t space_size = 0;  // points in the full cross product
};

struct SweepWorkloadInfo {
  std::string name;
  std::string description;
};
// The named workloads a sweep (and `gpuvp run --workload`) can run; the gpuvp executable provides them.
const std::vector<SweepWorkloadInfo>& sweep_workloads();
void set_sweep_workloads(std::vector<SweepWorkloadInfo> workloads);

// Expands the spec. Throws std::runtime_error (core::ConfigError for keys and values) with a one-line message naming
// the key, value or file: an unknown key or a value the key does not take, a key varied twice, an empty list, no
// --vary, an unknown workload, a sample method, a space too large to expand without --sample.
SweepPlan make_sweep_plan(const SweepSpec& spec);

// The largest cross product expanded without --sample.
constexpr std::uint64_t kMaxSweepPoints = 100'000;

// plan.json: the plan (the points' configurations are in points/ID/config.json).
nlohmann::json sweep_plan_json(const SweepPlan& plan);
// Reads plan.json back (the points' configurations stay in their config.json). Throws std::runtime_error naming the
// file.
SweepPlan read_sweep_plan(const std::string& dir);
// One point as its own plan, from points/ID/point.json (written with the plan, never rewritten): what a Slurm task
// runs, whatever plan.json says by then. Throws std::runtime_error naming the point.
SweepPlan read_sweep_point(const std::string& dir, const std::string& id);
// Writes plan.json, each point's config.json and the workload's script. Throws std::runtime_error naming the file.
void write_sweep_plan(const SweepPlan& plan, const std::string& dir);

// Writes a file beside its place and renames it there: a reader (a resumed sweep, a Slurm task, the merge) never
// sees half a file. Throws std::runtime_error naming the file.
void write_file_atomically(const std::string& path, const std::string& text);

// Hex SHA-256 of data.
std::string sha256_hex(const std::string& data);

}  // namespace gpuvp::platform
