#include "tlm/core/config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tlm/core/report.h"

namespace gpuvp::core {

namespace {

struct Unit {
  const char* suffix;
  std::uint64_t multiplier;
};

// Binary sizes (IEC, and the bare letters for them), decimal sizes (SI), frequencies. Longest suffix first where
// one ends another.
constexpr Unit kSizeUnits[] = {
    {"KiB", 1ULL << 10}, {"MiB", 1ULL << 20},  {"GiB", 1ULL << 30},      {"TiB", 1ULL << 40},
    {"KB", 1'000ULL},    {"MB", 1'000'000ULL}, {"GB", 1'000'000'000ULL}, {"TB", 1'000'000'000'000ULL},
    {"K", 1ULL << 10},   {"M", 1ULL << 20},    {"G", 1ULL << 30}};
constexpr Unit kFrequencyUnits[] = {{"kHz", 1'000ULL}, {"MHz", 1'000'000ULL}, {"GHz", 1'000'000'000ULL}, {"Hz", 1ULL}};

bool ends_with(const std::string& text, const std::string& suffix, bool ignore_case) {
  if (text.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    char a = text[text.size() - suffix.size() + i], b = suffix[i];
    if (ignore_case) {
      a = static_cast<char>(std::tolower(static_cast<unsigned char>(a)));
      b = static_cast<char>(std::tolower(static_cast<unsigned char>(b)));
    }
    if (a != b) return false;
  }
  return true;
}

// Digits only, in base 10 or 16, without overflow.
bool parse_digits(const std::string& text, unsigned base, std::uint64_t& value) {
  if (text.empty()) return false;
  std::uint64_t v = 0;
  for (const char c : text) {
    unsigned digit;
    if (c >= '0' && c <= '9') {
      digit = static_cast<unsigned>(c - '0');
    } else if (base == 16 && std::isxdigit(static_cast<unsigned char>(c))) {
      digit = static_cast<unsigned>(std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    } else {
      return false;
    }
    if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / base) return false;
    v = v * base + digit;
  }
  value = v;
  return true;
}

// A number with an optional unit: 0x hex (no unit), or decimal digits, with a decimal fraction only before a unit
// that scales it (1.5GiB, 1.2GHz); the result must be a whole number. '_' separators are ignored.
template <std::size_t N>
bool parse_with_units(const std::string& raw, const Unit (&units)[N], bool ignore_case, std::uint64_t& value) {
  std::string text;
  for (const char c : raw) {
    if (c != '_') text += c;
  }
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return parse_digits(text.substr(2), 16, value);
  }
  std::uint64_t multiplier = 1;
  bool has_unit = false;
  for (const Unit& unit : units) {
    const std::string suffix = unit.suffix;
    if (text.size() > suffix.size() && ends_with(text, suffix, ignore_case)) {
      multiplier = unit.multiplier;
      has_unit = true;
      text.resize(text.size() - suffix.size());
      break;
    }
  }
  const std::size_t dot = text.find('.');
  std::uint64_t whole = 0;
  if (!parse_digits(text.substr(0, dot), 10, whole)) return false;
  unsigned __int128 result = static_cast<unsigned __int128>(whole) * multiplier;
  if (dot != std::string::npos) {
    const std::string fraction = text.substr(dot + 1);
    std::uint64_t digits = 0;
    // A fraction needs a unit to scale it; 18 digits keep 10^digits within 64 bits.
    if (!has_unit || multiplier == 1 || fraction.size() > 18 || !parse_digits(fraction, 10, digits)) return false;
    std::uint64_t scale = 1;
    for (std::size_t i = 0; i < fraction.size(); ++i) scale *= 10;
    const unsigned __int128 scaled = static_cast<unsigned __int128>(digits) * multiplier;
    if (scaled % scale != 0) return false;  // not a whole number of the base unit
    result += scaled / scale;
  }
  if (result > std::numeric_limits<std::uint64_t>::max()) return false;
  value = static_cast<std::uint64_t>(result);
  return true;
}

}  // namespace

bool parse_u64(const std::string& text, std::uint64_t& value) {
  return parse_with_units(text, kSizeUnits, false, value);
}

bool parse_frequency(const std::string& text, std::uint64_t& hz) {
  return parse_with_units(text, kFrequencyUnits, true, hz);
}

bool is_frequency_key(const std::string& key) { return ends_with(key, "_hz", false); }

