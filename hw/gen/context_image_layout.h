// Layout of a logical ring context as i915 builds it (i915 v4.x intel_lrc.c populate_lr_context and its CTX_*
// indices; GVT-g struct execlist_ring_context; docs/gen-execlists.md). The context object is the per-process status
// page followed by the register-state page; the register-state page is a list of MI_LOAD_REGISTER_IMM commands whose
// (register, value) pairs the engine loads on restore and writes back on save. Each CTX_* index names the register
// dword of a pair; its value is the next dword (value()).
#pragma once

#include <cstdint>

namespace gpuvp::gen::lrc {

constexpr std::uint32_t kStatePageOffset = 4096;  // LRC_STATE_PN 1: the register-state page follows the status page

constexpr std::uint32_t kLriHeader0 = 0x01;  // MI_LOAD_REGISTER_IMM(14 render | 11 other engines) | FORCE_POSTED
constexpr std::uint32_t kContextControl = 0x02;
constexpr std::uint32_t kRingHead = 0x04;
constexpr std::uint32_t kRingTail = 0x06;
constexpr std::uint32_t kRingBufferStart = 0x08;
constexpr std::uint32_t kRingBufferControl = 0x0A;
constexpr std::uint32_t kBbHeadU = 0x0C;
constexpr std::uint32_t kBbHeadL = 0x0E;
constexpr std::uint32_t kBbState = 0x10;
constexpr std::uint32_t kSecondBbHeadU = 0x12;
constexpr std::uint32_t kSecondBbHeadL = 0x14;
constexpr std::uint32_t kSecondBbState = 0x16;
constexpr std::uint32_t kBbPerCtxPtr = 0x18;
constexpr std::uint32_t kRcsIndirectCtx = 0x1A;
constexpr std::uint32_t kRcsIndirectCtxOffset = 0x1C;
constexpr std::uint32_t kLriHeader1 = 0x21;  // MI_LOAD_REGISTER_IMM(9) | FORCE_POSTED
constexpr std::uint32_t kCtxTimestamp = 0x22;
constexpr std::uint32_t kPdp3Udw = 0x24;  // then PDP3 LDW, PDP2 UDW, ... down to PDP0 LDW at 0x32
constexpr std::uint32_t kPdp0Ldw = 0x32;

// The dword holding the value of the pair whose register dword is `reg_dword`.
constexpr std::uint32_t value(std::uint32_t reg_dword) { return reg_dword + 1; }

}  // namespace gpuvp::gen::lrc
