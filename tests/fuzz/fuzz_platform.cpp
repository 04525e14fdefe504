#include "tests/fuzz/fuzz_platform.h"

#include <cstdio>
#include <sstream>
#include <systemc>

#include "hw/gen/engine_regs.h"
#include "hw/vc4/v3d_regs.h"
#include "platform/aub_replay.h"
#include "platform/platform.h"
#include "platform/platform_params.h"
#include "platform/script_interpreter.h"
#include "platform/tbx_server.h"
#include "tlm/core/report.h"

namespace gpuvp::fuzz {

namespace {

// Short watchdogs: a hang an input causes is declared within the input's own time. The TBX server's read wait and
// stall timeout and the longest wait for a busy GPU (TBX session end, AUB polls) shrink alike, so that a session of a
// few hundred reads or a trace of many polls stays within an input's time. The GuC boot ROM's RSA check takes 1000
// cycles instead of 200,000: the host polls for the end of the boot every 100 ns, and those 5000 polls were about a
// fifth of fuzz_guc's time per input.
const std::vector<std::string> kFuzzConfig = {
    "gen.cs.hang_timeout_ns=100000",  "gen.guc.hang_timeout_ns=100000",   "vc4.v3d.cle.hang_timeout_ns=100000",
    "host.tbx_read_wait_ns=100000",   "host.tbx_stall_timeout_ns=500000", "host.gpu_wait_limit_ns=1000000",
    "gen.guc.rsa_verify_cycles=1000",
};

// The waits a command may ask for, cut to `limit`: clock_step NS, poll* ADDR VALUE [MASK] TIMEOUT, irq_wait LINE
// TIMEOUT. Anything else is left as it is (the interpreter answers what it does not understand with ERR).
std::string clamp_waits(const std::string& line, core::Picoseconds limit) {
  // Only waits are rewritten: other lines (a write line carries up to a megabyte of hex) are not split into words.
  const std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string::npos) return line;
  const std::string first = line.substr(start, line.find_first_of(" \t#", start) - start);
  if (first != "clock_step" && first.rfind("poll", 0) != 0 && first != "irq_wait") return line;
  std::istringstream in(line.substr(0, line.find('#')));
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) return line;
  const std::string& op = words[0];
  const bool poll = op.rfind("poll", 0) == 0 && words.size() >= 4;
  if (op != "clock_step" && !poll && op != "irq_wait") return line;
  if (op == "clock_step" && words.size() == 1) return line;  // to the next event: bounded by the run
  std::string& wait = words.back();
  const std::uint64_t limit_ns = limit / core::kPsPerNs;
  const unsigned long long asked = std::strtoull(wait.c_str(), nullptr, 0);
  if (asked > limit_ns || wait.size() > 20) wait = std::to_string(limit_ns);
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// The host CPU's thread: runs each input's commands when the harness hands them over.
class FuzzHost : public sc_core::sc_module {
 public:
  FuzzHost(sc_core::sc_module_name name, platform::Platform& platform) : sc_module(name), interpreter_(platform, "") {
    SC_HAS_PROCESS(FuzzHost);
    SC_THREAD(loop);
  }

  void start(std::vector<std::string> commands) {
    commands_ = std::move(commands);
    done_ = false;
    go_.notify(sc_core::SC_ZERO_TIME);
  }
  bool done() const { return done_; }

 private:
  void loop() {
    for (;;) {
      wait(go_);
      for (const auto& c : commands_) interpreter_.execute(c);
      done_ = true;
    }
  }

  platform::ScriptInterpreter interpreter_;
  std::vector<std::string> commands_;
  sc_core::sc_event go_;
  bool done_ = true;
};

}  // namespace

struct FuzzPlatform::Impl {
  platform::PlatformParams params = platform::load_platform_params(std::vector<std::string>{}, kFuzzConfig);
  platform::Platform platform{"gpuvp", params};
  FuzzHost host{"fuzz_host", platform};
  platform::TbxServer tbx{"tbx", platform, ""};
  platform::AubReplay aub{"aub", platform, ""};

  // Elaboration and initialisation: the host thread then waits for its first commands (an event notified before the
  // simulation started would not reach it).
  Impl() { sc_core::sc_start(sc_core::SC_ZERO_TIME); }

