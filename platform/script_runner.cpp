#include "platform/script_runner.h"

namespace gpuvp::platform {

ScriptRunner::ScriptRunner(sc_core::sc_module_name name, Platform& platform, std::unique_ptr<LineChannel> channel,
                           std::string base_dir)
    : sc_module(name), channel_(std::move(channel)), interpreter_(platform, std::move(base_dir)) {
  SC_HAS_PROCESS(ScriptRunner);
  SC_THREAD(run);
}

void ScriptRunner::run() {
  std::string line;
  while (channel_->next(line)) {
    ScriptAnswer answer = interpreter_.execute(line);
    if (answer.text.empty()) continue;
    channel_->answer(answer.text);
    if (answer.error) {
      ++errors_answered_;
      if (channel_->stop_on_error()) {
        failure_ = channel_->where() + ": " + answer.text.substr(4) + " (command: " + line + ")";
        break;
      }
    }
  }
  finished_ = true;
  sc_core::sc_stop();
}

}  // namespace gpuvp::platform
