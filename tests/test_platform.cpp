// Platform: configuration loading (built-in defaults, the shipped default.yaml, overrides), the memory map (DRAM
// below TOLUD and remapped above 4 GiB, stolen memory, the GPU reaching high memory), the V3D identification
// registers through the bus, the unpopulated Gen BAR, optional blocks and interrupt lookup.
#include <algorithm>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "hw/gen/gtt_regs.h"
#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "platform/platform_params.h"
#include "tb/host/host_port.h"
#include "tb/host/i915_driver.h"
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

// The named Gen9 configurations load and give the organisations NEO knows (shared/source/gen9/hw_info_skl.cpp), the
// UHD 620's clock, and dual-channel DDR4-2400 (32 bytes per 1200 MHz memory clock).
TEST(PlatformParams, NamedGen9ConfigurationsGiveTheirOrganisation) {
  struct Named {
    const char* file;
    std::uint32_t slices, subslices, eus;
  };
  for (const Named& n : {Named{"gen9-gt1", 1, 2, 6}, Named{"gen9-gt2", 1, 3, 8}, Named{"gen9-gt3", 2, 3, 8},
                         Named{"gen9-gt4", 3, 3, 8}}) {
    SCOPED_TRACE(n.file);
    const platform::PlatformParams p =
        platform::load_platform_params(std::string(GPUVP_SOURCE_DIR) + "/platform/configs/" + n.file + ".yaml", {});
    const gen::GpgpuParams& g = p.gen.gpu.cs.gpgpu;
    EXPECT_EQ(g.slices, n.slices);
    EXPECT_EQ(g.subslices_per_slice, n.subslices);
    EXPECT_EQ(g.eus_per_subslice, n.eus);
    EXPECT_EQ(g.threads_per_eu, 7u);
    EXPECT_EQ(g.eu_count(), n.slices * n.subslices * n.eus);
    EXPECT_EQ(p.gen.gpu.clock_hz, 1'150'000'000u);
    EXPECT_EQ(p.dram.memory.clock_hz * p.dram.memory.bytes_per_cycle, 38'400'000'000u);
    // The rest is the defaults'.
    EXPECT_EQ(p.sim.quantum_ns, 1000u);
    EXPECT_EQ(p.dram.memory.size, 2ULL << 30);
  }
  EXPECT_EQ(platform::PlatformParams{}.gen.gpu.cs.gpgpu.eu_count(), 24u);
}

TEST(PlatformParams, OverridesApplyOnTopOfTheFile) {
  const platform::PlatformParams p =
      platform::load_platform_params(kDefaultYaml, {"dram.size=4GiB", "sim.quantum_ns=100", "vc4.v3d.slices=2"});
  EXPECT_EQ(p.dram.memory.size, 4ULL << 30);
  EXPECT_EQ(p.sim.quantum_ns, 100u);
  EXPECT_EQ(p.vc4.v3d.slices, 2u);
  EXPECT_EQ(p.vc4.v3d.qpus_per_slice, 4u);
}

struct ParamsCase {
  const char* name;
  const char* file;
  std::vector<std::string> overrides;
  const char* error;  // the whole message, or "no error" for a boundary that must load
};
// The case name in test listings, not its bytes.
void PrintTo(const ParamsCase& c, std::ostream* os) { *os << c.name; }

class PlatformParamsErrors : public ::testing::TestWithParam<ParamsCase> {};

TEST_P(PlatformParamsErrors, AreOneLineErrorsNamingTheKey) {
  EXPECT_EQ(load_error(GetParam().file, GetParam().overrides), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    PlatformParams, PlatformParamsErrors,
    ::testing::Values(
        ParamsCase{"DramNotPageSized",
                   "",
                   {"dram.size=0x80000800"},
                   "config key 'dram.size': 0x80000800 is not a multiple of the 4 KiB page"},
        ParamsCase{"DramBaseNotPageAligned",
                   "",
                   {"dram.base=0x1800"},
                   "config key 'dram.base': 0x1800 is not aligned to the 4 KiB page"},
        // 512 GiB: 3.5 GiB below the hole, 508.5 GiB from 4 GiB up to 0x80_2000_0000, past the 39-bit GPU addresses.
        ParamsCase{"DramBeyond39Bits",
                   "",
                   {"dram.size=512GiB"},
                   "config key 'dram.size': 512 GiB of DRAM ends at 0x801fffffff, beyond the Gen GPU's 39-bit "
                   "physical addresses (gen.gtt.physical_address_bits)"},
        ParamsCase{"DramBeyond32Bits",
                   "",
                   {"dram.size=4GiB", "gen.gtt.physical_address_bits=32"},
                   "config key 'dram.size': 4 GiB of DRAM ends at 0x11fffffff, beyond the Gen GPU's 32-bit physical "
                   "addresses (gen.gtt.physical_address_bits)"},
        ParamsCase{"DramWithin33Bits", "", {"dram.size=4GiB", "gen.gtt.physical_address_bits=33"}, "no error"},
        // Without the GPU nothing limits the bus's 64-bit addresses below the key's own range (1 TiB).
        ParamsCase{"DramOf1TiBWithoutTheGpu", "", {"dram.size=1024GiB", "gen.enabled=false"}, "no error"},
        // A BAR moved above 4 GiB must not land in the remapped DRAM.
        ParamsCase{"BarInRemappedDram",
                   "",
                   {"dram.size=8GiB", "gen.base=0x100000000"},
                   "config key 'gen.base': the Gen GTTMMADR BAR [0x100000000, 0x100ffffff] overlaps DRAM "
                   "[0x100000000, 0x21effffff]"},
        ParamsCase{"BarAboveRemappedDram", "", {"dram.size=8GiB", "gen.base=0x300000000"}, "no error"},
        // Stolen memory must be DRAM: not the PCI hole, not beyond TOUUD.
        ParamsCase{"StolenMemoryInThePciHole",
                   "",
                   {"dram.size=4GiB", "gen.gtt.gsm_base=0xF0000000"},
                   "config key 'gen.gtt.gsm_base': the 8 MiB of GGTT entries at 0xf0000000 must lie inside DRAM"},
        ParamsCase{"StolenMemoryPastTouud",
                   "",
                   {"dram.size=4GiB", "gen.gtt.gsm_base=0x11fc00000"},
                   "config key 'gen.gtt.gsm_base': the 8 MiB of GGTT entries at 0x11fc00000 must lie inside DRAM"},
        ParamsCase{"StolenMemoryEndingAtTouud", "", {"dram.size=4GiB", "gen.gtt.gsm_base=0x11f800000"}, "no error"},
        ParamsCase{
            "StolenMemoryLargerThanLowDram",
            "",
            {"dram.size=4MiB"},
            "config key 'dram.size': the 4 MiB of low DRAM cannot hold the Gen GPU's stolen memory, 8 MiB of GGTT "
            "entries (gen.gtt.ggtt_size 4 GiB); give more DRAM or set gen.enabled=false"},
        // DRAM cannot start inside the PCI hole.
        ParamsCase{"DramBeginningInThePciHole",
                   "",
                   {"dram.base=0xE0000000"},
                   "config key 'dram.base': DRAM at 0xe0000000 would begin in the PCI hole (top of low DRAM "
                   "0xe0000000, below the lowest MMIO window)"},
        ParamsCase{"UnknownKey", "", {"dram.sise=1"}, "config key 'dram.sise': unknown key, did you mean 'dram.size'?"},
        ParamsCase{"PageSizeNotAPowerOfTwo",
                   "",
                   {"dram.page_size=0x3000"},
                   "config key 'dram.page_size': must be a power of two"},
        ParamsCase{
            "OutOfRange", "", {"vc4.v3d.slices=16"}, "config key 'vc4.v3d.slices': value 16 is out of range [1, 15]"},
        ParamsCase{
            "NotAChoice", "", {"sim.progress=loud"}, "config key 'sim.progress': 'loud' is not one of: auto, on, off"},
        ParamsCase{"NotABoolean",
                   "",
                   {"gen.enabled=perhaps"},
                   "config key 'gen.enabled': expected true or false, got 'perhaps'"},
        ParamsCase{
            "MissingFile", "/nonexistent-gpuvp/x.yaml", {}, "config file '/nonexistent-gpuvp/x.yaml': cannot be read"}),
    [](const ::testing::TestParamInfo<ParamsCase>& info) { return info.param.name; });

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
  // 2 GiB fit below the PCI hole: nothing is remapped; stolen memory is the top 8 MiB (4 GiB GGTT / 4 KiB * 8 B).
  const platform::MemoryMap& mm = p.memory_map();
  ASSERT_EQ(mm.dram.size(), 1u);
  EXPECT_EQ(mm.tolud, 0xE0000000u);
  EXPECT_EQ(mm.touud, 0u);
  EXPECT_EQ(mm.gsm_base, 0x7F800000u);
  EXPECT_EQ(mm.gsm_size, 8ULL << 20);
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
  EXPECT_EQ(reads[0].source, "platform.gen");
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

// ---- DRAM around the MMIO windows ----

namespace {

platform::PlatformParams with_dram(const std::string& size) {
  return platform::load_platform_params("", {"dram.size=" + size});
}

std::uint64_t dram64(platform::Platform& p, std::uint64_t offset) {
  std::uint64_t v = 0;
  p.dram().store().read(offset, reinterpret_cast<unsigned char*>(&v), 8);
  return v;
}

// The windows of a platform whose DRAM is split: dram [0, 0xDFFFFFFF], the BAR, V3D, dram_hi from 4 GiB.
void expect_split_map(platform::Platform& p, std::uint64_t high_size) {
  const auto& map = p.bus().mappings();
  ASSERT_EQ(map.size(), 4u);
  EXPECT_EQ(map[0].name, "dram");
  EXPECT_EQ(map[0].base, 0u);
  EXPECT_EQ(map[0].size, 0xE0000000u);
  EXPECT_EQ(map[0].target_offset, 0u);
  EXPECT_EQ(map[1].name, "gen");
  EXPECT_EQ(map[1].base, 0xE0000000u);
  EXPECT_EQ(map[2].name, "v3d");
  EXPECT_EQ(map[2].base, 0xE1000000u);
  EXPECT_EQ(map[3].name, "dram_hi");
  EXPECT_EQ(map[3].base, 1ULL << 32);
  EXPECT_EQ(map[3].size, high_size);
  EXPECT_EQ(map[3].target_offset, 0xE0000000u);  // the DRAM the hole hides
  EXPECT_EQ(map[3].port, map[0].port);           // one DRAM, one port
  const platform::MemoryMap& mm = p.memory_map();
  EXPECT_EQ(mm.tolud, 0xE0000000u);
  EXPECT_EQ(mm.touud, (1ULL << 32) + high_size);
  EXPECT_EQ(mm.gsm_base, 0xDF800000u);  // top of low DRAM, below TOLUD
}

// Host accesses at both ends of both DRAM windows land at the right DRAM offsets; the hole and TOUUD answer errors.
void expect_host_access(platform::Platform& p, std::uint64_t touud) {
  const std::uint64_t high_offset = 0xE0000000 - (1ULL << 32);  // DRAM offset = address + this, above 4 GiB
  const std::vector<std::uint64_t> addresses = {0xDFFFFFF8, 1ULL << 32, (1ULL << 32) + 0x12345678, touud - 8};
  test::run_thread([&] {
    for (std::uint64_t a : addresses) {
      EXPECT_EQ(p.host().write_value<std::uint64_t>(a, a ^ 0x5A5A5A5A5A5A5A5AULL), tlm::TLM_OK_RESPONSE) << a;
    }
    for (std::uint64_t a : addresses) {
      EXPECT_EQ(p.host().read_value<std::uint64_t>(a), a ^ 0x5A5A5A5A5A5A5A5AULL) << a;
    }
    tlm::tlm_response_status s = tlm::TLM_OK_RESPONSE;
    p.host().read_value<std::uint32_t>(touud, &s);
    EXPECT_EQ(s, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    p.host().read_value<std::uint32_t>(0xF0000000, &s);  // the PCI hole above the MMIO windows
    EXPECT_EQ(s, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  });
  EXPECT_EQ(dram64(p, 0xDFFFFFF8), 0xDFFFFFF8ULL ^ 0x5A5A5A5A5A5A5A5AULL);
  EXPECT_EQ(dram64(p, 0xE0000000), (1ULL << 32) ^ 0x5A5A5A5A5A5A5A5AULL);
  EXPECT_EQ(dram64(p, 0xE0000000 + 0x12345678), ((1ULL << 32) + 0x12345678) ^ 0x5A5A5A5A5A5A5A5AULL);
  EXPECT_EQ(dram64(p, touud - 8 + high_offset), (touud - 8) ^ 0x5A5A5A5A5A5A5A5AULL);
  EXPECT_EQ(touud - 8 + high_offset, p.params().dram.memory.size - 8);  // the last qword of DRAM
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "no target at " + core::format_hex(touud)).size(), 1u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "no target at 0xf0000000").size(), 1u);
  // Both windows count as the one DRAM port.
  EXPECT_EQ(core::stats().counter_value("platform.bus.dram.transactions"), 8u);
}

}  // namespace

TEST(Platform, FourGibOfDramLeavesThePciHoleAndRemapsHalfAGibAboveFourGib) {
  platform::Platform p("platform", with_dram("4GiB"));
  expect_split_map(p, 0x20000000);
  expect_host_access(p, 0x120000000);
}

TEST(Platform, SixteenGibOfDramRemapsTwelveAndAHalfGibAboveFourGib) {
  platform::Platform p("platform", with_dram("16GiB"));
  expect_split_map(p, 0x320000000);
  expect_host_access(p, 0x420000000);
}

TEST(Platform, DescribeListsBothDramRangesAndStolenMemory) {
  platform::Platform p("platform", with_dram("16GiB"));
  const nlohmann::json d = p.describe()["dram"];
  EXPECT_EQ(d["size"], "0x400000000");
  EXPECT_EQ(d["tolud"], "0xe0000000");
  EXPECT_EQ(d["touud"], "0x420000000");
  ASSERT_EQ(d["ranges"].size(), 2u);
  EXPECT_EQ(
      d["ranges"][0],
      (nlohmann::json{
          {"name", "dram"}, {"base", "0x0"}, {"end", "0xdfffffff"}, {"size", "0xe0000000"}, {"dram_offset", "0x0"}}));
  EXPECT_EQ(d["ranges"][1], (nlohmann::json{{"name", "dram_hi"},
                                            {"base", "0x100000000"},
                                            {"end", "0x41fffffff"},
                                            {"size", "0x320000000"},
                                            {"dram_offset", "0xe0000000"}}));
  EXPECT_EQ(d["gsm"]["base"], "0xdf800000");
  EXPECT_EQ(d["gsm"]["size"], "0x800000");
  const nlohmann::json windows = p.describe()["memory_map"]["windows"];
  ASSERT_EQ(windows.size(), 4u);
  EXPECT_EQ(windows[3]["name"], "dram_hi");
  EXPECT_EQ(windows[3]["target"], "dram");
  EXPECT_EQ(windows[3]["target_offset"], "0xe0000000");
}

TEST(Platform, StolenMemoryFollowsTheTopOfLowDramForEverySize) {
  // Below TOLUD the top of DRAM moves with the size; from 3.5 GiB up it stays below TOLUD.
  for (const auto& [size, gsm] : std::vector<std::pair<std::string, std::uint64_t>>{{"64MiB", 0x3800000},
                                                                                    {"3GiB", 0xBF800000},
                                                                                    {"3584MiB", 0xDF800000},
                                                                                    {"3585MiB", 0xDF800000},
                                                                                    {"256GiB", 0xDF800000}}) {
    EXPECT_EQ(platform::plan_memory_map(with_dram(size)).gsm_base, gsm) << size;
  }
  // 3.5 GiB + 1 MiB: the last MiB is the whole of the remapped range.
  const platform::MemoryMap mm = platform::plan_memory_map(with_dram("3585MiB"));
  ASSERT_EQ(mm.dram.size(), 2u);
  EXPECT_EQ(mm.dram[1].size, 1ULL << 20);
  EXPECT_EQ(mm.touud, 0x100100000u);
  // A smaller GGTT has fewer entries: 256 MiB of GGTT take 512 KiB.
  EXPECT_EQ(
      platform::plan_memory_map(platform::load_platform_params("", {"dram.size=4GiB", "gen.gtt.ggtt_size=256MiB"}))
          .gsm_base,
      0xDFF80000u);
}

TEST(Platform, TheGpuReachesDramAboveFourGibThroughGgttEntries) {
  // The driver's memory (rings, status pages, buffers) at 12 GiB: every GGTT entry it writes holds a 35-bit
  // physical address, and the engine fetches, stores and writes its breadcrumb there.
  platform::Platform p("platform", with_dram("16GiB"));
  host::BusHostPort port(p.host());
  host::DriverLayout layout;
  layout.memory_base = 0x3'0000'0000;
  host::I915Driver drv(port, layout);
  const std::uint64_t high_offset = 0xE0000000 - (1ULL << 32);
  std::uint64_t out_gfx = 0;
  test::run_thread([&] {
    host::I915Driver::Ring& ring = drv.create_ring(gen::Engine::kRcs);
    const host::I915Driver::Buffer out = drv.alloc(4096);
    ASSERT_EQ(out.phys, 0x3'0000'5000u);  // after the 16 KiB ring and its status page
    out_gfx = out.gfx;
    drv.emit(ring, gen::mi::store_data_imm(out.gfx + 0x40, 0xC0FFEE01));
    drv.emit(ring, gen::mi::store_data_imm(out.gfx + 0xFFC, 0xC0FFEE02));
    const std::uint32_t seqno = drv.emit_breadcrumb(ring);
    drv.submit(ring);
    ASSERT_TRUE(drv.wait_seqno(ring, seqno, 1'000'000));
    EXPECT_EQ(port.read32(out.phys + 0x40), 0xC0FFEE01u);
    EXPECT_EQ(port.read32(out.phys + 0xFFC), 0xC0FFEE02u);
    // The entry as the GPU reads it from stolen memory (GSM + GGTT page * 8): address | present.
    tlm::tlm_response_status s;
    EXPECT_EQ(p.host().read_value<std::uint64_t>(0xE0000000 + gen::kGgttPteWindowOffset + (out.gfx >> 12) * 8, &s),
              0x3'0000'5001u);
  });
  std::uint64_t pte = 0;
  p.dram().store().read(0xDF800000 + (out_gfx >> 12) * 8, reinterpret_cast<unsigned char*>(&pte), 8);
  EXPECT_EQ(pte, 0x3'0000'5001u);
  std::uint32_t v = 0;
  p.dram().store().read(0x3'0000'5040 + high_offset, reinterpret_cast<unsigned char*>(&v), 4);
  EXPECT_EQ(v, 0xC0FFEE01u);
  EXPECT_EQ(core::stats().counter_value("platform.gen.gtt.faults"), 0u);
}
