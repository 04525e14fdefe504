// The register-state page of a logical ring context: a list of MI_NOOP and MI_LOAD_REGISTER_IMM commands with
// (register, value) pairs (i915 v4.x intel_lrc.c populate_lr_context; GVT-g struct execlist_ring_context;
// docs/gen-execlists.md). Restoring a context executes the list; saving writes the current values back into the
// value slots. Pure functions, no SystemC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuvp::gen {

struct ContextRegisterSlot {
  std::uint32_t dword;          // index of the value dword in the page
  std::uint32_t offset;         // MMIO offset of the register
  std::uint32_t byte_disables;  // LRI bits 11:8 of the command the pair belongs to
};

struct ContextImage {
  std::vector<ContextRegisterSlot> slots;
  std::string error;  // empty when the page parsed
};

// Parses a register-state page (up to `dwords` entries). The list ends at MI_BATCH_BUFFER_END or the end of the page.
// Accepted: MI_NOOP, MI_LOAD_REGISTER_IMM (FORCE_POSTED bit 12 allowed), and GPGPU_CSR_BASE_ADDRESS (0x6104xxxx, a
// 3-dword state command, Mesa genxml gen9.xml, that the hardware itself saves into render images at offset 0x110;
// docs/gen-execlists.md), skipped. Anything
// else is an error naming the dword and its value.
ContextImage parse_context_image(const std::uint32_t* page, std::size_t dwords);

// Register offsets whose saved form is a masked write (upper 16 bits enable the lower): CTX_CTRL (+0x244), saved
// as 0xffff000a (i915 v4.x intel_lrc.c writes CTX_CONTEXT_CONTROL masked; docs/gen-execlists.md). Offsets are
// relative to the engine base.
bool is_masked_context_register(std::uint32_t engine_relative_offset);

}  // namespace gpuvp::gen