std::string format_frequency(std::uint64_t hz) {
  for (const Unit& unit : {Unit{"GHz", 1'000'000'000ULL}, Unit{"MHz", 1'000'000ULL}, Unit{"kHz", 1'000ULL}}) {
    if (hz < unit.multiplier) continue;
    // The multipliers above are constants; the analyser does not follow the initializer list into the loop.
    std::string text = std::to_string(hz / unit.multiplier);  // NOLINT(clang-analyzer-core.DivideZero)
    std::uint64_t rest = hz % unit.multiplier;
    if (rest != 0) {
      std::string fraction = std::to_string(unit.multiplier + rest).substr(1);  // zero-padded
      while (fraction.back() == '0') fraction.pop_back();
      text += "." + fraction;
    }
    return text + unit.suffix;
  }
  return std::to_string(hz) + "Hz";
}

// ---- YamlBinder ----

YamlBinder::YamlBinder(const YAML::Node& root) : root_(root) {
  if (root_.IsDefined() && !root_.IsNull() && !root_.IsMap()) {
    throw ConfigError("config: the top level must be a mapping of keys");
  }
  stack_.push_back({root_, "", {}});
}

namespace {
// A value as an error message shows it: cut short, so that a one-line error stays one readable line whatever the
// input (a 50 MB value is not echoed).
std::string shown(const std::string& value, std::size_t limit = 64) {
  if (value.size() <= limit) return value;
  return value.substr(0, limit) + "... (" + std::to_string(value.size()) + " bytes)";
}

// Control characters print as \xNN, so that a message stays one line (found by fuzz_config: yaml-cpp's messages quote
// the offending character, and unknown keys are echoed as the file spells them).
std::string one_line(const std::string& message) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < message.size() && out.size() < kMaxConfigErrorBytes; ++i) {
    const auto c = static_cast<unsigned char>(message[i]);
    if (c >= 0x20 && c != 0x7F) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
  }
  if (out.size() >= kMaxConfigErrorBytes) out = out.substr(0, kMaxConfigErrorBytes - 3) + "...";
  return out;
}
}  // namespace

ConfigError::ConfigError(const std::string& message) : std::runtime_error(one_line(message)) {}

std::string YamlBinder::path_of(const char* key) const {
  const std::string& prefix = stack_.back().path;
  return prefix.empty() ? std::string(key) : prefix + "." + key;
}

YAML::Node YamlBinder::lookup(const char* key) {
  Level& level = stack_.back();
  level.declared.emplace_back(key);
  known_params_.push_back(path_of(key));
  const YAML::Node& node = level.node;  // const access: never inserts
  if (!node.IsDefined() || !node.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  YAML::Node value = node[key];
  if (value.IsDefined() && !value.IsScalar()) {
    throw ConfigError("config key '" + path_of(key) + "': expected a single value, not a " +
                      (value.IsMap()        ? "mapping"
                       : value.IsSequence() ? "list"
                                            : "null"));
  }
  return value;
}

void YamlBinder::param(const char* key, std::uint64_t& value, const char*, std::uint64_t min, std::uint64_t max) {
  YAML::Node node = lookup(key);
  if (!node.IsDefined()) return;
  std::uint64_t v;
  const bool frequency = is_frequency_key(key);
  if (frequency && !parse_frequency(node.Scalar(), v)) {
    throw ConfigError("config key '" + path_of(key) +
                      "': expected a whole number of Hz or a frequency with a unit (100kHz, 800MHz, 1.2GHz), got '" +
                      node.Scalar() + "'");
  }
  if (!frequency && !parse_u64(node.Scalar(), v)) {
    throw ConfigError("config key '" + path_of(key) + "': expected an unsigned integer, got '" + shown(node.Scalar()) +
                      "'");
  }
  if (v < min || v > max) {
    const std::string range = frequency ? "[" + format_frequency(min) + ", " + format_frequency(max) + "]"
                                        : "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
    throw ConfigError("config key '" + path_of(key) + "': value " + shown(node.Scalar()) + " is out of range " + range);
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
    throw ConfigError("config key '" + path_of(key) + "': expected true or false, got '" + shown(node.Scalar()) + "'");
  }
}

void YamlBinder::param(const char* key, double& value, const char*, double min, double max) {
  YAML::Node node = lookup(key);
  if (!node.IsDefined()) return;
  const std::string& s = node.Scalar();
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) {
    throw ConfigError("config key '" + path_of(key) + "': expected a number, got '" + shown(s) + "'");
  }
  if (v < min || v > max) {
    std::ostringstream msg;
    msg << "config key '" << path_of(key) << "': value " << shown(s) << " is out of range [" << min << ", " << max
        << "]";
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
    throw ConfigError("config key '" + path_of(key) + "': '" + shown(s) + "' is not one of: " + list);
  }
  value = s;
}

