#include "platform/sweep_plan.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform_params.h"
#include "tlm/core/config.h"

namespace gpuvp::platform {

namespace {

namespace fs = std::filesystem;

std::vector<SweepWorkloadInfo>& workload_registry() {
  static std::vector<SweepWorkloadInfo> workloads;
  return workloads;
}

std::string read_text(const std::string& path, const char* what) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error(std::string(what) + " '" + path + "': cannot read it");
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

SweepAxis parse_vary(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw std::runtime_error("--vary '" + text + "': expected KEY=V1,V2,...");
  SweepAxis axis{text.substr(0, eq), {}};
  std::stringstream list(text.substr(eq + 1));
  for (std::string value; std::getline(list, value, ',');) {
    if (value.empty()) throw std::runtime_error("--vary '" + text + "': an empty value in the list");
    if (std::find(axis.values.begin(), axis.values.end(), value) != axis.values.end()) {
      throw std::runtime_error("--vary " + axis.key + ": the value '" + value + "' is given twice");
    }
    axis.values.push_back(value);
  }
  if (axis.values.empty() || text.back() == ',') {
    throw std::runtime_error("--vary '" + text + "': expected KEY=V1,V2,... with at least one value");
  }
  return axis;
}

SweepWorkload resolve_workload(const std::string& name) {
  if (name.empty())
    throw std::runtime_error("no workload: give --workload NAME or FILE (gpuvp sweep --list-workloads)");
  for (const SweepWorkloadInfo& w : sweep_workloads()) {
    if (w.name == name) return {name, "", name, "", ""};
  }
  std::error_code ec;
  if (!fs::is_regular_file(name, ec)) {
    throw std::runtime_error("--workload '" + name +
                             "': neither a named workload (gpuvp sweep --list-workloads) nor a host script file");
  }
  SweepWorkload w;
  w.script_text = read_text(name, "--workload");
  w.name = "script:" + fs::path(name).filename().string();
  // The points run a copy; the script's relative paths (load, dump_png) still mean its own directory.
  w.base_dir = fs::absolute(name).parent_path().string();
  w.script_file = "workloads/" + sha256_hex(w.script_text) + ".gpuvp";
  w.identity = "script sha256:" + sha256_hex(w.script_text);
  return w;
}

// Random indices in [0, n) from a 64-bit generator whose sequence the C++ standard fixes (std::mt19937_64), reduced
// by the modulo (its bias is below 2^-40 for the sizes a sweep has), so that a seed names the same sample with any
// standard library.
std::uint64_t draw(std::mt19937_64& rng, std::uint64_t n) { return rng() % n; }

// Each point as a list of value indices, one per axis.
using Coordinates = std::vector<std::size_t>;

Coordinates coordinates_of(std::uint64_t index, const std::vector<SweepAxis>& axes) {
  // The last axis varies fastest, as nested loops over the --vary options in order would.
  Coordinates c(axes.size());
  for (std::size_t a = axes.size(); a-- > 0;) {
    c[a] = static_cast<std::size_t>(index % axes[a].values.size());
    index /= axes[a].values.size();
  }
  return c;
}

std::vector<Coordinates> expand(const std::vector<SweepAxis>& axes, std::uint64_t space, const SweepSpec& spec) {
  std::vector<Coordinates> points;
  if (spec.sample == 0 || spec.sample >= space) {
    if (space > kMaxSweepPoints) {
      throw std::runtime_error("the sweep has " + std::to_string(space) + " points, more than " +
                               std::to_string(kMaxSweepPoints) + ": give --sample N to run a sample of them");
    }
    for (std::uint64_t i = 0; i < space; ++i) points.push_back(coordinates_of(i, axes));
    return points;
  }
  std::mt19937_64 rng(spec.seed);
  // Latin hypercube: each axis's list is cut into `sample` equal strata, every stratum is used once per axis, and
  // the axes' strata are paired by independent random permutations (Fisher-Yates).
  const std::size_t n = static_cast<std::size_t>(spec.sample);
  points.assign(n, Coordinates(axes.size()));
  for (std::size_t a = 0; a < axes.size(); ++a) {
    std::vector<std::size_t> strata(n);
    for (std::size_t i = 0; i < n; ++i) strata[i] = i;
    for (std::size_t i = n; i > 1; --i) std::swap(strata[i - 1], strata[draw(rng, i)]);
    const std::size_t k = axes[a].values.size();
    for (std::size_t i = 0; i < n; ++i) {
      // A uniform position inside the stratum, mapped onto the value list.
      const double u = static_cast<double>(rng() >> 11) / static_cast<double>(1ULL << 53);
      const double position = (static_cast<double>(strata[i]) + u) / static_cast<double>(n);
      points[i][a] = std::min(k - 1, static_cast<std::size_t>(position * static_cast<double>(k)));
    }
  }
  return points;
}

nlohmann::json full_config(const SweepSpec& spec, const std::vector<SweepAxis>& axes, const Coordinates& c) {
  std::vector<std::string> overrides = spec.overrides;
  for (std::size_t a = 0; a < axes.size(); ++a) overrides.push_back(axes[a].key + "=" + axes[a].values[c[a]]);
  PlatformParams params;
  try {
    params = load_platform_params(spec.config_files, overrides);
  } catch (const core::ConfigError& e) {
    // Name the sweep's values: the message names the key, the point says which combination.
    std::string point;
    for (std::size_t a = 0; a < axes.size(); ++a) point += (a ? " " : "") + axes[a].key + "=" + axes[a].values[c[a]];
    throw std::runtime_error(std::string(e.what()) + (axes.empty() ? "" : " (sweep point " + point + ")"));
  }
  core::JsonParamWriter writer;
  params.visit(writer);
  return writer.json();
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
  // A name of its own in the same directory (the rename must not cross file systems), so that two writers (a merge
  // job and a merge by hand) never share the partial file.
  std::string partial = path + ".XXXXXX";
  const int fd = ::mkstemp(partial.data());
  if (fd < 0) throw std::runtime_error("sweep: cannot write '" + path + "': " + std::strerror(errno));
  const char* data = text.data();
  std::size_t left = text.size();
  bool ok = true;
  while (ok && left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) data += n, left -= static_cast<std::size_t>(n);
  }
  ok = ::fchmod(fd, 0644) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  std::error_code ec;
  if (ok) fs::rename(partial, path, ec);
  if (!ok || ec) {
    fs::remove(partial, ec);
    throw std::runtime_error("sweep: cannot write '" + path + "'");
  }
}

const std::vector<SweepWorkloadInfo>& sweep_workloads() { return workload_registry(); }
void set_sweep_workloads(std::vector<SweepWorkloadInfo> workloads) { workload_registry() = std::move(workloads); }

std::string sha256_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("sweep: SHA-256 failed (OpenSSL)");
  }
  static const char* kHex = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

