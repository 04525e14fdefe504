// gpuvp sweep: the plan (expansion, sampling, content-hashed ids, bad input), the results (metrics by path, CSV),
// the Slurm scripts, and whole sweeps through the executable: local with -j, resumed, with failing points, and the
// Slurm scripts run by hand giving the same CSV.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platform/sweep_plan.h"
#include "platform/sweep_results.h"
#include "platform/sweep_slurm.h"
#include "tests/support/run_gpuvp.h"
#include "tests/support/shell_command.h"

namespace gpuvp::platform {
namespace {

namespace fs = std::filesystem;

class SweepPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    set_sweep_workloads({{"demo-vc4-fft", "FFT"}, {"demo-vc4-frame", "frame"}});
    spec.workload = "demo-vc4-fft";
    spec.metrics = {"sim_time_ps"};
  }
  SweepSpec spec;
};

std::string error_of(const SweepSpec& spec) {
  try {
    make_sweep_plan(spec);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST_F(SweepPlanTest, CrossProductInOrderWithTheLastKeyFastest) {
  spec.varies = {"vc4.v3d.qpus_per_slice=3,4", "dram.read_latency_cycles=50,100,200"};
  const SweepPlan plan = make_sweep_plan(spec);
  ASSERT_EQ(plan.points.size(), 6U);
  EXPECT_EQ(plan.space_size, 6U);
  const std::vector<std::vector<std::string>> expected{{"3", "50"}, {"3", "100"}, {"3", "200"},
                                                       {"4", "50"}, {"4", "100"}, {"4", "200"}};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(plan.points[i].values, expected[i]);
    EXPECT_EQ(plan.points[i].config["vc4"]["v3d"]["qpus_per_slice"], std::stoi(expected[i][0]));
    EXPECT_EQ(plan.points[i].config["dram"]["read_latency_cycles"], std::stoi(expected[i][1]));
    EXPECT_EQ(plan.points[i].id.size(), 16U);
  }
}

TEST_F(SweepPlanTest, IdsHashTheConfigurationAndTheWorkload) {
  spec.varies = {"dram.read_latency_cycles=50,100"};
  const SweepPlan a = make_sweep_plan(spec);
  const SweepPlan again = make_sweep_plan(spec);
  EXPECT_EQ(a.points[0].id, again.points[0].id);
  EXPECT_NE(a.points[0].id, a.points[1].id);
  // The same point reached through --set instead of --vary is the same configuration, so the same id.
  SweepSpec via_set = spec;
  via_set.overrides = {"dram.read_latency_cycles=100"};
  via_set.varies = {"sim.seed=1"};
  EXPECT_EQ(make_sweep_plan(via_set).points[0].id, a.points[1].id);
  SweepSpec other_workload = spec;
  other_workload.workload = "demo-vc4-frame";
  EXPECT_NE(make_sweep_plan(other_workload).points[0].id, a.points[0].id);
  // Spellings of one value are one point.
  spec.varies = {"gen.clock_hz=1GHz,1000MHz,1000000000"};
  EXPECT_EQ(make_sweep_plan(spec).points.size(), 1U);
}

TEST_F(SweepPlanTest, ScriptWorkloadsHashTheirText) {
  const std::string script = testing::TempDir() + "/sweep_workload.gpuvp";
  std::ofstream(script) << "writel 0x0 0x1\n";
  spec.workload = script;
  spec.varies = {"dram.read_latency_cycles=50"};
  const SweepPlan plan = make_sweep_plan(spec);
  EXPECT_EQ(plan.workload.name, "script:sweep_workload.gpuvp");
  EXPECT_EQ(plan.workload.identity, "script sha256:" + sha256_hex("writel 0x0 0x1\n"));
  std::ofstream(script) << "writel 0x0 0x2\n";
  EXPECT_NE(make_sweep_plan(spec).points[0].id, plan.points[0].id);
}

TEST_F(SweepPlanTest, Sha256OfAKnownText) {
  // FIPS 180-2, appendix B.1.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_F(SweepPlanTest, RandomSamplesAreDistinctAndSeeded) {
  spec.varies = {"dram.read_latency_cycles=10,20,30,40,50,60,70,80", "dram.write_latency_cycles=10,20,30,40,50"};
  spec.sample = 7;
  spec.seed = 42;
  const SweepPlan a = make_sweep_plan(spec);
  ASSERT_EQ(a.points.size(), 7U);
  EXPECT_EQ(a.space_size, 40U);
  std::set<std::string> ids;
  for (const SweepPoint& p : a.points) ids.insert(p.id);
  EXPECT_EQ(ids.size(), 7U);
  const SweepPlan b = make_sweep_plan(spec);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(a.points[i].id, b.points[i].id);
  spec.seed = 43;
  const SweepPlan c = make_sweep_plan(spec);
  bool differs = false;
  for (std::size_t i = 0; i < 7; ++i) differs |= a.points[i].id != c.points[i].id;
  EXPECT_TRUE(differs);
  spec.sample = 100;  // more than the space: the whole space
  EXPECT_EQ(make_sweep_plan(spec).points.size(), 40U);
}

TEST_F(SweepPlanTest, ASampleOfNIsNDistinctConfigurations) {
  // 1GHz and 1000MHz configure the same platform: a sample of 3 still has 3 points.
  spec.varies = {"gen.clock_hz=1GHz,1000MHz,2GHz,3GHz", "dram.read_latency_cycles=50,60"};
  spec.sample = 5;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    spec.seed = seed;
    EXPECT_EQ(make_sweep_plan(spec).points.size(), 5U) << seed;
  }
  spec.sample = 7;  // only 6 distinct configurations
  EXPECT_EQ(make_sweep_plan(spec).points.size(), 6U);
}

