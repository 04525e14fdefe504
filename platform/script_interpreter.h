// The host script protocol, modelled on QEMU's qtest: one command per line, answered with "OK", "OK 0xVALUE" or
// "ERR message". Every access goes through the platform bus as a timed transaction from the host initiator, exactly
// as a CPU would issue it. Commands:
//   writeb|writew|writel|writeq ADDR VALUE      readb|readw|readl|readq ADDR      -> OK 0x%016x
//   write ADDR SIZE 0xHEXBYTES                  read ADDR SIZE                     -> OK 0xHEXBYTES
//   memset ADDR SIZE BYTE                       load ADDR FILE
//   clock_step [NS]                             -> OK TIME_NS
//   irq_wait LINE TIMEOUT_NS                    -> OK TIME_NS, or ERR on time-out
//   expectb|expectw|expectl|expectq ADDR VALUE [MASK]  -> OK 0xACTUAL, or ERR when (actual & MASK) != VALUE
//   pollb|pollw|polll|pollq ADDR VALUE [MASK] TIMEOUT_NS  -> OK TIME_NS when (value & MASK) == VALUE, or ERR on
//                                               time-out (reads every host.poll_interval_ns, core::poll)
//   irq_intercept_in                            -> OK; from then on "IRQ raise N" / "IRQ lower N" notices
//   dump_png ADDR FORMAT WIDTH HEIGHT [STRIDE] FILE  -> OK: memory holding a vc4 colour buffer (rgba8888, bgr565, -t
//                                               T-format, -lt LT) as a PNG file (platform/framebuffer_png.h)
// '#' starts a comment; numbers are 0x hex or decimal.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/platform.h"
#include "tlm/core/stats.h"

namespace gpuvp::platform {

struct ScriptAnswer {
  std::string text;    // the answer line; empty for blank and comment lines
  bool error = false;  // the answer is ERR
};

class ScriptInterpreter {
 public:
  // Relative FILE arguments of `load` are resolved against base_dir (the script's directory; empty = cwd).
  ScriptInterpreter(Platform& platform, std::string base_dir);

  // Executes one line. Must be called from a SystemC thread process (accesses and waits consume simulated time).
  ScriptAnswer execute(const std::string& line);
  std::uint64_t commands() const { return commands_; }
  // Where asynchronous notices go ("IRQ raise 0", as QEMU's qtest sends them after irq_intercept_in): called from
  // inside the model the moment a host interrupt line changes, so a notice comes before the answer of the command
  // during which it happened, never inside one.
  void set_notice_sink(std::function<void(const std::string&)> sink) { notice_ = std::move(sink); }

  // Regions of interest (stats_begin NAME ... stats_end NAME): what each did, in the order they ended, as
  // [{"name", "begin_ps", "end_ps", "stats": {deltas as StatsRegistry::since}}]; regions still open are ended at
  // `end` and marked "open_at_end": true. Empty when the script marked none.
  nlohmann::json regions(core::Picoseconds end) const;

  // Largest SIZE accepted by read/write (answers must stay a sensible line length).
  static constexpr std::uint64_t kMaxTransferBytes = 1 << 20;
  // memset's largest size per command (a bound on the work and host memory one line can ask for).
  static constexpr std::uint64_t kMaxMemsetBytes = 1ULL << 30;

 private:
  ScriptAnswer run(const std::vector<std::string>& words);
  ScriptAnswer access_error(const char* what, std::uint64_t addr, int status) const;
  ScriptAnswer intercept_irqs();

  Platform& platform_;
  std::string base_dir_;
  std::uint64_t commands_ = 0;
  std::function<void(const std::string&)> notice_;
  bool intercepting_ = false;
  // Open regions in the order they began (few at a time: a linear search is the simplest lookup).
  std::vector<std::pair<std::string, core::StatsSnapshot>> open_regions_;
  nlohmann::json regions_ = nlohmann::json::array();
};

}  // namespace gpuvp::platform
