#include "tlm/core/config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "tlm/core/report.h"

namespace gpuvp::core {

bool parse_u64(const std::string& raw, std::uint64_t& value) {
  std::string text;
  for (char c : raw) {
    if (c != '_') text += c;
  }
  if (text.empty()) return false;
  std::uint64_t multiplier = 1;
  static const std::pair<const char*, std::uint64_t> kSuffixes[] = {
      {"KiB", 1ULL << 10}, {"MiB", 1ULL << 20}, {"GiB", 1ULL << 30}, {"K", 1ULL << 10}, {"M", 1ULL << 20},
      {"G", 1ULL << 30}};
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (!hex) {
    for (const auto& [suffix, mult] : kSuffixes) {
      const std::size_t n = std::char_traits<char>::length(suffix);
      if (text.size() > n && text.compare(text.size() - n, n, suffix) == 0) {
        multiplier = mult;
        text.resize(text.size() - n);
        break;
      }
    }
  }
  const std::size_t start = hex ? 2 : 0;
  if (start >= text.size()) return false;
  std::uint64_t v = 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    unsigned digit;
    if (c >= '0' && c <= '9') {
      digit = static_cast<unsigned>(c - '0');
    } else if (hex && std::isxdigit(static_cast<unsigned char>(c))) {
      digit = static_cast<unsigned>(std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    } else {
      return false;
    }
    const unsigned base = hex ? 16 : 10;
    if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / base) return false;
    v = v * base + digit;
  }
  if (multiplier != 1 && v > std::numeric_limits<std::uint64_t>::max() / multiplier) return false;
  value = v * multiplier;
  return true;
}

// ---- YamlBinder ----

YamlBinder::YamlBinder(const YAML::Node& root) : root_(root) {
  if (root_.IsDefined() && !root_.IsNull() && !root_.IsMap()) {
    throw ConfigError("config: the top level must be a mapping of keys");
  }
  stack_.push_back({root_, "", {}});
}

std::string YamlBinder::path_of(const char* key) const {
  const std::string& prefix = stack_.back().path;
  return prefix.empty() ? std::string(key) : prefix + "." + key;
}

