// ring_crosscheck: the verilated RTL pointer blocks against their C++ models, cycle by cycle (tb/crosscheck/
// crosscheck.h). Runs the directed cases, then --ops constrained-random cycles per block from --seed (printed, so a
// failing run can be repeated exactly). Exit code 0 when every output matched every cycle, 1 on a mismatch (the
// report names seed, cycle, inputs and both outputs), 2 on a bad command line.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <systemc>

#include <CLI/CLI.hpp>

#include "tb/crosscheck/crosscheck.h"

namespace {

template <typename Check>
bool run(const char* name, Check& check, std::uint64_t ops, const std::string& trace) {
  if (!trace.empty() && !check.trace_to(trace)) {
    std::fprintf(stderr, "ring_crosscheck: cannot write the waveform file '%s'\n", trace.c_str());
    return false;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const bool ok = check.run_directed() && check.run_random(ops);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!ok) {
    std::printf("%s\n%s: FAILED\n", check.failure().c_str(), name);
    return false;
  }
  std::printf("%s: %llu cycles (directed + %llu random) matched in %.2f s%s\n", name,
              static_cast<unsigned long long>(check.cycles()), static_cast<unsigned long long>(ops), seconds,
              check.summary().c_str());
  return true;
}

}  // namespace

int sc_main(int argc, char** argv) {
  CLI::App app{"Cross-check the RTL ring_ptr and csb_ptr blocks against the C++ models, cycle by cycle"};
  std::uint64_t seed = 0;
  std::uint64_t ops = 10'000'000;
  std::string block = "all";
  std::string trace;
  auto* seed_opt = app.add_option("--seed", seed, "random seed (default: a fresh one, printed)");
  app.add_option("--ops", ops, "constrained-random cycles per block")->capture_default_str();
  app.add_option("--block", block, "ring, csb or all")
      ->check(CLI::IsMember({"ring", "csb", "all"}))
      ->capture_default_str();
  app.add_option("--trace", trace, "VCD waveform of the RTL (with --block all: FILE.ring.vcd and FILE.csb.vcd)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (seed_opt->count() == 0) seed = std::random_device{}() | std::uint64_t{std::random_device{}()} << 32;
  std::printf("ring_crosscheck seed=%llu ops=%llu (repeat with --seed %llu)\n", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(ops), static_cast<unsigned long long>(seed));
  auto trace_of = [&](const char* which) {
    if (trace.empty() || block != "all") return trace;
    return trace + "." + which + ".vcd";
  };
  bool ok = true;
  if (block == "ring" || block == "all") {
    gpuvp::crosscheck::RingCrossCheck ring(seed);
    ok = run("ring_ptr", ring, ops, trace_of("ring")) && ok;
  }
  if (ok && (block == "csb" || block == "all")) {
    gpuvp::crosscheck::CsbCrossCheck csb(seed);
    ok = run("csb_ptr", csb, ops, trace_of("csb")) && ok;
  }
  return ok ? 0 : 1;
}

// The tool links the model libraries and with them SystemC, whose library owns the call to sc_main: enter through
// the kernel like every other gpuvp program (a plain main() leaves libsystemc's sc_main reference unresolved wherever
// the linker keeps the library, e.g. in the sanitizer build).
int main(int argc, char** argv) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
