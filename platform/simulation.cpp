#include "platform/simulation.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

#include <unistd.h>

#include "firmware/tools/guc_image.h"
#include "platform/aub_replay.h"
#include "platform/child_process.h"
#include "platform/framebuffer_png.h"
#include "platform/platform.h"
#include "platform/progress_monitor.h"
#include "platform/script_runner.h"
#include "platform/stop_signal.h"
#include "platform/tbx_server.h"
#include "tlm/core/format_hex.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"
#include "tlm/core/timeline.h"

namespace gpuvp::platform {

namespace {

std::string human_time(core::Picoseconds ps) {
  char buf[48];
  const double v = static_cast<double>(ps);
  if (ps >= 1000 * core::kPsPerUs * 1000) {
    std::snprintf(buf, sizeof buf, "%.3f s", v / 1e12);
  } else if (ps >= 1000 * core::kPsPerUs) {
    std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e9);
  } else if (ps >= core::kPsPerUs) {
    std::snprintf(buf, sizeof buf, "%.3f us", v / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f ns", v / 1e3);
  }
  return buf;
}

std::string human_count(const std::string& key, std::uint64_t v) {
  if (key.find("bytes") != std::string::npos) {
    char buf[32];
    if (v >= (1u << 20)) {
      std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(v) / (1 << 20));
    } else if (v >= (1u << 10)) {
      std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(v) / (1 << 10));
    } else {
      std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(v));
    }
    return buf;
  }
  if (key.size() > 3 && key.compare(key.size() - 3, 3, "_ps") == 0) return human_time(v);
  return std::to_string(v);
}

// Per-block activity: the non-zero counters and busy times of every block, grouped by the block's path.
void print_activity(std::ostream& out, const std::string& root, core::Picoseconds sim_ps) {
  // Per statistics group (the block that owns them, named below the platform): its counters, then its busy times.
  std::map<std::string, std::vector<std::string>> groups;
  const auto activity = core::stats().activity(sim_ps);
  for (const auto kind : {core::StatsRegistry::Kind::kCounter, core::StatsRegistry::Kind::kBusy}) {
    for (const auto& a : activity) {
      if (a.kind != kind || a.value == 0 || a.group.rfind(root + ".", 0) != 0) continue;
      const std::string block = a.group.substr(root.size() + 1);
      if (kind == core::StatsRegistry::Kind::kCounter) {
        groups[block].push_back(a.name + " " + human_count(a.name, a.value));
        continue;
      }
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s %.1f%%", a.name.c_str(),
                    sim_ps ? 100.0 * static_cast<double>(a.value) / static_cast<double>(sim_ps) : 0.0);
      groups[block].push_back(buf);
    }
  }
  out << "  activity:\n";
  if (groups.empty()) out << "    (none)\n";
  // Blocks five levels below the platform (each EU of the array: gen.rcs.gpgpu.subslice<N>.eu<M>) are too many to
  // read here; the statistics file has them.
  std::size_t deeper = 0;
  for (const auto& [block, items] : groups) {
    if (std::count(block.begin(), block.end(), '.') >= 4) {
      ++deeper;
      continue;
    }
    out << "    " << std::left << std::setw(13) << block << ' ';
    for (std::size_t i = 0; i < items.size(); ++i) out << (i ? ", " : "") << items[i];
    out << '\n';
  }
  if (deeper > 0) out << "    (" << deeper << " more blocks below: in the statistics file, --stats FILE)\n";
}

