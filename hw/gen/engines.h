// The Gen8/Gen9 engines: their MMIO bases, hardware ids (reported in RING_FAULT_REG.ENGINE_ID) and GDRST reset
// domains (i915 gt/intel_engine_cs.c intel_engines[]: RENDER_RING_BASE, GEN6_BSD_RING_BASE, BLT_RING_BASE,
// VEBOX_RING_BASE, GEN8_BSD2_RING_BASE and *_HW ids; intel_reset.c GEN6_GRDOM_*; docs/gen-command-streamer.md).
#pragma once

#include <cstdint>

#include "hw/gen/engine_regs.h"

namespace gpuvp::gen {

enum class Engine : std::uint8_t { kRcs, kBcs, kVcs0, kVcs1, kVecs };
constexpr int kEngineCount = 5;

struct EngineInfo {
  Engine id;
  const char* name;
  std::uint32_t mmio_base;
  std::uint8_t hw_id;          // i915 *_HW ids, reported in RING_FAULT_REG.ENGINE_ID
  std::uint32_t reset_domain;  // GDRST bit
  bool render;                 // PIPE_CONTROL (render) vs MI_FLUSH_DW (other engines)
};

inline constexpr EngineInfo kEngines[kEngineCount] = {
    {Engine::kRcs, "rcs", 0x02000, 0, kGdrstRender, true},   {Engine::kBcs, "bcs", 0x22000, 2, kGdrstBlt, false},
    {Engine::kVcs0, "vcs0", 0x12000, 1, kGdrstMedia, false}, {Engine::kVcs1, "vcs1", 0x1C000, 4, kGdrstMedia2, false},
    {Engine::kVecs, "vecs", 0x1A000, 3, kGdrstVecs, false},
};

constexpr const EngineInfo& engine_info(Engine e) { return kEngines[static_cast<int>(e)]; }
constexpr const char* to_string(Engine e) {
  return static_cast<unsigned>(e) < kEngineCount ? kEngines[static_cast<int>(e)].name : "?";
}

}  // namespace gpuvp::gen
