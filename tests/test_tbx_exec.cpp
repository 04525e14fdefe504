// `gpuvp exec` end to end: Intel's OpenCL runtime (Debian intel-opencl-icd, NEO 22.43) in TBX mode, pointed at the
// model by the launcher, and `gpuvp run --tbx`'s command-line errors.
#include <chrono>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/support/run_gpuvp.h"

using gpuvp::test::run_gpuvp;
using gpuvp::test::run_gpuvp_split;

namespace {

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    if (::access((dirs.substr(start, end - start) + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

TEST(TbxExec, ClinfoListsTheGen9Device) {
  if (!on_path("clinfo")) GTEST_SKIP() << "clinfo is not installed (Debian package clinfo; ./dev.sh installs it)";
  const auto r = run_gpuvp_split("exec -- clinfo -l");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // NEO names a Skylake GT2 desktop part (device 0x1902, NEO shared/source/gen9/skl) for skl 1x3x8.
  EXPECT_NE(r.out.find("Platform #0: Intel(R) OpenCL HD Graphics\n `-- Device #0: Intel(R) Graphics [0x1902]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("gpuvp run summary"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("outcome:        completed; clinfo exited with status 0"), std::string::npos) << r.err;
  // exec's own platform default reaches NEO's page tables: no note.
  EXPECT_EQ(r.err.find("note: NEO keeps"), std::string::npos) << r.err;
}

// A configuration that shrinks the DRAM below NEO's page tables gets a note (enough for clinfo, which submits
// nothing).
TEST(TbxExec, DramBelowNeosPageTablesIsNoted) {
  if (!on_path("clinfo")) GTEST_SKIP() << "clinfo is not installed (Debian package clinfo; ./dev.sh installs it)";
  const auto r = run_gpuvp_split("exec --set dram.size=2GiB -- clinfo -l");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("gpuvp: exec: note: NEO keeps its GPU page tables at fixed physical addresses up to "
                       "0x8100000000; DRAM ends at 0x80000000"),
            std::string::npos)
      << r.err;
}

TEST(TbxExec, DeviceMemoryFitsTheModelsDram) {
  if (!on_path("clinfo")) GTEST_SKIP() << "clinfo is not installed (Debian package clinfo; ./dev.sh installs it)";
  // NEO reports 16 GiB of system memory without a GPU driver; exec gives it the percentage of that its pages may use:
  // the DRAM from 0 up to its PML4 at 512 MiB, 3% (515396075 bytes, NEO rounds down to 4 KiB pages) ...
  const auto r = run_gpuvp_split("exec --quiet -- clinfo");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Global memory size                              515395584 (491.5MiB)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Max compute units                               24"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");  // --quiet: no summary and no note
  // ... or the DRAM below the GGTT entries: 256 MiB less 8 MiB gives 1%.
  const auto small = run_gpuvp_split("exec --quiet --set dram.size=256MiB -- clinfo");
  EXPECT_EQ(small.exit_code, 0) << small.err;
  EXPECT_NE(small.out.find("Global memory size                              171798528 (163.8MiB)"), std::string::npos)
      << small.out;
  const auto tiny = run_gpuvp("exec --set dram.size=128MiB -- clinfo");
  EXPECT_EQ(tiny.exit_code, 2);
  EXPECT_EQ(tiny.out,
            "gpuvp: error: exec: dram.size leaves 120 MiB from 0 up for NEO's pages; it needs at least 1% of 16 GiB "
            "(164 MiB)\n");
}

TEST(TbxExec, TheProgramGetsNeosKeysAndItsArguments) {
  const auto r = run_gpuvp_split(
      "exec --quiet -- sh -c 'echo $NEOReadDebugKeys $SetCommandStreamReceiver $TbxServer $ProductFamilyOverride "
      "$HardwareInfoOverride $ClDeviceGlobalMemSizeAvailablePercent; echo \"$@\"' x -- a --b");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1 2 127.0.0.1 skl 1x3x8 3\n-- a --b\n");
  const auto bdw = run_gpuvp_split("exec --quiet --set gen.generation=8 -- sh -c 'echo $ProductFamilyOverride'");
  EXPECT_EQ(bdw.out, "bdw\n");
  // TbxPort is the server's: the program connects there (bash's /dev/tcp), then closes without a message.
  const auto port =
      run_gpuvp_split("exec --stats stats.json -- bash -c 'exec 3<>/dev/tcp/127.0.0.1/$TbxPort && echo connected'");
  EXPECT_EQ(port.exit_code, 0) << port.err;
  EXPECT_EQ(port.out, "connected\n");
  EXPECT_NE(port.err.find("(0 requests)"), std::string::npos) << port.err;
}

// NEO's HardwareInfoOverride follows the configured EU array, so clinfo reports its EUs as compute units; an
// organisation NEO has no tables for (it would end the program in UNRECOVERABLE_IF) or other than 7 threads per EU
// (NEO sizes scratch space for 7) is refused before anything runs.
TEST(TbxExec, NeoGetsTheConfiguredEuArray) {
  const std::string configs = std::string(GPUVP_SOURCE_DIR) + "/platform/configs/";
  const auto gt1 = run_gpuvp_split("exec --quiet --config " + configs + "gen9-gt1.yaml -- clinfo");
  EXPECT_EQ(gt1.exit_code, 0) << gt1.err;
  EXPECT_NE(gt1.out.find("Max compute units                               12"), std::string::npos) << gt1.out;
  const auto gt4 =
      run_gpuvp_split("exec --quiet --config " + configs + "gen9-gt4.yaml -- sh -c 'echo $HardwareInfoOverride'");
  EXPECT_EQ(gt4.out, "3x3x8\n") << gt4.err;
  const auto odd = run_gpuvp("exec --set gen.gpgpu.subslices_per_slice=1 --set gen.gpgpu.eus_per_subslice=4 -- true");
  EXPECT_EQ(odd.exit_code, 2);
  EXPECT_EQ(odd.out,
            "gpuvp: error: exec: NEO cannot set up a Gen9 EU array of 1x1x4 (gen.gpgpu slices x subslices_per_slice x "
            "eus_per_subslice); it knows 1x2x6, 1x3x6, 1x3x8, 2x3x8, 3x3x8\n");
  const auto bdw = run_gpuvp("exec --set gen.generation=8 --set gen.gpgpu.slices=3 -- true");
  EXPECT_EQ(bdw.exit_code, 2);
  EXPECT_NE(bdw.out.find("Gen8 EU array of 3x3x8"), std::string::npos) << bdw.out;
  const auto threads = run_gpuvp("exec --set gen.gpgpu.threads_per_eu=8 -- true");
  EXPECT_EQ(threads.exit_code, 2);
  EXPECT_EQ(threads.out,
            "gpuvp: error: exec: NEO sizes scratch space for 7 threads per EU; gen.gpgpu.threads_per_eu is 8\n");
}

TEST(TbxExec, ExitsWithTheProgramsStatus) {
  const auto r = run_gpuvp("exec --quiet -- sh -c 'exit 3'");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  const auto missing = run_gpuvp("exec -- /nonexistent/program");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.out.find("gpuvp: error: exec: cannot run '/nonexistent/program': No such file or directory"),
            std::string::npos)
      << missing.out;
}

// A run the wall-time limit stops ends the program at once (SIGTERM) and exits with the model's code, 1, not the
// status the program got from that signal.
TEST(TbxExec, AWallTimeLimitEndsTheProgramAndTheRunExitsOne) {
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_gpuvp_split("exec --max-wall-time 1s -- sleep 60");
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("  outcome:        stopped at the wall-time limit (--max-wall-time 1 s of host time), workload "
                       "unfinished (results up to the stop); sleep exited with status 143"),
            std::string::npos)
      << r.err;
  EXPECT_LT(wall_s, 9.0);  // not the 10 s grace period of a program that was never told to end
}

TEST(TbxExec, TbxAddressMustBeTcp) {
  const auto r = run_gpuvp("run --tbx unix:/tmp/x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "gpuvp: error: tbx 'unix:/tmp/x': expected tcp:HOST:PORT\n");
  const auto both = run_gpuvp("run --tbx tcp:127.0.0.1:0 --qtest tcp:127.0.0.1:0");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.out, "gpuvp: error: --script, --qtest, --tbx and --aub cannot be used together\n");
}