// The progress line is carriage-return animation: only ever on a terminal.
bool progress_wanted(const std::string& setting) {
  if (setting == "off" || ::isatty(STDERR_FILENO) == 0) return false;
  return setting == "on" || std::getenv("CI") == nullptr;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

void prepare_kernel(bool verbose) {
  core::ensure_picosecond_resolution();
  core::ReportLog::install(true, verbose);
  core::ReportLog::set_before_display(&ProgressMonitor::clear_line);
  // "Simulation stopped by user" is how every run ends: not news.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

// --dump-demo: the embedded demo as an editable script file; nothing is simulated.
int dump_demo(const RunOptions& options, const PlatformParams& params, std::ostream& out) {
  if (!options.script.empty() || !options.qtest.empty()) {
    throw std::runtime_error("--dump-demo cannot be used with --script or --qtest");
  }
  if (!options.default_workload) throw std::runtime_error("--dump-demo: this program has no embedded demo");
  std::ofstream file(options.dump_demo);
  if (!file || !(file << options.default_workload(params)) || !file.flush()) {
    throw std::runtime_error("cannot write demo script '" + options.dump_demo + "'");
  }
  if (!options.quiet) out << "demo script written to " << options.dump_demo << " (run it: gpuvp run --script FILE)\n";
  return kExitOk;
}

// --dump-fb, checked before anything is built: a file that cannot be written fails fast with exit code 2.
void check_dump_fb(const RunOptions& options, const PlatformParams& params) {
  if (options.dump_fb.empty()) return;
  const std::string& file = options.dump_fb;
  if (!options.dump_demo.empty()) throw std::runtime_error("--dump-fb cannot be used with --dump-demo (nothing runs)");
  if (!params.vc4.enabled) throw std::runtime_error("--dump-fb needs the vc4 GPU (vc4.enabled is false)");
  namespace fs = std::filesystem;
  const fs::path path(file);
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::runtime_error("--dump-fb '" + file + "' is a directory");
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) {
    throw std::runtime_error("--dump-fb '" + file + "': no directory '" + dir.string() + "'");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw std::runtime_error("--dump-fb '" + file + "': directory '" + dir.string() + "' is not writable");
  }
}

// --dump-fb after the run: the frame the vc4 tile renderer stored last (its TILE_RENDERING_MODE_CONFIG's address,
// size, format and layout), read as a debugger would. Empty, or a one-line error; `written` describes the frame.
std::string dump_frame(Platform& platform, const std::string& file, std::string& written) {
  if (platform.v3d() == nullptr) return "--dump-fb: the platform has no vc4 GPU";
  const std::optional<vc4::StoredFrame>& frame = platform.v3d()->renderer().last_frame();
  if (!frame) {
    return "--dump-fb: the vc4 tile renderer stored no frame in this run (no STORE_MS_TILE_BUFFER wrote memory)";
  }
  FramebufferImage image;
  image.format = frame->format;
  image.layout = frame->layout;
  image.width = frame->width;
  image.height = frame->height;
  image.stride = frame->layout == vc4::MemoryLayout::kLinear ? frame->stride : 0;
  const std::string what = describe_framebuffer(image) + " at " + core::format_hex(frame->address);
  if (std::string why = check_framebuffer(image); !why.empty()) {
    return "--dump-fb: the last frame, " + what + ": " + why;
  }
  const std::uint32_t address = frame->address;
  const std::string why = write_framebuffer_png(
      image,
      [&platform, address](std::uint64_t offset, std::uint8_t* data, std::size_t len) {
        return platform.debug_read_dram(address + offset, data, len);
      },
      file);
  if (!why.empty()) return "--dump-fb: the last frame, " + what + ": " + why;
  written = what;
  return {};
}

// What --stats writes (README "Statistics and timeline"): what produced the numbers (command line, configuration),
// how the run ended, the numbers, and what each of them is.
constexpr int kStatsSchemaVersion = 2;

struct RunRecord {
  core::Picoseconds sim_ps = 0;
  double wall_s = 0;
  int exit_code = 0;
  std::string result;                  // completed | failed | time_limit | wall_time_limit | stalled | interrupted
  std::string outcome;                 // the summary's outcome line
  std::vector<std::string> incidents;  // hangs and errors the blocks recorded (the summary's incidents)
};

nlohmann::json stats_document(const RunOptions& options, PlatformParams& params, const RunRecord& run,
                              const core::StatsSeries* series, const nlohmann::json& regions) {
  core::JsonParamWriter config;
  params.visit(config);
  nlohmann::json doc;
  doc["schema"] = "gpuvp-stats";
  doc["schema_version"] = kStatsSchemaVersion;
  doc["gpuvp_version"] = GPUVP_VERSION;
  doc["command_line"] = options.command_line;
  doc["config"] = config.json();
  doc["outcome"] = {{"result", run.result}, {"exit_code", run.exit_code}, {"detail", run.outcome}};
  if (!run.incidents.empty()) doc["outcome"]["incidents"] = run.incidents;
  doc["sim_time_ps"] = run.sim_ps;
  doc["wall_time_s"] = run.wall_s;
  doc["stats"] = core::stats().to_json(run.sim_ps);
  doc["metrics"] = core::stats().metrics_json();
  doc["histogram_buckets"] =
      "each histogram's \"buckets\" maps a bucket's lower bound to its sample count: bucket \"0\" counts samples of "
      "0, bucket \"2^(i-1)\" samples in [2^(i-1), 2^i); empty buckets are left out";
  if (!regions.empty()) doc["regions"] = regions;  // stats_begin / stats_end in the script
  if (series) {
    doc["series"] = series->to_json();
    doc["series"]["interval_ps"] = options.stats_interval_ns * core::kPsPerNs;
  }
  return doc;
}

// What the simulation ran: a script (file, demo or qtest peer) or a TBX session, seen alike by the summary.
struct Workload {
  std::unique_ptr<ScriptRunner> script;
  std::unique_ptr<TbxServer> tbx;
  std::unique_ptr<ChildProcess> program;  // gpuvp exec
  std::unique_ptr<AubReplay> aub;

  bool finished() const { return script ? script->finished() : aub ? aub->finished() : tbx->finished(); }
  bool failed() const { return script ? script->failed() : aub ? aub->failed() : tbx->failed(); }
  const std::string& failure() const { return script ? script->failure() : aub ? aub->failure() : tbx->failure(); }
  std::string count() const {
    if (script) return std::to_string(script->commands()) + " commands";
    if (aub) return aub->count();
    return std::to_string(tbx->requests()) + " requests";
  }
  nlohmann::json regions(core::Picoseconds end) const {
    return script ? script->interpreter().regions(end) : nlohmann::json::array();
  }
};

}  // namespace

