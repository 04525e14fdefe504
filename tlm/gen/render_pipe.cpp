#include "tlm/gen/render_pipe.h"

#include "hw/gen/mi_commands.h"
#include "tlm/gen/command_table.h"
#include "tlm/gen/gt_interrupts.h"
#include "tlm/gen/mi_handlers.h"

namespace gpuvp::gen {

Outcome RenderPipe::execute(EngineContext& engine, const Command& cmd) {
  if ((cmd.dw[0] & 0xFFFF0000) == mi::kPipeControlDw0) return pipe_control(engine, cmd);
  // The table routed a command here that this pipe does not know: a model bug, not the guest's.
  return engine.fail(&cmd, std::string("the render pipe has no handler for ") + cmd.info->name);
}

Outcome RenderPipe::pipe_control(EngineContext& engine, const Command& cmd) {
  const std::uint32_t flags = cmd.dw[1];
  if (flags & mi::kPcTlbInvalidate) engine.invalidate_tlb();
  if ((flags & mi::kPcInstructionCacheInvalidate) && icache_invalidate_) icache_invalidate_();
  const std::uint32_t operation = flags >> 14 & 3;
  if (operation == 2) {
    return engine.fail(&cmd, "PIPE_CONTROL post-sync depth count needs the 3D pipeline, which is not modelled");
  }
  if (operation != 0) {
    // Immediate data is always a qword (DW4 low, DW5 high).
    const PostSync p{operation,
                     (flags & mi::kPcStoreDataIndex) != 0,
                     cmd.dw[2] & 0xFF8,
                     command_address(engine.generation(), cmd.dw[2], cmd.dw[3]),
                     (flags & mi::kPcDestGgtt) ? AddressSpace::kGgtt : AddressSpace::kPpgtt,
                     std::uint64_t{cmd.dw[5]} << 32 | cmd.dw[4],
                     8};
    if (!post_sync_write(engine, p)) return Outcome::kStopped;
  }
  if (flags & mi::kPcNotify) return engine.raise_interrupt(GtInterrupts::kFlushNotify);
  return Outcome::kNext;
}

}  // namespace gpuvp::gen