YAML::Node YamlBinder::lookup(const char* key) {
  Level& level = stack_.back();
  level.declared.emplace_back(key);
  const YAML::Node& node = level.node;  // const access: never inserts
  if (!node.IsDefined() || !node.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  YAML::Node value = node[key];
  if (value.IsDefined() && !value.IsScalar()) {
    throw ConfigError("config key '" + path_of(key) + "': expected a single value, not a " +
                      (value.IsMap() ? "mapping" : value.IsSequence() ? "list" : "null"));
  }
  return value;
}

void YamlBinder::param(const char* key, std::uint64_t& value, const char*, std::uint64_t min, std::uint64_t max) {
  YAML::Node node = lookup(key);
  if (!node.IsDefined()) return;
  std::uint64_t v;
  if (!parse_u64(node.Scalar(), v)) {
    throw ConfigError("config key '" + path_of(key) + "': expected an unsigned integer, got '" + node.Scalar() + "'");
  }
  if (v < min || v > max) {
    throw ConfigError("config key '" + path_of(key) + "': value " + node.Scalar() + " is out of range [" +
                      std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  value = v;
}

void YamlBinder::param(const char* key, bool& value, const char*) {
  YAML::Node node = lookup(key);
  if (!node.IsDefined()) return;
  std::string s = node.Scalar();
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s == "true" || s == "yes" || s == "on" || s == "1") {
    value = true;
  } else if (s == "false" || s == "no" || s == "off" || s == "0") {
    value = false;
  } else {
    throw ConfigError("config key '" + path_of(key) + "': expected true or false, got '" + node.Scalar() + "'");
  }
}

void YamlBinder::param(const char* key, double& value, const char*, double min, double max) {
  YAML::Node node = lookup(key);
  if (!node.IsDefined()) return;
  const std::string& s = node.Scalar();
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) {
    throw ConfigError("config key '" + path_of(key) + "': expected a number, got '" + s + "'");
  }
  if (v < min || v > max) {
    std::ostringstream msg;
    msg << "config key '" << path_of(key) << "': value " << s << " is out of range [" << min << ", " << max << "]";
    throw ConfigError(msg.str());
  }
  value = v;
}

void YamlBinder::param(const char* key, std::string& value, const char*, const std::vector<std::string>& choices) {
  YAML::Node node = lookup(key);
  if (!node.IsDefined()) return;
  const std::string& s = node.Scalar();
  if (!choices.empty() && std::find(choices.begin(), choices.end(), s) == choices.end()) {
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
    throw ConfigError("config key '" + path_of(key) + "': '" + s + "' is not one of: " + list);
  }
  value = s;
}

void YamlBinder::begin_group(const char* key, const char*) {
  const std::string path = path_of(key);
  Level& parent = stack_.back();
  parent.declared.emplace_back(key);
  YAML::Node node(YAML::NodeType::Undefined);
  const YAML::Node& pnode = parent.node;
  if (pnode.IsDefined() && pnode.IsMap()) {
    YAML::Node child = pnode[key];
    if (child.IsDefined() && !child.IsNull()) {
      if (!child.IsMap()) throw ConfigError("config key '" + path + "': expected a mapping of keys");
      node.reset(child);
    }
  }
  stack_.push_back({node, path, {}});
}

void YamlBinder::end_group() {
  Level level = stack_.back();
  stack_.pop_back();
  check_unknown(level);
}

void YamlBinder::check_unknown(const Level& level) {
  if (!level.node.IsDefined() || !level.node.IsMap()) return;
  for (const auto& kv : level.node) {
    const std::string key = kv.first.Scalar();
    if (std::find(level.declared.begin(), level.declared.end(), key) == level.declared.end()) {
      throw ConfigError("config key '" + (level.path.empty() ? key : level.path + "." + key) + "': unknown key");
    }
  }
}

// ---- YamlDocWriter ----

namespace {
// A string as a YAML scalar that reads back as the same text: plain when that is unambiguous, otherwise
// double-quoted (a JSON string is a valid YAML double-quoted scalar).
std::string yaml_scalar(const std::string& s) {
  bool plain = !s.empty() && s.front() != '-' && s != "null" && s != "Null" && s != "NULL";
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' && c != '/' && c != '+') {
      plain = false;
    }
  }
  return plain ? s : nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace

void YamlDocWriter::line(const char* key, const std::string& value, const std::string& doc) {
  out_ += std::string(static_cast<std::size_t>(depth_ * 2), ' ') + key + ": " + value;
  if (!doc.empty()) out_ += "  # " + doc;
  out_ += '\n';
}

void YamlDocWriter::param(const char* key, std::uint64_t& value, const char* doc, std::uint64_t min,
                          std::uint64_t max) {
  std::string range;
  if (min != 0 || max != std::numeric_limits<std::uint64_t>::max()) {
    range = " [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  }
  // Addresses and sizes read better in hex.
  const bool hex_value = value >= 0x10000 && (value & 0xFFF) == 0;
  line(key, hex_value ? format_hex(value) : std::to_string(value), std::string(doc) + range);
}

void YamlDocWriter::param(const char* key, bool& value, const char* doc) { line(key, value ? "true" : "false", doc); }

void YamlDocWriter::param(const char* key, double& value, const char* doc, double min, double max) {
  std::ostringstream d;
  d << doc << " [" << min << ", " << max << "]";
  // Shortest text that reads back as the same double (an ostream's default 6 digits would round).
  line(key, nlohmann::json(value).dump(), d.str());
}

void YamlDocWriter::param(const char* key, std::string& value, const char* doc,
                          const std::vector<std::string>& choices) {
  std::string d = doc;
  if (!choices.empty()) {
    d += " (";
    for (std::size_t i = 0; i < choices.size(); ++i) d += (i ? " | " : "") + choices[i];
    d += ")";
  }
  line(key, yaml_scalar(value), d);
}

void YamlDocWriter::begin_group(const char* key, const char* doc) {
  out_ += std::string(static_cast<std::size_t>(depth_ * 2), ' ') + key + ":";
  if (doc && *doc) out_ += "  # " + std::string(doc);
  out_ += '\n';
  ++depth_;
}

void YamlDocWriter::end_group() { --depth_; }

// ---- JsonParamWriter ----

nlohmann::json& JsonParamWriter::current() {
  nlohmann::json* j = &root_;
  for (const auto& p : path_) j = &(*j)[p];
  return *j;
}

void JsonParamWriter::param(const char* key, std::uint64_t& value, const char*, std::uint64_t, std::uint64_t) {
  current()[key] = value;
}
void JsonParamWriter::param(const char* key, bool& value, const char*) { current()[key] = value; }
void JsonParamWriter::param(const char* key, double& value, const char*, double, double) { current()[key] = value; }
void JsonParamWriter::param(const char* key, std::string& value, const char*, const std::vector<std::string>&) {
  current()[key] = value;
}
void JsonParamWriter::begin_group(const char* key, const char*) {
  path_.emplace_back(key);
  current() = nlohmann::json::object();
}
void JsonParamWriter::end_group() { path_.pop_back(); }

// ---- ConfigTree ----

void ConfigTree::load_text(const std::string& text, const std::string& origin) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError("config file '" + origin + "': " + e.what());
  }
  if (doc.IsNull() || !doc.IsDefined()) return;  // an empty file changes nothing
  if (!doc.IsMap()) throw ConfigError("config file '" + origin + "': the top level must be a mapping of keys");
  // Later documents override earlier ones key by key.
  merge(root_, doc);
}

void ConfigTree::merge(YAML::Node target, const YAML::Node& source) {
  for (const auto& kv : source) {
    const std::string key = kv.first.Scalar();
    const YAML::Node& value = kv.second;
    const YAML::Node& ctarget = target;
    if (value.IsMap() && ctarget[key].IsDefined() && ctarget[key].IsMap()) {
      merge(target[key], value);
    } else {
      target[key] = YAML::Clone(value);
    }
  }
}

void ConfigTree::load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("config file '" + path + "': cannot be read");
  std::stringstream buf;
  buf << in.rdbuf();
  load_text(buf.str(), path);
}

void ConfigTree::apply_override(const std::string& assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError("--set '" + assignment + "': expected key.path=value");
  }
  const std::string key = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  std::vector<std::string> parts;
  std::stringstream ss(key);
  for (std::string part; std::getline(ss, part, '.');) {
    if (part.empty()) throw ConfigError("--set '" + assignment + "': empty component in key path");
    parts.push_back(part);
  }
  if (key.back() == '.') throw ConfigError("--set '" + assignment + "': empty component in key path");
  YAML::Node cur = root_;
  std::string path;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    path += (i ? "." : "") + parts[i];
    const YAML::Node& ccur = cur;
    YAML::Node child = ccur[parts[i]];
    if (!child.IsDefined() || child.IsNull()) {
      cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
    } else if (!child.IsMap()) {
      throw ConfigError("config key '" + path + "': expected a mapping of keys, cannot set '" + key + "'");
    }
    YAML::Node next = cur[parts[i]];
    cur.reset(next);
  }
  cur[parts.back()] = value;
}

}  // namespace gpuvp::core