namespace {
// Where NEO's TBX mode puts things in physical memory (compute-runtime 22.43): pages from 0x1000 upwards, never
// reused (shared/source/memory_manager/physical_address_allocator.h); the 4-level PPGTT's tables at fixed addresses
// indexed by the virtual address: PML4 at 512 MiB, PDPs from 1 GiB, PDs from 2 GiB, PTs from 4 GiB up to 4 GiB +
// 512 GiB (shared/source/aub_mem_dump/aub_mem_dump.cpp PageTableTraits<48>).
constexpr std::uint64_t kNeoPml4Base = 1ULL << 29;
constexpr std::uint64_t kNeoPdBase = 1ULL << 31;
constexpr std::uint64_t kNeoPtEnd = (1ULL << 32) + (1ULL << 39);
}  // namespace

std::string neo_memory_note(const PlatformParams& params) {
  const MemoryMap map = plan_memory_map(params);
  if (map.find(kNeoPdBase) && map.dram.back().end() >= kNeoPtEnd) return {};
  return "note: NEO keeps its GPU page tables at fixed physical addresses up to " + core::format_hex(kNeoPtEnd) +
         "; DRAM ends at " + core::format_hex(map.dram.back().end()) +
         ", so a program that runs kernels faults (--set dram.size=520GiB --set gen.gtt.physical_address_bits=40 "
         "covers them)";
}

