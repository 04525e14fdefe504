// Configuration: number parsing, binding YAML to params structs (defaults, errors with full key paths), config
// documents with --set overrides, and the documented-YAML writer round trip.
#include <cstdio>
#include <fstream>
#include <ostream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include "tlm/core/config.h"

using gpuvp::core::ConfigError;
using gpuvp::core::ConfigTree;
using gpuvp::core::format_frequency;
using gpuvp::core::is_frequency_key;
using gpuvp::core::JsonParamWriter;
using gpuvp::core::ParamVisitor;
using gpuvp::core::parse_frequency;
using gpuvp::core::parse_u64;
using gpuvp::core::YamlBinder;
using gpuvp::core::YamlDocWriter;

namespace {

// A params struct with two levels of groups: top -> a -> b.
struct BParams {
  std::uint64_t size = 4096;
  bool enabled = true;
  std::string mode = "fast";

  void visit(ParamVisitor& v) {
    v.param("size", size, "buffer size in bytes", 16, 1ULL << 30);
    v.param("enabled", enabled, "switch b on");
    v.param("mode", mode, "how to run", {"fast", "slow", "exact"});
  }
};

struct AParams {
  std::uint32_t width = 4;
  BParams b;

  void visit(ParamVisitor& v) {
    v.param("width", width, "lanes", 1, 64);
    v.group("b", b, "inner group");
  }
};

struct TestParams {
  std::uint64_t count = 10;
  std::uint32_t big32 = 7;
  bool verbose = false;
  double ratio = 0.5;
  std::string name = "unit";
  AParams a;