SweepPlan make_sweep_plan(const SweepSpec& spec) {
  SweepPlan plan;
  if (spec.varies.empty()) throw std::runtime_error("nothing to sweep: give --vary KEY=V1,V2,...");
  if (spec.sample > kMaxSweepPoints) {
    throw std::runtime_error("--sample " + std::to_string(spec.sample) + ": at most " +
                             std::to_string(kMaxSweepPoints) + " points");
  }
  if (spec.sample_method != "random" && spec.sample_method != "lhs") {
    throw std::runtime_error("--sample-method '" + spec.sample_method + "': expected random or lhs");
  }
  plan.space_size = 1;
  for (const std::string& v : spec.varies) {
    SweepAxis axis = parse_vary(v);
    for (const SweepAxis& other : plan.axes) {
      if (other.key == axis.key) throw std::runtime_error("--vary " + axis.key + ": the key is varied twice");
    }
    // Each value alone against the base first: an unknown key or a bad value is named before anything expands.
    for (const std::string& value : axis.values) full_config(spec, {SweepAxis{axis.key, {value}}}, {0});
    const std::uint64_t n = axis.values.size();
    plan.space_size = plan.space_size > UINT64_MAX / n ? UINT64_MAX : plan.space_size * n;  // saturates
    plan.axes.push_back(std::move(axis));
  }
  plan.workload = resolve_workload(spec.workload);
  if (spec.metrics.empty()) throw std::runtime_error("no metric: give --metric NAME (a statistic, or sim_time_ps)");
  for (std::size_t i = 0; i < spec.metrics.size(); ++i) {
    if (std::find(spec.metrics.begin(), spec.metrics.begin() + static_cast<std::ptrdiff_t>(i), spec.metrics[i]) !=
        spec.metrics.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw std::runtime_error("--metric " + spec.metrics[i] + ": given twice");
    }
  }
  plan.metrics = spec.metrics;

  std::set<std::string> ids;
  // The point at c, unless one with the same configuration was made: values that configure the same platform
  // (1GHz and 1000MHz) are one point, and a sample may draw one twice.
  const auto make = [&](const Coordinates& c, SweepPoint& point) {
    point.config = full_config(spec, plan.axes, c);
    for (std::size_t a = 0; a < plan.axes.size(); ++a) point.values.push_back(plan.axes[a].values[c[a]]);
    // The id is the content: the configuration the point runs with (every key) and what it runs.
    point.id = sha256_hex("gpuvp sweep point 1\nconfig " + point.config.dump() + "\nworkload " + plan.workload.identity)
                   .substr(0, 16);
    return ids.insert(point.id).second;
  };
  const auto add = [&](const Coordinates& c) {
    SweepPoint point;
    if (make(c, point)) plan.points.push_back(std::move(point));
  };
  if (spec.sample > 0 && spec.sample < plan.space_size && spec.sample_method == "random") {
    // Each key's value drawn on its own (a space past 2^64 points samples as fairly as a small one) until N distinct
    // configurations, or enough draws to say the space has fewer; kept in the order of the full expansion.
    std::mt19937_64 rng(spec.seed);
    std::map<Coordinates, SweepPoint> drawn;
    for (std::uint64_t attempt = 0; drawn.size() < spec.sample && attempt < 64 * spec.sample + 1000; ++attempt) {
      Coordinates c(plan.axes.size());
      for (std::size_t a = 0; a < plan.axes.size(); ++a) {
        c[a] = static_cast<std::size_t>(draw(rng, plan.axes[a].values.size()));
      }
      if (drawn.count(c) != 0) continue;
      SweepPoint point;
      if (make(c, point)) drawn.emplace(c, std::move(point));
    }
    for (auto& [c, point] : drawn) plan.points.push_back(std::move(point));
    return plan;
  }
  for (const Coordinates& c : expand(plan.axes, plan.space_size, spec)) add(c);
  return plan;
}

