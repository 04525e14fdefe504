// gpuvp: the command line. `gpuvp` alone runs the embedded demo; `gpuvp run` runs a script, a qtest session, a TBX
// session or the demo on a configured platform; `gpuvp exec` runs an OpenCL program on it through NEO's TBX mode;
// `gpuvp info` prints the platform; `gpuvp disasm` lists EU instructions.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <systemc>
#include <vector>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include "platform/demo/demo_workload.h"
#include "platform/disasm_command.h"
#include "platform/report_command.h"
#include "platform/simulation.h"
#include "platform/sweep_command.h"
#include "tlm/core/config.h"

namespace {

constexpr const char* kExamples = R"(examples:
  gpuvp                                   run the embedded demo workload on the default platform
  gpuvp --set sim.quantum_ns=100          run options work without "run" too
  gpuvp run --script bringup.gpuvp        run a host script (one answer per command on stdout)
  gpuvp run --qtest tcp:127.0.0.1:4000    serve the script protocol to an external test harness
  gpuvp run --tbx tcp:127.0.0.1:4321      serve Intel's OpenCL runtime (NEO) in TBX mode
  gpuvp run --workload demo-vc4-frame     run one part of the demo (gpuvp sweep --list-workloads)
  gpuvp sweep --vary vc4.v3d.qpus_per_slice=2,4 --workload demo-vc4-fft --metric sim_time_ps -o sweep1 -j 2
                                          run a workload over a configuration space into sweep1/results.csv
  gpuvp run --report report1             run the demo, then write report1/index.html (stats and trace beside it)
  gpuvp report stats.json trace.json -o report1
                                          the same report of a finished run
  gpuvp run --aub skl_1x3x8_0_ocl.aub --aub-dump 0x7f0000000000:4096:out.bin
                                          replay an AUB file NEO wrote, then write GPU memory to out.bin
  gpuvp exec -- clinfo                    run an OpenCL program on the model (NEO in TBX mode), then the summary
  gpuvp run --config base.yaml --config fast.yaml --set gen.clock_hz=1.2GHz
  gpuvp run --set dram.size=4GiB --set sim.quantum_ns=100 --stats stats.json --trace trace.json
  gpuvp run --stats - | jq .stats         statistics as JSON on stdout (the summary goes to stderr)
  gpuvp --dump-fb frame.png               run the demo, then write the vc4 frame it rendered as a PNG
  gpuvp info --json                       memory map, blocks and register tables for machines
  gpuvp disasm k_Gen9core.bin             EU instructions of an ocloc binary's kernels in IGA syntax
  gpuvp disasm --gen 8 kernel.raw         raw Gen8 instruction bytes

exit codes: 0 success; 1 the run failed (a check or ERR in a script, model errors, a TBX protocol error,
sim.time_limit_ns, --max-sim-time or --max-wall-time reached); 2 bad command line, configuration or host file
(a malformed AUB file included); 130/143 stopped by SIGINT/SIGTERM; summary, statistics and trace are written
whenever the run stops; exec: the program's status when it is not 0
)";

// A check of a duration after its unit transform (CLI11 hands over the number in the base unit).
CLI::Validator at_least(double minimum, const std::string& shown) {
  return CLI::Validator(
      [minimum, shown](std::string& value) -> std::string {
        const double v = std::strtod(value.c_str(), nullptr);
        return v >= minimum && v <= 1e18 ? std::string() : "must be at least " + shown;
      },
      "");
}

CLI::Validator at_most(double maximum, const std::string& shown) {
  return CLI::Validator(
      [maximum, shown](std::string& value) -> std::string {
        return std::strtod(value.c_str(), nullptr) <= maximum ? std::string() : "must be at most " + shown;
      },
      "");
}

// `gpuvp --set k=v ...` means `gpuvp run --set k=v ...`: an option first (other than help and version) starts the
// run subcommand.
std::vector<std::string> with_implicit_run(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() > 1) {
    const std::string& first = args[1];
    const bool top_level = first == "-h" || first == "--help" || first == "--version";
    if (first.size() > 1 && first[0] == '-' && !top_level) args.insert(args.begin() + 1, "run");
  }
  return args;
}

// The executable itself, which a sweep's points run.
std::string self_path() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("sweep: cannot find the gpuvp executable (/proc/self/exe): " + ec.message());
  return self.string();
}

std::string workload_list() {
  std::string names;
  for (const auto& w : gpuvp::demo::demo_workloads()) names += (names.empty() ? "" : ", ") + std::string(w.name);
  return names;
}