  // Runs commands until they are done; their waits are clamped, so the bound is never reached by a well-formed run,
  // and reaching it means a command the clamp missed: the fuzzer sees a crash.
  void run_commands(std::vector<std::string> commands, core::Picoseconds limit) {
    for (auto& c : commands) c = clamp_waits(c, limit);
    host.start(std::move(commands));
    const core::Picoseconds deadline = core::now_ps() + 100 * limit + core::kPsPerUs;
    while (!host.done()) {
      if (core::now_ps() >= deadline) {
        std::fprintf(stderr, "fuzz: the input's commands did not finish in %llu ns of simulated time\n",
                     static_cast<unsigned long long>((100 * limit + core::kPsPerUs) / core::kPsPerNs));
        std::abort();
      }
      sc_core::sc_start(core::to_sc_time(limit));
    }
  }

  // Back to power-on as a driver would bring the GPUs there, then DRAM cleared.
  void reset() {
    const std::uint64_t gen = params.gen.base, v3d = params.vc4.base;
    std::vector<std::string> commands;
    if (params.gen.enabled) commands.push_back("writel " + hex(gen + gen::kGdrst) + " 0x1");
    if (params.vc4.enabled) {
      for (unsigned t = 0; t < 2; ++t) {
        commands.push_back("writel " + hex(v3d + vc4::kV3dCtnCs(t)) + " " + hex(vc4::CtnCsFields::kCtRsta));
      }
      commands.push_back("writel " + hex(v3d + vc4::kV3dIntctl) + " " + hex(vc4::kV3dIntAll));
    }
    commands.push_back("clock_step 1000");
    run_commands(commands, 10 * core::kPsPerUs);
    platform.dram().clear();
    core::ReportLog::clear();
  }
};

FuzzPlatform& FuzzPlatform::instance() {
  static FuzzPlatform* platform = [] {
    core::ensure_picosecond_resolution();
    core::ReportLog::install(false);  // counted, not printed: the fuzzer's output stays its own
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    return new FuzzPlatform();
  }();
  return *platform;
}

FuzzPlatform::FuzzPlatform() : impl_(new Impl) {}

void FuzzPlatform::run(const std::vector<std::string>& commands, const FuzzRunLimits& limits) {
  impl_->run_commands(commands, limits.commands);
  sc_core::sc_start(core::to_sc_time(limits.settle));
  impl_->reset();
}

void FuzzPlatform::run_until(const std::function<bool()>& done, const FuzzRunLimits& limits) {
  const core::Picoseconds step = 10 * core::kPsPerUs;
  const core::Picoseconds deadline = core::now_ps() + limits.commands;
  while (!done()) {
    if (core::now_ps() >= deadline) {
      std::fprintf(stderr, "fuzz: the input's workload did not end in %llu ns of simulated time\n",
                   static_cast<unsigned long long>(limits.commands / core::kPsPerNs));
      // What kept it going: the engines still busy.
      if (gen::GenGpu* gpu = impl_->platform.gen()) {
        for (int e = 0; e < gen::kEngineCount; ++e) {
          const gen::CommandStreamer* cs = gpu->engine(static_cast<gen::Engine>(e));
          if (cs && cs->busy()) {
            std::fprintf(stderr, "fuzz: %s busy: %llu commands executed, ring head %#x tail %#x, execlists %d\n",
                         cs->info().name, static_cast<unsigned long long>(cs->commands_executed()),
                         cs->ring().head_reg(), cs->ring().tail_reg(), cs->execlist_mode() ? 1 : 0);
          }
        }
      }
      std::abort();
    }
    sc_core::sc_start(core::to_sc_time(step));
  }
  sc_core::sc_start(core::to_sc_time(limits.settle));
  impl_->reset();
}

void FuzzPlatform::run(const std::string& script, const FuzzRunLimits& limits) {
  std::vector<std::string> commands;
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) commands.push_back(line);
  run(commands, limits);
}

platform::Platform& FuzzPlatform::platform() { return impl_->platform; }
platform::TbxServer& FuzzPlatform::tbx() { return impl_->tbx; }
platform::AubReplay& FuzzPlatform::aub() { return impl_->aub; }
std::uint64_t FuzzPlatform::gen_base() const { return impl_->params.gen.base; }
std::uint64_t FuzzPlatform::v3d_base() const { return impl_->params.vc4.base; }

std::string hex(std::uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
  return buf;
}

std::string write_command(std::uint64_t address, const std::uint8_t* bytes, std::size_t size) {
  static const char* kDigits = "0123456789abcdef";
  std::string line = "write " + hex(address) + " " + std::to_string(size) + " 0x";
  line.reserve(line.size() + 2 * size);
  for (std::size_t i = 0; i < size; ++i) {
    line += kDigits[bytes[i] >> 4];
    line += kDigits[bytes[i] & 15];
  }
  return line;
}

}  // namespace gpuvp::fuzz