TEST_F(SweepPlanTest, ASpaceBeyond64BitsSamplesEveryValue) {
  // 20 keys of 10 values: 10^20 points, past 2^64. Each value of each key appears in a sample of 200.
  const char* keys[] = {"bus.hop_latency_cycles",
                        "dram.read_latency_cycles",
                        "dram.write_latency_cycles",
                        "gen.mmio_latency_cycles",
                        "gen.gtt.tlb_hit_cycles",
                        "gen.gtt.walk_level_cycles",
                        "gen.cs.decode_cycles",
                        "gen.cs.dword_cycles",
                        "gen.cs.register_cycles",
                        "gen.cs.memory_cycles",
                        "gen.cs.semaphore_poll_cycles",
                        "gen.gpgpu.instruction_cycles",
                        "gen.gpgpu.dispatch_cycles",
                        "gen.gpgpu.barrier_cycles",
                        "vc4.v3d.mmio_latency_cycles",
                        "vc4.v3d.cle.packet_cycles",
                        "vc4.v3d.binner.primitive_cycles",
                        "vc4.v3d.binner.vertex_cycles",
                        "vc4.v3d.renderer.tile_cycles",
                        "vc4.v3d.renderer.primitive_cycles"};
  for (const char* key : keys) spec.varies.push_back(std::string(key) + "=1,2,3,4,5,6,7,8,9,10");
  spec.sample = 200;
  const SweepPlan plan = make_sweep_plan(spec);
  ASSERT_EQ(plan.points.size(), 200U);
  for (std::size_t axis = 0; axis < 20; ++axis) {
    std::set<std::string> seen;
    for (const SweepPoint& p : plan.points) seen.insert(p.values[axis]);
    EXPECT_EQ(seen.size(), 10U) << keys[axis];
  }
}

TEST_F(SweepPlanTest, LatinHypercubeUsesEveryStratumOncePerKey) {
  // Five samples over two lists of five values: each value of each key exactly once.
  spec.varies = {"dram.read_latency_cycles=10,20,30,40,50", "dram.write_latency_cycles=11,21,31,41,51"};
  spec.varies.push_back("sim.seed=1,2,3,4,5,6,7,8,9,10");
  spec.sample = 5;
  spec.sample_method = "lhs";
  const SweepPlan plan = make_sweep_plan(spec);
  ASSERT_EQ(plan.points.size(), 5U);
  for (std::size_t axis = 0; axis < 2; ++axis) {
    std::set<std::string> seen;
    for (const SweepPoint& p : plan.points) seen.insert(p.values[axis]);
    EXPECT_EQ(seen.size(), 5U) << plan.axes[axis].key;
  }
  // Ten values in five strata: one value from each pair {4,8}, {16,32}, ...
  std::set<std::size_t> strata;
  for (const SweepPoint& p : plan.points) {
    const auto& values = plan.axes[2].values;
    strata.insert(static_cast<std::size_t>(std::find(values.begin(), values.end(), p.values[2]) - values.begin()) / 2);
  }
  EXPECT_EQ(strata.size(), 5U);
}