std::vector<std::pair<std::string, std::string>> neo_environment(const PlatformParams& params, int port) {
  if (!params.gen.enabled) throw std::runtime_error("exec: the platform has no Gen GPU (gen.enabled is false)");
  // NEO's pages start at 0x1000 and must stay clear of its PML4 at 512 MiB: the device memory it may use is the DRAM
  // contiguous from 0, below the GGTT entries and below 512 MiB.
  const MemoryMap map = plan_memory_map(params);
  const DramRange* low = map.find(0);
  if (!low) throw std::runtime_error("exec: NEO places memory from physical address 0 up: dram.base must be 0");
  std::uint64_t usable = std::min(low->end(), kNeoPml4Base);
  if (map.gsm_base >= low->base && map.gsm_base < usable) usable = map.gsm_base;
  // Without a GPU driver NEO's memory manager reports 16 GiB of system memory (OsAgnosticMemoryManager::
  // getSystemSharedMemory); CL_DEVICE_GLOBAL_MEM_SIZE is that times ClDeviceGlobalMemSizeAvailablePercent.
  constexpr std::uint64_t kNeoSystemMemory = 16ULL << 30;
  const std::uint64_t percent = std::min<std::uint64_t>(usable * 100 / kNeoSystemMemory, 100);
  if (percent == 0) {
    throw std::runtime_error("exec: dram.size leaves " + std::to_string(usable >> 20) +
                             " MiB from 0 up for NEO's pages; it needs at least 1% of 16 GiB (164 MiB)");
  }
  // NEO sets up only the organisations it has tables for (shared/source/gen9/hw_info_skl.cpp and gen8/hw_info_bdw.cpp,
  // setup*HardwareInfoImpl); any other HardwareInfoOverride ends the program in UNRECOVERABLE_IF. Its thread count is
  // EUs x 7 (SKL::threadsPerEu, BDW::threadsPerEu), which sizes the scratch space it gives each hardware thread.
  const gen::GpgpuParams& org = params.gen.gpu.cs.gpgpu;
  const std::string layout = std::to_string(org.slices) + "x" + std::to_string(org.subslices_per_slice) + "x" +
                             std::to_string(org.eus_per_subslice);
  const bool gen8 = params.gen.gpu.generation == 8;
  const std::vector<std::string> layouts = gen8 ? std::vector<std::string>{"1x2x6", "1x3x6", "1x3x8", "2x3x8"}
                                                : std::vector<std::string>{"1x2x6", "1x3x6", "1x3x8", "2x3x8", "3x3x8"};
  if (std::find(layouts.begin(), layouts.end(), layout) == layouts.end()) {
    std::string list;
    for (const auto& l : layouts) list += (list.empty() ? "" : ", ") + l;
    throw std::runtime_error("exec: NEO cannot set up a " + std::string(gen8 ? "Gen8" : "Gen9") + " EU array of " +
                             layout + " (gen.gpgpu slices x subslices_per_slice x eus_per_subslice); it knows " + list);
  }
  if (org.threads_per_eu != 7) {
    throw std::runtime_error("exec: NEO sizes scratch space for 7 threads per EU; gen.gpgpu.threads_per_eu is " +
                             std::to_string(org.threads_per_eu));
  }
  return {{"NEOReadDebugKeys", "1"},
          {"SetCommandStreamReceiver", "2"},  // TBX
          {"TbxServer", "127.0.0.1"},
          {"TbxPort", std::to_string(port)},
          {"ProductFamilyOverride", params.gen.gpu.generation == 8 ? "bdw" : "skl"},
          {"HardwareInfoOverride", layout},
          {"ClDeviceGlobalMemSizeAvailablePercent", std::to_string(percent)}};
}

