// gpuvp run --report DIR and gpuvp report STATS [TRACE] -o DIR: the HTML page (platform/report/gpuvp_report.py,
// embedded in the executable) with the statistics and the trace beside it; determinism; bad input. The page's
// content is tested by tests/report/ (CTest report.generator) and in a browser (report.chromium).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/run_gpuvp.h"

namespace {

namespace fs = std::filesystem;
using gpuvp::test::run_gpuvp_split;

std::string read_file(const fs::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + "/" + name;
  fs::remove_all(dir);
  return dir;
}

TEST(ReportCommand, RunWritesThePageWithItsStatisticsAndTraceBeside) {
  const std::string dir = fresh_dir("report_run");
  const auto r = run_gpuvp_split("run --quiet --workload demo-vc4-frame --report " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("report: " + dir + "/index.html\n"), std::string::npos) << r.err;
  const std::string page = read_file(fs::path(dir) / "index.html");
  for (const char* section : {"run", "utilisation", "bandwidth", "latency", "attribution", "tiles", "eu"}) {
    EXPECT_NE(page.find(std::string("<section id=\"") + section + "\""), std::string::npos) << section;
  }
  const nlohmann::json stats = nlohmann::json::parse(read_file(fs::path(dir) / "stats.json"));
  EXPECT_EQ(stats["series"]["interval_ps"], 10'000'000);  // --report's default --stats-interval, 10 us
  EXPECT_EQ(stats["outcome"]["result"], "completed");
  // The trace carries the frame's tiles, which the page draws as a heat map.
  EXPECT_NE(read_file(fs::path(dir) / "trace.json").find("\"name\":\"tile 3,1\""), std::string::npos);
  EXPECT_EQ(page.find("has no per-tile spans"), std::string::npos);
  EXPECT_NE(page.find("render cost (its <code>tile X,Y</code> spans summed)"), std::string::npos);
}

TEST(ReportCommand, AFinishedRunsReportIsDeterministic) {
  const std::string run = fresh_dir("report_inputs");
  fs::create_directories(run);
  const std::string stats = run + "/s.json", trace = run + "/t.json";
  ASSERT_EQ(run_gpuvp_split("run --quiet --workload demo-vc4-fft --stats " + stats + " --trace " + trace +
                            " --stats-interval 1000")
                .exit_code,
            0);
  const std::string a = fresh_dir("report_a"), b = fresh_dir("report_b");
  const auto ra = run_gpuvp_split("report " + stats + " " + trace + " -o " + a);
  ASSERT_EQ(ra.exit_code, 0) << ra.err;
  ASSERT_EQ(run_gpuvp_split("report " + stats + " " + trace + " -o " + b).exit_code, 0);
  EXPECT_EQ(read_file(fs::path(a) / "index.html"), read_file(fs::path(b) / "index.html"));
  EXPECT_EQ(read_file(fs::path(a) / "stats.json"), read_file(stats));
  EXPECT_EQ(read_file(fs::path(a) / "trace.json"), read_file(trace));
  // Without a trace: the page says how to get the sections that need one.
  const std::string c = fresh_dir("report_c");
  ASSERT_EQ(run_gpuvp_split("report " + stats + " -o " + c).exit_code, 0);
  EXPECT_FALSE(fs::exists(fs::path(c) / "trace.json"));
  EXPECT_NE(read_file(fs::path(c) / "index.html").find("--trace"), std::string::npos);
}

TEST(ReportCommand, BadInputIsAOneLineError) {
  const std::string dir = fresh_dir("report_bad");
  fs::create_directories(dir);
  std::ofstream(dir + "/not.json") << "this is not json";
  auto r = run_gpuvp_split("report " + dir + "/not.json -o " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("gpuvp report: error: ", 0), 0U) << r.err;
  EXPECT_NE(r.err.find("not.json"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  r = run_gpuvp_split("report " + dir + "/missing.json -o " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;
  r = run_gpuvp_split("run --quiet --report " + dir + "/r --stats -");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gpuvp: error: --report needs the statistics in a file: not --stats -\n");
  std::ofstream(dir + "/file") << "x";
  r = run_gpuvp_split("run --quiet --report " + dir + "/file");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gpuvp: error: --report '" + dir + "/file': cannot create the directory\n");
}

}  // namespace