void YamlBinder::begin_group(const char* key, const char*) {
  const std::string path = path_of(key);
  Level& parent = stack_.back();
  parent.declared.emplace_back(key);
  known_groups_.push_back(path);
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
  finished_.push_back(stack_.back());
  stack_.pop_back();
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

namespace {
std::string last_component(const std::string& path) { return path.substr(path.rfind('.') + 1); }
}  // namespace

// The known key nearest to an unknown one: by edit distance over the whole path when that is small (a typo), else
// one whose last component is (nearly) the same (a key in the wrong group), else the only key of the group whose name
// contains it; groups for groups, keys for keys.
std::string YamlBinder::suggestion(const std::string& path, bool group) const {
  const std::vector<std::string>& known = group ? known_groups_ : known_params_;
  const std::size_t typo_limit = std::max<std::size_t>(2, path.size() / 3);
  std::string best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const auto& candidate : known) {
    const std::size_t d = edit_distance(path, candidate);
    const bool near = d <= typo_limit || edit_distance(last_component(path), last_component(candidate)) <= 1;
    if (near && d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  if (!best.empty()) return best;
  // A key missing its unit or qualifier (read_latency for read_latency_cycles): the one key of the same group that
  // contains it, if only one does.
  const std::string parent = path.substr(0, path.size() - last_component(path).size());
  for (const auto& candidate : known) {
    if (candidate.compare(0, parent.size(), parent) != 0 || candidate.find('.', parent.size()) != std::string::npos ||
        last_component(candidate).find(last_component(path)) == std::string::npos) {
      continue;
    }
    if (!best.empty()) return {};  // ambiguous
    best = candidate;
  }
  return best;
}

void YamlBinder::check_unknown() const {
  for (const Level& level : finished_) {
    if (!level.node.IsDefined() || !level.node.IsMap()) continue;
    for (const auto& kv : level.node) {
      const std::string key = kv.first.Scalar();
      if (std::find(level.declared.begin(), level.declared.end(), key) != level.declared.end()) continue;
      const std::string path = level.path.empty() ? key : level.path + "." + key;
      std::string message = "config key '" + path + "': unknown key";
      const std::string nearest = suggestion(path, kv.second.IsMap());
      if (!nearest.empty()) message += ", did you mean '" + nearest + "'?";
      throw ConfigError(message);
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
  const bool bounded = min != 0 || max != std::numeric_limits<std::uint64_t>::max();
  if (is_frequency_key(key)) {
    if (bounded) range = " [" + format_frequency(min) + ", " + format_frequency(max) + "]";
    line(key, format_frequency(value), std::string(doc) + range);
    return;
  }
  if (bounded) range = " [" + std::to_string(min) + ", " + std::to_string(max) + "]";
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
    throw ConfigError("config file '" + origin + "': " + shown(e.what(), 200));
  }
  if (doc.IsNull() || !doc.IsDefined()) return;  // an empty file changes nothing
  if (!doc.IsMap()) throw ConfigError("config file '" + origin + "': the top level must be a mapping of keys");
  check_duplicates(doc, "", origin);
  // Later documents override earlier ones key by key.
  merge(root_, doc);
}

void ConfigTree::check_duplicates(const YAML::Node& map, const std::string& path, const std::string& origin) {
  std::vector<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    const std::string full = path.empty() ? key : path + "." + key;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      throw ConfigError("config file '" + origin + "': key '" + full + "' is given twice (line " +
                        std::to_string(kv.first.Mark().line + 1) + ")");
    }
    seen.push_back(key);
    if (kv.second.IsMap()) check_duplicates(kv.second, full, origin);
  }
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
  // A configuration is a small regular file: a device (/dev/zero) or a huge file is refused before it is read.
  constexpr std::uintmax_t kMaxConfigBytes = 16u << 20;
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw ConfigError("config file '" + path + "': not a regular file");
  }
  std::ifstream in(path);
  if (!in) throw ConfigError("config file '" + path + "': cannot be read");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxConfigBytes) {
    throw ConfigError("config file '" + path + "': " + std::to_string(size) +
                      " bytes, more than the 16 MiB a "
                      "configuration may have");
  }
  std::stringstream buf;
  buf << in.rdbuf();
  load_text(buf.str(), path);
}

void ConfigTree::apply_override(const std::string& assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError("--set '" + shown(assignment) + "': expected key.path=value");
  }
  const std::string key = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  std::vector<std::string> parts;
  std::stringstream ss(key);
  for (std::string part; std::getline(ss, part, '.');) {
    if (part.empty()) throw ConfigError("--set '" + shown(assignment) + "': empty component in key path");
    parts.push_back(part);
  }
  if (key.back() == '.') throw ConfigError("--set '" + shown(assignment) + "': empty component in key path");
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