TEST_F(SweepPlanTest, BadInputNamesTheKeyOrValue) {
  spec.varies = {"dram.sise=1GiB,2GiB"};
  EXPECT_NE(error_of(spec).find("'dram.sise': unknown key, did you mean 'dram.size'?"), std::string::npos)
      << error_of(spec);
  spec.varies = {"dram.read_latency_cycles=50,lots"};
  EXPECT_NE(error_of(spec).find("dram.read_latency_cycles"), std::string::npos) << error_of(spec);
  EXPECT_NE(error_of(spec).find("lots"), std::string::npos) << error_of(spec);
  spec.varies = {"dram.read_latency_cycles=50", "dram.read_latency_cycles=60"};
  EXPECT_EQ(error_of(spec), "--vary dram.read_latency_cycles: the key is varied twice");
  spec.varies = {"dram.read_latency_cycles="};
  EXPECT_EQ(error_of(spec), "--vary 'dram.read_latency_cycles=': expected KEY=V1,V2,... with at least one value");
  spec.varies = {"dram.read_latency_cycles=5,,6"};
  EXPECT_EQ(error_of(spec), "--vary 'dram.read_latency_cycles=5,,6': an empty value in the list");
  spec.varies = {"dram.read_latency_cycles=5,5"};
  EXPECT_EQ(error_of(spec), "--vary dram.read_latency_cycles: the value '5' is given twice");
  spec.varies = {};
  EXPECT_EQ(error_of(spec), "nothing to sweep: give --vary KEY=V1,V2,...");
  spec.varies = {"dram.read_latency_cycles=50"};
  spec.workload = "no-such-workload";
  EXPECT_EQ(error_of(spec),
            "--workload 'no-such-workload': neither a named workload (gpuvp sweep --list-workloads) nor a host "
            "script file");
  spec.workload = "demo-vc4-fft";
  spec.sample_method = "sobol";
  EXPECT_EQ(error_of(spec), "--sample-method 'sobol': expected random or lhs");
  spec.sample_method = "random";
  spec.metrics = {"sim_time_ps", "sim_time_ps"};
  EXPECT_EQ(error_of(spec), "--metric sim_time_ps: given twice");
}

TEST_F(SweepPlanTest, AHugeSpaceNeedsASample) {
  std::string values;
  for (int v = 1; v <= 400; ++v) values += (v > 1 ? "," : "") + std::to_string(v);
  spec.varies = {"dram.read_latency_cycles=" + values, "dram.write_latency_cycles=" + values};
  EXPECT_EQ(error_of(spec), "the sweep has 160000 points, more than 100000: give --sample N to run a sample of them");
  spec.sample = 3;
  EXPECT_EQ(make_sweep_plan(spec).points.size(), 3U);
}

TEST_F(SweepPlanTest, PlanRoundTripsThroughItsDirectory) {
  spec.varies = {"dram.read_latency_cycles=50,100"};
  const SweepPlan plan = make_sweep_plan(spec);
  const std::string dir = testing::TempDir() + "/sweep_roundtrip";
  fs::remove_all(dir);
  write_sweep_plan(plan, dir);
  const SweepPlan back = read_sweep_plan(dir);
  ASSERT_EQ(back.points.size(), 2U);
  EXPECT_EQ(back.points[1].id, plan.points[1].id);
  EXPECT_EQ(back.points[1].values, plan.points[1].values);
  EXPECT_EQ(back.workload.name, "demo-vc4-fft");
  std::ifstream config(fs::path(dir) / "points" / plan.points[1].id / "config.json");
  EXPECT_EQ(nlohmann::json::parse(config), plan.points[1].config);
  std::ofstream(fs::path(dir) / "plan.json") << "{\"schema\": \"other\"}";
  try {
    read_sweep_plan(dir);
    FAIL() << "a plan of another schema was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("plan.json': not a gpuvp sweep plan"), std::string::npos) << e.what();
  }
}