  void visit(ParamVisitor& v) {
    v.param("count", count, "how many");
    v.param("big32", big32, "a 32-bit value with the full range");
    v.param("verbose", verbose, "chatty output");
    v.param("ratio", ratio, "a fraction", 0.0, 1.0);
    v.param("name", name, "free-form name");
    v.group("a", a, "outer group");
  }
};

nlohmann::json to_json(TestParams p) {
  JsonParamWriter w;
  p.visit(w);
  return w.json();
}

TestParams bind_text(const std::string& text, TestParams p = {}) {
  YamlBinder binder(YAML::Load(text));
  binder.bind(p);
  return p;
}

// The ConfigError message of binding text, or "no error".
std::string bind_error(const std::string& text) {
  try {
    bind_text(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

std::string override_error(ConfigTree& tree, const std::string& assignment) {
  try {
    tree.apply_override(assignment);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

std::uint64_t parsed(const std::string& text) {
  std::uint64_t v = 0xDEADBEEF;
  EXPECT_TRUE(parse_u64(text, v)) << "'" << text << "' should parse";
  return v;
}

bool rejects(const std::string& text) {
  std::uint64_t v = 0x5A5A;
  const bool ok = parse_u64(text, v);
  EXPECT_EQ(v, 0x5A5Au) << "a rejected parse must leave the value alone ('" << text << "')";
  return !ok;
}

}  // namespace

// ---- parse_u64 ----

TEST(ParseU64, Decimal) {
  EXPECT_EQ(parsed("0"), 0u);
  EXPECT_EQ(parsed("7"), 7u);
  EXPECT_EQ(parsed("1000000"), 1000000u);
  EXPECT_EQ(parsed("007"), 7u);
  EXPECT_EQ(parsed("18446744073709551615"), 18446744073709551615ULL);
}

TEST(ParseU64, Hex) {
  EXPECT_EQ(parsed("0x0"), 0u);
  EXPECT_EQ(parsed("0x10"), 16u);
  EXPECT_EQ(parsed("0xE1000000"), 0xE1000000u);
  EXPECT_EQ(parsed("0xe1000000"), 0xE1000000u);
  EXPECT_EQ(parsed("0XaBcD"), 0xABCDu);
  EXPECT_EQ(parsed("0xFFFFFFFFFFFFFFFF"), ~0ULL);
}

TEST(ParseU64, UnderscoreSeparators) {
  EXPECT_EQ(parsed("1_000_000"), 1000000u);
  EXPECT_EQ(parsed("0xE100_0000"), 0xE1000000u);
  EXPECT_EQ(parsed("0x_ff"), 0xFFu);
  EXPECT_EQ(parsed("1_6MiB"), 16ULL << 20);
}

TEST(ParseU64, BinarySizeSuffixes) {
  EXPECT_EQ(parsed("4KiB"), 4096u);
  EXPECT_EQ(parsed("4K"), 4096u);
  EXPECT_EQ(parsed("16MiB"), 16ULL << 20);
  EXPECT_EQ(parsed("16M"), 16ULL << 20);
  EXPECT_EQ(parsed("2GiB"), 2ULL << 30);
  EXPECT_EQ(parsed("2G"), 2ULL << 30);
  EXPECT_EQ(parsed("0K"), 0u);
  EXPECT_EQ(parsed("1_024KiB"), 1ULL << 20);
  // The largest multiple that fits.
  EXPECT_EQ(parsed("17179869183G"), 17179869183ULL << 30);
}

TEST(ParseU64, DecimalSizeSuffixes) {
  EXPECT_EQ(parsed("4KB"), 4000u);
  EXPECT_EQ(parsed("16MB"), 16'000'000u);
  EXPECT_EQ(parsed("2GB"), 2'000'000'000u);
  EXPECT_EQ(parsed("1TB"), 1'000'000'000'000u);
  EXPECT_EQ(parsed("1TiB"), 1ULL << 40);
  EXPECT_EQ(parsed("1_000KB"), 1'000'000u);
  EXPECT_EQ(parsed("18446744073709551KB"), 18446744073709551000ULL);
  EXPECT_TRUE(rejects("18446744073709552KB"));
}

TEST(ParseU64, FractionsBeforeASuffixWhenTheResultIsWhole) {
  EXPECT_EQ(parsed("1.5KiB"), 1536u);
  EXPECT_EQ(parsed("1.5GiB"), 3ULL << 29);
  EXPECT_EQ(parsed("0.5K"), 512u);
  EXPECT_EQ(parsed("2.25MiB"), 2359296u);
  EXPECT_EQ(parsed("1.5KB"), 1500u);
  EXPECT_EQ(parsed("0.001GB"), 1'000'000u);
  EXPECT_EQ(parsed("1.000KB"), 1000u);
  EXPECT_EQ(parsed("0.000000001GB"), 1u);
  // Not whole bytes.
  EXPECT_TRUE(rejects("1.3KiB"));  // 1331.2
  EXPECT_TRUE(rejects("0.0001KB"));
  EXPECT_TRUE(rejects("1.0000000000000000001GB"));  // more fraction digits than 64 bits can scale
  // The fraction counts towards overflow too.
  EXPECT_EQ(parsed("17179869183.5G"), (17179869183ULL << 30) + (1ULL << 29));
  EXPECT_EQ(parsed("18446744073709551.615KB"), ~0ULL);
  EXPECT_TRUE(rejects("18446744073709551.616KB"));  // 2^64
}

TEST(ParseU64, OverflowIsRejected) {
  EXPECT_TRUE(rejects("18446744073709551616"));
  EXPECT_TRUE(rejects("99999999999999999999"));
  EXPECT_TRUE(rejects("0x10000000000000000"));
  EXPECT_TRUE(rejects("17179869184G"));          // 2^34 GiB = 2^64
  EXPECT_TRUE(rejects("18014398509481984KiB"));  // 2^54 KiB = 2^64
}

TEST(ParseU64, GarbageIsRejected) {
  for (const char* bad :
       {"",      "_",    "__",    "x",   "0x",  "0x_",   "-1",    "+1",     " 1",    "1 ",   "1.5",  "1e3",
        "12abc", "0xfg", "0x10K", "KiB", "K",   "4 KiB", "4kib",  "4k",     "4kB",   "4Ki",  "4T",   "four",
        "0b101", "1.5",  "1.",    ".5K", "1.K", "1..5K", "1.5.K", "0x1.8K", "1.5Hz", "1GHz", "4 KB", "KB"}) {
    EXPECT_TRUE(rejects(bad)) << "'" << bad << "' should be rejected";
  }
}

// ---- frequencies ----

TEST(ParseFrequency, PlainHzAndUnits) {
  auto hz = [](const std::string& text) {
    std::uint64_t v = 0xDEADBEEF;
    EXPECT_TRUE(parse_frequency(text, v)) << "'" << text << "' should parse";
    return v;
  };
  EXPECT_EQ(hz("1000000"), 1'000'000u);
  EXPECT_EQ(hz("1_000_000"), 1'000'000u);
  EXPECT_EQ(hz("0x3B9ACA00"), 1'000'000'000u);
  EXPECT_EQ(hz("1.2GHz"), 1'200'000'000u);
  EXPECT_EQ(hz("800MHz"), 800'000'000u);
  EXPECT_EQ(hz("100kHz"), 100'000u);
  EXPECT_EQ(hz("32768Hz"), 32'768u);
  EXPECT_EQ(hz("32.768kHz"), 32'768u);
  EXPECT_EQ(hz("2.5GHz"), 2'500'000'000u);
  EXPECT_EQ(hz("0.25GHz"), 250'000'000u);
  EXPECT_EQ(hz("1.000000001GHz"), 1'000'000'001u);
  // Units in any case.
  EXPECT_EQ(hz("1.2ghz"), 1'200'000'000u);
  EXPECT_EQ(hz("800MHZ"), 800'000'000u);
  EXPECT_EQ(hz("100KHz"), 100'000u);
  EXPECT_EQ(hz("5hz"), 5u);
  EXPECT_EQ(hz("18446744073.709551615GHz"), ~0ULL);
}

TEST(ParseFrequency, RejectsWhatIsNotAWholeNumberOfHz) {
  for (const char* bad : {"", "GHz", "Hz", "1.2", "1.5Hz", "1.0000000001GHz", "1G", "1GiB", "1M", "1KB", "1 GHz",
                          "1.GHz", ".5GHz", "-1MHz", "1e9", "fast", "0x1GHz", "18446744073.709551616GHz", "1THz"}) {
    std::uint64_t v = 0x5A5A;
    EXPECT_FALSE(parse_frequency(bad, v)) << "'" << bad << "' should be rejected";
    EXPECT_EQ(v, 0x5A5Au) << bad;
  }
}

TEST(FormatFrequency, ShortestExactSpellingReadsBack) {
  EXPECT_EQ(format_frequency(1'000'000'000), "1GHz");
  EXPECT_EQ(format_frequency(1'200'000'000), "1.2GHz");
  EXPECT_EQ(format_frequency(250'000'000), "250MHz");
  EXPECT_EQ(format_frequency(400'000'000), "400MHz");
  EXPECT_EQ(format_frequency(10'000'000'000ULL), "10GHz");
  EXPECT_EQ(format_frequency(1'000'000), "1MHz");
  EXPECT_EQ(format_frequency(32'768), "32.768kHz");
  EXPECT_EQ(format_frequency(1'234'567'891), "1.234567891GHz");
  EXPECT_EQ(format_frequency(999), "999Hz");
  EXPECT_EQ(format_frequency(0), "0Hz");
  for (std::uint64_t v : {1ULL, 999ULL, 1000ULL, 1001ULL, 1'000'000'007ULL, 123'456'789'012ULL, ~0ULL}) {
    std::uint64_t back = 0;
    EXPECT_TRUE(parse_frequency(format_frequency(v), back)) << v;
    EXPECT_EQ(back, v);
  }
}

TEST(FormatFrequency, FrequencyKeysEndInHz) {
  EXPECT_TRUE(is_frequency_key("clock_hz"));
  EXPECT_TRUE(is_frequency_key("ref_hz"));
  EXPECT_FALSE(is_frequency_key("clock"));
  EXPECT_FALSE(is_frequency_key("hz_count"));
  EXPECT_FALSE(is_frequency_key("clock_khz"));
}

namespace {
struct ClockParams {
  std::uint64_t clock_hz = 1'000'000'000;
  std::uint64_t cycles = 5;

  void visit(ParamVisitor& v) {
    v.param("clock_hz", clock_hz, "a clock", 1'000'000, 10'000'000'000ULL);
    v.param("cycles", cycles, "not a frequency");
  }
};

ClockParams bind_clock(const std::string& text) {
  ClockParams p;
  YamlBinder binder(YAML::Load(text));
  binder.bind(p);
  return p;
}

std::string bind_clock_error(const std::string& text) {
  try {
    bind_clock(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST(YamlBinder, FrequencyKeysTakeUnits) {
  EXPECT_EQ(bind_clock("clock_hz: 1.2GHz\n").clock_hz, 1'200'000'000u);
  EXPECT_EQ(bind_clock("clock_hz: 800MHz\n").clock_hz, 800'000'000u);
  EXPECT_EQ(bind_clock("clock_hz: 250000000\n").clock_hz, 250'000'000u);
  EXPECT_EQ(bind_clock("clock_hz: 1MHz\n").clock_hz, 1'000'000u);
  EXPECT_EQ(bind_clock_error("clock_hz: 1.2\n"),
            "config key 'clock_hz': expected a whole number of Hz or a frequency with a unit (100kHz, 800MHz, 1.2GHz), "
            "got '1.2'");
  // A size suffix means nothing for a clock.
  EXPECT_EQ(bind_clock_error("clock_hz: 1G\n"),
            "config key 'clock_hz': expected a whole number of Hz or a frequency with a unit (100kHz, 800MHz, 1.2GHz), "
            "got '1G'");
  EXPECT_EQ(bind_clock_error("clock_hz: 100kHz\n"),
            "config key 'clock_hz': value 100kHz is out of range [1MHz, 10GHz]");
  EXPECT_EQ(bind_clock_error("clock_hz: 10.5GHz\n"),
            "config key 'clock_hz': value 10.5GHz is out of range [1MHz, 10GHz]");
  // Other keys keep plain numbers and sizes.
  EXPECT_EQ(bind_clock("cycles: 2K\n").cycles, 2048u);
  EXPECT_EQ(bind_clock_error("cycles: 5MHz\n"), "config key 'cycles': expected an unsigned integer, got '5MHz'");
}

TEST(YamlDocWriter, FrequenciesAreWrittenWithUnitsAndReadBack) {
  ClockParams p;
  p.clock_hz = 1'200'000'000;
  YamlDocWriter w;
  p.visit(w);
  EXPECT_EQ(w.text(), "clock_hz: 1.2GHz  # a clock [1MHz, 10GHz]\ncycles: 5  # not a frequency\n");
  EXPECT_EQ(bind_clock(w.text()).clock_hz, 1'200'000'000u);
  p.clock_hz = 1'000'000'007;
  YamlDocWriter odd;
  p.visit(odd);
  EXPECT_EQ(bind_clock(odd.text()).clock_hz, 1'000'000'007u) << odd.text();
}

// ---- YamlBinder ----

TEST(YamlBinder, BindsValuesAtEveryLevel) {
  const TestParams p = bind_text(R"(
count: 0x20
big32: 4294967295
verbose: true
ratio: 0.25
name: hello world
a:
  width: 64
  b:
    size: 2MiB
    enabled: false
    mode: exact
)");
  EXPECT_EQ(p.count, 32u);
  EXPECT_EQ(p.big32, 4294967295u);
  EXPECT_TRUE(p.verbose);
  EXPECT_DOUBLE_EQ(p.ratio, 0.25);
  EXPECT_EQ(p.name, "hello world");
  EXPECT_EQ(p.a.width, 64u);
  EXPECT_EQ(p.a.b.size, 2ULL << 20);
  EXPECT_FALSE(p.a.b.enabled);
  EXPECT_EQ(p.a.b.mode, "exact");
}

TEST(YamlBinder, AbsentKeysKeepTheirDefaults) {
  const TestParams p = bind_text("a:\n  b:\n    mode: slow\n");
  EXPECT_EQ(p.a.b.mode, "slow");
  EXPECT_EQ(p.count, 10u);
  EXPECT_EQ(p.big32, 7u);
  EXPECT_FALSE(p.verbose);
  EXPECT_DOUBLE_EQ(p.ratio, 0.5);
  EXPECT_EQ(p.name, "unit");
  EXPECT_EQ(p.a.width, 4u);
  EXPECT_EQ(p.a.b.size, 4096u);
  EXPECT_TRUE(p.a.b.enabled);

  // Whatever the struct held before binding survives when the YAML does not mention it.
  TestParams before;
  before.count = 77;
  before.a.b.size = 1234;
  const TestParams after = bind_text("verbose: yes\n", before);
  EXPECT_EQ(after.count, 77u);
  EXPECT_EQ(after.a.b.size, 1234u);
  EXPECT_TRUE(after.verbose);
}

TEST(YamlBinder, EmptyDocumentAndEmptyGroupsChangeNothing) {
  EXPECT_EQ(to_json(bind_text("")), to_json(TestParams{}));
  EXPECT_EQ(to_json(bind_text("a:\n")), to_json(TestParams{}));
  EXPECT_EQ(to_json(bind_text("a:\n  b:\n")), to_json(TestParams{}));
  EXPECT_EQ(to_json(bind_text("a: {}\n")), to_json(TestParams{}));
}

TEST(YamlBinder, UnknownKeysNameTheFullPath) {
  EXPECT_EQ(bind_error("bogus: 1\n"), "config key 'bogus': unknown key");
  EXPECT_EQ(bind_error("a:\n  b:\n    c: 1\n"), "config key 'a.b.c': unknown key");
  // An unknown group is reported as an unknown key too.
  EXPECT_EQ(bind_error("extra:\n  x: 1\n"), "config key 'extra': unknown key");
}

TEST(YamlBinder, UnknownKeysSuggestTheNearestKnownKey) {
  // A typo: the nearest path by edit distance.
  EXPECT_EQ(bind_error("a:\n  widht: 3\n"), "config key 'a.widht': unknown key, did you mean 'a.width'?");
  EXPECT_EQ(bind_error("a:\n  b:\n    sise: 3\n"), "config key 'a.b.sise': unknown key, did you mean 'a.b.size'?");
  EXPECT_EQ(bind_error("cont: 3\n"), "config key 'cont': unknown key, did you mean 'count'?");
  EXPECT_EQ(bind_error("a:\n  b:\n    enable: no\n"),
            "config key 'a.b.enable': unknown key, did you mean 'a.b.enabled'?");
  // A key in the wrong group: the key of that name where it belongs.
  EXPECT_EQ(bind_error("size: 64\n"), "config key 'size': unknown key, did you mean 'a.b.size'?");
  EXPECT_EQ(bind_error("a:\n  mode: fast\n"), "config key 'a.mode': unknown key, did you mean 'a.b.mode'?");
  // A mapping is compared with groups only, a value with keys only.
  EXPECT_EQ(bind_error("a:\n  c:\n    size: 1\n"), "config key 'a.c': unknown key, did you mean 'a.b'?");
  EXPECT_EQ(bind_error("a:\n  c: 1\n"), "config key 'a.c': unknown key");
  // A key missing part of its name: the one key of its group that contains it; nothing when several do.
  EXPECT_EQ(bind_error("a:\n  b:\n    e: 1\n"), "config key 'a.b.e': unknown key");  // size, enabled, mode
  EXPECT_EQ(bind_error("a:\n  b:\n    able: 1\n"), "config key 'a.b.able': unknown key, did you mean 'a.b.enabled'?");
  // A key of another group with a typo.
  EXPECT_EQ(bind_error("a:\n  cont: 1\n"), "config key 'a.cont': unknown key, did you mean 'count'?");
}

TEST(YamlBinder, WrongTypesNameKeyAndValue) {
  EXPECT_EQ(bind_error("count: x\n"), "config key 'count': expected an unsigned integer, got 'x'");
  EXPECT_EQ(bind_error("count: -1\n"), "config key 'count': expected an unsigned integer, got '-1'");
  EXPECT_EQ(bind_error("count: 1.5\n"), "config key 'count': expected an unsigned integer, got '1.5'");
  EXPECT_EQ(bind_error("a:\n  b:\n    size: 12abc\n"),
            "config key 'a.b.size': expected an unsigned integer, got '12abc'");
  EXPECT_EQ(bind_error("ratio: abc\n"), "config key 'ratio': expected a number, got 'abc'");
  EXPECT_EQ(bind_error("ratio: nan\n"), "config key 'ratio': expected a number, got 'nan'");
  EXPECT_EQ(bind_error("ratio: 0.5x\n"), "config key 'ratio': expected a number, got '0.5x'");
  EXPECT_EQ(bind_error("verbose: maybe\n"), "config key 'verbose': expected true or false, got 'maybe'");
  EXPECT_EQ(bind_error("a:\n  b:\n    enabled: 2\n"), "config key 'a.b.enabled': expected true or false, got '2'");
}

TEST(YamlBinder, OutOfRangeValuesNameTheRange) {
  EXPECT_EQ(bind_error("a:\n  width: 65\n"), "config key 'a.width': value 65 is out of range [1, 64]");
  EXPECT_EQ(bind_error("a:\n  width: 0\n"), "config key 'a.width': value 0 is out of range [1, 64]");
  EXPECT_EQ(bind_error("a:\n  b:\n    size: 8\n"), "config key 'a.b.size': value 8 is out of range [16, 1073741824]");
  EXPECT_EQ(bind_error("a:\n  b:\n    size: 2GiB\n"),
            "config key 'a.b.size': value 2GiB is out of range [16, 1073741824]");
  // A 32-bit parameter without explicit bounds takes the full 32-bit range and no more.
  EXPECT_EQ(bind_error("big32: 4294967296\n"), "config key 'big32': value 4294967296 is out of range [0, 4294967295]");
  EXPECT_EQ(bind_error("ratio: 1.5\n"), "config key 'ratio': value 1.5 is out of range [0, 1]");
  EXPECT_EQ(bind_error("ratio: -0.1\n"), "config key 'ratio': value -0.1 is out of range [0, 1]");
  // The bounds themselves are accepted.
  EXPECT_EQ(bind_text("a:\n  width: 1\n").a.width, 1u);
  EXPECT_EQ(bind_text("a:\n  b:\n    size: 1GiB\n").a.b.size, 1ULL << 30);
  EXPECT_DOUBLE_EQ(bind_text("ratio: 1\n").ratio, 1.0);
  EXPECT_DOUBLE_EQ(bind_text("ratio: 0\n").ratio, 0.0);
}

TEST(YamlBinder, BoolSpellings) {
  for (const char* yes : {"true", "True", "TRUE", "yes", "Yes", "on", "ON", "1"}) {
    EXPECT_TRUE(bind_text(std::string("verbose: ") + yes + "\n").verbose) << yes;
  }
  for (const char* no : {"false", "False", "FALSE", "no", "NO", "off", "Off", "0"}) {
    TestParams start;
    start.verbose = true;
    EXPECT_FALSE(bind_text(std::string("verbose: ") + no + "\n", start).verbose) << no;
  }
  EXPECT_EQ(bind_error("verbose: y\n"), "config key 'verbose': expected true or false, got 'y'");
  EXPECT_EQ(bind_error("verbose: \"\"\n"), "config key 'verbose': expected true or false, got ''");
}

TEST(YamlBinder, StringChoices) {
  EXPECT_EQ(bind_text("a:\n  b:\n    mode: slow\n").a.b.mode, "slow");
  EXPECT_EQ(bind_text("a:\n  b:\n    mode: fast\n").a.b.mode, "fast");
  EXPECT_EQ(bind_error("a:\n  b:\n    mode: turbo\n"),
            "config key 'a.b.mode': 'turbo' is not one of: fast, slow, exact");
  // Choices are case-sensitive.
  EXPECT_EQ(bind_error("a:\n  b:\n    mode: FAST\n"), "config key 'a.b.mode': 'FAST' is not one of: fast, slow, exact");
  // A free string takes anything, including digits and quotes-stripped text.
  EXPECT_EQ(bind_text("name: \"12 # not a comment\"\n").name, "12 # not a comment");
  EXPECT_EQ(bind_text("name: 0x10\n").name, "0x10");
  EXPECT_EQ(bind_text("name: \"\"\n").name, "");
}

TEST(YamlBinder, MappingWhereAValueIsExpected) {
  EXPECT_EQ(bind_error("count:\n  x: 1\n"), "config key 'count': expected a single value, not a mapping");
  EXPECT_EQ(bind_error("a:\n  b:\n    mode: {x: 1}\n"),
            "config key 'a.b.mode': expected a single value, not a mapping");
  EXPECT_EQ(bind_error("count: [1, 2]\n"), "config key 'count': expected a single value, not a list");
  const std::string null_value = bind_error("a:\n  width:\n");
  EXPECT_EQ(null_value.rfind("config key 'a.width': expected a single value", 0), 0u) << null_value;
}

TEST(YamlBinder, ValueWhereAMappingIsExpected) {
  EXPECT_EQ(bind_error("a: 3\n"), "config key 'a': expected a mapping of keys");
  EXPECT_EQ(bind_error("a:\n  b: fast\n"), "config key 'a.b': expected a mapping of keys");
  EXPECT_EQ(bind_error("a: [1, 2]\n"), "config key 'a': expected a mapping of keys");
}

TEST(YamlBinder, TopLevelMustBeAMapping) {
  try {
    YamlBinder binder(YAML::Load("- 1\n- 2\n"));
    FAIL() << "a list at the top level was accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "config: the top level must be a mapping of keys");
  }
  EXPECT_THROW(YamlBinder(YAML::Load("just a scalar")), ConfigError);
}

// ---- ConfigTree ----

TEST(ConfigTree, LoadTextMergesDocumentsKeyByKey) {
  ConfigTree tree;
  tree.load_text("count: 1\nname: first\na:\n  width: 8\n  b:\n    size: 100\n    mode: slow\n", "one.yaml");
  tree.load_text("a:\n  b:\n    mode: exact\n  width: 16\nverbose: on\n", "two.yaml");
  TestParams p;
  tree.bind(p);
  EXPECT_EQ(p.count, 1u);          // only in the first
  EXPECT_EQ(p.name, "first");      // only in the first
  EXPECT_TRUE(p.verbose);          // only in the second
  EXPECT_EQ(p.a.width, 16u);       // the second wins
  EXPECT_EQ(p.a.b.size, 100u);     // nested key kept from the first
  EXPECT_EQ(p.a.b.mode, "exact");  // nested key overridden by the second
  EXPECT_EQ(p.a.b.enabled, true);  // in neither: default
  EXPECT_EQ(tree.root()["a"]["b"]["size"].Scalar(), "100");
}

TEST(ConfigTree, AKeyGivenTwiceInOneMappingIsAnError) {
  auto load_error = [](const std::string& text) -> std::string {
    ConfigTree tree;
    try {
      tree.load_text(text, "dup.yaml");
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(load_error("count: 1\ncount: 2\n"), "config file 'dup.yaml': key 'count' is given twice (line 2)");
  EXPECT_EQ(load_error("a:\n  b:\n    size: 1\n    mode: slow\n    size: 2\n"),
            "config file 'dup.yaml': key 'a.b.size' is given twice (line 5)");
  EXPECT_EQ(load_error("a:\n  width: 1\nname: x\na:\n  width: 2\n"),
            "config file 'dup.yaml': key 'a' is given twice (line 4)");
  EXPECT_EQ(load_error("a: {width: 1, width: 2}\n"), "config file 'dup.yaml': key 'a.width' is given twice (line 1)");
  // The same name in different mappings, and across documents, is fine.
  EXPECT_EQ(load_error("size: 1\na:\n  b:\n    size: 2\n"), "no error");
  ConfigTree tree;
  tree.load_text("count: 1\n", "one.yaml");
  tree.load_text("count: 2\n", "two.yaml");
  TestParams p;
  tree.bind(p);
  EXPECT_EQ(p.count, 2u);
}

TEST(ConfigTree, EmptyDocumentChangesNothing) {
  ConfigTree tree;
  tree.load_text("count: 5\n", "one.yaml");
  tree.load_text("", "empty.yaml");
  tree.load_text("# only a comment\n", "comment.yaml");
  TestParams p;
  tree.bind(p);
  EXPECT_EQ(p.count, 5u);
  EXPECT_EQ(to_json(p)["a"], to_json(TestParams{})["a"]);
}

TEST(ConfigTree, ApplyOverrideCreatesNestedKeys) {
  ConfigTree tree;
  tree.apply_override("a.b.size=4KiB");
  tree.apply_override("count=0x40");
  ASSERT_TRUE(tree.root()["a"].IsMap());
  ASSERT_TRUE(tree.root()["a"]["b"].IsMap());
  EXPECT_EQ(tree.root()["a"]["b"]["size"].Scalar(), "4KiB");  // kept as text, typed when bound
  TestParams p;
  tree.bind(p);
  EXPECT_EQ(p.a.b.size, 4096u);
  EXPECT_EQ(p.count, 64u);
  EXPECT_EQ(p.a.width, 4u);
  EXPECT_EQ(p.a.b.mode, "fast");
}

TEST(ConfigTree, ApplyOverrideReplacesAFileValueAndKeepsTheRest) {
  ConfigTree tree;
  tree.load_text("count: 5\na:\n  width: 8\n  b:\n    mode: slow\n", "base.yaml");
  tree.apply_override("a.width=32");
  tree.apply_override("a.b.enabled=false");
  tree.apply_override("name=x=y");  // only the first '=' separates key and value
  TestParams p;
  tree.bind(p);
  EXPECT_EQ(p.count, 5u);
  EXPECT_EQ(p.a.width, 32u);
  EXPECT_EQ(p.a.b.mode, "slow");
  EXPECT_FALSE(p.a.b.enabled);
  EXPECT_EQ(p.name, "x=y");
}

TEST(ConfigTree, LaterOverridesWin) {
  ConfigTree tree;
  tree.apply_override("a.width=2");
  tree.apply_override("a.width=3");
  TestParams p;
  tree.bind(p);
  EXPECT_EQ(p.a.width, 3u);
}

TEST(ConfigTree, OverrideValuesAreTypedWhenBound) {
  ConfigTree tree;
  tree.apply_override("a.width=wide");
  TestParams p;
  try {
    tree.bind(p);
    FAIL() << "bad value accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "config key 'a.width': expected an unsigned integer, got 'wide'");
  }
  ConfigTree unknown;
  unknown.apply_override("a.b.sise=1");
  try {
    unknown.bind(p);
    FAIL() << "unknown key accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "config key 'a.b.sise': unknown key, did you mean 'a.b.size'?");
  }
  ConfigTree empty_value;
  empty_value.apply_override("count=");
  try {
    empty_value.bind(p);
    FAIL() << "empty value accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "config key 'count': expected an unsigned integer, got ''");
  }
}

struct AssignmentCase {
  const char* name;
  const char* assignment;
  const char* error;
};
// The case name in test listings, not its bytes.
void PrintTo(const AssignmentCase& c, std::ostream* os) { *os << c.name; }

class BadAssignments : public ::testing::TestWithParam<AssignmentCase> {};

TEST_P(BadAssignments, AreOneLineErrorsAndChangeNothing) {
  ConfigTree tree;
  tree.load_text("count: 5\na:\n  width: 8\n", "base.yaml");
  EXPECT_EQ(override_error(tree, GetParam().assignment), GetParam().error);
  TestParams p;
  tree.bind(p);
  EXPECT_EQ(p.count, 5u);
  EXPECT_EQ(p.a.width, 8u);
  EXPECT_EQ(tree.root().size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(
    ConfigTree, BadAssignments,
    ::testing::Values(AssignmentCase{"NoValue", "novalue", "--set 'novalue': expected key.path=value"},
                      AssignmentCase{"NoKey", "=3", "--set '=3': expected key.path=value"},
                      AssignmentCase{"EmptyMiddleComponent", "a..b=1", "--set 'a..b=1': empty component in key path"},
                      AssignmentCase{"EmptyFirstComponent", ".a=1", "--set '.a=1': empty component in key path"},
                      AssignmentCase{"EmptyLastComponent", "a.=1", "--set 'a.=1': empty component in key path"},
                      AssignmentCase{"BelowAScalar", "count.x=1",
                                     "config key 'count': expected a mapping of keys, cannot set 'count.x'"},
                      AssignmentCase{"DeepBelowAScalar", "a.width.x.y=1",
                                     "config key 'a.width': expected a mapping of keys, cannot set 'a.width.x.y'"}),
    [](const ::testing::TestParamInfo<AssignmentCase>& info) { return info.param.name; });

TEST(ConfigTree, YamlSyntaxErrorsNameTheOrigin) {
  ConfigTree tree;
  try {
    tree.load_text("a: [1, 2\n", "broken.yaml");
    FAIL() << "syntax error accepted";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("config file 'broken.yaml': ", 0), 0u) << msg;
    EXPECT_NE(msg.find("line"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  try {
    tree.load_text("- 1\n- 2\n", "list.yaml");
    FAIL() << "top-level list accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "config file 'list.yaml': the top level must be a mapping of keys");
  }
  EXPECT_EQ(tree.root().size(), 0u);
}

TEST(ConfigTree, LoadFileNamesThePath) {
  const std::string missing = ::testing::TempDir() + "gpuvp_no_such_config.yaml";
  ConfigTree tree;
  try {
    tree.load_file(missing);
    FAIL() << "missing file accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "config file '" + missing + "': cannot be read");
  }
  const std::string path = ::testing::TempDir() + "gpuvp_test_config_" + std::to_string(::getpid()) + ".yaml";
  {
    std::ofstream f(path);
    f << "a:\n  width: 9\n  b: {size: 0x100\n";  // unterminated flow mapping
  }
  try {
    tree.load_file(path);
    FAIL() << "syntax error accepted";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("config file '" + path + "': ", 0), 0u) << msg;
  }
  {
    std::ofstream f(path);
    f << "a:\n  width: 9\n  b: {size: 0x100}\n";
  }
  tree.load_file(path);
  std::remove(path.c_str());
  TestParams p;
  tree.bind(p);
  EXPECT_EQ(p.a.width, 9u);
  EXPECT_EQ(p.a.b.size, 256u);
}

// ---- Writers ----

TEST(JsonParamWriter, NestsGroupsAndKeepsTypes) {
  TestParams p;
  p.a.b.size = 1ULL << 20;
  const nlohmann::json j = to_json(p);
  EXPECT_EQ(j, nlohmann::json::parse(R"({
    "count": 10, "big32": 7, "verbose": false, "ratio": 0.5, "name": "unit",
    "a": {"width": 4, "b": {"size": 1048576, "enabled": true, "mode": "fast"}}})"));
}

TEST(YamlDocWriter, WritesCommentedYamlWithRangesAndChoices) {
  TestParams p;
  p.count = 0x40000000;  // hex: >= 64 KiB and 4 KiB aligned
  YamlDocWriter w;
  p.visit(w);
  const std::string text = w.text();
  EXPECT_NE(text.find("count: 0x40000000  # how many\n"), std::string::npos) << text;
  EXPECT_NE(text.find("big32: 7  # a 32-bit value with the full range [0, 4294967295]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("verbose: false  # chatty output\n"), std::string::npos) << text;
  EXPECT_NE(text.find("ratio: 0.5  # a fraction [0, 1]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("name: unit  # free-form name\n"), std::string::npos) << text;
  EXPECT_NE(text.find("a:  # outer group\n  width: 4  # lanes [1, 64]\n  b:  # inner group\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("    size: 4096  # buffer size in bytes [16, 1073741824]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    mode: fast  # how to run (fast | slow | exact)\n"), std::string::npos) << text;
}

TEST(YamlDocWriter, DefaultsRoundTrip) {
  TestParams defaults;
  YamlDocWriter w;
  defaults.visit(w);
  TestParams back;
  back.count = 999;  // must be overwritten by the document
  back.a.b.mode = "slow";
  back = bind_text(w.text(), back);
  EXPECT_EQ(to_json(back), to_json(defaults));
}

TEST(YamlDocWriter, NonDefaultValuesRoundTrip) {
  TestParams p;
  p.count = 0xE1000000;
  p.big32 = 65536;
  p.verbose = true;
  p.ratio = 0.125;
  p.name = "hello world";
  p.a.width = 64;
  p.a.b.size = 16;
  p.a.b.enabled = false;
  p.a.b.mode = "exact";
  YamlDocWriter w;
  p.visit(w);
  const TestParams back = bind_text(w.text());
  EXPECT_EQ(to_json(back), to_json(p)) << w.text();
}

TEST(YamlDocWriter, AwkwardValuesRoundTrip) {
  // Values the writer must quote or print in full to be read back as written.
  TestParams p;
  p.ratio = 1.0 / 3.0;
  p.name = "a: b # not a comment";
  p.count = ~0ULL;
  YamlDocWriter w;
  p.visit(w);
  const TestParams back = bind_text(w.text());
  EXPECT_EQ(to_json(back), to_json(p)) << w.text();
  for (const char* name : {"", "null", "~", "[x]", "{y}", "'quoted'", "\"dq\"", "#hash", "- dash", "tab\there",
                           "line\nbreak", "true", " padded ", "back\\slash"}) {
    TestParams q;
    q.name = name;
    YamlDocWriter wq;
    q.visit(wq);
    EXPECT_EQ(bind_text(wq.text()).name, name) << wq.text();
  }
}

// Whatever a message quotes from the input, a configuration error is one line of bounded length (found by fuzz_config).
TEST(ConfigError, IsOneLineOfBoundedLength) {
  const gpuvp::core::ConfigError control("config key 'a\nb\tc\x7f': unknown key");
  EXPECT_STREQ(control.what(), "config key 'a\\x0ab\\x09c\\x7f': unknown key");
  const gpuvp::core::ConfigError long_message(std::string(5000, 'x'));
  const std::string what = long_message.what();
  EXPECT_EQ(what.size(), gpuvp::core::kMaxConfigErrorBytes);
  EXPECT_EQ(what.substr(what.size() - 3), "...");
  // UTF-8 is left as it is: it is one line already.
  EXPECT_STREQ(gpuvp::core::ConfigError("file 'caf\xc3\xa9.yaml'").what(), "file 'caf\xc3\xa9.yaml'");
}
