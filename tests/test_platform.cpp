// Platform: configuration loading (built-in defaults, the shipped default.yaml, overrides), the memory map, the V3D
// identification registers through the bus, the unpopulated Gen BAR, optional blocks and interrupt lookup.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "platform/platform.h"
#include "platform/platform_params.h"
#include "tests/support/sc_test.h"
#include "tlm/core/config.h"
#include "tlm/core/stats.h"
#include "tlm/vc4/v3d.h"

using namespace gpuvp;

namespace {

const std::string kDefaultYaml = std::string(GPUVP_SOURCE_DIR) + "/platform/configs/default.yaml";

nlohmann::json to_json(platform::PlatformParams p) {
  core::JsonParamWriter w;
  p.visit(w);
  return w.json();
}

std::string load_error(const std::string& file, const std::vector<std::string>& overrides) {
  try {
    platform::load_platform_params(file, overrides);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// Every key path of a JSON object, dotted.
void key_paths(const nlohmann::json& j, const std::string& prefix, std::vector<std::string>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_object()) {
      key_paths(*it, path, out);
    } else {
      out.push_back(path);
    }
  }
}

constexpr std::uint64_t kV3dBase = 0xE100'0000;
constexpr std::uint64_t kGenBase = 0xE000'0000;

}  // namespace

// ---- configuration ----

TEST(PlatformParams, NoFileGivesTheBuiltInDefaults) {
  const platform::PlatformParams p = platform::load_platform_params("", {});
  EXPECT_EQ(to_json(p), to_json(platform::PlatformParams{}));
  EXPECT_EQ(p.dram.memory.size, 2ULL << 30);
  EXPECT_EQ(p.dram.memory.page_size, 0x10000u);
  EXPECT_EQ(p.gen.base, 0xE0000000u);
  EXPECT_EQ(p.vc4.base, 0xE1000000u);
  EXPECT_EQ(p.vc4.v3d.clock_hz, 250'000'000u);
  EXPECT_EQ(p.sim.quantum_ns, 1000u);
  EXPECT_EQ(p.sim.progress, "auto");
  EXPECT_TRUE(p.gen.enabled);
  EXPECT_TRUE(p.vc4.enabled);
}

TEST(PlatformParams, ShippedDefaultYamlEqualsTheBuiltInDefaults) {
  const platform::PlatformParams from_file = platform::load_platform_params(kDefaultYaml, {});
  const nlohmann::json file_json = to_json(from_file);
  const nlohmann::json builtin_json = to_json(platform::PlatformParams{});
  EXPECT_EQ(file_json, builtin_json) << "platform/configs/default.yaml and platform_params.h disagree:\n"
                                     << nlohmann::json::diff(builtin_json, file_json).dump(2);
}

TEST(PlatformParams, ShippedDefaultYamlListsEveryKey) {
  // The file documents every key, so equal values must not come from keys left out of it.
  const YAML::Node file = YAML::LoadFile(kDefaultYaml);
  std::vector<std::string> paths;
  key_paths(to_json(platform::PlatformParams{}), "", paths);
  // The walk sees the leaves of every group.
  for (const char* expected : {"sim.quantum_ns", "bus.clock_hz", "dram.size", "dram.dmi", "gen.enabled", "gen.base",
                               "vc4.enabled", "vc4.base", "vc4.v3d.vpm_kib", "vc4.v3d.mmio_latency_cycles"}) {
    EXPECT_NE(std::find(paths.begin(), paths.end(), expected), paths.end()) << expected;
  }
  for (const auto& path : paths) {
    YAML::Node node = YAML::Clone(file);
    std::string rest = path;
    bool found = true;
    while (found) {
      const auto dot = rest.find('.');
      const std::string part = rest.substr(0, dot);
      const YAML::Node& cnode = node;
      if (!cnode.IsMap() || !cnode[part].IsDefined()) {
        found = false;
        break;
      }
      YAML::Node child = cnode[part];
      node.reset(child);
      if (dot == std::string::npos) break;
      rest = rest.substr(dot + 1);
    }
    EXPECT_TRUE(found && node.IsScalar()) << "default.yaml does not list " << path;
  }
}

