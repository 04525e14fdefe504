// gpuvp sweep --slurm on a real Slurm: a single-node cluster (Debian's slurm-wlm and munge: slurmctld, slurmd and
// munged in a scratch directory on free ports, tests/slurm/slurm_single_node.sh) runs a sweep's job array and merge
// job, and the merged CSV is the local sweep's. Needs root; skipped without Slurm or root unless GPUVP_REQUIRE_SLURM
// is set (./dev.sh test sets it as root, after installing the packages).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp, setenv

#include "tests/support/run_gpuvp.h"
#include "tests/support/shell_command.h"

namespace {

namespace fs = std::filesystem;
using gpuvp::test::run_gpuvp_split;
using gpuvp::test::run_shell;

std::string read_file(const fs::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string cluster_script() { return std::string("bash ") + GPUVP_SOURCE_DIR + "/tests/slurm/slurm_single_node.sh"; }

constexpr const char* kSweep =
    "sweep --vary vc4.v3d.qpus_per_slice=2,4 --vary dram.read_latency_cycles=50,100 --workload demo-vc4-fft "
    "--metric sim_time_ps --metric gpuvp.v3d.qpus.busy.utilisation ";

class SlurmSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    // Short: slurmd's step sockets under it must fit a Unix socket path (108 bytes).
    char name[] = "/tmp/gpuvp-slurm-XXXXXX";
    ASSERT_NE(::mkdtemp(name), nullptr);
    cluster_ = name;
    const auto r = run_shell(cluster_script() + " start " + cluster_ + " 2>&1");
    if (r.status == 2 && std::getenv("GPUVP_REQUIRE_SLURM") == nullptr) GTEST_SKIP() << r.out;
    ASSERT_EQ(r.status, 0) << r.out;  // with the daemons' log tails
    ::setenv("SLURM_CONF", (cluster_ + "/slurm/slurm.conf").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("SLURM_CONF");
    const auto r = run_shell(cluster_script() + " stop " + cluster_ + " 2>&1");
    EXPECT_EQ(r.status, 0) << r.out;
    if (!HasFailure()) fs::remove_all(cluster_);  // on failure the logs stay (cluster_/slurm/*.log)
  }
  std::string cluster_;
};

TEST_F(SlurmSweep, JobArrayAndMergeGiveTheLocalResults) {
  const std::string local = cluster_ + "/local";
  // A space and a percent sign in the path: nothing of it may be read as a directive or an output pattern.
  const std::string remote = cluster_ + "/slurm sweep 100%";
  const auto l = run_gpuvp_split(std::string(kSweep) + "-j 2 -o " + local);
  ASSERT_EQ(l.exit_code, 1) << l.err;  // two points cannot run the FFT (6 QPUs)
  const auto s = run_gpuvp_split(std::string(kSweep) + "--slurm --slurm-wait -o \"" + remote + "\"");
  EXPECT_EQ(s.exit_code, 1) << s.err;
  EXPECT_NE(s.err.find("sweep: submitted job array "), std::string::npos) << s.err;
  EXPECT_NE(s.err.find(" (4 points); the merge job runs after it"), std::string::npos) << s.err;
  EXPECT_EQ(s.out, "sweep: 4 points: 2 ok, 2 failed; results: " + remote + "/results.csv, summary.html\n");
  const std::string csv = read_file(fs::path(remote) / "results.csv");
  EXPECT_EQ(csv, read_file(fs::path(local) / "results.csv"));
  EXPECT_NE(csv.find(",4,50,"), std::string::npos) << csv;
  // Each task's and the merge's output, where the scripts send it.
  for (int task = 0; task < 4; ++task) {
    EXPECT_TRUE(fs::exists(fs::path(remote) / "slurm" / "logs" / ("point-0-" + std::to_string(task) + ".out")));
  }
  EXPECT_NE(read_file(fs::path(remote) / "slurm" / "logs" / "merge.out").find("sweep: 4 points: 2 ok, 2 failed"),
            std::string::npos);
  // Resubmitting a finished sweep submits nothing: it merges.
  const auto again = run_gpuvp_split(std::string(kSweep) + "--slurm --slurm-wait -o \"" + remote + "\"");
  EXPECT_EQ(again.err.find("submitted"), std::string::npos) << again.err;
  EXPECT_EQ(again.out, s.out);
}

TEST_F(SlurmSweep, AnUnreachableControllerIsAOneLineError) {
  // The same cluster's configuration with the controller stopped.
  ASSERT_EQ(run_shell(cluster_script() + " stop " + cluster_ + " 2>&1").status, 0);
  const std::string dir = cluster_ + "/unreachable";
  const auto r = run_gpuvp_split(std::string(kSweep) + "--slurm -o " + dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string last = r.err.substr(r.err.rfind("gpuvp: error:"));
  EXPECT_EQ(last.rfind("gpuvp: error: sweep: `sbatch --parsable ", 0), 0U) << r.err;
  EXPECT_NE(last.find("/slurm/array-0.sh` failed (exit 1): sbatch: error: "), std::string::npos) << r.err;
  EXPECT_EQ(last.find('\n'), last.size() - 1) << r.err;
  // The plan and the scripts are there to submit later.
  EXPECT_TRUE(fs::exists(fs::path(dir) / "plan.json"));
  EXPECT_TRUE(fs::exists(fs::path(dir) / "slurm" / "array-0.sh"));
  EXPECT_TRUE(fs::exists(fs::path(dir) / "slurm" / "submit.sh"));
}

}  // namespace
