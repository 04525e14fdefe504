#include "tlm/core/report.h"

#include <algorithm>
#include <cstdio>

namespace gpuvp::core {

namespace {
bool g_display = true;
bool g_verbose = false;
void (*g_before_display)() = nullptr;
std::vector<ReportRecord> g_records;

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
  const std::string text = std::string(who) + ": " + msg;
  sc_core::sc_report_handler::report(severity, kGuestMsgType, text.c_str(), file, line);
}

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

void ReportLog::clear() { g_records.clear(); }

}  // namespace gpuvp::core