TEST(PlatformParams, OverridesApplyOnTopOfTheFile) {
  const platform::PlatformParams p =
      platform::load_platform_params(kDefaultYaml, {"dram.size=4GiB", "sim.quantum_ns=100", "vc4.v3d.slices=2"});
  EXPECT_EQ(p.dram.memory.size, 4ULL << 30);
  EXPECT_EQ(p.sim.quantum_ns, 100u);
  EXPECT_EQ(p.vc4.v3d.slices, 2u);
  EXPECT_EQ(p.vc4.v3d.qpus_per_slice, 4u);
}

TEST(PlatformParams, ErrorsNameTheKey) {
  EXPECT_EQ(load_error("", {"dram.sise=1"}), "config key 'dram.sise': unknown key, did you mean 'dram.size'?");
  EXPECT_EQ(load_error("", {"dram.page_size=0x3000"}), "config key 'dram.page_size': must be a power of two");
  EXPECT_EQ(load_error("", {"vc4.v3d.slices=16"}), "config key 'vc4.v3d.slices': value 16 is out of range [1, 15]");
  EXPECT_EQ(load_error("", {"sim.progress=loud"}), "config key 'sim.progress': 'loud' is not one of: auto, on, off");
  EXPECT_EQ(load_error("", {"gen.enabled=perhaps"}), "config key 'gen.enabled': expected true or false, got 'perhaps'");
  EXPECT_EQ(load_error("/nonexistent-gpuvp/x.yaml", {}), "config file '/nonexistent-gpuvp/x.yaml': cannot be read");
}

// ---- the assembled platform ----

TEST(Platform, DefaultMemoryMap) {
  platform::Platform p("platform", platform::PlatformParams{});
  const auto& map = p.bus().mappings();
  ASSERT_EQ(map.size(), 3u);
  EXPECT_EQ(map[0].name, "dram");
  EXPECT_EQ(map[0].base, 0x0u);
  EXPECT_EQ(map[0].size, 2ULL << 30);
  EXPECT_EQ(map[1].name, "gen");
  EXPECT_EQ(map[1].base, 0xE0000000u);
  EXPECT_EQ(map[1].size, 16ULL << 20);
  EXPECT_EQ(map[2].name, "v3d");
  EXPECT_EQ(map[2].base, 0xE1000000u);
  EXPECT_EQ(map[2].size, 4096u);
  // Default port timing from the bus parameters.
  EXPECT_EQ(map[0].timing.hop_latency_cycles, 2u);
  EXPECT_EQ(map[0].timing.bytes_per_cycle, 32u);
  EXPECT_EQ(map[2].timing.bytes_per_cycle, 4u);
  ASSERT_NE(p.bus().decode(0xE0FFFFFF), nullptr);
  EXPECT_EQ(p.bus().decode(0xE0FFFFFF)->name, "gen");
  EXPECT_EQ(p.bus().decode(0xE1001000), nullptr);
  EXPECT_EQ(p.bus().decode(0x80000000), nullptr);
  ASSERT_NE(p.v3d(), nullptr);
  EXPECT_EQ(p.host_irqs().size(), 2u);
}

TEST(Platform, V3dIdentificationThroughTheBus) {
  platform::Platform p("platform", platform::PlatformParams{});
  ASSERT_EQ(vc4::V3d::ident1_for(vc4::V3dParams{}), 0xC0102431u);
  test::run_thread([&] {
    tlm::tlm_response_status s = tlm::TLM_INCOMPLETE_RESPONSE;
    EXPECT_EQ(p.host().read_value<std::uint32_t>(kV3dBase + vc4::kV3dIdent0, &s), 0x02443356u);
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(p.host().read_value<std::uint32_t>(kV3dBase + vc4::kV3dIdent1, &s), 0xC0102431u);
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(p.host().read_value<std::uint32_t>(kV3dBase + vc4::kV3dIdent2, &s), 0x20u);  // TLBSZ 2
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
    // Byte access to IDENT0: 'V'.
    EXPECT_EQ(p.host().read_value<std::uint8_t>(kV3dBase + vc4::kV3dIdent0, &s), 0x56u);
  });
  EXPECT_EQ(core::stats().counter_value("platform.v3d.mmio_reads"), 4u);
  EXPECT_EQ(core::stats().counter_value("platform.host.errors"), 0u);
}

