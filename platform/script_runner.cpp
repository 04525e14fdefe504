#include "platform/script_runner.h"

#include "tlm/core/timeline.h"

namespace gpuvp::platform {

ScriptRunner::ScriptRunner(sc_core::sc_module_name name, Platform& platform, std::unique_ptr<LineChannel> channel,
                           std::string base_dir)
    : sc_module(name), channel_(std::move(channel)), interpreter_(platform, std::move(base_dir)) {
  SC_HAS_PROCESS(ScriptRunner);
  SC_THREAD(run);
  interpreter_.set_notice_sink([this](const std::string& text) { channel_->notice(text); });
}

void ScriptRunner::run() {
  const int track = core::timeline().track(name());
  std::string line;
  while (channel_->next(line)) {
    const core::Picoseconds started = core::now_ps();
    ScriptAnswer answer =
        channel_->overlong() ? ScriptAnswer{"ERR line longer than " + std::to_string(LineChannel::kMaxLineBytes >> 20) +
                                                " MiB (the protocol's limit): rejected",
                                            true}
                             : interpreter_.execute(line);
    if (answer.text.empty()) continue;
    if (core::timeline().enabled()) {
      const std::string command = line.substr(0, line.find_first_of(" \t#"));
      core::timeline().span(track, command.c_str(), started, core::now_ps() - started);
    }
    channel_->answer(answer.text);
    if (answer.error) {
      ++errors_answered_;
      if (channel_->stop_on_error()) {
        // The command as given, cut short: a failure line stays one readable line.
        constexpr std::size_t kShown = 120;
        const std::string command = line.size() > kShown ? line.substr(0, kShown) + "..." : line;
        failure_ = channel_->where() + ": " + answer.text.substr(4) +
                   (command.empty() ? std::string() : " (command: " + command + ")");
        break;
      }
    }
  }
  finished_ = true;
  sc_core::sc_stop();
}

}  // namespace gpuvp::platform
