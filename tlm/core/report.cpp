#include "tlm/core/report.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <tuple>

#include "tlm/core/stats.h"

namespace gpuvp::core {

namespace {
bool g_display = true;
bool g_verbose = false;
void (*g_before_display)() = nullptr;
std::vector<ReportRecord> g_records;

// Guest reports seen per kind: block, severity, source file and line, and the message's shape (its text without the
// numbers, so "FLUSH at 0x10001" and "FLUSH_ALL_STATE at 0x10002" differ but two unmapped offsets do not). Past
// kMaxGuestKinds kinds, new ones are told apart by their source line only: the map stays bounded however the guest
// varies its mistakes.
using GuestKind = std::tuple<std::string, int, std::string, int, std::string>;
constexpr std::size_t kMaxGuestKinds = 4096;
std::map<GuestKind, std::uint64_t> g_guest_seen;

std::string shape_of(const std::string& msg) {
  std::string shape;
  shape.reserve(msg.size());
  for (std::size_t i = 0; i < msg.size(); ++i) {
    if (msg.compare(i, 2, "0x") == 0) {
      for (i += 2; i < msg.size() && std::isxdigit(static_cast<unsigned char>(msg[i])); ++i) {
      }
      shape += '#';
      if (i < msg.size()) shape += msg[i];
    } else if (std::isdigit(static_cast<unsigned char>(msg[i]))) {
      while (i + 1 < msg.size() && std::isdigit(static_cast<unsigned char>(msg[i + 1]))) ++i;
      shape += '#';
    } else {
      shape += msg[i];
    }
  }
  return shape;
}
std::uint64_t g_guest_limit = kDefaultGuestReportLimit;
std::uint64_t g_suppressed[sc_core::SC_MAX_SEVERITY] = {};
Counter* g_suppressed_counter = nullptr;

const char* severity_name(sc_core::sc_severity severity) {
  switch (severity) {
    case sc_core::SC_INFO:
      return "info";
    case sc_core::SC_WARNING:
      return "warning";
    case sc_core::SC_ERROR:
      return "error";
    default:
      return "fatal";
  }
}

// Source paths as the build passed them; shown relative to the source tree.
std::string source_relative(const char* file) {
  std::string path = file ? file : "";
#ifdef GPUVP_SOURCE_ROOT
  const std::string root = GPUVP_SOURCE_ROOT;
  if (path.compare(0, root.size(), root) == 0) path.erase(0, root.size());
#endif
  // ccache's base_dir turns the compiler's paths relative to the build directory ("../../tlm/core/bus.cpp").
  while (path.compare(0, 3, "../") == 0) path.erase(0, 3);
  return path;
}

void log_handler(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  if (report.get_severity() >= sc_core::SC_WARNING) {
    ReportRecord record{report.get_severity(), report.get_msg_type(), report.get_msg_type(), report.get_msg()};
    // A guest report reads "<block>: <text>"; SystemC object names never contain ": ".
    const std::size_t colon = record.message.find(": ");
    if (record.guest() && colon != std::string::npos) {
      record.source = record.message.substr(0, colon);
      record.message.erase(0, colon + 2);
    }
    g_records.push_back(std::move(record));
  }
  if (g_display && (actions & sc_core::SC_DISPLAY)) {
    if (g_before_display) g_before_display();
    const std::string line = format_report(report, g_verbose) + '\n';
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
  }
  // Everything else (stop, abort, throw, the log file) as SystemC does it.
  sc_core::sc_report_handler::default_handler(report, actions & ~static_cast<sc_core::sc_actions>(sc_core::SC_DISPLAY));
}
}  // namespace

std::string format_report(const sc_core::sc_report& report, bool verbose) {
  std::string line = severity_name(report.get_severity());
  line += " at " + report.get_time().to_string() + ": ";
  // A guest report's message already starts with the block's name.
  if (std::string(report.get_msg_type()) != kGuestMsgType) line += std::string(report.get_msg_type()) + ": ";
  // One line per report, whatever the message holds.
  for (const char c : std::string(report.get_msg())) {
    if (c == '\n') {
      line += " | ";
    } else if (c != '\r') {
      line += c;
    }
  }
  if (verbose) {
    line += " [" + source_relative(report.get_file_name()) + ":" + std::to_string(report.get_line_number());
    const char* process = report.get_process_name();
    if (process && *process) line += std::string(", process ") + process;
    line += "]";
  }
  return line;
}

void report_guest(sc_core::sc_severity severity, const char* who, const std::string& msg, const char* file, int line) {
  // The model's own actions for its own message type (per type and severity, which SystemC ranks above the
  // per-severity defaults): logged, displayed and counted, never a throw.
  static const bool actions_set = [] {
    sc_core::sc_report_handler::set_actions(kGuestMsgType, sc_core::SC_ERROR,
                                            sc_core::SC_LOG | sc_core::SC_DISPLAY | sc_core::SC_CACHE_REPORT);
    sc_core::sc_report_handler::set_actions(kGuestMsgType, sc_core::SC_WARNING, sc_core::SC_LOG | sc_core::SC_DISPLAY);
    return true;
  }();
  (void)actions_set;
  std::string text = std::string(who) + ": " + msg;
  if (g_guest_limit != 0) {
    GuestKind kind{who, severity, file ? file : "", line, shape_of(msg)};
    if (g_guest_seen.size() >= kMaxGuestKinds && g_guest_seen.count(kind) == 0) std::get<4>(kind).clear();
    const std::uint64_t seen = ++g_guest_seen[kind];
    if (seen > g_guest_limit + 1) {
      ++g_suppressed[severity];
      if (g_suppressed_counter) ++*g_suppressed_counter;
      return;
    }
    if (seen == g_guest_limit + 1) {
      text = std::string(who) + ": further reports like this one are suppressed after " +
             std::to_string(g_guest_limit) + " (sim.guest_report_limit; the run summary counts them): " + msg;
    }
  }
  sc_core::sc_report_handler::report(severity, kGuestMsgType, text.c_str(), file, line);
}

void keep_incident(std::vector<std::string>& incidents, std::string text) {
  if (incidents.size() < kMaxIncidents) {
    incidents.push_back(std::move(text));
  } else if (incidents.size() == kMaxIncidents) {
    incidents.emplace_back("(further incidents not listed: the statistics count them)");
  }
}

void set_guest_report_limit(std::uint64_t limit) { g_guest_limit = limit; }
std::uint64_t guest_report_limit() { return g_guest_limit; }
std::uint64_t suppressed_guest_reports(sc_core::sc_severity severity) { return g_suppressed[severity]; }
void set_suppressed_counter(Counter* counter) { g_suppressed_counter = counter; }

void ReportLog::install(bool display, bool verbose) {
  g_display = display;
  g_verbose = verbose;
  sc_core::sc_report_handler::set_handler(log_handler);
}

void ReportLog::set_before_display(void (*hook)()) { g_before_display = hook; }

std::vector<ReportRecord>& ReportLog::records() { return g_records; }

std::size_t ReportLog::count(sc_core::sc_severity severity) {
  return static_cast<std::size_t>(
      std::count_if(g_records.begin(), g_records.end(), [&](const ReportRecord& r) { return r.severity == severity; }));
}

std::vector<ReportRecord> ReportLog::take(sc_core::sc_severity severity, const std::string& text) {
  std::vector<ReportRecord> taken;
  auto keep = std::stable_partition(g_records.begin(), g_records.end(), [&](const ReportRecord& r) {
    return !(r.severity == severity && r.message.find(text) != std::string::npos);
  });
  taken.assign(keep, g_records.end());
  g_records.erase(keep, g_records.end());
  return taken;
}

void ReportLog::clear() {
  g_records.clear();
  g_guest_seen.clear();
  for (auto& n : g_suppressed) n = 0;
}

}  // namespace gpuvp::core
