#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include <unistd.h>

#include "rtl/rtl_ring_pointer.h"
#include "tests/support/sc_test.h"
#include "tlm/core/timing.h"
#include "tlm/gen/gpgpu_pipe.h"

namespace gpuvp::test {

namespace {

class Stimulus : public sc_core::sc_module {
 public:
  Stimulus(sc_core::sc_module_name name, std::function<void()> body) : sc_module(name), body_(std::move(body)) {
    SC_HAS_PROCESS(Stimulus);
    SC_THREAD(run);
  }
  bool done = false;

 private:
  void run() {
    body_();
    done = true;
    sc_core::sc_stop();
  }
  std::function<void()> body_;
};

}  // namespace

void run_thread(std::function<void()> body, const sc_core::sc_time& limit) {
  auto* stimulus = new Stimulus(sc_core::sc_gen_unique_name("stimulus"), std::move(body));
  sc_core::sc_start(limit);
  EXPECT_TRUE(stimulus->done) << "the test body did not finish within " << limit;
}

std::vector<core::ReportRecord> take_reports(sc_core::sc_severity severity, const std::string& text) {
  return core::ReportLog::take(severity, text);
}

void expect_no_unexpected_reports() {
  for (const auto& r : core::ReportLog::records()) {
    ADD_FAILURE() << "unexpected SystemC " << (r.severity == sc_core::SC_ERROR ? "error" : "warning") << " from "
                  << r.source << ": " << r.message;
  }
  core::ReportLog::clear();
}

}  // namespace gpuvp::test

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // GPUVP_RING_MODEL=rtl (set by CTest for the rtl.* copies of the command streamer and execlist suites): every
  // GenGpu the tests build uses that ring pointer implementation (gen::GenGpuParams::ring_model's default).
  gpuvp::rtl::register_ring_model();
  if (const char* model = std::getenv("GPUVP_RING_MODEL")) gpuvp::gen::set_default_ring_model(model);
  // GPUVP_GPGPU_TIMING=functional (the functional.* copies of the GPGPU suites): walkers take the functional rule's
  // time.
  if (const char* timing = std::getenv("GPUVP_GPGPU_TIMING")) gpuvp::gen::set_default_gpgpu_timing(timing);
  gpuvp::core::ensure_picosecond_resolution();
  gpuvp::core::ReportLog::install(true);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  const int result = RUN_ALL_TESTS();
  // SystemC warnings and errors that no test took fail the process; CTest runs one test per process, so this is a
  // per-test check. Tests may also call expect_no_unexpected_reports() themselves to fail at a precise point.
  if (!gpuvp::core::ReportLog::records().empty()) {
    for (const auto& r : gpuvp::core::ReportLog::records()) {
      std::fprintf(stderr, "FAILED: unexpected SystemC %s from %s: %s\n",
                   r.severity == sc_core::SC_ERROR ? "error" : "warning", r.source.c_str(), r.message.c_str());
    }
    return 1;
  }
  return result;
}

int main(int argc, char** argv) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  // A temporary directory of the process's own (gtest's TempDir() follows TEST_TMPDIR): CTest runs test cases of
  // one suite, its rtl.* copies and other build trees at the same time, and tests name their files by purpose.
  const char* base = std::getenv("TEST_TMPDIR");
  if (base == nullptr || *base == '\0') base = std::getenv("TMPDIR");
  const std::string dir =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/gpuvp-test-" + std::to_string(::getpid());
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (!error) ::setenv("TEST_TMPDIR", dir.c_str(), 1);
  const int result = sc_core::sc_elab_and_sim(argc, argv);
  std::filesystem::remove_all(dir, error);
  return result;
}
