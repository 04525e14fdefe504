// Configuration: typed parameter structs filled from YAML. Each params struct lists its parameters once in a
// visit(ParamVisitor&) member; the same list drives loading (with full-key-path errors for unknown keys, wrong types
// and out-of-range values), `--set a.b.c=value` overrides, the documented defaults and the echo of the values used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace gpuvp::core {

// Any problem with host-provided configuration; what() is one line naming the full key path. The message is made one
// line whatever the input put in it (a key or value with control characters shows them as \xNN) and at most
// kMaxConfigErrorBytes long.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& message);
};
inline constexpr std::size_t kMaxConfigErrorBytes = 1024;

class ParamVisitor {
 public:
  virtual ~ParamVisitor() = default;
  virtual void param(const char* key, std::uint64_t& value, const char* doc, std::uint64_t min = 0,
                     std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) = 0;
  virtual void param(const char* key, bool& value, const char* doc) = 0;
  virtual void param(const char* key, double& value, const char* doc, double min, double max) = 0;
  // choices empty = any string.
  virtual void param(const char* key, std::string& value, const char* doc,
                     const std::vector<std::string>& choices = {}) = 0;
  void param(const char* key, std::uint32_t& value, const char* doc, std::uint32_t min = 0,
             std::uint32_t max = std::numeric_limits<std::uint32_t>::max()) {
    std::uint64_t wide = value;
    param(key, wide, doc, min, max);
    value = static_cast<std::uint32_t>(wide);
  }

  template <typename Params>
  void group(const char* key, Params& params, const char* doc) {
    begin_group(key, doc);
    params.visit(*this);
    end_group();
  }

 protected:
  virtual void begin_group(const char* key, const char* doc) = 0;
  virtual void end_group() = 0;
};

// Parses a number as written in configs, scripts and the CLI: decimal or 0x hex, '_' separators allowed, the
// binary size suffixes K/KiB, M/MiB, G/GiB, TiB and the decimal ones KB, MB, GB, TB; before a suffix a decimal
// fraction is allowed when the result is whole (1.5KiB = 1536). Returns false if the text is not such a number or
// overflows, leaving value alone.
bool parse_u64(const std::string& text, std::uint64_t& value);
// A frequency: whole Hz (decimal or 0x hex) or a number with Hz/kHz/MHz/GHz (any case; 1.2GHz, 800MHz, 100kHz)
// that is a whole number of Hz.
bool parse_frequency(const std::string& text, std::uint64_t& hz);
// Unsigned parameters whose key ends in "_hz" are frequencies: the binder reads them with parse_frequency and the
// YAML writer prints them with a unit.
bool is_frequency_key(const std::string& key);
// The shortest exact spelling with the largest unit not above the value: 1GHz, 1.2GHz, 250MHz, 32768Hz.
std::string format_frequency(std::uint64_t hz);

// Levenshtein distance: how near a mistyped name is to a known one (the suggestions of config and CLI errors).
std::size_t edit_distance(const std::string& a, const std::string& b);

// Fills a params struct from a YAML tree. Throws ConfigError on the first problem.
class YamlBinder : public ParamVisitor {
 public:
  explicit YamlBinder(const YAML::Node& root);

  template <typename Params>
  void bind(Params& params) {
    params.visit(*this);
    finished_.push_back(stack_.front());
    check_unknown();
  }

  using ParamVisitor::param;
  void param(const char* key, std::uint64_t& value, const char* doc, std::uint64_t min, std::uint64_t max) override;
  void param(const char* key, bool& value, const char* doc) override;
  void param(const char* key, double& value, const char* doc, double min, double max) override;
  void param(const char* key, std::string& value, const char* doc, const std::vector<std::string>& choices) override;

 protected:
  void begin_group(const char* key, const char* doc) override;
  void end_group() override;

 private:
  struct Level {
    YAML::Node node;  // null when the group is absent from the YAML
    std::string path;
    std::vector<std::string> declared;
  };
  // The scalar for key in the current group, or an undefined node if absent.
  YAML::Node lookup(const char* key);
  std::string path_of(const char* key) const;
  // Unknown keys are looked for once every key is known, so that the error can suggest the nearest known key.
  void check_unknown() const;
  std::string suggestion(const std::string& path, bool group) const;

  YAML::Node root_;
  std::vector<Level> stack_;
  std::vector<Level> finished_;
  std::vector<std::string> known_params_;  // full paths
  std::vector<std::string> known_groups_;
};

// Writes the parameters as commented YAML (the documented defaults when run on a default-constructed struct).
class YamlDocWriter : public ParamVisitor {
 public:
  using ParamVisitor::param;
  void param(const char* key, std::uint64_t& value, const char* doc, std::uint64_t min, std::uint64_t max) override;
  void param(const char* key, bool& value, const char* doc) override;
  void param(const char* key, double& value, const char* doc, double min, double max) override;
  void param(const char* key, std::string& value, const char* doc, const std::vector<std::string>& choices) override;
  std::string text() const { return out_; }

 protected:
  void begin_group(const char* key, const char* doc) override;
  void end_group() override;

 private:
  void line(const char* key, const std::string& value, const std::string& doc);
  std::string out_;
  int depth_ = 0;
};

// The values as a JSON object (recorded with statistics so a sweep's results name their configuration).
class JsonParamWriter : public ParamVisitor {
 public:
  using ParamVisitor::param;
  void param(const char* key, std::uint64_t& value, const char* doc, std::uint64_t min, std::uint64_t max) override;
  void param(const char* key, bool& value, const char* doc) override;
  void param(const char* key, double& value, const char* doc, double min, double max) override;
  void param(const char* key, std::string& value, const char* doc, const std::vector<std::string>& choices) override;
  const nlohmann::json& json() const { return root_; }

 protected:
  void begin_group(const char* key, const char* doc) override;
  void end_group() override;

 private:
  nlohmann::json& current();
  nlohmann::json root_ = nlohmann::json::object();
  std::vector<std::string> path_;
};

// A configuration document: YAML files (or texts) plus --set overrides, applied in order (later ones override
// earlier ones key by key).
class ConfigTree {
 public:
  ConfigTree() : root_(YAML::NodeType::Map) {}
  // Throws ConfigError naming the file and the YAML problem; a key given twice in one mapping is such a problem
  // (yaml-cpp keeps the first silently).
  void load_file(const std::string& path);
  void load_text(const std::string& text, const std::string& origin);
  // "a.b.c=value": creates the path as needed; the value is kept as text and typed when bound.
  void apply_override(const std::string& assignment);
  const YAML::Node& root() const { return root_; }

  template <typename Params>
  void bind(Params& params) const {
    YamlBinder binder(root_);
    binder.bind(params);
  }

 private:
  static void merge(YAML::Node target, const YAML::Node& source);
  static void check_duplicates(const YAML::Node& map, const std::string& path, const std::string& origin);
  YAML::Node root_;
};

}  // namespace gpuvp::core
