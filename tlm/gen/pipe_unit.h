// PipeUnit: a pipeline behind a Gen engine's command streamer that executes the non-MI commands the command table
// routes to it (render: PIPE_CONTROL; later the GPGPU pipe with GPGPU_WALKER and MEDIA_*, and the 3D pipe), the
// counterpart of vc4's ControlListUnit (control_list_executor.h). A unit runs on its engine's thread and acts on the
// engine only through EngineContext. Facts: docs/gen-command-streamer.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "tlm/gen/engine_context.h"

namespace gpuvp::gen {

// The pipe a command table row routes to; kNone: an MI command that the streamer executes with the row's handler.
enum class Pipe : std::uint8_t { kNone, kRender, kGpgpu };
constexpr std::size_t kPipeCount = 3;
constexpr const char* to_string(Pipe p) {
  switch (p) {
    case Pipe::kRender:
      return "render";
    case Pipe::kGpgpu:
      return "GPGPU";
    case Pipe::kNone:
      break;
  }
  return "none";
}

class PipeUnit {
 public:
  virtual ~PipeUnit() = default;
  virtual Pipe pipe() const = 0;

  // A command of this pipe, fetched whole, its length and engine checked against the table.
  virtual Outcome execute(EngineContext& engine, const Command& cmd) = 0;

  // Execlists context switch: the pipe's state goes into the context image of the context at lrca (GGTT) when the
  // context is switched out, and comes back from it when the context is restored; false when a memory access
  // failed (the engine stopped). A unit without state between commands keeps nothing there.
  virtual bool save_state(EngineContext& engine, std::uint64_t lrca) = 0;
  virtual bool restore_state(EngineContext& engine, std::uint64_t lrca) = 0;

  // Engine reset (GDRST domain or full): back to the power-on state.
  virtual void reset() = 0;
};

// An engine's pipes, indexed by Pipe (kNone unused).
using PipeUnits = std::array<std::unique_ptr<PipeUnit>, kPipeCount>;

}  // namespace gpuvp::gen