TEST(SweepResults, MetricsAreNumbersOfTheStatsTreeByPath) {
  const nlohmann::json stats = nlohmann::json::parse(R"({
    "sim_time_ps": 1500, "wall_time_s": 0.25,
    "stats": {"gpuvp": {"v3d": {"qpus": {"busy": {"busy_ps": 10, "utilisation": 0.5}, "errors": 0}},
                        "gen": {"rcs": {"latency_ps": {"buckets": {"0": 1}, "count": 3, "mean": 2.5}}}}}})");
  EXPECT_EQ(metric_text(stats, "sim_time_ps"), "1500");
  EXPECT_EQ(metric_text(stats, "gpuvp.v3d.qpus.busy.utilisation"), "0.5");
  EXPECT_EQ(metric_text(stats, "gpuvp.v3d.qpus.errors"), "0");
  EXPECT_EQ(metric_text(stats, "gpuvp.gen.rcs.latency_ps.mean"), "2.5");
  EXPECT_EQ(metric_text(stats, "gpuvp.gen.rcs.latency_ps.buckets.0"), "");
  EXPECT_EQ(metric_text(stats, "gpuvp.v3d.qpus.busy"), "");
  EXPECT_EQ(check_metric_names({"sim_time_ps", "gpuvp.v3d.qpus.busy.utilisation"}, stats, "p1"), "");
  EXPECT_EQ(check_metric_names({"gpuvp.v3d.qpus.erors"}, stats, "p1"),
            "--metric 'gpuvp.v3d.qpus.erors': no such statistic in point p1's statistics, did you mean "
            "'gpuvp.v3d.qpus.errors'?");
}

TEST(SweepResults, CsvFieldsAreQuotedWhereNeeded) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
}

// Whole sweeps through the executable.

std::string read_file(const fs::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + "/" + name;
  fs::remove_all(dir);
  return dir;
}

constexpr const char* kFftSweep =
    "sweep --vary vc4.v3d.qpus_per_slice=2,4 --vary dram.read_latency_cycles=50,100 --workload demo-vc4-fft "
    "--metric sim_time_ps --metric gpuvp.v3d.qpus.programs_completed ";

TEST(SweepCommand, LocalSweepMatchesSingleRunsAndRecordsFailures) {
  const std::string dir = fresh_dir("sweep_local");
  const auto r = test::run_gpuvp_split(std::string(kFftSweep) + "-j 2 -o " + dir);
  // 2 QPUs per slice (6 in all) cannot run the 8-program FFT: those points fail, the others still run.
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "sweep: 4 points: 2 ok, 2 failed; results: " + dir + "/results.csv, summary.html\n");
  const std::vector<std::string> rows = lines_of(read_file(fs::path(dir) / "results.csv"));
  ASSERT_EQ(rows.size(), 5U);
  EXPECT_EQ(rows[0],
            "id,vc4.v3d.qpus_per_slice,dram.read_latency_cycles,sim_time_ps,gpuvp.v3d.qpus.programs_completed,"
            "outcome,error");
  const SweepPlan plan = read_sweep_plan(dir);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(rows[1 + i], plan.points[i].id + ",2," + plan.points[i].values[1] +
                               ",,,error,gpuvp: error: this workload needs 8 QPUs for the FFT; the platform has 6 "
                               "(vc4.v3d.slices x vc4.v3d.qpus_per_slice)");
  }
  // The ok points' figures are what the same runs give by themselves.
  for (const std::string latency : {"50", "100"}) {
    const std::string stats = testing::TempDir() + "/sweep_single_" + latency + ".json";
    const auto single = test::run_gpuvp(
        "run --quiet --workload demo-vc4-fft --set vc4.v3d.qpus_per_slice=4 --set "
        "dram.read_latency_cycles=" +
        latency + " --stats " + stats);
    ASSERT_EQ(single.exit_code, 0) << single.out;
    const nlohmann::json doc = nlohmann::json::parse(read_file(stats));
    const std::string row = latency == "50" ? rows[3] : rows[4];
    EXPECT_NE(row.find(",4," + latency + "," + std::to_string(doc["sim_time_ps"].get<std::uint64_t>()) + ",8,ok,"),
              std::string::npos)
        << row;
  }
  EXPECT_NE(rows[3], rows[4]);  // the latency shows in the time
  // The summary: a plot of each metric against each key, and the page that shows them with the table.
  for (const char* plot : {"sim_time_ps-vs-vc4.v3d.qpus_per_slice.svg", "sim_time_ps-vs-dram.read_latency_cycles.svg",
                           "gpuvp.v3d.qpus.programs_completed-vs-dram.read_latency_cycles.svg"}) {
    EXPECT_EQ(read_file(fs::path(dir) / "plots" / plot).rfind("<svg", 0), 0U) << plot;
  }
  const std::string summary = read_file(fs::path(dir) / "summary.html");
  EXPECT_NE(summary.find("<h1>gpuvp sweep: 4 points of 4</h1>"), std::string::npos);
  EXPECT_NE(summary.find("Outcomes: 2 error, 2 ok."), std::string::npos);
  EXPECT_NE(summary.find("2 point(s) without a value (not ok or not run) left out"), std::string::npos);
  // In a browser: no console error, each section there (tests/report/check_report_in_chromium.py).
  const auto browser = test::run_shell("/usr/bin/python3 " + std::string(GPUVP_SOURCE_DIR) +
                                       "/tests/report/check_report_in_chromium.py --sections sweep,plots,results " +
                                       dir + "/summary.html 2>&1");
  if (browser.out.find("no Chromium found") == std::string::npos || std::getenv("GPUVP_REQUIRE_CHROMIUM")) {
    EXPECT_EQ(browser.status, 0) << browser.out;
  }
  EXPECT_NE(r.err.find("sweep: 4 points, workload demo-vc4-fft, in " + dir), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sweep: ran 4 points in"), std::string::npos) << r.err;
}