// `gpuvp run --report DIR`: the statistics (with a series) and the trace go to DIR unless given elsewhere, and the
// report is written whatever the run's outcome; the run's exit code stands unless the report fails.
int run_with_report(gpuvp::platform::RunOptions run, const std::string& dir) {
  namespace fs = std::filesystem;
  if (run.stats_file == "-") throw std::runtime_error("--report needs the statistics in a file: not --stats -");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) throw std::runtime_error("--report '" + dir + "': cannot create the directory");
  if (run.stats_file.empty()) run.stats_file = (fs::path(dir) / "stats.json").string();
  if (run.trace_file.empty()) run.trace_file = (fs::path(dir) / "trace.json").string();
  if (run.stats_interval_ns == 0) run.stats_interval_ns = 10'000;
  const int code = gpuvp::platform::run_simulation(run, std::cout);
  if (!fs::exists(run.stats_file)) return code;  // --dump-demo, or a run that stopped before writing anything
  const int report = gpuvp::platform::write_report(run.stats_file, run.trace_file, dir);
  if (report == 0) std::cerr << "report: " << (fs::path(dir) / "index.html").string() << '\n';
  return code != 0 ? code : report;
}

int gpuvp_main(int argc, char** argv) {
  CLI::App app{"gpuvp: a SystemC/TLM-2.0 virtual platform of Intel Gen8/Gen9 and VideoCore IV GPUs"};
  app.footer(kExamples);
  app.set_version_flag("--version", std::string("gpuvp ") + GPUVP_VERSION);
  app.require_subcommand(0, 1);

  gpuvp::platform::RunOptions run;
  double max_sim_time_ns = 0;
  run.default_workload = [](const gpuvp::platform::PlatformParams& p) { return gpuvp::demo::demo_script(p); };
  std::vector<gpuvp::platform::SweepWorkloadInfo> workloads;
  for (const auto& w : gpuvp::demo::demo_workloads()) workloads.push_back({w.name, w.description});
  gpuvp::platform::set_sweep_workloads(std::move(workloads));
  auto* run_cmd =
      app.add_subcommand("run", "run a workload (the embedded demo unless --script, --qtest, --tbx or --aub)");
  auto* exec_cmd = app.add_subcommand(
      "exec", "run PROGRAM (an OpenCL program) on the model: Intel's OpenCL runtime in TBX mode talks to it");
  // The options `run` and `exec` share: the platform, statistics and trace, and the summary.
  for (CLI::App* cmd : {run_cmd, exec_cmd}) {
    // One value per --config and --set under exec: a vector option would take the "--" before PROGRAM for the end of
    // its own values and leave PROGRAM's options to be parsed as gpuvp's.
    cmd->add_option("--config", run.config_files, "platform configuration (YAML); several are applied in order")
        ->check(CLI::ExistingFile)
        ->allow_extra_args(cmd != exec_cmd);
    cmd->add_option("--set", run.overrides, "override a configuration key: --set path.to.key=value")
        ->allow_extra_args(cmd != exec_cmd);
    cmd->add_option("--stats", run.stats_file, "write statistics as JSON to this file (- for stdout)");
    cmd->add_option("--stats-interval", run.stats_interval_ns,
                    "add a time series of every counter and busy time to --stats, sampled every NS of simulated time")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--trace", run.trace_file, "write a Chrome-trace/Perfetto timeline to this file");
    // Durations with a unit (CLI11's unit transform): the number may be fractional.
    cmd->add_option("--max-sim-time", max_sim_time_ns,
                    "end the run after this much simulated time (e.g. 500us, 2ms), with its summary and statistics")
        ->transform(
            CLI::AsNumberWithUnit(std::map<std::string, double>{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}},
                                  CLI::AsNumberWithUnit::UNIT_REQUIRED, "TIME"))
        ->check(at_least(1.0, "1 ns"))
        ->type_name("TIME");
    cmd->add_option("--max-wall-time", run.max_wall_time_s,
                    "end the run after this much host time (e.g. 90s, 10min, 2h), with its summary and statistics")
        ->transform(
            CLI::AsNumberWithUnit(std::map<std::string, double>{{"ms", 1e-3}, {"s", 1}, {"min", 60}, {"h", 3600}},
                                  CLI::AsNumberWithUnit::UNIT_REQUIRED, "TIME"))
        ->check(at_least(1e-3, "1 ms"))
        ->type_name("TIME");
    cmd->add_flag("--quiet", run.quiet, "no summary");
    cmd->add_flag("--verbose", run.verbose, "report lines name the source file, line and process");
  }
  std::string workload_name;
  auto* workload_opt = run_cmd->add_option("--workload", workload_name,
                                           "run a named workload instead of the whole demo (gpuvp sweep "
                                           "--list-workloads names them)");
  run_cmd->add_option("--script", run.script, "host script to run (qtest-style commands)")
      ->check(CLI::ExistingFile)
      ->excludes(workload_opt);
  run_cmd
      ->add_option("--script-base", run.script_base,
                   "resolve the script's relative file paths (load, dump_png) against this directory instead of the "
                   "script's own (gpuvp sweep runs a copy of a script)")
      ->check(CLI::ExistingDirectory);
  run_cmd->add_option("--qtest", run.qtest, "serve the script protocol on tcp:HOST:PORT or unix:PATH");
  run_cmd->add_option("--tbx", run.tbx, "serve the TBX protocol of Intel's OpenCL runtime (NEO) on tcp:HOST:PORT");
  run_cmd->add_option("--aub", run.aub, "replay an AUB file (Intel's OpenCL runtime NEO in AUB mode writes them)")
      ->check(CLI::ExistingFile);
  run_cmd->add_option("--aub-dump", run.aub_dumps,
                      "after an AUB replay write memory to FILE: [phys:|ggtt:]ADDRESS:SIZE:FILE (ADDRESS without a "
                      "prefix: a GPU virtual address of the trace's context)");
  run_cmd->add_option("--aub-dump-dir", run.aub_dump_dir,
                      "directory for the AUB's own dump records (NEO AUBDumpBufferFormat=BIN): aub-dump-N-ADDRESS.bin");
  run_cmd->add_option("--dump-demo", run.dump_demo, "write the demo as an editable host script to this file and exit");
  std::string report_dir;
  run_cmd->add_option("--report", report_dir,
                      "after the run write an HTML performance report to this directory, with the statistics and "
                      "trace beside it (--stats-interval defaults to 10us)");
  run_cmd->add_option("--dump-fb", run.dump_fb,
                      "after the run write the last frame the vc4 tile renderer stored to this file as a PNG");
  exec_cmd->add_option("PROGRAM", run.exec_command, "the program and its arguments, after --")->required();

  std::vector<std::string> report_inputs;
  std::string report_output;
  auto* report_cmd = app.add_subcommand(
      "report", "write the HTML performance report of a finished run: gpuvp report STATS.json [TRACE.json] -o DIR");
  report_cmd->add_option("FILES", report_inputs, "the run's --stats file, then optionally its --trace file")
      ->required()
      ->expected(1, 2)
      ->check(CLI::ExistingFile);
  report_cmd->add_option("-o,--output", report_output, "the report's directory")->required();

  gpuvp::platform::SweepOptions sweep;
  double point_timeout_s = 0;
  auto* sweep_cmd = app.add_subcommand(
      "sweep", "run a workload over a configuration space (cross product or sample), locally or on Slurm");
  sweep_cmd->add_option("--config", sweep.spec.config_files, "base configuration (YAML); several apply in order")
      ->check(CLI::ExistingFile);
  sweep_cmd->add_option("--set", sweep.spec.overrides, "override a base configuration key: --set path.to.key=value");
  sweep_cmd->add_option("--vary", sweep.spec.varies, "a key and its values: --vary KEY=V1,V2,... (repeatable)");
  // A whole number without a sign (CLI11 would wrap -1 into a 64-bit unsigned value).
  const CLI::Validator unsigned_number(
      [](std::string& value) -> std::string {
        return !value.empty() && value.find_first_not_of("0123456789") == std::string::npos
                   ? std::string()
                   : "must be a whole number of at least 0";
      },
      "");
  sweep_cmd->add_option("--sample", sweep.spec.sample, "run N points sampled from the cross product")
      ->check(unsigned_number);
  sweep_cmd->add_option("--seed", sweep.spec.seed, "the sample's seed (the same seed, the same points)")
      ->check(unsigned_number);
  sweep_cmd->add_option("--sample-method", sweep.spec.sample_method, "random (default) or lhs (Latin hypercube)");
  sweep_cmd->add_option("--workload", sweep.spec.workload, "a named workload (--list-workloads) or a host script");
  sweep_cmd->add_option("--metric", sweep.spec.metrics, "a statistic for the results (repeatable)");
  sweep_cmd->add_option("-o,--output", sweep.dir, "the sweep directory (plan, points, results.csv)");
  sweep_cmd->add_option("-j,--jobs", sweep.jobs, "points run at once")->check(CLI::Range(1U, 1024U));
  sweep_cmd->add_option("--point-timeout", point_timeout_s, "a point's host-time limit (e.g. 90s, 10min)")
      ->transform(CLI::AsNumberWithUnit(std::map<std::string, double>{{"ms", 1e-3}, {"s", 1}, {"min", 60}, {"h", 3600}},
                                        CLI::AsNumberWithUnit::UNIT_REQUIRED, "TIME"))
      ->check(at_least(1e-3, "1 ms"))
      ->check(at_most(1e9, "1e9 s (about 31 years)"))
      ->type_name("TIME");
  sweep_cmd->add_flag("--retry-failed", sweep.retry_failed, "run again the points whose result is not ok");
  bool no_summary = false;
  sweep_cmd->add_flag("--no-summary", no_summary, "write results.csv only: no summary.html and plots");
  sweep_cmd->add_flag("--list-workloads", sweep.list_workloads, "name the workloads and exit");
  sweep_cmd->add_flag("--merge", sweep.merge_only, "merge the results in -o DIR (what the Slurm merge job runs)");
  sweep_cmd->add_option("--run-point", sweep.run_point, "run the point ID of -o DIR's plan (what a Slurm task runs)");
  auto* slurm_flag =
      sweep_cmd->add_flag("--slurm", sweep.slurm, "submit the points as Slurm job arrays and a merge job");
  sweep_cmd->add_flag("--slurm-dry-run", sweep.slurm_dry_run, "write the Slurm scripts without submitting them");
  sweep_cmd->add_flag("--slurm-wait", sweep.slurm_wait, "with --slurm: wait until the merge job has ended")
      ->needs(slurm_flag);
  sweep_cmd->add_option("--slurm-arg", sweep.slurm_args, "an sbatch option for every job, e.g. --slurm-arg=-pdebug")
      ->allow_extra_args(false);

  std::vector<std::string> info_configs;
  std::vector<std::string> info_overrides;
  bool info_json = false;
  auto* info_cmd = app.add_subcommand("info", "print the platform: memory map, blocks, register tables");
  info_cmd->add_option("--config", info_configs, "platform configuration (YAML); several are applied in order")
      ->check(CLI::ExistingFile);
  info_cmd->add_option("--set", info_overrides, "override a configuration key");
  info_cmd->add_flag("--json", info_json, "machine-readable output");

  std::string disasm_file;
  int disasm_gen = 9;
  auto* disasm_cmd = app.add_subcommand(
      "disasm", "print EU instructions in IGA syntax: raw instruction bytes or an ocloc device binary (.bin)");
  disasm_cmd->add_option("FILE", disasm_file, "instruction bytes or `ocloc compile -device skl` output")->required();
  disasm_cmd->add_option("--gen", disasm_gen, "EU generation: 9 (default) or 8")->check(CLI::IsMember({8, 9}));

  run.command_line.assign(argv, argv + argc);
  std::vector<std::string> args = with_implicit_run(argc, argv);
  std::vector<char*> arg_pointers;
  arg_pointers.reserve(args.size());
  for (auto& a : args) arg_pointers.push_back(a.data());

  try {
    app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << '\n';
    return 0;
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    std::cerr << "gpuvp: error: " << what.substr(0, what.find('\n')) << " (see gpuvp --help)\n";
    return gpuvp::platform::kExitBadInput;
  }

  try {
    if (*disasm_cmd) return gpuvp::platform::run_disasm(disasm_file, disasm_gen, std::cout);
    if (*report_cmd) {
      return gpuvp::platform::write_report(report_inputs[0], report_inputs.size() > 1 ? report_inputs[1] : "",
                                           report_output);
    }
    if (*sweep_cmd) {
      sweep.point_timeout_s = point_timeout_s;
      sweep.summary = !no_summary;
      sweep.gpuvp = self_path();
      const bool terminal = ::isatty(STDERR_FILENO) != 0 && std::getenv("CI") == nullptr;
      return gpuvp::platform::run_sweep(sweep, std::cout, std::cerr, terminal);
    }
    if (!workload_name.empty()) {
      const gpuvp::demo::DemoWorkload* w = gpuvp::demo::find_demo_workload(workload_name);
      if (!w)
        throw std::runtime_error("--workload '" + workload_name + "': no such workload (" + workload_list() + ")");
      const unsigned parts = w->parts;
      run.default_workload = [parts](const gpuvp::platform::PlatformParams& p) {
        return gpuvp::demo::demo_script(p, parts);
      };
      if (!run.qtest.empty() || !run.tbx.empty() || !run.aub.empty()) {
        throw std::runtime_error("--workload runs a script: it cannot go with --qtest, --tbx or --aub");
      }
    }
    if (*info_cmd) return gpuvp::platform::print_platform_info(info_configs, info_overrides, info_json, std::cout);
    run.max_sim_time_ns = static_cast<std::uint64_t>(max_sim_time_ns);
    if (report_dir.empty()) return gpuvp::platform::run_simulation(run, std::cout);
    return run_with_report(run, report_dir);
  } catch (const std::exception& e) {
    std::cerr << "gpuvp: error: " << e.what() << '\n';
    return gpuvp::platform::kExitBadInput;
  }
}

}  // namespace

int sc_main(int argc, char** argv) { return gpuvp_main(argc, argv); }

// Our own main: the SystemC banner is printed before sc_main runs unless this variable is set, and it would mix with
// script answers and summaries.
int main(int argc, char** argv) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
