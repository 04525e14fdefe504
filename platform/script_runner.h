// ScriptRunner: the host CPU's thread. Feeds lines from a channel to the interpreter, sends answers back, and stops
// the simulation when the input ends or (for scripts) at the first ERR.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <systemc>

#include "platform/line_channel.h"
#include "platform/script_interpreter.h"

namespace gpuvp::platform {

class ScriptRunner : public sc_core::sc_module {
 public:
  ScriptRunner(sc_core::sc_module_name name, Platform& platform, std::unique_ptr<LineChannel> channel,
               std::string base_dir);

  bool finished() const { return finished_; }
  bool failed() const { return !failure_.empty(); }
  // "FILE:LINE: reason" of the ERR that ended a script.
  const std::string& failure() const { return failure_; }
  std::uint64_t commands() const { return interpreter_.commands(); }
  std::uint64_t errors_answered() const { return errors_answered_; }
  const ScriptInterpreter& interpreter() const { return interpreter_; }

 private:
  void run();

  std::unique_ptr<LineChannel> channel_;
  ScriptInterpreter interpreter_;
  bool finished_ = false;
  std::string failure_;
  std::uint64_t errors_answered_ = 0;
};

}  // namespace gpuvp::platform