TEST(SweepCommand, ASweepRunAgainRunsOnlyWhatIsNotFinished) {
  const std::string dir = fresh_dir("sweep_resume");
  const std::string args = std::string(kFftSweep) + "-o " + dir;
  ASSERT_EQ(test::run_gpuvp_split(args).exit_code, 1);
  const std::string first = read_file(fs::path(dir) / "results.csv");
  auto again = test::run_gpuvp_split(args);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err.find("sweep: ran"), std::string::npos) << again.err;  // nothing ran
  EXPECT_EQ(read_file(fs::path(dir) / "results.csv"), first);
  // One finished point lost its result: only it runs, and the results are the same.
  const SweepPlan plan = read_sweep_plan(dir);
  fs::remove(fs::path(dir) / "points" / plan.points[3].id / "result.json");
  again = test::run_gpuvp_split(args);
  EXPECT_NE(again.err.find("sweep: ran 1 points in"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("3 finished before"), std::string::npos) << again.err;
  EXPECT_EQ(read_file(fs::path(dir) / "results.csv"), first);
  // --retry-failed runs the failed ones again (deterministic: they fail the same way).
  again = test::run_gpuvp_split(args + " --retry-failed");
  EXPECT_NE(again.err.find("sweep: ran 2 points in"), std::string::npos) << again.err;
  EXPECT_EQ(read_file(fs::path(dir) / "results.csv"), first);
}