int run_simulation(const RunOptions& options, std::ostream& out) {
  const bool exec = !options.exec_command.empty();
  if ((!options.script.empty()) + (!options.qtest.empty()) + (!options.tbx.empty()) + (!options.aub.empty()) + exec >
      1) {
    throw std::runtime_error("--script, --qtest, --tbx and --aub cannot be used together");
  }
  if ((!options.aub_dumps.empty() || !options.aub_dump_dir.empty()) && options.aub.empty()) {
    throw std::runtime_error(std::string(options.aub_dumps.empty() ? "--aub-dump-dir" : "--aub-dump") +
                             " needs --aub FILE");
  }
  if (!options.aub_dump_dir.empty() && !std::filesystem::is_directory(options.aub_dump_dir)) {
    throw std::runtime_error("--aub-dump-dir '" + options.aub_dump_dir + "' is not a directory");
  }
  const bool stats_to_stdout = options.stats_file == "-";
  if (stats_to_stdout && exec) {
    throw std::runtime_error("--stats - and the program both write to stdout: give --stats a file name");
  }
  if (!(options.max_wall_time_s >= 0) || options.max_wall_time_s > 1e9) {
    throw std::runtime_error("--max-wall-time must be a positive duration of at most 1e9 s");
  }
  if (options.stats_interval_ns != 0 && options.stats_file.empty()) {
    throw std::runtime_error("--stats-interval needs --stats FILE (the time series goes into the statistics)");
  }
  if (stats_to_stdout && !options.script.empty()) {
    throw std::runtime_error("--stats - and --script both write to stdout: give --stats a file name");
  }
  // First, so that a signal while waiting for a qtest peer ends the run as cleanly as one later.
  install_stop_signals();
  // The host time of the whole run counts, a wait for a qtest peer included.
  if (options.max_wall_time_s > 0) arm_wall_time_limit(options.max_wall_time_s);
  // exec's and an AUB replay's platform reaches NEO's page tables (up to 516 GiB; the DRAM is sparse, so only touched
  // pages cost host memory) unless the configuration says otherwise.
  const std::vector<std::string> neo_defaults{"dram.size=520GiB", "gen.gtt.physical_address_bits=40"};
  const bool neo = exec || !options.aub.empty();
  PlatformParams params =
      load_platform_params(options.config_files, options.overrides, neo ? neo_defaults : std::vector<std::string>{});
  check_dump_fb(options, params);
  if (!options.dump_demo.empty()) return dump_demo(options, params, out);
  prepare_kernel(options.verbose);

  // Open every host file before building anything, so a bad path fails fast with exit code 2.
  std::unique_ptr<LineChannel> channel;
  std::string workload, base_dir;
  if (!options.script.empty()) {
    channel = StreamChannel::open_file(options.script, true);
    workload = "script " + options.script;
    base_dir = options.script_base.empty() ? std::filesystem::path(options.script).parent_path().string()
                                           : options.script_base;
  } else if (!options.qtest.empty()) {
    auto socket = std::make_unique<SocketChannel>(options.qtest);
    socket->accept_peer();
    channel = std::move(socket);
    workload = "qtest " + options.qtest;
  } else if (!options.tbx.empty() || exec) {
    // The TBX server needs the platform: it starts listening below.
  } else if (!options.aub.empty()) {
    // The whole file is checked first: a malformed one stops here, before anything runs (exit code 2).
    const AubSummary summary = check_aub_file(options.aub);
    workload = "aub " + options.aub;
    if (summary.device != 0) workload += " (AUB device " + std::to_string(summary.device) + ")";
  } else {
    if (!options.default_workload) throw std::runtime_error("no workload: give --script FILE or --qtest ADDRESS");
    channel = StreamChannel::from_text(options.default_workload(params), "demo", false);
    workload = "demo (embedded default workload)";
  }
  if (!options.trace_file.empty()) core::timeline().open(options.trace_file);

  std::vector<AubDump> aub_dumps;
  for (const auto& spec : options.aub_dumps) aub_dumps.push_back(parse_aub_dump(spec));

  Platform platform("gpuvp", params);
  Workload runner;
  if (!options.aub.empty()) {
    runner.aub = std::make_unique<AubReplay>("aub", platform, options.aub);
    runner.aub->set_dump_directory(options.aub_dump_dir);
  } else if (channel) {
    runner.script = std::make_unique<ScriptRunner>("host_cpu", platform, std::move(channel), base_dir);
  } else {
    runner.tbx = std::make_unique<TbxServer>("tbx", platform, exec ? "tcp:127.0.0.1:0" : options.tbx);
    const std::string address = "tcp:127.0.0.1:" + std::to_string(runner.tbx->port());
    if (exec) {
      const auto environment = neo_environment(params, runner.tbx->port());
      const std::string note = neo_memory_note(params);
      if (!note.empty() && !options.quiet) std::cerr << "gpuvp: exec: " << note << std::endl;
      runner.program = std::make_unique<ChildProcess>(options.exec_command, environment);
      runner.tbx->set_client_exited([&runner] { return runner.program->exited(); });
      workload = "exec " + options.exec_command.front() + " (TBX server " + address + ")";
    } else {
      workload = "tbx " + options.tbx;
      // The port to give NEO (TbxPort), which port 0 chose.
      std::cerr << "gpuvp: tbx server listening on " << options.tbx << " (port " << runner.tbx->port() << ")"
                << std::endl;
    }
  }
  // Checks for a stop signal at every quantum boundary (every microsecond without a quantum).
  const core::Picoseconds check_interval =
      params.sim.quantum_ns ? params.sim.quantum_ns * core::kPsPerNs : core::kPsPerUs;
  ProgressMonitor monitor("monitor", check_interval, progress_wanted(params.sim.progress));

  core::StatsSeries series;
  const bool sampled = options.stats_interval_ns != 0;
  if (sampled) {
    monitor.sample_every(options.stats_interval_ns * core::kPsPerNs,
                         [&series](core::Picoseconds at) { series.sample(core::stats(), at); });
  }

  // The simulated-time limit: sim.time_limit_ns or --max-sim-time, whichever comes first.
  std::uint64_t time_limit_ns = params.sim.time_limit_ns;
  const bool cli_time_limit =
      options.max_sim_time_ns != 0 && (time_limit_ns == 0 || options.max_sim_time_ns < time_limit_ns);
  if (cli_time_limit) time_limit_ns = options.max_sim_time_ns;

  const auto wall_start = std::chrono::steady_clock::now();
  try {
    if (time_limit_ns) {
      sc_core::sc_start(core::to_sc_time(time_limit_ns * core::kPsPerNs));
    } else {
      sc_core::sc_start();
    }
  } catch (const sc_core::sc_report& bug) {
    // A model error (guest mistakes never throw): the simulation cannot go on, and no statistics would be trusted.
    std::cerr << "gpuvp: internal error (a bug in gpuvp): " << bug.get_msg_type() << ": " << bug.get_msg() << '\n';
    return kExitRunFailed;
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  monitor.finish();
  if (runner.program) {
    // A program still running (the run stopped early: a signal, the time limit) gets the signal that stopped the run
    // or SIGTERM (with its connections closed NEO retries for ever), then 10 s to end.
    const int stop = stop_signal();
    if (!runner.tbx->finished()) runner.program->signal(stop == SIGINT || stop == SIGTERM ? stop : SIGTERM);
    runner.tbx->close_connections();
    runner.program->wait(10'000);
  }
  // After an AUB replay: the memory the user asked for (host debug reads: no simulated time).
  std::string dump_error;
  if (runner.aub && !runner.aub->failed()) {
    for (const auto& dump : aub_dumps) {
      dump_error = runner.aub->write_dump(dump);
      if (!dump_error.empty()) break;
    }
  }
  // The frame, whatever the outcome: a failed run's last frame is what a debugging user wants to see.
  std::string frame_error, frame_written;
  if (!options.dump_fb.empty()) frame_error = dump_frame(platform, options.dump_fb, frame_written);
  const core::Picoseconds sim_ps = core::now_ps();
  core::stats().finish_run(sim_ps);
  core::timeline().close();
  if (sampled && (series.samples() == 0 || series.last_sample_ps() < sim_ps)) series.sample(core::stats(), sim_ps);

  // Every report, shown or suppressed past sim.guest_report_limit.
  const std::uint64_t suppressed =
      core::suppressed_guest_reports(sc_core::SC_ERROR) + core::suppressed_guest_reports(sc_core::SC_WARNING);
  const std::uint64_t errors =
      core::ReportLog::count(sc_core::SC_ERROR) + core::suppressed_guest_reports(sc_core::SC_ERROR);
  const std::uint64_t warnings =
      core::ReportLog::count(sc_core::SC_WARNING) + core::suppressed_guest_reports(sc_core::SC_WARNING);
  RunRecord record;
  record.sim_ps = sim_ps;
  record.wall_s = wall_s;
  record.exit_code = kExitOk;
  record.result = "completed";
  record.outcome = "completed";
  const int stop = stop_signal();
  if (stop == SIGALRM) {
    record.exit_code = kExitRunFailed;
    record.result = "wall_time_limit";
    char limit[48];
    std::snprintf(limit, sizeof limit, "%g", options.max_wall_time_s);
    record.outcome = std::string("stopped at the wall-time limit (--max-wall-time ") + limit +
                     " s of host time), workload unfinished (results up to the stop)";
  } else if (stop != 0) {
    record.exit_code = kExitSignalBase + stop;
    record.result = "interrupted";
    record.outcome = std::string("interrupted by ") + signal_name(stop) + " (results up to the stop)";
  } else if (runner.failed()) {
    record.exit_code = kExitRunFailed;
    record.result = "failed";
    record.outcome = "FAILED: " + runner.failure();
  } else if (!runner.finished() && time_limit_ns && sim_ps >= time_limit_ns * core::kPsPerNs) {
    // The workload did not get to its end (its remaining checks never ran): not a success.
    record.exit_code = kExitRunFailed;
    record.result = "time_limit";
    record.outcome = "stopped at the time limit (" +
                     (cli_time_limit ? "--max-sim-time " + human_time(time_limit_ns * core::kPsPerNs)
                                     : "sim.time_limit_ns = " + std::to_string(time_limit_ns)) +
                     "), workload unfinished";
  } else if (!runner.finished()) {
    record.exit_code = kExitRunFailed;
    record.result = "stalled";
    record.outcome = "stopped: the workload waits for something that never happens";
  } else if (errors) {
    record.exit_code = kExitRunFailed;
    record.result = "failed";
    record.outcome = "completed with model errors";
  }
  if (runner.program) {
    // gpuvp exec exits with the program's status, or the model's when the program succeeded or the model ended the
    // run first (a signal, the time limit).
    const int program_status = runner.program->exit_code();
    record.outcome += "; " + runner.program->program() + " exited with status " + std::to_string(program_status);
    if (program_status != 0 && runner.finished()) record.exit_code = program_status;
  }
  if (platform.gen()) record.incidents = platform.gen()->incidents();
  if (platform.v3d()) {
    const auto v3d = platform.v3d()->incidents();
    record.incidents.insert(record.incidents.end(), v3d.begin(), v3d.end());
  }
  const int status = record.exit_code;
  const nlohmann::json regions = runner.regions(sim_ps);
  const std::string& outcome = record.outcome;

  if (stats_to_stdout) {
    out << stats_document(options, params, record, sampled ? &series : nullptr, regions).dump(2) << '\n';
  } else if (!options.stats_file.empty()) {
    std::ofstream f(options.stats_file);
    if (!f || !(f << stats_document(options, params, record, sampled ? &series : nullptr, regions).dump(2) << '\n')) {
      // Reported here rather than thrown: after sc_start the SystemC coroutines have run, and unwinding through
      // sc_main then confuses AddressSanitizer's view of the stack.
      std::cerr << "gpuvp: error: cannot write statistics file '" << options.stats_file << "'\n";
      return kExitBadInput;
    }
  }

  // stdout holds one kind of output: the script's answers, the statistics, or else the summary.
  std::ostream& summary = stats_to_stdout || !options.script.empty() || exec ? std::cerr : out;
  if (!options.quiet) {
    summary << "gpuvp run summary\n"
            << "  workload:       " << workload << " (" << runner.count() << ")\n"
            << "  outcome:        " << outcome << '\n'
            << "  simulated time: " << human_time(sim_ps) << '\n';
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.3f s", wall_s);
    summary << "  wall time:      " << buf << '\n';
    std::snprintf(buf, sizeof buf, "%.3f simulated us per host second",
                  wall_s > 0 ? static_cast<double>(sim_ps) / 1e6 / wall_s : 0.0);
    summary << "  speed:          " << buf << '\n';
    print_activity(summary, platform.name(), sim_ps);
    if (!record.incidents.empty()) {
      summary << "  incidents:\n";
      for (const auto& i : record.incidents) summary << "    " << i << '\n';
    }
    summary << "  reports:        " << errors << " errors, " << warnings << " warnings";
    if (suppressed) summary << " (" << suppressed << " not shown, past sim.guest_report_limit)";
    summary << '\n';
    if (!options.stats_file.empty()) {
      summary << "  statistics:     " << (stats_to_stdout ? "stdout" : options.stats_file) << '\n';
    }
    if (!options.trace_file.empty()) {
      summary << "  trace:          " << options.trace_file << " (open in ui.perfetto.dev or chrome://tracing)\n";
    }
    if (!frame_written.empty()) summary << "  frame:          " << options.dump_fb << " (" << frame_written << ")\n";
  }
  out.flush();
  summary.flush();
  if (stop == SIGALRM) {
    std::cerr << "gpuvp: stopped at the wall-time limit at " << human_time(sim_ps) << " of simulated time\n";
  } else if (stop != 0) {
    std::cerr << "gpuvp: interrupted by " << signal_name(stop) << " at " << human_time(sim_ps) << '\n';
  } else if (runner.aub && runner.aub->failed()) {
    // The file changed or became unreadable after it was checked: host input, as a malformed file is.
    std::cerr << "gpuvp: error: " << runner.failure() << '\n';
    return kExitBadInput;
  } else if (!dump_error.empty()) {
    std::cerr << "gpuvp: error: " << dump_error << '\n';
    return kExitBadInput;
  } else if (runner.failed()) {
    std::cerr << "gpuvp: " << runner.failure() << '\n';
  }
  if (!frame_error.empty()) {
    // Asked for a picture the run did not leave (or a file that cannot be written): the run's own failure, if any,
    // keeps its exit code.
    std::cerr << "gpuvp: error: " << frame_error << '\n';
    if (status == kExitOk) return kExitBadInput;
  }
  return status;
}

int print_platform_info(const std::vector<std::string>& config_files, const std::vector<std::string>& overrides,
                        bool json, std::ostream& out) {
  PlatformParams params = load_platform_params(config_files, overrides);
  prepare_kernel(false);
  Platform platform("gpuvp", params);
  const nlohmann::json info = platform.describe();
  if (json) {
    out << info.dump(2) << '\n';
    return kExitOk;
  }
  out << "gpuvp platform\n\nmemory map (" << info["memory_map"]["name"].get<std::string>() << ", "
      << info["memory_map"]["clock_hz"].get<std::uint64_t>() / 1'000'000 << " MHz):\n";
  for (const auto& w : info["memory_map"]["windows"]) {
    out << "  " << std::left << std::setw(26) << (w["base"].get<std::string>() + "-" + w["end"].get<std::string>())
        << std::setw(8) << w["name"].get<std::string>() << " size " << w["size"].get<std::string>();
    // A second window onto a target (DRAM remapped above 4 GiB) says which target and where inside it.
    if (w["target"] != w["name"]) {
      out << ", " << w["target"].get<std::string>() << " from " << w["target_offset"].get<std::string>();
    }
    out << ", hop " << w["hop_latency_cycles"] << " cycles, " << w["bytes_per_cycle"] << " B/cycle\n";
  }
  out << "\ninterrupt lines to the host:\n";
  for (const auto& irq : info["interrupts"]) {
    out << "  " << irq["index"] << " " << irq["name"].get<std::string>() << '\n';
  }
  for (const auto& block : info["blocks"]) {
    out << "\nblock " << block["name"].get<std::string>() << " (" << block["size"].get<std::string>() << " bytes, "
        << block["clock_hz"].get<std::uint64_t>() / 1'000'000 << " MHz):\n";
    if (block["registers"].empty()) out << "  no registers modelled yet: accesses read 0 and warn\n";
    for (const auto& r : block["registers"]) {
      out << "  " << std::left << std::setw(8) << r["offset"].get<std::string>() << std::setw(16)
          << r["name"].get<std::string>() << std::setw(7) << r["access"].get<std::string>() << " reset "
          << r["reset"].get<std::string>() << "  " << r["description"].get<std::string>() << '\n';
    }
  }
  if (params.gen.enabled && params.gen.gpu.guc.enabled) {
    out << "\nGuC firmware: " << firmware::default_firmware_path() << " (signed with the TEST key; symbols in "
        << firmware::default_firmware_elf_path() << ")\n";
  }
  core::YamlDocWriter doc;
  params.visit(doc);
  out << "\nconfiguration (YAML, current values):\n" << doc.text();
  return kExitOk;
}

}  // namespace gpuvp::platform