TEST(Platform, V3dIdent1FollowsTheConfiguration) {
  const platform::PlatformParams params =
      platform::load_platform_params("", {"vc4.v3d.slices=2", "vc4.v3d.vpm_kib=16", "vc4.v3d.semaphores=0x20",
                                          "vc4.v3d.revision=3", "vc4.base=0xE2000000"});
  // REV 3, NSLC 2, QUPS 4, TUPS 2, NSEM 32, VPM 16 KiB reported as 0.
  ASSERT_EQ(vc4::V3d::ident1_for(params.vc4.v3d), 0x00202423u);
  platform::Platform p("platform", params);
  test::run_thread([&] {
    EXPECT_EQ(p.host().read_value<std::uint32_t>(0xE2000000 + vc4::kV3dIdent1), 0x00202423u);
    EXPECT_EQ(p.host().read_value<std::uint32_t>(0xE2000000 + vc4::kV3dIdent0), 0x02443356u);
  });
}

TEST(Platform, V3dScratchIsReadWrite) {
  platform::Platform p("platform", platform::PlatformParams{});
  test::run_thread([&] {
    const std::uint64_t scratch = kV3dBase + vc4::kV3dScratch;
    EXPECT_EQ(p.host().read_value<std::uint32_t>(scratch), 0u);
    EXPECT_EQ(p.host().write_value<std::uint32_t>(scratch, 0xCAFEF00D), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(p.host().read_value<std::uint32_t>(scratch), 0xCAFEF00Du);
    EXPECT_EQ(p.host().write_value<std::uint8_t>(scratch + 1, 0x12), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(p.host().read_value<std::uint32_t>(scratch), 0xCAFE120Du);
    EXPECT_EQ(p.host().write_value<std::uint32_t>(scratch, 0), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(p.host().read_value<std::uint32_t>(scratch), 0u);
  });
}

TEST(Platform, V3dIdentIsReadOnly) {
  platform::Platform p("platform", platform::PlatformParams{});
  test::run_thread([&] {
    EXPECT_EQ(p.host().write_value<std::uint32_t>(kV3dBase + vc4::kV3dIdent0, 0), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(p.host().read_value<std::uint32_t>(kV3dBase + vc4::kV3dIdent0), 0x02443356u);
  });
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "read-only register IDENT0").size(), 1u);
}

TEST(Platform, GenBarReadsZeroAndWarns) {
  platform::Platform p("platform", platform::PlatformParams{});
  test::run_thread([&] {
    tlm::tlm_response_status s = tlm::TLM_INCOMPLETE_RESPONSE;
    EXPECT_EQ(p.host().read_value<std::uint32_t>(kGenBase + 0x2000, &s), 0u);
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(p.host().write_value<std::uint32_t>(kGenBase + 0x2000, 0xFFFFFFFF), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(p.host().read_value<std::uint32_t>(kGenBase + 0x2000), 0u);
    // The last register bytes of the BAR's register half (the GGTT entry window starts at +8 MiB).
    EXPECT_EQ(p.host().read_value<std::uint64_t>(kGenBase + 0x7FFFF8, &s), 0u);
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
  });
  const auto reads = test::take_reports(sc_core::SC_WARNING, "read of unmapped register offset 0x2000 (4 bytes)");
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_EQ(reads[0].msg_type, "platform.gen");
  EXPECT_NE(reads[0].message.find("returns 0"), std::string::npos) << reads[0].message;
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "write of unmapped register offset 0x2000 (4 bytes)").size(), 1u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "read of unmapped register offset 0x7ffff8 (8 bytes)").size(), 1u);
  EXPECT_EQ(core::stats().counter_value("platform.gen.unmapped_accesses"), 4u);
}