TEST(SweepCommand, SlurmScriptsRunByHandGiveTheLocalResults) {
  const std::string local = fresh_dir("sweep_slurm_local");
  // A directory name with a space, a quote and a percent sign: nothing of it may be read as a directive or pattern.
  const std::string slurm = fresh_dir("sweep slurm 'dry' 100%");
  ASSERT_EQ(test::run_gpuvp_split(std::string(kFftSweep) + "-o " + local).exit_code, 1);
  const std::string quoted = "\"" + slurm + "\"";
  const auto dry = test::run_gpuvp_split(std::string(kFftSweep) + "--slurm-dry-run -o " + quoted);
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.err.find("slurm/submit.sh (4 points in 1 array, then the merge); submit with: sh "), std::string::npos)
      << dry.err;
  const SweepPlan plan = read_sweep_plan(slurm);
  const std::string array = read_file(fs::path(slurm) / "slurm" / "array-0.sh");
  EXPECT_NE(array.find("\nset -- " + plan.points[0].id + " " + plan.points[1].id + " " + plan.points[2].id + " " +
                       plan.points[3].id + "\n"),
            std::string::npos)
      << array;
  EXPECT_EQ(array.find("#SBATCH"), std::string::npos) << array;  // options go on sbatch's command line
  const std::string submit = read_file(fs::path(slurm) / "slurm" / "submit.sh");
  EXPECT_NE(submit.find("'--array=0-3'"), std::string::npos) << submit;
  EXPECT_NE(submit.find("100%%/slurm/logs/point-0-%a.out'"), std::string::npos) << submit;
  EXPECT_NE(submit.find("--dependency=afterany:$a0 "), std::string::npos) << submit;
  EXPECT_FALSE(fs::exists(fs::path(slurm) / "results.csv"));
  // A later plan in the same directory does not change what a submitted array runs (sbatch keeps the script it was
  // given; its tasks name ids, not places in plan.json).
  fs::copy_file(fs::path(slurm) / "slurm" / "array-0.sh", fs::path(slurm) / "submitted.sh");
  ASSERT_EQ(test::run_gpuvp_split("sweep --vary vc4.v3d.qpus_per_slice=4 --vary dram.read_latency_cycles=10,50,100 "
                                  "--workload demo-vc4-fft --metric sim_time_ps --slurm-dry-run -o " +
                                  quoted)
                .exit_code,
            0);
  // What the array's tasks and the merge job would run.
  for (int task = 0; task < 4; ++task) {
    const auto r =
        test::run_shell("SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " sh " + quoted + "/submitted.sh 2>&1");
    EXPECT_EQ(r.status, task < 2 ? 1 : 0) << r.out;
    EXPECT_NE(r.out.find(plan.points[static_cast<std::size_t>(task)].id), std::string::npos) << r.out;
  }
  // The merge reads plan.json, which the second plan replaced: the first sweep run again finds every point finished
  // and only merges (two failed: exit 1); the merge job's script gives the same.
  EXPECT_EQ(test::run_gpuvp_split(std::string(kFftSweep) + "--slurm-dry-run -o " + quoted).exit_code, 1);
  const auto merge = test::run_shell("sh " + quoted + "/slurm/merge.sh 2>&1");
  EXPECT_EQ(merge.status, 1) << merge.out;  // two points failed
  EXPECT_EQ(read_file(fs::path(slurm) / "results.csv"), read_file(fs::path(local) / "results.csv"));
  // Nothing is left to submit: the dry run now only merges.
  const auto done = test::run_gpuvp_split(std::string(kFftSweep) + "--slurm-dry-run -o " + quoted);
  EXPECT_EQ(done.out, "sweep: 4 points: 2 ok, 2 failed; results: " + slurm + "/results.csv, summary.html\n");
}

TEST(SweepCommand, ARerunPointNeverTakesAnEarlierRunsStatistics) {
  const std::string dir = fresh_dir("sweep_stale");
  ASSERT_EQ(test::run_gpuvp_split(std::string(kFftSweep) + "-o " + dir).exit_code, 1);
  const SweepPlan plan = read_sweep_plan(dir);
  const fs::path point = fs::path(dir) / "points" / plan.points[3].id;
  // The point's configuration broken by hand: its next run stops before writing statistics.
  std::ofstream(point / "config.json") << "dram: {read_latency_cycles: lots}\n";
  const auto r = test::run_gpuvp_split("sweep --run-point " + plan.points[3].id + " -o " + dir);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_FALSE(fs::exists(point / "stats.json"));
  PointResult result;
  ASSERT_TRUE(read_point_result(dir, plan.points[3].id, result));
  EXPECT_EQ(result.outcome, "error");
  EXPECT_EQ(result.metrics.count("sim_time_ps"), 0U);
  EXPECT_NE(result.error.find("read_latency_cycles"), std::string::npos) << result.error;
  EXPECT_EQ(test::run_gpuvp_split("sweep --run-point 0123456789abcdef -o " + dir).err,
            "gpuvp: error: --run-point 0123456789abcdef: no such point in '" + dir + "'\n");
}

