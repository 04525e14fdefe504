// RenderPipe: the render engine's pipe unit. It executes PIPE_CONTROL, the render engine's flush and post-sync
// command (GFXPIPE 3, 2, 0; Mesa genxml gen8.xml/gen9.xml, i915 gt/intel_gpu_commands.h PIPE_CONTROL_*); the 3D and
// GPGPU pipelines behind it are separate units (gpgpu_pipe.h); it keeps no state between commands. Facts:
// docs/gen-command-streamer.md.
#pragma once

#include <functional>

#include "tlm/gen/pipe_unit.h"

namespace gpuvp::gen {

class RenderPipe final : public PipeUnit {
 public:
  Pipe pipe() const override { return Pipe::kRender; }
  Outcome execute(EngineContext& engine, const Command& cmd) override;
  // PIPE_CONTROL leaves nothing behind in the pipe: no state to save, restore or reset.
  bool save_state(EngineContext&, std::uint64_t) override { return true; }
  bool restore_state(EngineContext&, std::uint64_t) override { return true; }
  void reset() override {}
  // PIPE_CONTROL Instruction Cache Invalidate reaches the EU's decoded kernels through this.
  void on_instruction_cache_invalidate(std::function<void()> f) { icache_invalidate_ = std::move(f); }

 private:
  std::function<void()> icache_invalidate_;
  Outcome pipe_control(EngineContext& engine, const Command& cmd);
};

}  // namespace gpuvp::gen