TEST(Platform, DramIsReadWriteThroughTheBus) {
  platform::Platform p("platform", platform::PlatformParams{});
  test::run_thread([&] {
    EXPECT_EQ(p.host().write_value<std::uint64_t>(0x1000, 0x0123456789ABCDEFULL), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(p.host().read_value<std::uint64_t>(0x1000), 0x0123456789ABCDEFULL);
    EXPECT_EQ(p.host().read_value<std::uint32_t>(0x40000000), 0u);  // never written
  });
}

TEST(Platform, GenDisabledLeavesItsWindowUnmapped) {
  const platform::PlatformParams params = platform::load_platform_params("", {"gen.enabled=false"});
  platform::Platform p("platform", params);
  ASSERT_EQ(p.bus().mappings().size(), 2u);
  EXPECT_EQ(p.bus().decode(kGenBase), nullptr);
  EXPECT_EQ(p.host_irqs().size(), 1u);
  EXPECT_EQ(p.find_irq("gen"), nullptr);
  EXPECT_EQ(p.find_irq("0"), &p.v3d()->irq());
  EXPECT_EQ(p.find_irq("1"), nullptr);
  test::run_thread([&] {
    tlm::tlm_response_status s = tlm::TLM_INCOMPLETE_RESPONSE;
    p.host().read_value<std::uint32_t>(kGenBase, &s);
    EXPECT_EQ(s, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    // V3D is still there.
    EXPECT_EQ(p.host().read_value<std::uint32_t>(kV3dBase, &s), 0x02443356u);
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
  });
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "no target at 0xe0000000").size(), 1u);
  EXPECT_EQ(p.bus().address_errors(), 1u);
}

TEST(Platform, Vc4DisabledLeavesItsWindowUnmapped) {
  const platform::PlatformParams params = platform::load_platform_params("", {"vc4.enabled=false"});
  platform::Platform p("platform", params);
  ASSERT_EQ(p.bus().mappings().size(), 2u);
  EXPECT_EQ(p.bus().decode(kV3dBase), nullptr);
  EXPECT_EQ(p.v3d(), nullptr);
  EXPECT_EQ(p.host_irqs().size(), 1u);
  EXPECT_EQ(p.find_irq("vc4"), nullptr);
  EXPECT_NE(p.find_irq("gen"), nullptr);
  EXPECT_EQ(p.find_irq("1"), nullptr);
  test::run_thread([&] {
    tlm::tlm_response_status s = tlm::TLM_INCOMPLETE_RESPONSE;
    p.host().read_value<std::uint32_t>(kV3dBase + vc4::kV3dIdent0, &s);
    EXPECT_EQ(s, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  });
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "no target at 0xe1000000").size(), 1u);
  EXPECT_EQ(p.bus().address_errors(), 1u);
}

TEST(Platform, FindIrqByNameAndIndex) {
  platform::Platform p("platform", platform::PlatformParams{});
  const auto& irqs = p.host_irqs();
  ASSERT_EQ(irqs.size(), 2u);
  EXPECT_EQ(irqs[0].first, "gen");
  EXPECT_EQ(irqs[1].first, "vc4");
  core::InterruptLine* gen = p.find_irq("gen");
  core::InterruptLine* vc4 = p.find_irq("vc4");
  ASSERT_NE(gen, nullptr);
  ASSERT_NE(vc4, nullptr);
  EXPECT_NE(gen, vc4);
  EXPECT_EQ(vc4, &p.v3d()->irq());
  EXPECT_EQ(p.find_irq("0"), gen);
  EXPECT_EQ(p.find_irq("1"), vc4);
  EXPECT_EQ(p.find_irq("2"), nullptr);
  EXPECT_EQ(p.find_irq("v3d"), nullptr);
  EXPECT_EQ(p.find_irq("GEN"), nullptr);
  EXPECT_EQ(p.find_irq(""), nullptr);
  EXPECT_EQ(p.find_irq("-1"), nullptr);
  EXPECT_EQ(p.find_irq("18446744073709551615"), nullptr);
}

TEST(Platform, DescribeListsTheMapBlocksAndConfig) {
  platform::Platform p("platform", platform::PlatformParams{});
  const nlohmann::json d = p.describe();
  EXPECT_EQ(d["config"], to_json(platform::PlatformParams{}));
  EXPECT_EQ(d["dram"]["size"], "0x80000000");
  ASSERT_EQ(d["interrupts"].size(), 2u);
  EXPECT_EQ(d["interrupts"][1]["name"], "vc4");
  ASSERT_EQ(d["blocks"].size(), 2u);
  EXPECT_EQ(d["blocks"][0]["name"], "platform.gen");
  EXPECT_EQ(d["blocks"][0]["size"], "0x1000000");
  EXPECT_EQ(d["blocks"][1]["name"], "platform.v3d");
  EXPECT_EQ(d["blocks"][1]["clock_hz"], 250'000'000u);
}