TEST(SweepCommand, ErrorLinesThatAreNotUtf8AreKept) {
  // The run's error line names 200 two-byte characters: cut at 300 bytes, on a character boundary.
  std::string word;
  for (int i = 0; i < 200; ++i) word += "\xc3\xa9";
  const std::string script = test::write_temp_file("sweep_utf8.gpuvp", "writel 0x1000 " + word + "\n");
  const std::string dir = fresh_dir("sweep_utf8");
  const auto r = test::run_gpuvp_split("sweep --vary dram.read_latency_cycles=50,60 --workload " + script +
                                       " --metric sim_time_ps -j 2 -o " + dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::vector<std::string> rows = lines_of(read_file(fs::path(dir) / "results.csv"));
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_NE(rows[1].find(",failed,"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("\xc3\xa9..."), std::string::npos) << rows[1];
}

TEST(SweepCommand, ScriptPathsResolveAgainstTheScriptsOwnDirectory) {
  const std::string dir = fresh_dir("sweep_relative");
  const fs::path scripts = fs::path(testing::TempDir()) / "sweep_relative_scripts";
  fs::create_directories(scripts);
  std::ofstream(scripts / "data.bin", std::ios::binary) << "\x44\x33\x22\x11";
  std::ofstream(scripts / "loader.gpuvp") << "load 0x1000 data.bin\nexpectl 0x1000 0x11223344\n";
  const auto r = test::run_gpuvp_split("sweep --vary dram.read_latency_cycles=50 --workload " +
                                       (scripts / "loader.gpuvp").string() + " --metric sim_time_ps -o " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.err << read_file(fs::path(dir) / "results.csv");
}

TEST(SweepCommand, APointOverItsTimeLimitIsRecordedAndTheSweepGoesOn) {
  const std::string dir = fresh_dir("sweep_timeout");
  // A poll that would take 10 s of simulated time (over 10 s of host time) against a 1 s limit: both points time
  // out, each with its own result, and the sweep ends.
  const std::string script = test::write_temp_file("sweep_slow.gpuvp", "polll 0x1000 0x1234 0xffff 10000000000\n");
  const auto r = test::run_gpuvp_split("sweep --vary host.poll_interval_ns=100,200 --workload " + script +
                                       " --metric sim_time_ps --point-timeout 1s -j 2 -o " + dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::vector<std::string> rows = lines_of(read_file(fs::path(dir) / "results.csv"));
  ASSERT_EQ(rows.size(), 3U);
  for (std::size_t i = 1; i < 3; ++i) {
    // The run ended at its --max-wall-time; how far it got depends on the host, so no metric is given.
    EXPECT_NE(rows[i].find(",,timeout,"), std::string::npos) << rows[i];
    EXPECT_NE(rows[i].find("stopped at the wall-time limit"), std::string::npos) << rows[i];
  }
}

TEST(SweepCommand, AStoppedSweepKeepsWhatFinishedAndARerunFinishesIt) {
  const std::string dir = fresh_dir("sweep_stopped");
  // Points of about 0.2 s of host time each (a poll over 150 us of simulated time); SIGTERM to the sweep alone once
  // the first has a result: the running point ends without one.
  const std::string script = test::write_temp_file("sweep_poll.gpuvp", "polll 0x1000 0x1234 0xffff 150000000\n");
  const std::string sweep = std::string(GPUVP_EXE) + " sweep --vary dram.read_latency_cycles=50,60,70,80 --workload " +
                            script + " --metric sim_time_ps --no-summary -o " + dir;
  const auto stopped = test::run_shell("(" + sweep + " 2>/dev/null & p=$!; i=0; until ls " + dir +
                                       "/points/*/result.json >/dev/null 2>&1 || [ $i -ge 600 ]; do sleep 0.05; "
                                       "i=$((i+1)); done; kill -TERM $p; wait $p; echo \"exit $?\")");
  EXPECT_NE(stopped.out.find("exit 143"), std::string::npos) << stopped.out;
  std::vector<std::string> rows = lines_of(read_file(fs::path(dir) / "results.csv"));
  ASSERT_EQ(rows.size(), 5U);
  std::size_t pending = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) pending += rows[i].find(",pending,") != std::string::npos;
  EXPECT_GE(pending, 1U);
  EXPECT_LE(pending, 3U);
  // The same command again runs only what did not finish; every point then has its result (the poll times out: a
  // failed check, recorded).
  const auto again = test::run_shell(sweep + " 2>&1");
  EXPECT_EQ(again.status, 1) << again.out;
  EXPECT_NE(again.out.find("finished before"), std::string::npos) << again.out;
  rows = lines_of(read_file(fs::path(dir) / "results.csv"));
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_NE(rows[i].find(",failed,"), std::string::npos) << rows[i];
}

TEST(SweepCommand, AnUnknownMetricStopsTheSweepKeepingWhatFinished) {
  const std::string dir = fresh_dir("sweep_metric");
  const auto r = test::run_gpuvp_split(
      "sweep --vary dram.read_latency_cycles=50,100,150 --workload demo-vc4-fft --metric gpuvp.v3d.qpus.busy -o " +
      dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gpuvp: error: --metric 'gpuvp.v3d.qpus.busy': no such statistic in point "), std::string::npos)
      << r.err;
  const std::vector<std::string> rows = lines_of(read_file(fs::path(dir) / "results.csv"));
  ASSERT_EQ(rows.size(), 4U);
  EXPECT_NE(rows[1].find(",ok,"), std::string::npos) << rows[1];
}

TEST(SweepCommand, BadCommandLinesGiveOneLineErrors) {
  const std::string dir = fresh_dir("sweep_bad");
  struct Case {
    std::string args;
    std::string error;
  };
  const std::vector<Case> cases{
      {"sweep --workload demo-vc4-fft --metric sim_time_ps -o " + dir,
       "gpuvp: error: nothing to sweep: give --vary KEY=V1,V2,...\n"},
      {"sweep --vary dram.sise=1 --workload demo-vc4-fft --metric sim_time_ps -o " + dir,
       "gpuvp: error: config key 'dram.sise': unknown key, did you mean 'dram.size'? (sweep point dram.sise=1)\n"},
      {"sweep --vary dram.read_latency_cycles=1 --metric sim_time_ps -o " + dir,
       "gpuvp: error: no workload: give --workload NAME or FILE (gpuvp sweep --list-workloads)\n"},
      {"sweep --vary dram.read_latency_cycles=1 --workload demo --metric sim_time_ps",
       "gpuvp: error: no sweep directory: give -o DIR\n"},
      {"sweep --run-point 0 -o " + dir + "/none", "gpuvp: error: --run-point 0: no such point in '" + dir + "/none'\n"},
  };
  for (const Case& c : cases) {
    const auto r = test::run_gpuvp_split(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(r.err, c.error) << c.args;
  }
}

TEST(SweepCommand, ListsTheWorkloads) {
  const auto r = test::run_gpuvp_split("sweep --list-workloads");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* name : {"demo ", "demo-vc4 ", "demo-vc4-frame ", "demo-vc4-fft ", "demo-gen ", "FILE "}) {
    EXPECT_NE(("\n" + r.out).find(std::string("\n") + name), std::string::npos) << name << "\n" << r.out;
  }
}

// The README's sweep commands, as a user types them (in a scratch directory that sees the source tree's configs).
TEST(SweepCommand, ReadmeCommandsRun) {
  std::istringstream readme(read_file(std::string(GPUVP_SOURCE_DIR) + "/README.md"));
  std::vector<std::string> commands;
  bool in_section = false, in_block = false;
  std::string command;
  for (std::string line; std::getline(readme, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Sweeps";
    if (!in_section) continue;
    if (line.rfind("```", 0) == 0) {
      if (in_block) break;
      in_block = true;
      continue;
    }
    if (!in_block) continue;
    const auto comment = line.find("  #");
    if (comment != std::string::npos) line.erase(comment);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    const bool continued = !line.empty() && line.back() == '\\';
    if (continued) line.pop_back();
    command += line;
    if (!continued && !command.empty()) commands.push_back(std::move(command)), command.clear();
  }
  ASSERT_EQ(commands.size(), 3U);
  const std::string dir = fresh_dir("sweep_readme");
  fs::create_directories(dir);
  fs::create_directory_symlink(fs::path(GPUVP_SOURCE_DIR) / "platform", fs::path(dir) / "platform");
  for (const std::string& c : commands) {
    ASSERT_EQ(c.rfind("gpuvp ", 0), 0U) << c;
    const auto r = test::run_shell("cd " + dir + " && " + GPUVP_EXE + c.substr(5) + " 2>&1");
    EXPECT_EQ(r.status, 0) << c << '\n' << r.out;
  }
  const std::vector<std::string> rows = lines_of(read_file(fs::path(dir) / "sweep1" / "results.csv"));
  ASSERT_EQ(rows.size(), 7U);
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_NE(rows[i].find(",ok,"), std::string::npos) << rows[i];
}

}  // namespace
}  // namespace gpuvp::platform