nlohmann::json sweep_plan_json(const SweepPlan& plan) {
  nlohmann::json doc;
  doc["schema"] = "gpuvp-sweep-plan";
  doc["schema_version"] = 1;
  doc["workload"] = {{"name", plan.workload.name}, {"identity", plan.workload.identity}};
  if (!plan.workload.base_dir.empty()) doc["workload"]["base_dir"] = plan.workload.base_dir;
  if (!plan.workload.script_file.empty()) doc["workload"]["script_file"] = plan.workload.script_file;
  doc["metrics"] = plan.metrics;
  doc["space_size"] = plan.space_size;
  doc["axes"] = nlohmann::json::array();
  for (const SweepAxis& a : plan.axes) doc["axes"].push_back({{"key", a.key}, {"values", a.values}});
  doc["points"] = nlohmann::json::array();
  for (const SweepPoint& p : plan.points) doc["points"].push_back({{"id", p.id}, {"values", p.values}});
  return doc;
}

void write_sweep_plan(const SweepPlan& plan, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "points", ec);
  if (ec) throw std::runtime_error("sweep: cannot create '" + dir + "/points': " + ec.message());
  if (!plan.workload.script_file.empty()) {
    fs::create_directories(fs::path(dir) / "workloads", ec);
    write_file_atomically((fs::path(dir) / plan.workload.script_file).string(), plan.workload.script_text);
  }
  for (const SweepPoint& p : plan.points) {
    const fs::path point_dir = fs::path(dir) / "points" / p.id;
    fs::create_directories(point_dir, ec);
    if (ec) throw std::runtime_error("sweep: cannot create '" + point_dir.string() + "': " + ec.message());
    // The id hashes the configuration and the workload: files already there (a resumed sweep) hold the same.
    if (!fs::exists(point_dir / "config.json")) {
      write_file_atomically((point_dir / "config.json").string(), p.config.dump(2) + "\n");
    }
    if (!fs::exists(point_dir / "point.json")) {
      SweepPlan one;
      one.workload = plan.workload;
      one.metrics = plan.metrics;
      one.space_size = 1;
      for (std::size_t a = 0; a < plan.axes.size(); ++a) one.axes.push_back({plan.axes[a].key, {p.values[a]}});
      one.points.push_back({p.id, p.values, {}});
      write_file_atomically((point_dir / "point.json").string(), sweep_plan_json(one).dump(2) + "\n");
    }
  }
  write_file_atomically((fs::path(dir) / "plan.json").string(), sweep_plan_json(plan).dump(2) + "\n");
}

