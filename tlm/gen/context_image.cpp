#include "tlm/gen/context_image.h"

#include <cstdio>

#include "hw/gen/engine_regs.h"
#include "hw/gen/mi_commands.h"

namespace gpuvp::gen {

ContextImage parse_context_image(const std::uint32_t* page, std::size_t dwords) {
  ContextImage image;
  auto error = [&](std::size_t at, const char* what) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s at register-state dword 0x%zx (0x%08x)", what, at, page[at]);
    image.error = buf;
    image.slots.clear();
    return image;
  };
  for (std::size_t i = 0; i < dwords;) {
    const std::uint32_t dw = page[i];
    // MI_NOOP whatever its identification number (bits 21:0): NEO fills the unused dwords of its context images with
    // 0x00000001 (compute-runtime shared/source/aub_mem_dump/aub_mem_dump.cpp LrcaHelper::initialize).
    if (mi::type_of(dw) == mi::kTypeMi && mi::opcode_of(dw) == mi::kNoop) {
      ++i;
      continue;
    }
    if (mi::type_of(dw) == mi::kTypeMi && mi::opcode_of(dw) == mi::kBatchBufferEnd) break;
    if (mi::type_of(dw) == mi::kTypeMi && mi::opcode_of(dw) == mi::kLoadRegisterImm) {
      const std::size_t len = (dw & 0xFF) + 2;
      if ((dw & 0xFF) % 2 == 0) return error(i, "MI_LOAD_REGISTER_IMM with an even length");
      if (i + len > dwords) return error(i, "MI_LOAD_REGISTER_IMM running past the page");
      for (std::size_t k = i + 1; k + 1 < i + len; k += 2) {
        image.slots.push_back({static_cast<std::uint32_t>(k + 1), page[k] & 0x7FFFFC, dw >> 8 & 0xF});
      }
      i += len;
      continue;
    }
    if ((dw & 0xFFFF0000) == mi::kGpgpuCsrBaseAddressDw0) {
      i += (dw & 0xFF) + 2;
      continue;
    }
    return error(i, "not MI_NOOP or MI_LOAD_REGISTER_IMM");
  }
  return image;
}

bool is_masked_context_register(std::uint32_t engine_relative_offset) {
  return engine_relative_offset == engine_reg::kContextControl;
}

}  // namespace gpuvp::gen
