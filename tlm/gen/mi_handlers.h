// Handlers of the MI ("memory interface") commands of the Gen command streamer, one per command table row
// (command_table.h). They decode the command and act on the engine only through EngineContext. Field layouts: Mesa
// genxml gen8.xml/gen9.xml, i915 gt/intel_gpu_commands.h; see docs/gen-command-streamer.md. MI_MATH's ALU and
// MI_ATOMIC's operations live in mi_math and mi_atomic.
#pragma once

#include <cstdint>

#include "tlm/gen/engine_context.h"

namespace gpuvp::gen {

Outcome mi_noop(EngineContext& e, const Command& cmd);
Outcome mi_user_interrupt(EngineContext& e, const Command& cmd);
Outcome mi_arb_check(EngineContext& e, const Command& cmd);
Outcome mi_arb_on_off(EngineContext& e, const Command& cmd);
Outcome mi_batch_buffer_end(EngineContext& e, const Command& cmd);
Outcome mi_math(EngineContext& e, const Command& cmd);
Outcome mi_semaphore_wait(EngineContext& e, const Command& cmd);
Outcome mi_store_data_imm(EngineContext& e, const Command& cmd);
Outcome mi_store_data_index(EngineContext& e, const Command& cmd);
Outcome mi_load_register_imm(EngineContext& e, const Command& cmd);
Outcome mi_store_register_mem(EngineContext& e, const Command& cmd);
Outcome mi_flush_dw(EngineContext& e, const Command& cmd);
Outcome mi_load_register_mem(EngineContext& e, const Command& cmd);
Outcome mi_atomic(EngineContext& e, const Command& cmd);
Outcome mi_batch_buffer_start(EngineContext& e, const Command& cmd);
Outcome mi_conditional_batch_buffer_end(EngineContext& e, const Command& cmd);

// A graphics address from a command's low and high dwords: 48 bits on Gen8 (high bits 15:0), 64 on Gen9 (Mesa genxml
// gen8.xml/gen9.xml MI_BATCH_BUFFER_START).
std::uint64_t command_address(unsigned generation, std::uint32_t low, std::uint32_t high);

// The post-sync write of MI_FLUSH_DW and PIPE_CONTROL (bits 15:14 of the dword that holds their flags): operation 1
// writes immediate data of `bytes` bytes, 3 the CS timestamp (a qword); the caller rejects operation 2 (reserved in
// MI_FLUSH_DW, depth count in PIPE_CONTROL). With store_index the destination is status_page_offset into the hardware
// status page (GGTT), else address in the given space. False when the write stopped the engine.
struct PostSync {
  std::uint32_t operation;
  bool store_index;
  std::uint32_t status_page_offset;
  std::uint64_t address;
  AddressSpace space;
  std::uint64_t immediate;
  unsigned bytes;
};
bool post_sync_write(EngineContext& e, const PostSync& p);

}  // namespace gpuvp::gen