namespace {
SweepPlan read_plan_file(const std::string& dir, const std::string& path);
}  // namespace

SweepPlan read_sweep_plan(const std::string& dir) {
  return read_plan_file(dir, (fs::path(dir) / "plan.json").string());
}

SweepPlan read_sweep_point(const std::string& dir, const std::string& id) {
  const fs::path path = fs::path(dir) / "points" / id / "point.json";
  std::error_code ec;
  if (id.size() != 16 || id.find_first_not_of("0123456789abcdef") != std::string::npos || !fs::exists(path, ec)) {
    throw std::runtime_error("--run-point " + id + ": no such point in '" + dir + "'");
  }
  SweepPlan plan = read_plan_file(dir, path.string());
  if (plan.points.size() != 1 || plan.points[0].id != id) {
    throw std::runtime_error("sweep point '" + path.string() + "': not the point " + id);
  }
  return plan;
}

namespace {
SweepPlan read_plan_file(const std::string& dir, const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(read_text(path, "sweep plan"));
    if (doc.value("schema", "") != "gpuvp-sweep-plan" || doc.value("schema_version", 0) != 1) {
      throw std::runtime_error("not a gpuvp sweep plan of schema version 1");
    }
    SweepPlan plan;
    plan.workload.name = doc.at("workload").at("name").get<std::string>();
    plan.workload.identity = doc.at("workload").at("identity").get<std::string>();
    plan.workload.base_dir = doc.at("workload").value("base_dir", "");
    plan.workload.script_file = doc.at("workload").value("script_file", "");
    plan.metrics = doc.at("metrics").get<std::vector<std::string>>();
    plan.space_size = doc.at("space_size").get<std::uint64_t>();
    for (const auto& a : doc.at("axes")) {
      plan.axes.push_back({a.at("key").get<std::string>(), a.at("values").get<std::vector<std::string>>()});
    }
    std::set<std::string> ids;
    for (const auto& p : doc.at("points")) {
      SweepPoint point{p.at("id").get<std::string>(), p.at("values").get<std::vector<std::string>>(), {}};
      // Ids name directories: 16 hex digits, each once.
      if (point.id.size() != 16 || point.id.find_first_not_of("0123456789abcdef") != std::string::npos) {
        throw std::runtime_error("point id '" + point.id + "' is not 16 hex digits");
      }
      if (!ids.insert(point.id).second) throw std::runtime_error("point " + point.id + " is listed twice");
      if (point.values.size() != plan.axes.size()) throw std::runtime_error("point " + point.id + ": wrong values");
      plan.points.push_back(std::move(point));
    }
    if (!plan.workload.script_file.empty()) {
      plan.workload.script_text = read_text((fs::path(dir) / plan.workload.script_file).string(), "sweep workload");
    }
    return plan;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("sweep plan '" + path + "': " + e.what());
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    if (what.find(path) != std::string::npos) throw;
    throw std::runtime_error("sweep plan '" + path + "': " + what);
  }
}
}  // namespace

}  // namespace gpuvp::platform
